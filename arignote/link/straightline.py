"""The plain VM's loop unrolled into straight-line Python, generated once per graph.

For small inputs the cost of a call is mostly bookkeeping around each ``perform``: calling a
thunk, looping, freeing cells. :func:`straight_line_program` writes the whole run as one
function of one statement per step, so a call costs the ``perform`` calls and little else::

    def run():
        perform_0(node_0, [c0[0], c1[0]], outs_0)
        f2[0] = True
        perform_1(node_1, [c2[0]], outs_1)
        f3[0] = True
        c2[0] = None                      # freed: no later node reads it
        ...

Everything the statements refer to (ops' ``perform``, nodes, cells) lives in the generated
function's globals, under names derived from positions only, so the text depends on the
graph's structure and never on user data. When a statement raises, the line number tells which
node failed (:meth:`Program.position_of`).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from types import TracebackType
from typing import Any

from arignote.graph.basic import Apply


class Program:
    """A generated run function and the map from its source lines to node positions."""

    def __init__(self, run: Callable[[], None], first_lines: list[int], source: str) -> None:
        self.run = run
        self.first_lines = first_lines
        self.source = source

    def position_of(self, traceback: TracebackType | None) -> int:
        """The position (in the VM order) of the node whose statement raised."""
        code = self.run.__code__
        line = None
        while traceback is not None:
            if traceback.tb_frame.f_code is code:
                line = traceback.tb_lineno
            traceback = traceback.tb_next
        if line is None:
            return 0
        return max(0, bisect.bisect_right(self.first_lines, line) - 1)


class _Names:
    """Gives every object the generated code refers to a stable global name."""

    def __init__(self) -> None:
        self.namespace: dict[str, Any] = {}
        self._by_id: dict[int, str] = {}

    def __call__(self, prefix: str, obj: Any) -> str:
        name = self._by_id.get(id(obj))
        if name is None:
            name = self._by_id[id(obj)] = f"{prefix}{len(self._by_id)}"
            self.namespace[name] = obj
        return name


def straight_line_program(
    order: list[Apply],
    thunks: list[Callable],
    storage_map: dict,
    compute_map: dict,
    plan: list[list[list]] | None,
) -> Program:
    """The program running ``thunks`` (for ``order``) and freeing ``plan``'s cells.

    Thunks built by ``perform_thunk`` (they carry ``.perform``) are inlined as the ``perform``
    call they make; any other thunk (an op's own ``make_thunk``) is called as is.
    """
    names = _Names()
    lines = ["def run():"]
    first_lines = []
    for position, (node, thunk) in enumerate(zip(order, thunks)):
        first_lines.append(len(lines) + 1)  # 1-based line number of this node's first line
        lines += _node_lines(names, position, node, thunk, storage_map, compute_map)
        for cell in plan[position] if plan is not None else ():
            lines.append(f"    {names('c', cell)}[0] = None")
    if len(lines) == 1:
        lines.append("    pass")
    source = "\n".join(lines) + "\n"
    exec(compile(source, "<arignote VM>", "exec"), names.namespace)
    return Program(names.namespace["run"], first_lines, source)


def _node_lines(
    names: _Names, position: int, node: Apply, thunk: Callable, storage_map: dict, compute_map
) -> list[str]:
    perform = getattr(thunk, "perform", None)
    if perform is None:
        return [f"    {names('thunk', thunk)}()"]
    outputs = thunk.outputs
    lines = [f"    {names('c', cell)}[0] = None" for cell in getattr(thunk, "fresh", ())]
    args = ", ".join(f"{names('c', cell)}[0]" for cell in thunk.inputs)
    lines.append(
        f"    {names('perform', perform)}({names('node', node)}, [{args}], "
        f"{names('outs', outputs)})"
    )
    lines += [f"    {names('f', compute_map[var])}[0] = True" for var in node.outputs]
    return lines
