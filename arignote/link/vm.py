"""The Python VM: runs a :class:`~arignote.link.program.Program` on a per-call frame.

:class:`VMLinker` builds the program once (order, kernels, slots, freeing plan) and wraps the
kernels when profiling or callbacks are asked for. :class:`VMRunner` runs it with one of two
loops over the same steps:

- in order (every node, in the program's order), first interpreted, then, from its
  ``WARMUP_CALLS``-th call, as generated straight-line code (:func:`generate_program`): one
  kernel call per node, values in the generated function's local variables, freeing inlined.
  Generating costs about as much as a few hundred calls save, so functions called a handful
  of times (``Variable.eval``, tests) never pay for it;
- on demand (from the outputs back), when a node has a lazy thunk, so that it skips the
  inputs it does not need.

Both keep every value of a call in that call's frame (a list, or the generated function's
locals): concurrent calls of one runner never share state.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from arignote.config import config
from arignote.graph.basic import Apply, Constant, Variable
from arignote.graph.codegen import CodeBuilder, GeneratedCode
from arignote.graph.op import Op
from arignote.link.basic import Linker, Runner, raise_with_op, register_linker, thunk_for
from arignote.link.program import (
    CellKernel,
    LazyCellKernel,
    Program,
    Step,
    number_slots,
    plan_freeing,
)

# -- loops ----------------------------------------------------------------------------------------


def run_in_order(program: Program, steps: Sequence[Step], frame: list) -> None:
    """Run every step in order on ``frame``; a failure is described with its node."""
    step = None
    try:
        for step in steps:
            cells = [[None] for _ in step.outputs]
            step.kernel(step.node, [frame[slot] for slot in step.inputs], cells)
            for slot, cell in zip(step.outputs, cells):
                frame[slot] = cell[0]
            for slot in step.free:
                frame[slot] = None
    except Exception as err:
        raise_with_op(
            program.fgraph, step.node, err, program.values_of(step.node, frame), step.position
        )


def run_on_demand(program: Program, steps: Sequence[Step], frame: list) -> None:
    """Compute the outputs from the back: lazy steps ask only for the inputs they need."""
    computed = program.computed_template.copy()
    producer = {slot: step for step in steps for slot in step.outputs}
    for slot in program.output_slots:
        _compute(program, producer, frame, computed, slot)


def _compute(program: Program, producer: dict, frame: list, computed: list, slot: int) -> None:
    stack = [slot]
    while stack:
        if computed[stack[-1]]:
            stack.pop()
            continue
        step = producer[stack[-1]]
        try:
            missing = _step_on_demand(step, frame, computed)
        except Exception as err:
            raise_with_op(
                program.fgraph, step.node, err, program.values_of(step.node, frame), step.position
            )
        if missing:
            stack.extend(missing)
        else:
            stack.pop()


def _step_on_demand(step: Step, frame: list, computed: list) -> list[int]:
    """Run ``step`` if it can; otherwise the slots it still needs."""
    if step.lazy is not None:
        missing = step.lazy.run_lazy(step, frame, computed)
        return [step.inputs[i] for i in missing] if missing else []
    pending = [slot for slot in step.inputs if not computed[slot]]
    if pending:
        return pending
    cells = [[None] for _ in step.outputs]
    step.kernel(step.node, [frame[slot] for slot in step.inputs], cells)
    for slot, cell in zip(step.outputs, cells):
        frame[slot] = cell[0]
        computed[slot] = True
    return []


def generate_program(program: Program, steps: Sequence[Step]) -> GeneratedCode:
    """Straight-line code of the in-order loop::

        def run(inputs):
            v0, v1, = inputs
            c0 = [None]                    # this call's output cells, shared by its nodes
            o1 = [c0]
            k0(n1, [v0, v1], o1)           # node 0: its kernel, its node, input values, cells
            v2 = c0[0]
            c0[0] = None                   # empty again for the next node
            ...
            v2 = None                      # freed: no later node reads slot 2
            return [v5]

    Slot ``k`` is the local ``v<k>`` (a global for constants), so all of a call's values
    live in the generated function's frame. The text depends only on the graph's structure;
    kernels and nodes are globals of the generated code.
    """
    code = CodeBuilder("<arignote VM>")
    for slot, value in program.constant_slots.items():
        code.namespace[f"v{slot}"] = value
    code.line("def run(inputs):", 0)
    if program.n_inputs:
        code.line(", ".join(f"v{k}" for k in range(program.n_inputs)) + ", = inputs")
    widest = max((len(step.outputs) for step in steps), default=0)
    for j in range(widest):
        code.line(f"c{j} = [None]")
    for m in sorted({len(step.outputs) for step in steps}):
        code.line(f"o{m} = [{', '.join(f'c{j}' for j in range(m))}]")
    for step in steps:
        code.mark(step.position)
        args = ", ".join(f"v{slot}" for slot in step.inputs)
        call = f"{code.name('k', step.kernel)}({code.name('n', step.node)}, [{args}], "
        code.line(call + f"o{len(step.outputs)})")
        for j, slot in enumerate(step.outputs):
            code.line(f"v{slot} = c{j}[0]")
            code.line(f"c{j}[0] = None")
        for slot in step.free:
            code.line(f"v{slot} = None")
    code.line(f"return [{', '.join(f'v{slot}' for slot in program.output_slots)}]")
    return code.build("run")


# -- wrappers around kernels ----------------------------------------------------------------------


class Profiler:
    """Per-node measures (time, calls, output bytes, last shapes), safe to feed from threads."""

    def __init__(self, order: list[Apply]) -> None:
        self.order = order
        self.lock = threading.Lock()
        self._reset()
        self.output_bytes = [0] * len(order)
        self.last_shapes: list[tuple | None] = [None] * len(order)

    def _reset(self) -> None:
        n = len(self.order)
        self.call_times = [0.0] * n
        self.call_counts = [0] * n
        self.total_time = 0.0

    def add(self, position: int, seconds: float, inputs: list, cells: list) -> None:
        outputs = [cell[0] for cell in cells]
        size = sum(int(getattr(value, "nbytes", 0)) for value in outputs)
        shapes = ([np.shape(v) for v in inputs], [np.shape(v) for v in outputs])
        with self.lock:
            self.call_times[position] += seconds
            self.call_counts[position] += 1
            self.output_bytes[position] = max(self.output_bytes[position], size)
            self.last_shapes[position] = shapes

    def add_total(self, seconds: float) -> None:
        with self.lock:
            self.total_time += seconds

    def report(self, stats: Any) -> None:
        """Move the measures taken since the last report into ``stats`` (a ProfileStats)."""
        with self.lock:
            stats.record_vm(self)
            self._reset()


def timed(step: Step, profiler: Profiler) -> Step:
    """``step`` whose kernel also records its time in ``profiler``."""
    kernel, position, clock = step.kernel, step.position, time.perf_counter

    def run(node: Apply, inputs: list, cells: list) -> None:
        start = clock()
        kernel(node, inputs, cells)
        profiler.add(position, clock() - start, inputs, cells)

    return step.with_kernel(run)


def hooked(step: Step, before: Callable | None, after: Callable | None) -> Step:
    """``step`` calling ``before``/``after`` (NanGuardMode's checks) around its kernel.

    They receive ``node``, ``thunk``, ``storage_map`` and ``compute_map`` keywords; the maps
    hold the node's inputs and outputs for this call. What a callback raises propagates
    unchanged: it is the callback's report, not a failure of the node.
    """
    kernel, thunk, node = step.kernel, step.thunk, step.node

    def call(callback: Callable, values: list) -> None:
        storage = {var: [value] for var, value in zip((*node.inputs, *node.outputs), values)}
        try:
            callback(
                node=node,
                thunk=thunk,
                storage_map=storage,
                compute_map={var: [cell[0] is not None] for var, cell in storage.items()},
            )
        except Exception as err:
            err._arignote_described = True  # type: ignore[attr-defined]
            raise

    def run(node_: Apply, inputs: list, cells: list) -> None:
        if before is not None:
            call(before, [*inputs, *(None for _ in cells)])
        kernel(node_, inputs, cells)
        if after is not None:
            call(after, [*inputs, *(cell[0] for cell in cells)])

    return step.with_kernel(run)


# -- the runner ----------------------------------------------------------------------------------


class VMRunner(Runner):
    """Runs a program on a fresh frame per call (see the module docstring).

    ``run`` starts as the interpreted loop and becomes the generated code at the
    ``WARMUP_CALLS``-th call (programs of more than ``MAX_NODES`` nodes, lazy programs and
    profiled ones stay interpreted). The switch is one attribute assignment and both forms
    compute the same thing, so a concurrent call may use either.
    """

    WARMUP_CALLS = 16
    MAX_NODES = 5000

    def __init__(
        self, program: Program, steps: list[Step], profiler: Profiler | None = None
    ) -> None:
        self.program = program
        self.fgraph = program.fgraph
        self.order = program.order
        self.steps = steps
        self.profiler = profiler
        self.lazy = any(step.lazy is not None for step in steps)
        self.generated: GeneratedCode | None = None
        self._loop = run_on_demand if self.lazy else run_in_order
        self._calls = itertools.count(1)
        self._generating = threading.Lock()
        if profiler is not None:
            self.run = self._profiled
        elif self.lazy or len(steps) > self.MAX_NODES:
            self.run = self.interpret
        else:
            self.run = self._warming_up

    def interpret(self, inputs: Sequence[Any]) -> list[Any]:
        """Run the interpreted loop (failures come out described)."""
        frame = self.program.new_frame(inputs)
        self._loop(self.program, self.steps, frame)
        return self.program.outputs_of(frame)

    def run_frame(self, inputs: Sequence[Any]) -> list[Any]:
        """The whole frame of one interpreted call (every value not freed), for checkers."""
        frame = self.program.new_frame(inputs)
        self._loop(self.program, self.steps, frame)
        return frame

    def _warming_up(self, inputs: Sequence[Any]) -> list[Any]:
        if next(self._calls) >= self.WARMUP_CALLS:
            self.generate()
        return self.interpret(inputs)

    def _profiled(self, inputs: Sequence[Any]) -> list[Any]:
        start = time.perf_counter()
        try:
            return self.interpret(inputs)
        finally:
            self.profiler.add_total(time.perf_counter() - start)

    def generate(self) -> None:
        """Generate the straight-line code now (normally done when warm); once per runner."""
        if self.lazy or not self._generating.acquire(blocking=False):
            return  # another thread generates it
        try:
            if self.generated is None:
                self.generated = generate_program(self.program, self.steps)
                self.run = self.generated.function
        finally:
            self._generating.release()

    def fail(self, error: BaseException) -> None:
        """Re-raise ``error`` (from ``run``) described with the node that raised it."""
        code = self.generated
        position = None if code is None else code.position_of(error.__traceback__)
        if position is None or getattr(error, "_arignote_described", False):
            raise error
        node = self.order[position]
        local = code.frame_of(error.__traceback__).tb_frame.f_locals
        slot_of = self.program.slot_of
        values = {
            var: [var.data if isinstance(var, Constant) else local.get(f"v{slot_of[var]}")]
            for var in node.inputs
        }
        raise_with_op(self.fgraph, node, error, values, position)

    def report_profile(self, stats: Any) -> None:
        if self.profiler is not None:
            self.profiler.report(stats)


# -- the linker ----------------------------------------------------------------------------------


def uses_default_thunk(op: Op) -> bool:
    """Whether ``op`` builds its thunk with the base ``Op.make_thunk`` (so perform suffices)."""
    return isinstance(op, Op) and type(op).make_thunk is Op.make_thunk


class VMLinker(Linker):
    """Links a graph for the Python VM.

    Parameters
    ----------
    allow_gc
        Free each intermediate value as soon as no later node of the call needs it (default:
        ``config.allow_gc``); otherwise intermediates live until the call ends. Nothing is
        kept between calls either way.
    impl
        ``"debug"`` makes kernels call ``debug_perform`` where an op defines it.
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

    def clone(self, allow_gc: bool | None = None) -> VMLinker:
        return type(self)(
            self.allow_gc if allow_gc is None else allow_gc,
            self.impl,
            self.callback,
            self.callback_input,
        )

    def make_program(self) -> Program:
        """Order, slots, one step per node and (with ``allow_gc``) the freeing plan."""
        fgraph = self._graph()
        order = fgraph.toposort()
        slot_of = number_slots(fgraph, order)
        storage_map = {var: [var.data if isinstance(var, Constant) else None] for var in slot_of}
        compute_map = {var: [var.owner is None] for var in slot_of}
        no_recycling = set(self.no_recycling)
        steps = [
            self._step(position, node, slot_of, storage_map, compute_map, no_recycling)
            for position, node in enumerate(order)
        ]
        if config.allow_gc if self.allow_gc is None else self.allow_gc:
            plan_freeing(fgraph, steps, slot_of)
        return Program(fgraph, steps, slot_of)

    def _step(self, position, node, slot_of, storage_map, compute_map, no_recycling) -> Step:
        inputs = tuple(slot_of[v] for v in node.inputs)
        outputs = tuple(slot_of[v] for v in node.outputs)
        op = node.op
        if uses_default_thunk(op):
            op.prepare_node(node, storage_map, compute_map, self.impl)
            debug = self.impl == "debug" and hasattr(op, "debug_perform")
            return Step(position, node, op.debug_perform if debug else op.perform, inputs, outputs)
        thunk = thunk_for(node, storage_map, compute_map, no_recycling, self.impl)
        if getattr(thunk, "lazy", False):
            lazy = LazyCellKernel(thunk, node, storage_map, compute_map)
            return Step(position, node, lazy, inputs, outputs, thunk, lazy)
        kernel = getattr(thunk, "perform", None)  # frame-ready: runs on the values directly
        if kernel is None:
            kernel = CellKernel(thunk, node, storage_map, compute_map)
        return Step(position, node, kernel, inputs, outputs, thunk)

    def make_runner(self) -> VMRunner:
        program = self.make_program()
        steps = program.steps
        profiler = Profiler(program.order) if self.profile else None
        if profiler is not None:
            steps = [timed(step, profiler) for step in steps]
        if self.callback is not None or self.callback_input is not None:  # outside the timing
            steps = [hooked(step, self.callback_input, self.callback) for step in steps]
        return VMRunner(program, steps, profiler)

    def __str__(self) -> str:
        return "vm" if self.allow_gc is not False else "vm_nogc"


register_linker("vm", lambda: VMLinker(allow_gc=None))
register_linker("vm_nogc", lambda: VMLinker(allow_gc=False))
register_linker("cvm", lambda: VMLinker(allow_gc=None))  # accepted for compatibility
register_linker("py", lambda: VMLinker(allow_gc=False))
