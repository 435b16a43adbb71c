"""The Python VM: runs the thunks of a graph in topological order.

Everything a call needs is computed once, when linking: the order, the thunks, and the list of
cells to free after each thunk. A call of the plain :class:`VM` is then a single loop. Other
behaviours are separate classes, chosen at link time, so that the plain loop pays for none of
them: :class:`LazyVM` (demand-driven, for lazy thunks such as conditionals),
:class:`CallbackVM` (hooks around every node, used by NanGuardMode) and :class:`ProfilingVM`
(times every node, used by ``function(..., profile=True)``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from arignote.config import config
from arignote.graph.basic import Apply, Variable
from arignote.graph.fg import FunctionGraph
from arignote.graph.op import Op
from arignote.link.basic import (
    Linker,
    gc_plan,
    make_compute_map,
    make_storage_map,
    perform_thunk,
    raise_with_op,
    thunk_for,
)
from arignote.link.straightline import straight_line_program


class VM:
    """Calls ``thunks`` in order; frees, after each, the cells in the matching ``plan`` entry.

    ``plan`` is None when intermediates are kept between calls (no garbage collection).
    """

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
        self.allow_gc = plan is not None
        # Each step is (thunk, cells to free after it); thunks with nothing to free are grouped
        # so that the loop does not iterate over empty lists.
        self.steps = list(zip(thunks, plan)) if plan is not None else None

    def __call__(self) -> None:
        position = 0
        try:
            if self.steps is None:
                for position, thunk in enumerate(self.thunks):  # noqa: B007
                    thunk()
            else:
                for position, (thunk, freed) in enumerate(self.steps):  # noqa: B007
                    thunk()
                    for cell in freed:
                        cell[0] = None
        except Exception as err:
            self._fail(position, err)

    def _fail(self, position: int, err: Exception) -> None:
        raise_with_op(self.fgraph, self.order[position], err, self.storage_map, position)


class GeneratedVM(VM):
    """The plain VM, whose loop becomes generated straight-line Python once it is warm.

    Same behaviour as :class:`VM` (order, freeing, error reports), less bookkeeping per node:
    see :mod:`arignote.link.straightline`. Generating and compiling that code costs about as
    much as a few hundred calls save, so the VM first runs as the plain loop and generates it
    at its ``WARMUP_CALLS``-th call: functions called a handful of times (``Variable.eval``,
    tests) never pay for it. Graphs over ``MAX_NODES`` nodes keep the loop.

    ``run`` is the fastest entry point (it may raise an exception not yet described);
    ``__call__`` runs and describes a failure with the failing node (:meth:`fail`).
    """

    MAX_NODES = 5000
    WARMUP_CALLS = 16

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.program = None
        self._countdown = self.WARMUP_CALLS
        self.run: Callable[[], None] = self._warm_up

    def _warm_up(self) -> None:
        self._countdown -= 1
        if self._countdown <= 0:
            self.generate()
        VM.__call__(self)

    def generate(self) -> None:
        """Generate the straight-line program now (normally done at the warm-up call)."""
        if self.program is None:
            self.program = straight_line_program(
                self.order, self.thunks, self.storage_map, self.compute_map, self.plan
            )
            self.run = self.program.run

    def __call__(self) -> None:
        try:
            self.run()
        except Exception as err:
            self.fail(err)

    def fail(self, err: Exception) -> None:
        """Re-raise ``err`` from ``run`` described with the node that raised it."""
        if self.program is None or getattr(err, "_arignote_described", False):
            raise err
        self._fail(self.program.position_of(err.__traceback__), err)


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


class CallbackVM(VM):
    """Calls ``callback_input`` before and ``callback`` after each node.

    Both receive ``node``, ``thunk``, ``storage_map`` and ``compute_map`` as keywords. An
    exception raised by a callback propagates unchanged (it is the callback's report, not a
    failure of the node).
    """

    def __init__(self, *args: Any, callback=None, callback_input=None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.callback = callback
        self.callback_input = callback_input

    def __call__(self) -> None:
        storage_map, compute_map = self.storage_map, self.compute_map
        plan = self.plan
        for position, (node, thunk) in enumerate(zip(self.order, self.thunks)):
            if self.callback_input is not None:
                self.callback_input(
                    node=node, thunk=thunk, storage_map=storage_map, compute_map=compute_map
                )
            try:
                thunk()
            except Exception as err:
                self._fail(position, err)
            if self.callback is not None:
                self.callback(
                    node=node, thunk=thunk, storage_map=storage_map, compute_map=compute_map
                )
            if plan is not None:
                for cell in plan[position]:
                    cell[0] = None


class ProfilingVM(VM):
    """A VM that measures each node: time, calls, output sizes and shapes (for flops).

    The measures accumulate on the VM; :meth:`update_profile` moves them into a profile
    object (``arignote.compile.profiling.ProfileStats``) after each call. Like
    :class:`CallbackVM` it calls ``callback_input``/``callback`` around each node when they are
    set (a profiled NanGuardMode function), outside the timed part.
    """

    def __init__(self, *args: Any, callback=None, callback_input=None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.callback = callback
        self.callback_input = callback_input
        n = len(self.thunks)
        self.call_times = [0.0] * n
        self.call_counts = [0] * n
        self.output_bytes = [0] * n
        self.last_shapes: list[tuple | None] = [None] * n
        self.total_time = 0.0
        self._input_cells = [[self.storage_map[v] for v in node.inputs] for node in self.order]
        self._output_cells = [[self.storage_map[v] for v in node.outputs] for node in self.order]

    def __call__(self) -> None:
        clock = time.perf_counter
        plan = self.plan
        start_call = clock()
        hooked = self.callback is not None or self.callback_input is not None
        for position, thunk in enumerate(self.thunks):
            if hooked:
                self._hook(self.callback_input, position)
            start = clock()
            try:
                thunk()
            except Exception as err:
                self._fail(position, err)
            self.call_times[position] += clock() - start
            self.call_counts[position] += 1
            self._measure(position)
            if hooked:
                self._hook(self.callback, position)
            if plan is not None:
                for cell in plan[position]:
                    cell[0] = None
        self.total_time += clock() - start_call

    def _hook(self, callback: Callable | None, position: int) -> None:
        if callback is not None:
            callback(
                node=self.order[position],
                thunk=self.thunks[position],
                storage_map=self.storage_map,
                compute_map=self.compute_map,
            )

    def _measure(self, position: int) -> None:
        outputs = [cell[0] for cell in self._output_cells[position]]
        size = sum(int(getattr(value, "nbytes", 0)) for value in outputs)
        self.output_bytes[position] = max(self.output_bytes[position], size)
        inputs = [cell[0] for cell in self._input_cells[position]]
        self.last_shapes[position] = (
            [np.shape(v) if hasattr(v, "shape") else () for v in inputs],
            [np.shape(v) if hasattr(v, "shape") else () for v in outputs],
        )

    def update_profile(self, profile: Any) -> None:
        """Add the measures of the calls since the last update to ``profile``."""
        profile.record_vm(self)
        n = len(self.thunks)
        self.call_times = [0.0] * n
        self.call_counts = [0] * n
        self.total_time = 0.0


def _uses_default_thunk(op: Op) -> bool:
    """Whether ``op`` builds its thunk with the base ``Op.make_thunk`` (so perform suffices)."""
    return type(op).make_thunk is Op.make_thunk and isinstance(op, Op)


class VMLinker(Linker):
    """Links a graph for the Python VM.

    Parameters
    ----------
    allow_gc
        Free intermediate values as soon as no later node needs them (default:
        ``config.allow_gc``); otherwise they are kept between calls.
    impl
        ``"debug"`` makes thunks call ``debug_perform`` where an op defines it.
    callback, callback_input
        Called after (before) each node with ``node``, ``thunk``, ``storage_map`` and
        ``compute_map`` keywords; used by NanGuardMode. Only a linker with callbacks pays
        for them.
    """

    def __init__(
        self,
        allow_gc: bool | None = None,
        impl: str | None = None,
        callback: Callable | None = None,
        callback_input: Callable | None = None,
    ) -> None:
        self.allow_gc = allow_gc
        self.impl = impl
        self.callback = callback
        self.callback_input = callback_input
        self.fgraph = None
        self.no_recycling: list[Variable] = []
        self.profile: Any = None

    def accept(
        self,
        fgraph: FunctionGraph,
        no_recycling: Sequence[Variable] | None = None,
        profile: Any = None,
    ) -> VMLinker:
        if self.fgraph is not None and self.fgraph is not fgraph:
            return self.clone().accept(fgraph, no_recycling, profile)
        self.fgraph = fgraph
        self.no_recycling = list(no_recycling or [])
        self.profile = profile
        return self

    def clone(self, allow_gc: bool | None = None) -> VMLinker:
        return type(self)(
            self.allow_gc if allow_gc is None else allow_gc,
            self.impl,
            self.callback,
            self.callback_input,
        )

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
        thunks = [self._thunk(node, storage_map, compute_map, no_recycling) for node in order]
        allow_gc = config.allow_gc if self.allow_gc is None else self.allow_gc
        plan = gc_plan(fgraph, order, storage_map) if allow_gc else None
        vm = self._vm_class(thunks)(fgraph, order, thunks, storage_map, compute_map, plan)
        if isinstance(vm, (CallbackVM, ProfilingVM)):
            vm.callback, vm.callback_input = self.callback, self.callback_input
        return vm, input_storage, output_storage, thunks, order, storage_map, compute_map

    def _thunk(self, node: Apply, storage_map: dict, compute_map: dict, no_recycling: set):
        if _uses_default_thunk(node.op):
            node.op.prepare_node(node, storage_map, compute_map, self.impl)
            return perform_thunk(
                node, storage_map, compute_map, no_recycling, debug=self.impl == "debug"
            )
        return thunk_for(node, storage_map, compute_map, no_recycling, self.impl)

    def _vm_class(self, thunks: list) -> type[VM]:
        if any(getattr(t, "lazy", False) for t in thunks):
            return LazyVM
        if self.profile:
            return ProfilingVM  # (it calls the callbacks too)
        if self.callback is not None or self.callback_input is not None:
            return CallbackVM
        if len(thunks) <= GeneratedVM.MAX_NODES:
            return GeneratedVM
        return VM

    def make_thunk(self, input_storage=None, output_storage=None, storage_map=None):
        vm, input_storage, output_storage, thunks, order, _, _ = self.make_all(
            input_storage, output_storage, storage_map
        )
        return vm, input_storage, output_storage, thunks, order

    def __str__(self) -> str:
        return "vm" if self.allow_gc is not False else "vm_nogc"
