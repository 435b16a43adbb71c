"""``pydotprint``: a graph drawn by Graphviz (PNG, SVG, PDF...), or written as DOT text.

Drawing needs Graphviz's ``dot`` program (``apt-get install graphviz``, ``brew install
graphviz``, ``conda install graphviz``); without it a DOT file can still be written.
"""

from __future__ import annotations

import shutil
import subprocess
from typing import Any

from arignote.graph.basic import Constant, io_toposort
from arignote.printing.debug import graph_of

NO_DOT_MESSAGE = (
    "pydotprint needs Graphviz's `dot` program to draw {fmt} files, and it was not found on "
    "PATH. Install Graphviz (apt-get install graphviz, brew install graphviz or conda install "
    "graphviz; see https://graphviz.org/download/) or pip install 'arignote[drawing]' (which "
    "brings graphviz-pure), or write DOT text instead with outfile='graph.dot'."
)


class GraphvizNotFoundError(RuntimeError):
    """Graphviz's ``dot`` program is needed to draw a graph and is not installed."""


def graph_to_dot(obj: Any, var_with_name_simple: bool = False) -> str:
    """The graph in Graphviz DOT format (ellipses for variables, boxes for apply nodes).

    With ``var_with_name_simple`` a named variable is labelled by its name alone; otherwise
    by its name (or description) and type.
    """
    variables, fgraph = graph_of(obj)
    inputs = fgraph.inputs if fgraph is not None else []
    order = io_toposort(inputs, variables)
    names: dict = {}

    def node_id(item: Any) -> str:
        return names.setdefault(item, f"n{len(names)}")

    lines = ["digraph G {"]
    seen = {v for node in order for v in (*node.inputs, *node.outputs)} | set(variables)
    for var in sorted(seen, key=lambda v: node_id(v)):
        label = var.name if (var_with_name_simple and var.name) else f"{var} {var.type}"
        shape = "box, style=filled, fillcolor=lightgrey" if isinstance(var, Constant) else "ellipse"
        lines.append(f'  {node_id(var)} [label="{_escape(label)}", shape={shape}];')
    for node in order:
        lines.append(
            f'  {node_id(node)} [label="{_escape(str(node.op))}", shape=box, '
            "style=filled, fillcolor=lightblue];"
        )
        for i, inp in enumerate(node.inputs):
            label = f' [label="{i}"]' if len(node.inputs) > 1 else ""
            lines.append(f"  {node_id(inp)} -> {node_id(node)}{label};")
        for out in node.outputs:
            lines.append(f"  {node_id(node)} -> {node_id(out)};")
    lines.append("}")
    return "\n".join(lines)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def render_dot(dot: str, fmt: str) -> bytes:
    """``dot`` rendered by Graphviz in format ``fmt`` (png, svg, pdf...).

    Graphviz's own ``dot`` program is used when installed; otherwise ``graphviz-pure`` (a port
    of it installed from PyPI by the ``drawing`` extra, the same command line), so that
    drawing works where no system package can be installed.
    """
    program = shutil.which("dot") or shutil.which("graphviz-pure")
    if program is None:
        raise GraphvizNotFoundError(NO_DOT_MESSAGE.format(fmt=fmt.upper()))
    done = subprocess.run(
        [program, f"-T{fmt}"], input=dot.encode(), capture_output=True, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"Graphviz failed to draw the graph: {done.stderr.decode().strip()}")
    return done.stdout


def pydotprint(
    fct: Any,
    outfile: str | None = None,
    format: str = "png",
    var_with_name_simple: bool = False,
    print_output_file: bool = True,
    return_image: bool = False,
    **kwargs: Any,
) -> Any:
    """Draw the graph of a variable, list of variables or compiled function.

    Parameters
    ----------
    fct
        What to draw.
    outfile
        The file to write; its extension picks the format (``graph.svg``), else ``format``.
        A ``.dot`` file gets the DOT text and needs no Graphviz.
    format
        png, svg, pdf or any other format of Graphviz's ``dot``.
    var_with_name_simple
        Label named variables by their name alone.
    print_output_file
        Print where the file was written.
    return_image
        Return the drawing's bytes instead of writing a file.

    Raises
    ------
    GraphvizNotFoundError
        When a drawing is asked for and Graphviz's ``dot`` is not installed.
    """
    dot = graph_to_dot(fct, var_with_name_simple)
    if outfile is None:
        outfile = f"arignote_graph.{format}"
    extension = outfile.rsplit(".", 1)[-1] if "." in outfile else format
    if return_image:
        return dot.encode() if extension == "dot" else render_dot(dot, extension)
    if extension == "dot":
        with open(outfile, "w") as handle:
            handle.write(dot + "\n")
    else:
        image = render_dot(dot, extension)
        with open(outfile, "wb") as handle:
            handle.write(image)
    if print_output_file:
        print(f"The output file is available at {outfile}")
    return outfile
