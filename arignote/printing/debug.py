"""``debugprint``: a graph as an indented tree, one line per variable, Aesara's layout.

Each line shows an op (or a leaf), an id (``[id A]``; a node reached twice is expanded once)
and, for an op's output, the name in quotes. After the outer graph, an "Inner graphs:" section
shows the graph of every op that has one (OpFromGraph, scan, fused ``Composite`` loops), with
its outputs marked ``>``.
"""

from __future__ import annotations

import string
import sys
from collections.abc import Iterator
from typing import Any, TextIO

from arignote.graph.basic import Apply, Constant, Variable
from arignote.graph.fg import FunctionGraph
from arignote.graph.op import HasInnerGraph
from arignote.graph.shared import SharedVariable

ID_TYPES = ("CHAR", "int", "id", "auto", "")


def _ids(kind: str) -> Iterator[str]:
    """Printable ids: "A".."Z", "BA".. for CHAR; 0, 1, .. otherwise."""
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


def graph_of(obj: Any) -> tuple[list[Variable], FunctionGraph | None]:
    """The output variables of a variable, node, FunctionGraph, compiled function, or list."""
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
            more, fg = graph_of(item)
            variables.extend(more)
            fgraph = fgraph or fg
        return variables, fgraph
    raise TypeError(f"debugprint cannot print {type(obj).__name__} ({obj!r})")


def inner_graph_op(op: Any) -> Any:
    """The op holding an inner graph: the op itself, or an Elemwise's fused Composite."""
    if isinstance(op, HasInnerGraph):
        return op
    scalar_op = getattr(op, "scalar_op", None)
    return scalar_op if isinstance(scalar_op, HasInnerGraph) else None


class _Printer:
    """State shared by the lines of one ``debugprint`` call (ids, expanded nodes, options)."""

    def __init__(self, options: dict, names: dict, done: dict) -> None:
        self.o = options
        self.names = names
        self.done = done
        self.id_source = _ids(options["id_type"])
        self.taken = set(names.values())  # ids handed out by earlier calls (used_ids)
        self.lines: list[str] = []
        self.inner: list[Apply] = []
        self.leaf_names: dict = {}  # inner-graph inputs print as i0, i1, ...

    def _next_id(self) -> str:
        candidate = next(self.id_source)
        while candidate in self.taken:
            candidate = next(self.id_source)
        return candidate

    def ident(self, obj: Any) -> str:
        kind = self.o["id_type"]
        if kind == "":
            return ""
        if kind == "id":
            return f" [id {id(obj)}]"
        if kind == "auto":
            return f" [id {getattr(obj, 'auto_name', None) or self._auto(obj)}]"
        if obj not in self.names:
            self.names[obj] = self._next_id()
        return f" [id {self.names[obj]}]"

    def _auto(self, obj: Any) -> str:
        if obj not in self.names:
            self.names[obj] = f"auto_{len(self.names)}"
        return self.names[obj]

    def describe(self, var: Variable) -> str:
        node = var.owner
        extra = self._annotations(var)
        if node is None:
            return f"{self.leaf_names.get(var, var)}{self.ident(var)}{extra}"
        op_text = str(node.op)
        if len(node.outputs) > 1:
            op_text += f".{var.index}"
        ident = self.ident(var if len(node.outputs) > 1 else node)
        text = f"{op_text}{ident}{extra} '{var.name or ''}'"
        return text + self._node_annotations(node)

    def _annotations(self, var: Variable) -> str:
        text = ""
        if self.o["print_type"]:
            text += f" <{var.type}>"
        if self.o["print_shape"]:
            shape = getattr(var.type, "shape", None)
            if shape is not None:
                text += " shape=(" + ", ".join("?" if s is None else str(s) for s in shape)
                text += ",)" if len(shape) == 1 else ")"
        if self.o["print_storage"] and isinstance(var, (Constant, SharedVariable)):
            value = var.data if isinstance(var, Constant) else var.get_value(borrow=True)
            text += f" [{value!r}]"
        return text

    def _node_annotations(self, node: Apply) -> str:
        text = ""
        op = node.op
        if self.o["print_destroy_map"] and getattr(op, "destroy_map", None):
            text += f" d={dict(op.destroy_map)}"
        if self.o["print_view_map"] and getattr(op, "view_map", None):
            text += f" v={dict(op.view_map)}"
        if self.o["print_op_info"]:
            text += _op_info(op)
        positions = self.o["positions"]
        if positions is not None and node in positions:
            text += f"   {positions[node]}"
        return text

    def visit(self, var: Variable, prefix: str, child_prefix: str, level: int) -> None:
        self.lines.append(prefix + self.describe(var))
        node = var.owner
        if node is None or (self.o["depth"] >= 0 and level + 1 >= self.o["depth"]):
            return
        if self.o["stop_on_name"] and var.name is not None and level > 0:
            return
        if node in self.done:
            return
        self.done[node] = self.names.get(node, "")
        if self.o["print_inner_graphs"] and inner_graph_op(node.op) is not None:
            self.inner.append(node)
        for i, inp in enumerate(node.inputs):
            last = i == len(node.inputs) - 1
            self.visit(inp, child_prefix + " |", child_prefix + ("  " if last else " |"), level + 1)

    def inner_graphs(self) -> None:
        """The "Inner graphs:" section: each inner graph once, nested ones after their host."""
        shown: set = set()
        while self.inner:
            node = self.inner.pop(0)
            host = inner_graph_op(node.op)
            if host in shown:
                continue
            shown.add(host)
            if len(shown) == 1:
                self.lines += ["", "Inner graphs:"]
            self.lines += ["", f"{node.op}{self.ident(node)} '{node.outputs[0].name or ''}'"]
            for k, inner_input in enumerate(host.inner_inputs):
                if inner_input.name is None:
                    self.leaf_names[inner_input] = f"i{k}"
            for out in host.inner_outputs:
                self.visit(out, " >", " >", 0)


def _op_info(op: Any) -> str:
    """The op's properties, ``{name=value, ...}`` (print_op_info)."""
    props = getattr(op, "__props__", ())
    if not props:
        return ""
    values = [(p, getattr(op, p, None)) for p in props]
    shown = ", ".join(f"{p}={v!r}" for p, v in values if v is not None)
    return f" {{{shown}}}" if shown else ""


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
    *,
    id_type: str | None = None,
    print_shape: bool = False,
    print_memory_map: bool = False,
    print_inner_graphs: bool | str = "auto",
    print_assumptions: bool = False,
) -> Any:
    """Print the graph of a variable, node, FunctionGraph, compiled function, or list of them.

    Parameters
    ----------
    obj
        What to print. For a compiled function (or a FunctionGraph) each node's position in
        the execution order ends its line.
    depth
        How many levels to print (-1: all).
    print_type, print_shape
        Show each variable's type (``<TensorType(float64, (?,))>``) / static shape.
    file
        A stream to write to (default ``sys.stdout``, which is returned), or ``"str"`` to
        return the text instead.
    ids, id_type
        The ids: "CHAR" (A, B, ...), "int", "id" (Python ids), "auto" or "" (none).
        ``id_type`` is PyTensor 3's name of ``ids`` and wins when given.
    stop_on_name
        Do not expand below a named variable.
    done, used_ids
        Dicts shared between calls so that ids (``used_ids``: object -> id) and expanded
        nodes (``done``) carry over from one call to the next.
    print_storage
        Show the value of constants and shared variables (their storage).
    print_op_info
        Show each op's properties (``{axis=(0,), ...}``).
    print_destroy_map, print_view_map, print_memory_map
        Show which inputs an op overwrites (``d=``) or returns a view of (``v=``);
        ``print_memory_map`` turns on both.
    print_fgraph_inputs
        List a FunctionGraph's inputs first, prefixed ``->``.
    print_inner_graphs
        Print the inner graphs of OpFromGraph, scan and fused Composite ops after the outer
        graph ("auto" and True: yes; False: no).
    print_assumptions
        PyTensor 3 shows the assumptions (positive, symmetric...) recorded on variables;
        arignote records none, so there is nothing to add (accepted for its signature).
    """
    if id_type is not None:
        ids = id_type
    if ids not in ID_TYPES:
        raise ValueError(f"debugprint: id_type must be one of {ID_TYPES}, got {ids!r}")
    variables, fgraph = graph_of(obj)
    options = {
        "id_type": ids,
        "depth": depth,
        "print_type": print_type,
        "print_shape": print_shape,
        "stop_on_name": stop_on_name,
        "print_storage": print_storage,
        "print_op_info": print_op_info,
        "print_destroy_map": print_destroy_map or print_memory_map,
        "print_view_map": print_view_map or print_memory_map,
        "print_inner_graphs": print_inner_graphs in (True, "auto"),
        "positions": None,
    }
    if fgraph is not None:
        options["positions"] = {node: i for i, node in enumerate(fgraph.toposort())}
    names = used_ids if used_ids is not None else {}
    printer = _Printer(options, names, done if done is not None else {})
    if print_fgraph_inputs and fgraph is not None:
        for inp in fgraph.inputs:
            printer.lines.append("-> " + printer.describe(inp))
    for var in variables:
        printer.visit(var, "", "", 0)
    printer.inner_graphs()
    return _emit("\n".join(printer.lines), file)


def _emit(text: str, file: TextIO | str | None) -> Any:
    if file == "str":
        return text
    stream = sys.stdout if file is None else file
    stream.write(text + "\n")
    return stream


dprint = debugprint
