"""The adapter between a JIT linker (``fgraph_convert``) and today's ``Linker`` interface.

A JIT linker turns a whole graph into one callable. This module gives it the ``accept`` /
``make_thunk`` / ``clone`` methods :class:`~arignote.compile.function.FunctionMaker` calls, and
the runner a compiled function calls on each call (``run``/``fail``, like the Python VM's). It
is kept apart on purpose: when the runtime gains its ``JITLinker`` base class, that base class
replaces this module.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from arignote.graph.basic import Variable
from arignote.graph.fg import FunctionGraph
from arignote.link.basic import Linker, make_storage_map


class JITLinkerAdapter(Linker):
    """``Linker`` methods for a subclass defining ``fgraph_convert`` and ``make_runner``."""

    def accept(
        self,
        fgraph: FunctionGraph,
        no_recycling: Sequence[Variable] | None = None,
        profile: Any = None,
    ) -> JITLinkerAdapter:
        if self.fgraph is not None and self.fgraph is not fgraph:
            return self.clone().accept(fgraph, no_recycling, profile)
        self.fgraph = fgraph
        return self

    def clone(self, allow_gc: bool | None = None) -> JITLinkerAdapter:
        raise NotImplementedError(f"{type(self).__name__} must define clone()")

    def make_runner(self, fgraph: FunctionGraph, input_cells: list, output_cells: list) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define make_runner()")

    def make_thunk(self, input_storage=None, output_storage=None, storage_map=None) -> tuple:
        """``(runner, input_storage, output_storage, [runner], order)`` for ``Function``."""
        fgraph = self.fgraph
        if fgraph is None:
            raise ValueError(f"{type(self).__name__}.make_thunk: call accept(fgraph) first")
        storage_map, input_storage, output_storage = make_storage_map(
            fgraph, input_storage, output_storage, storage_map
        )
        runner = self.make_runner(fgraph, input_storage, output_storage)
        runner.storage_map = storage_map
        return runner, input_storage, output_storage, [runner], fgraph.toposort()


def generated_runner(
    call: Callable, input_cells: list, output_cells: list, prepare: list[Callable | None], scope
) -> Callable[[], None]:
    """``run()``: read the input cells, call ``call`` (inside ``scope``), fill the output cells.

    ``scope``, when not None, is a pair ``(enter, leave)``: ``enter()`` sets a state and
    returns the one before, ``leave(state)`` restores it.

    ``prepare[k]``, when not None, converts the value of input ``k`` and stores the result back
    in its cell (the device copy of a shared variable, made once). The body is generated for the
    numbers of inputs and outputs so that a call does no looping: on small inputs this
    bookkeeping is the whole overhead of the backend.
    """
    namespace: dict[str, Any] = {"call": call, "scope": scope}
    lines = ["def run():"]
    args = []
    for k, (cell, convert) in enumerate(zip(input_cells, prepare)):
        namespace[f"i{k}"] = cell
        if convert is not None:
            namespace[f"prepare{k}"] = convert
            lines.append(f"    v{k} = i{k}[0] = prepare{k}(i{k}[0])")
        else:
            lines.append(f"    v{k} = i{k}[0]")
        args.append(f"v{k}")
    call_line = f"results = call({', '.join(args)})"
    if scope is None:
        lines.append(f"    {call_line}")
    else:
        # scope = (enter, leave): ``leave(enter())`` brackets the call (cheaper than a ``with``)
        namespace["enter"], namespace["leave"] = scope
        lines += [
            "    previous = enter()",
            "    try:",
            f"        {call_line}",
            "    finally:",
            "        leave(previous)",
        ]
    for k, cell in enumerate(output_cells):
        namespace[f"o{k}"] = cell
        lines.append(f"    o{k}[0] = results[{k}]")
    source = "\n".join(lines) + "\n"
    exec(compile(source, "<arignote jit runner>", "exec"), namespace)
    return namespace["run"]


class JITRunner:
    """What a compiled function calls: ``run()`` and ``__call__()``; ``fail`` re-raises.

    ``allow_gc`` tells ``Function`` to clear the output cells after each call, so that it keeps
    no reference to results (there are no other intermediate cells).
    """

    allow_gc = True

    def __init__(self, run: Callable[[], None], fgraph: FunctionGraph, compiled: Any) -> None:
        self.run = run
        self.fgraph = fgraph
        self.compiled = compiled
        self.storage_map: dict = {}

    def __call__(self) -> None:
        self.run()

    def fail(self, err: Exception) -> None:
        """Re-raise ``err`` (conversion errors already name the node that raised them)."""
        raise err
