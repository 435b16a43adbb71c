"""The one helper every code generator of the package uses.

Generated code never embeds user data in its text: every object it refers to (a kernel, an
Apply node, a constant, a dtype) is bound as a global of the generated module under a stable
name derived from a prefix and the order of first use, so the text depends only on the
structure being compiled. The source is kept on the result for debugging, and a generator can
tag lines with a *position* (a node's index in an order): :meth:`GeneratedCode.position_of`
then maps a traceback back to the node whose statement raised.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from types import TracebackType
from typing import Any


class CodeBuilder:
    """Accumulates lines of one generated function and the globals they refer to.

    Parameters
    ----------
    filename
        Shown in tracebacks (``<arignote VM>``, ``<composite ...>``).
    """

    def __init__(self, filename: str) -> None:
        self.filename = filename
        self.namespace: dict[str, Any] = {}
        self.lines: list[str] = []
        self._names: dict[int, str] = {}
        self._marks: list[tuple[int, int]] = []  # (first line number, position)

    def name(self, prefix: str, obj: Any) -> str:
        """The global name of ``obj`` in the generated code (the same object, the same name)."""
        found = self._names.get(id(obj))
        if found is None:
            found = self._names[id(obj)] = f"{prefix}{len(self._names)}"
            self.namespace[found] = obj
        return found

    def line(self, text: str, indent: int = 1) -> None:
        self.lines.append("    " * indent + text)

    def mark(self, position: int) -> None:
        """The lines added from now on belong to ``position`` (until the next mark)."""
        self._marks.append((len(self.lines) + 1, position))

    def build(self, function_name: str) -> GeneratedCode:
        """Compile the lines; the function called ``function_name`` must be among them."""
        source = "\n".join(self.lines) + "\n"
        exec(compile(source, self.filename, "exec"), self.namespace)  # text from structure only
        return GeneratedCode(self.namespace[function_name], source, self._marks)


class GeneratedCode:
    """A generated function, its source and the map from its lines to positions."""

    def __init__(self, function: Callable, source: str, marks: list[tuple[int, int]]) -> None:
        self.function = function
        self.source = source
        self._first_lines = [line for line, _ in marks]
        self._positions = [position for _, position in marks]

    def frame_of(self, traceback: TracebackType | None) -> Any:
        """The innermost frame of the generated function in ``traceback`` (None if absent)."""
        code = self.function.__code__
        found = None
        while traceback is not None:
            if traceback.tb_frame.f_code is code:
                found = traceback
            traceback = traceback.tb_next
        return found

    def position_of(self, traceback: TracebackType | None) -> int | None:
        """The position of the statement that raised (None when the code was not involved)."""
        found = self.frame_of(traceback)
        if found is None or not self._first_lines:
            return None
        index = bisect.bisect_right(self._first_lines, found.tb_lineno) - 1
        return self._positions[max(index, 0)]
