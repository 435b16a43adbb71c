"""The linked form of a graph: an immutable *program* run on a per-call *frame*.

Linking numbers every variable of the graph with a *slot*: the graph's inputs first (slots
``0 .. n_inputs - 1``), then constants and node outputs. A *frame* is a list of slot values
that belongs to one call; constants are copied into it from the program's template. The
program holds, for each node in order, one :class:`Step`:

- ``kernel(node, input_values, output_cells)``: the op's ``perform`` contract (the op's
  ``perform`` itself, or an adapter for a thunk from the op's own ``make_thunk``);
- ``inputs``/``outputs``: slot indices;
- ``free``: the slots no later step (nor the result) reads, cleared after the step when
  intermediates are freed.

Every step runs with fresh output cells, so the slots to reset before a node runs are all of
its outputs, and nothing from an earlier call can leak into a later one. Executors (the loops
of :mod:`arignote.link.vm` and the generated code) read steps and never anything else;
profiling and callbacks wrap kernels, so every executor honours them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from arignote.graph.basic import Apply, Constant, Variable
from arignote.graph.fg import FunctionGraph

Kernel = Callable[[Apply, list, list], Any]


class Step:
    """What one node's execution needs (see the module docstring)."""

    __slots__ = ("free", "inputs", "kernel", "lazy", "node", "outputs", "position", "thunk")

    def __init__(
        self,
        position: int,
        node: Apply,
        kernel: Kernel,
        inputs: tuple[int, ...],
        outputs: tuple[int, ...],
        thunk: Any = None,
        lazy: Any = None,
    ) -> None:
        self.position = position
        self.node = node
        self.kernel = kernel
        self.inputs = inputs
        self.outputs = outputs
        self.free: tuple[int, ...] = ()
        self.thunk = thunk  # the link-time thunk (callbacks receive it)
        self.lazy = lazy  # a LazyCellKernel for lazy thunks

    def with_kernel(self, kernel: Kernel) -> Step:
        """This step with another kernel (a wrapper around this one's)."""
        step = Step(self.position, self.node, kernel, self.inputs, self.outputs, self.thunk)
        step.free, step.lazy = self.free, self.lazy
        return step


class Program:
    """Slots and steps of a graph (see the module docstring); immutable once built."""

    def __init__(self, fgraph: FunctionGraph, steps: list[Step], slot_of: dict) -> None:
        self.fgraph = fgraph
        self.steps = steps
        self.order = [step.node for step in steps]
        self.slot_of = slot_of
        self.n_inputs = len(fgraph.inputs)
        self.output_slots = tuple(slot_of[v] for v in fgraph.outputs)
        n_slots = max([self.n_inputs - 1, *slot_of.values()]) + 1
        template: list[Any] = [None] * n_slots
        computed = [True] * self.n_inputs + [False] * (n_slots - self.n_inputs)
        for var, slot in slot_of.items():
            if isinstance(var, Constant):
                template[slot] = var.data
            computed[slot] = var.owner is None
        self.template = template
        self.computed_template = computed
        self.constant_slots = {
            slot: var.data for var, slot in slot_of.items() if isinstance(var, Constant)
        }

    def new_frame(self, inputs: Sequence[Any]) -> list[Any]:
        """A frame holding the constants and ``inputs``, for one call."""
        frame = self.template.copy()
        frame[: self.n_inputs] = inputs
        return frame

    def outputs_of(self, frame: list[Any]) -> list[Any]:
        return [frame[slot] for slot in self.output_slots]

    def values_of(self, node: Apply, frame: list[Any]) -> dict[Variable, list]:
        """``{variable: [value]}`` for the inputs and outputs of ``node`` in ``frame``."""
        slot_of = self.slot_of
        return {var: [frame[slot_of[var]]] for var in (*node.inputs, *node.outputs)}


def number_slots(fgraph: FunctionGraph, order: list[Apply]) -> dict[Variable, int]:
    """Slot of every variable: graph inputs first (by position), then constants and outputs.

    An input listed twice keeps its last position; the frame still has one slot per position.
    """
    slot_of: dict[Variable, int] = {var: k for k, var in enumerate(fgraph.inputs)}
    count = len(fgraph.inputs)
    for var in [v for node in order for v in (*node.inputs, *node.outputs)] + fgraph.outputs:
        if var not in slot_of:
            slot_of[var] = count
            count += 1
    return slot_of


def plan_freeing(fgraph: FunctionGraph, steps: list[Step], slot_of: dict) -> None:
    """Set each step's ``free``: the slots whose last reader it is (or unread outputs)."""
    keep = set(fgraph.inputs) | set(fgraph.outputs)
    last_use: dict[Variable, int] = {}
    for position, step in enumerate(steps):
        for var in step.node.inputs:
            last_use[var] = position
        for var in step.node.outputs:
            last_use.setdefault(var, position)  # unused outputs are freed at once
    plan: list[list[int]] = [[] for _ in steps]
    for var, position in last_use.items():
        if var not in keep and not isinstance(var, Constant) and var.owner is not None:
            plan[position].append(slot_of[var])
    for step, slots in zip(steps, plan):
        step.free = tuple(slots)


# -- kernels for thunks that close over cells ----------------------------------------------------


class CellKernel:
    """Runs a thunk from an op's own ``make_thunk`` on frame values.

    The thunk reads and writes the storage cells it was made with, which every call shares:
    the kernel copies the input values in, runs the thunk, copies the outputs out and empties
    the cells, under a lock of its own, so concurrent calls never see each other's values.
    (An op whose thunk carries a ``perform`` attribute, like the base ``Op.make_thunk``'s,
    avoids this: its ``perform`` runs on the frame directly.)
    """

    def __init__(self, thunk: Callable, node: Apply, storage_map: dict, compute_map: dict):
        self.thunk = thunk
        self.in_cells = [storage_map[v] for v in node.inputs]
        self.in_flags = [compute_map[v] for v in node.inputs]
        self.out_cells = [storage_map[v] for v in node.outputs]
        self.out_flags = [compute_map[v] for v in node.outputs]
        self.lock = threading.Lock()

    def __call__(self, node: Apply, inputs: list, outputs: list) -> None:
        with self.lock:
            self._load(inputs, [True] * len(inputs))
            try:
                self.thunk()
                for out, cell in zip(outputs, self.out_cells):
                    out[0] = cell[0]
            finally:
                self._clear()

    def _load(self, values: Sequence, computed: Sequence[bool]) -> None:
        for cell, flag, value, done in zip(self.in_cells, self.in_flags, values, computed):
            cell[0], flag[0] = value, done
        for cell, flag in zip(self.out_cells, self.out_flags):
            cell[0], flag[0] = None, False

    def _clear(self) -> None:
        for cell in self.in_cells:
            cell[0] = None
        for cell in self.out_cells:
            cell[0] = None


class LazyCellKernel(CellKernel):
    """A lazy thunk on frame values: returns the input indices it still needs, or None."""

    def run_lazy(self, step: Step, frame: list, computed: list) -> list[int] | None:
        with self.lock:
            self._load([frame[s] for s in step.inputs], [computed[s] for s in step.inputs])
            try:
                missing = self.thunk()
                if missing:
                    return list(missing)
                for slot, cell in zip(step.outputs, self.out_cells):
                    frame[slot] = cell[0]
                    computed[slot] = True
                return None
            finally:
                self._clear()
