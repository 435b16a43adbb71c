"""Printing graphs: ``debugprint`` (a tree with ids), ``pprint`` (infix math), ``pydotprint``."""

from __future__ import annotations

import string
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from arignote.graph.basic import Apply, Constant, Variable, io_toposort
from arignote.graph.fg import FunctionGraph
from arignote.graph.op import HasInnerGraph, Op
from arignote.scalar.basic import ScalarOp
from arignote.tensor.basic import as_tensor_variable


def _ids(kind: str):
    """Generator of printable ids: "A".."Z", "BA".. for CHAR; or numbers; or Python ids."""
    count = 0
    while True:
        if kind == "CHAR":
            digits, n = [], count
            while True:
                digits.append(string.ascii_uppercase[n % 26])
                n //= 26
                if n == 0:
                    break
            yield "".join(reversed(digits))
        else:
            yield str(count)
        count += 1


def _graph_of(obj: Any) -> tuple[list[Variable], FunctionGraph | None]:
    if isinstance(obj, Variable):
        return [obj], None
    if isinstance(obj, Apply):
        return list(obj.outputs), None
    if isinstance(obj, FunctionGraph):
        return list(obj.outputs), obj
    maker = getattr(obj, "maker", None)
    if maker is not None and isinstance(getattr(maker, "fgraph", None), FunctionGraph):
        return list(maker.fgraph.outputs), maker.fgraph
    if isinstance(obj, (list, tuple)):
        variables: list[Variable] = []
        fgraph = None
        for item in obj:
            more, fg = _graph_of(item)
            variables.extend(more)
            fgraph = fgraph or fg
        return variables, fgraph
    raise TypeError(f"debugprint cannot print {type(obj).__name__} ({obj!r})")


class _Printer:
    def __init__(
        self,
        ids: str,
        depth: int,
        print_type: bool,
        stop_on_name: bool,
        positions: dict | None,
        print_destroy_map: bool,
        print_view_map: bool,
    ) -> None:
        self.names: dict = {}
        self.id_source = _ids(ids)
        self.ids = ids
        self.depth = depth
        self.print_type = print_type
        self.stop_on_name = stop_on_name
        self.positions = positions
        self.print_destroy_map = print_destroy_map
        self.print_view_map = print_view_map
        self.expanded: set = set()
        self.lines: list[str] = []
        self.labels: dict[Variable, str] = {}  # inner-graph inputs, printed as *k-<type>
        self.inner_nodes: list[Apply] = []  # nodes whose op carries a graph, in print order

    def ident(self, obj: Any) -> str:
        if self.ids == "":
            return ""
        if self.ids == "id":
            return f" [id {id(obj)}]"
        if obj not in self.names:
            self.names[obj] = next(self.id_source)
        return f" [id {self.names[obj]}]"

    def describe(self, var: Variable) -> str:
        node = var.owner
        type_text = f" <{var.type}>" if self.print_type else ""
        if var in self.labels:
            return f"{self.labels[var]}{self.ident(var)}"
        if node is None:
            return f"{var}{self.ident(var)}{type_text}"
        op_text = str(node.op)
        if len(node.outputs) > 1:
            op_text += f".{var.index}"
        ident = self.ident(var if len(node.outputs) > 1 else node)
        text = f"{op_text}{ident}{type_text} '{var.name or ''}'"
        if self.print_destroy_map and getattr(node.op, "destroy_map", None):
            text += f" d={dict(node.op.destroy_map)}"
        if self.print_view_map and getattr(node.op, "view_map", None):
            text += f" v={dict(node.op.view_map)}"
        if self.positions is not None and node in self.positions:
            text += f"   {self.positions[node]}"
        return text

    def visit(self, var: Variable, prefix: str, child_prefix: str, level: int) -> None:
        self.lines.append(prefix + self.describe(var))
        node = var.owner
        if node is None or (self.depth >= 0 and level + 1 >= self.depth):
            return
        if self.stop_on_name and var.name is not None and level > 0:
            return
        key = node
        if key in self.expanded:
            return
        self.expanded.add(key)
        if _shows_inner_graph(node.op):
            self.inner_nodes.append(node)
        for i, inp in enumerate(node.inputs):
            last = i == len(node.inputs) - 1
            self.visit(inp, child_prefix + " |", child_prefix + ("  " if last else " |"), level + 1)


def debugprint(
    obj: Any,
    depth: int = -1,
    print_type: bool = False,
    file: TextIO | str | None = None,
    ids: str = "CHAR",
    stop_on_name: bool = False,
    done: dict | None = None,
    print_storage: bool = False,
    used_ids: dict | None = None,
    print_op_info: bool = False,
    print_destroy_map: bool = False,
    print_view_map: bool = False,
    print_fgraph_inputs: bool = False,
) -> Any:
    """Print the graph of a variable, node, list of variables, FunctionGraph or function.

    Each line shows an op (or a leaf variable), its id (``[id A]``; a node printed twice is
    expanded only once), and its output's name in quotes; for compiled graphs, the position of
    the node in the execution order follows. ``file="str"`` returns the text instead of
    printing it; ``ids`` is "CHAR", "int", "id" or "" (no ids).
    """
    variables, fgraph = _graph_of(obj)
    positions = None
    if fgraph is not None:
        positions = {node: i for i, node in enumerate(fgraph.toposort())}
    printer = _Printer(
        ids, depth, print_type, stop_on_name, positions, print_destroy_map, print_view_map
    )
    if print_fgraph_inputs and fgraph is not None:
        for inp in fgraph.inputs:
            printer.lines.append("-> " + printer.describe(inp))
    for var in variables:
        printer.visit(var, "", "", 0)
    _print_inner_graphs(printer)
    text = "\n".join(printer.lines)
    if file == "str":
        return text
    stream = sys.stdout if file is None else file
    stream.write(text + "\n")
    return stream


dprint = debugprint


def _shows_inner_graph(op: Any) -> bool:
    # Fused scalar Composites are shown by their own string; graph ops get their own section.
    return isinstance(op, HasInnerGraph) and not isinstance(op, ScalarOp)


def _print_inner_graphs(printer: _Printer) -> None:
    """After the graph: each inner graph met (nested ones too), outputs marked ``>``."""
    done: set = set()
    position = 0
    while position < len(printer.inner_nodes):
        node = printer.inner_nodes[position]
        position += 1
        if node.op in done:
            continue
        done.add(node.op)
        if len(done) == 1:
            printer.lines += ["", "Inner graphs:"]
        printer.lines += [
            "",
            f"{node.op}{printer.ident(node.outputs[0] if len(node.outputs) > 1 else node)}",
        ]
        for k, inp in enumerate(node.op.inner_inputs):
            printer.labels.setdefault(inp, f"*{k}-<{inp.type}>")
        for out in node.op.inner_outputs:
            printer.visit(out, " > ", "   ", 0)


# -- pprint -----------------------------------------------------------------------------------

_INFIX = {
    "add": ("+", 1),
    "sub": ("-", 1),
    "mul": ("*", 2),
    "true_div": ("/", 2),
    "int_div": ("//", 2),
    "mod": ("%", 2),
    "pow": ("**", 3),
    "lt": ("<", 0),
    "gt": (">", 0),
    "le": ("<=", 0),
    "ge": (">=", 0),
    "eq": ("==", 0),
    "neq": ("!=", 0),
}


def _scalar_name(op: Any) -> str | None:
    scalar_op = getattr(op, "scalar_op", None)
    return None if scalar_op is None else str(scalar_op)


def pprint(obj: Any) -> str:
    """A one-line mathematical rendering of a graph: ``((x * 2.0) + exp(y))``."""
    variables, _ = _graph_of(obj)
    memo: dict = {}
    lines = [_pformat(v, memo) for v in variables]
    return "\n".join(lines + _pformat_inner_graphs(memo))


def _pformat_inner_graphs(memo: dict) -> list[str]:
    """``op := [inner outputs]`` for every op with an inner graph met while printing (nested
    ones too), so that a loop's body is shown with the loop."""
    lines, seen = [], set()
    pending = [v.owner for v in memo if v.owner is not None]
    while pending:
        node = pending.pop(0)
        if not isinstance(node.op, HasInnerGraph) or node.op in seen:
            continue
        seen.add(node.op)
        inner_memo: dict = {}
        outs = ", ".join(_pformat(o, inner_memo) for o in node.op.inner_outputs)
        lines.append(f"{node.op} := [{outs}]")
        pending += [v.owner for v in inner_memo if v.owner is not None]
    return lines


def _pformat(var: Variable, memo: dict) -> str:
    if var in memo:
        return memo[var]
    node = var.owner
    if node is None:
        text = var.name or (
            str(var.type.data_str(var.data)) if isinstance(var, Constant) else str(var)
        )
    else:
        scalar = _scalar_name(node.op)
        args = [_pformat(i, memo) for i in node.inputs]
        if var.name is not None:
            text = var.name
        elif scalar in _INFIX and len(args) >= 2:
            text = "(" + f" {_INFIX[scalar][0]} ".join(args) + ")"
        elif scalar == "neg":
            text = f"-{args[0]}"
        elif _only_adds_dims(node.op):
            text = args[0]  # broadcasting a value does not change how it reads
        else:
            text = f"{scalar or node.op}({', '.join(args)})"
    memo[var] = text
    return text


def _only_adds_dims(op: Any) -> bool:
    order = getattr(op, "new_order", None)
    if order is None:
        return False
    kept = [d for d in order if d != "x"]
    return kept == list(range(len(kept))) and len(kept) == getattr(op, "input_ndim", -1)


# -- pydotprint -------------------------------------------------------------------------------


def graph_to_dot(obj: Any, var_with_name_simple: bool = False) -> str:
    """The graph in Graphviz DOT format (ellipses for variables, boxes for apply nodes)."""
    variables, fgraph = _graph_of(obj)
    inputs = fgraph.inputs if fgraph is not None else []
    order = io_toposort(inputs, variables)
    names: dict = {}

    def node_id(obj_: Any) -> str:
        return names.setdefault(obj_, f"n{len(names)}")

    lines = ["digraph G {"]
    for var in {v for node in order for v in (*node.inputs, *node.outputs)} | set(variables):
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


def pydotprint(
    fct: Any,
    outfile: str | None = None,
    format: str = "png",
    var_with_name_simple: bool = False,
    print_output_file: bool = True,
    return_image: bool = False,
    **kwargs: Any,
) -> Any:
    """Draw a graph to ``outfile``.

    ``.dot`` files are written directly; other formats (png, svg, pdf...) are rendered by
    Graphviz through ``pydot`` (``pip install arignote[drawing]`` plus Graphviz's ``dot``).
    """
    dot = graph_to_dot(fct, var_with_name_simple)
    if outfile is None:
        outfile = f"arignote_graph.{format}"
    extension = outfile.rsplit(".", 1)[-1] if "." in outfile else format
    if extension == "dot" or format == "dot":
        with open(outfile, "w") as handle:
            handle.write(dot + "\n")
    else:
        try:
            import pydot  # optional dependency, needed only to render images
        except ImportError as err:
            raise ImportError(
                "pydotprint needs pydot and Graphviz to render images: pip install "
                "'arignote[drawing]' and install Graphviz (or write a .dot file)"
            ) from err
        (graph,) = pydot.graph_from_dot_data(dot)
        if return_image:
            return graph.create(format=extension)
        graph.write(outfile, format=extension)
    if print_output_file:
        print(f"The output file is available at {outfile}")
    return outfile


def _print_attributes(op: Print, value: Any) -> None:
    """Theano's default action of :class:`Print`: ``message attr = value`` per attribute."""
    for attr in op.attrs:
        shown = getattr(value, attr)
        print(op.message, attr, "=", shown() if callable(shown) else shown)


class Print(Op):
    """Theano's debugging identity: ``Print(message)(x)`` is ``x``, and computing it prints
    ``message`` with the ``attrs`` of the value (``"__str__"``: the value itself; ``"shape"``).

    ``global_fn(op, value)``, when given, is called instead of printing. The op is never
    constant-folded (folding would print while compiling, once, instead of at each call).
    """

    __props__ = ("message", "attrs")
    view_map = {0: [0]}

    def __init__(self, message: str = "", attrs: Sequence[str] = ("__str__",), global_fn=None):
        self.message = message
        self.attrs = tuple(attrs)
        self.global_fn = global_fn or _print_attributes

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        self.global_fn(self, inputs[0])
        output_storage[0][0] = inputs[0]

    def infer_shape(self, fgraph, node, input_shapes):
        return input_shapes

    def grad(self, inputs, output_grads):
        return list(output_grads)  # the identity

    def R_op(self, inputs, eval_points):
        return list(eval_points)  # the identity

    def do_constant_folding(self, fgraph, node) -> bool:
        return False


__all__: Sequence[str] = ["Print", "debugprint", "dprint", "graph_to_dot", "pprint", "pydotprint"]
