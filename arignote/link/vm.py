"""The Python VM: runs the thunks of a graph in topological order.

The order, the thunks and the list of cells to free after each thunk are computed once, when
linking; a call is then a single loop. A lazy thunk (one that may ask for more inputs, like a
conditional) switches the VM to a demand-driven loop that only computes what is needed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from arignote.config import config
from arignote.graph.basic import Apply, Variable
from arignote.graph.fg import FunctionGraph
from arignote.link.basic import (
    Linker,
    gc_plan,
    make_compute_map,
    make_storage_map,
    raise_with_op,
    thunk_for,
)


class VM:
    """Calls ``thunks`` in order; frees, after each, the cells in the matching ``gc_plan`` entry."""

    def __init__(
        self,
        fgraph: FunctionGraph,
        order: list[Apply],
        thunks: list[Callable],
        storage_map: dict,
        compute_map: dict,
        plan: list[list[list]] | None,
    ) -> None:
        self.fgraph = fgraph
        self.order = order
        self.thunks = thunks
        self.storage_map = storage_map
        self.compute_map = compute_map
        self.plan = plan
        self.steps = list(zip(thunks, plan)) if plan is not None else None
        self.call_times: list[float] | None = None
        self.call_counts: list[int] | None = None

    def __call__(self) -> None:
        if self.steps is None:
            self._run_without_gc()
        else:
            self._run_with_gc()

    def _run_without_gc(self) -> None:
        position = 0
        try:
            for position, thunk in enumerate(self.thunks):  # noqa: B007
                thunk()
        except Exception as err:
            self._fail(position, err)

    def _run_with_gc(self) -> None:
        position = 0
        try:
            for position, (thunk, freed) in enumerate(self.steps):  # noqa: B007
                thunk()
                for cell in freed:
                    cell[0] = None
        except Exception as err:
            self._fail(position, err)

    def _fail(self, position: int, err: Exception) -> None:
        raise_with_op(self.fgraph, self.order[position], err, self.storage_map, position)


class LazyVM(VM):
    """Evaluates outputs on demand, so that lazy thunks skip the branches they do not need.

    A lazy thunk returns a list of input indices it still needs (computed first, then the thunk
    runs again) or an empty list / None when done.
    """

    def __call__(self) -> None:
        for var, flag in self.compute_map.items():
            flag[0] = var.owner is None
        index = {node: position for position, node in enumerate(self.order)}
        for out in self.fgraph.outputs:
            self._compute(out, index)

    def _compute(self, var: Variable, index: dict) -> None:
        stack = [var]
        while stack:
            current = stack[-1]
            if self.compute_map[current][0]:
                stack.pop()
                continue
            node = current.owner
            position = index[node]
            thunk = self.thunks[position]
            if getattr(thunk, "lazy", False):
                missing = self._run_lazy(thunk, position)
                if missing:
                    stack.extend(node.inputs[i] for i in missing)
                    continue
            else:
                pending = [i for i in node.inputs if not self.compute_map[i][0]]
                if pending:
                    stack.extend(pending)
                    continue
                self._run(thunk, position)
            stack.pop()

    def _run(self, thunk: Callable, position: int) -> None:
        try:
            thunk()
        except Exception as err:
            self._fail(position, err)

    def _run_lazy(self, thunk: Callable, position: int) -> list[int]:
        try:
            return list(thunk() or [])
        except Exception as err:
            self._fail(position, err)
            return []


class VMLinker(Linker):
    """Links a graph for the Python VM.

    ``allow_gc`` frees intermediate values as soon as they are no longer needed (default:
    ``config.allow_gc``). ``impl="debug"`` makes thunks call ``debug_perform`` where defined.
    """

    def __init__(
        self,
        allow_gc: bool | None = None,
        impl: str | None = None,
        callback: Callable | None = None,
    ) -> None:
        self.allow_gc = allow_gc
        self.impl = impl
        self.callback = callback
        self.fgraph = None
        self.no_recycling: list[Variable] = []

    def accept(
        self,
        fgraph: FunctionGraph,
        no_recycling: Sequence[Variable] | None = None,
        profile: Any = None,
    ) -> VMLinker:
        if self.fgraph is not None and self.fgraph is not fgraph:
            return type(self)(self.allow_gc, self.impl, self.callback).accept(
                fgraph, no_recycling, profile
            )
        self.fgraph = fgraph
        self.no_recycling = list(no_recycling or [])
        self.profile = profile
        return self

    def clone(self, allow_gc: bool | None = None) -> VMLinker:
        return type(self)(self.allow_gc if allow_gc is None else allow_gc, self.impl, self.callback)

    def make_all(self, input_storage=None, output_storage=None, storage_map=None):
        fgraph = self.fgraph
        if fgraph is None:
            raise ValueError("VMLinker.make_all: call accept(fgraph) first")
        order = fgraph.toposort()
        storage_map, input_storage, output_storage = make_storage_map(
            fgraph, input_storage, output_storage, storage_map
        )
        compute_map = make_compute_map(fgraph, storage_map)
        no_recycling = set(self.no_recycling)
        thunks = [
            thunk_for(node, storage_map, compute_map, no_recycling, self.impl) for node in order
        ]
        allow_gc = config.allow_gc if self.allow_gc is None else self.allow_gc
        plan = gc_plan(fgraph, order, storage_map) if allow_gc else None
        vm_class = LazyVM if any(getattr(t, "lazy", False) for t in thunks) else VM
        vm = vm_class(fgraph, order, thunks, storage_map, compute_map, plan)
        return vm, input_storage, output_storage, thunks, order, storage_map, compute_map

    def make_thunk(self, input_storage=None, output_storage=None, storage_map=None):
        vm, input_storage, output_storage, thunks, order, _, _ = self.make_all(
            input_storage, output_storage, storage_map
        )
        return vm, input_storage, output_storage, thunks, order

    def __str__(self) -> str:
        return "vm" if self.allow_gc is not False else "vm_nogc"
