"""``Scan``: a loop whose body is a graph, as one op.

Layout of a node (the front end :func:`arignote.scan.basic.scan` builds it)::

    inputs   n_steps, *sequences, *traced_inits, *untraced_inits, *non_sequences
    outputs  *traces, *mapped, *untraced_finals

* a *sequence* is read one row per step (row ``t`` at step ``t``; at least ``n_steps`` rows);
* a *traced* output is a recurrence with negative taps ``(k1, k2, ...)``; with ``L = -min(taps)``
  its initial value holds ``L`` rows (the states of steps ``-L .. -1``) and its output holds
  those ``L`` rows followed by one row per step (``L + n_steps`` rows in all);
* a *mapped* output is computed at each step and not fed back (``n_steps`` rows);
* an *untraced* state (a random generator, any non-tensor value) is fed back and only its
  final value is returned.

The inner graph has inputs ``[*sequence_rows, *tap_values, *untraced_states, *non_sequences]``
(tap values in the order of each output's taps) and outputs
``[*new_traced_rows, *mapped_rows, *new_untraced_states]``, plus a boolean condition last when
the loop is a ``while`` loop (``until``): the loop then stops after the first step whose
condition is true, and the outputs hold the steps done.

``keep`` (set by the memory rewrite) limits a traced or mapped output to its last ``keep``
rows: the loop then keeps a circular buffer of ``max(keep, L)`` rows instead of all of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from arignote.autodiff.connection import graph_connection_pattern
from arignote.compile import function
from arignote.compile.mode import get_mode, linking_mode
from arignote.graph.basic import Apply, Variable, ancestors, clone
from arignote.graph.fg import FunctionGraph
from arignote.graph.op import Op, StoredInnerGraph
from arignote.graph.replace import clone_replace
from arignote.scalar.basic import integer_dtypes
from arignote.scan.index_map import graph_key
from arignote.tensor.basic import (
    NotScalarConstantError,
    as_tensor_variable,
    get_scalar_constant_value,
)
from arignote.tensor.math import cast, minimum
from arignote.tensor.shape import Shape_i
from arignote.tensor.shape_feature import ShapeFeature
from arignote.tensor.type import TensorType


@dataclass(frozen=True)
class ScanInfo:
    """The shape of a Scan's inputs and outputs (see the module docstring)."""

    n_seqs: int
    traced_taps: tuple[tuple[int, ...], ...]
    n_mapped: int
    n_untraced: int
    n_nonseqs: int
    as_while: bool = False

    @property
    def n_traced(self) -> int:
        return len(self.traced_taps)

    @property
    def lags(self) -> tuple[int, ...]:
        """``L`` of each traced output: how many initial rows it needs."""
        return tuple(-min(taps) for taps in self.traced_taps)

    @property
    def n_taps(self) -> int:
        return sum(len(taps) for taps in self.traced_taps)

    @property
    def n_inner_inputs(self) -> int:
        return self.n_seqs + self.n_taps + self.n_untraced + self.n_nonseqs

    @property
    def n_inner_outputs(self) -> int:
        return self.n_traced + self.n_mapped + self.n_untraced + int(self.as_while)


def _static_int(var: Variable) -> int | None:
    try:
        return int(get_scalar_constant_value(var))
    except NotScalarConstantError:
        return None


class Scan(Op, StoredInnerGraph):
    """A loop over an inner graph (see the module docstring for the layout).

    Parameters
    ----------
    inputs, outputs
        The inner graph (copied; it must be closed: constants aside, it uses only ``inputs``).
    info
        The :class:`ScanInfo` describing how inner inputs and outputs map to the node's.
    truncate_gradient
        Number of steps back-propagation goes through (-1: all of them).
    keep
        For each traced and mapped output, how many of its last rows the output holds (None:
        all of them).
    mode
        Mode the inner graph is compiled with (None: the mode of the outer function).
    name
        A name shown when printing.
    """

    __props__ = ("info", "keep", "truncate_gradient", "inplace", "graph_key")

    def __init__(
        self,
        inputs: Sequence[Variable],
        outputs: Sequence[Variable],
        info: ScanInfo,
        truncate_gradient: int = -1,
        keep: Sequence[int | None] | None = None,
        mode: Any = None,
        name: str | None = None,
        inplace: tuple[int, ...] = (),
    ) -> None:
        inputs, outputs = clone(list(inputs), list(outputs), copy_inputs=True)
        _check_inner(inputs, outputs, info)
        self._inputs = inputs
        self._outputs = outputs
        self.info = info
        self.truncate_gradient = int(truncate_gradient)
        n_kept = info.n_traced + info.n_mapped
        self.keep = tuple(keep) if keep is not None else (None,) * n_kept
        if len(self.keep) != n_kept:
            raise ValueError(f"Scan: keep needs {n_kept} entries, got {len(self.keep)}")
        self.mode = mode
        self.name = name
        # traced outputs whose circular buffer is their initial value's memory
        self.inplace = tuple(inplace)
        first = 1 + info.n_seqs
        self.destroy_map = {j: [first + j] for j in self.inplace}
        self.graph_key = graph_key(inputs, outputs)

    # -- the inner graph ------------------------------------------------------------------

    @property
    def fn(self) -> Any:
        """The inner graph compiled on its own (the compiled loop uses its own copy)."""
        return self.compile_inner(None)

    def compile_inner(self, outer_mode: Any) -> Any:
        """The inner graph compiled with this op's mode, else ``outer_mode``, else the default."""
        mode = get_mode(self.mode if self.mode is not None else outer_mode)
        inner = function(self._inputs, self._outputs, mode=mode, on_unused_input="ignore")
        inner.trust_input = True
        return inner

    def clone(self) -> Scan:
        return self.replace_graph(self._inputs, self._outputs)

    def replace_graph(self, inputs, outputs, info=None, keep=None) -> Scan:
        """A Scan like this one with another inner graph (and optionally info and keep)."""
        return Scan(
            inputs,
            outputs,
            info or self.info,
            self.truncate_gradient,
            keep if keep is not None or info is not None else self.keep,
            self.mode,
            self.name,
        )

    def with_inplace(self, inplace: tuple[int, ...]) -> Scan:
        """This Scan writing the buffers of traced outputs ``inplace`` into their initial
        values (used when the buffer has exactly as many rows as the initial value)."""
        return Scan(
            self._inputs,
            self._outputs,
            self.info,
            self.truncate_gradient,
            self.keep,
            self.mode,
            self.name,
            inplace,
        )

    def __str__(self) -> str:
        label = self.name or "scan_fn"
        extra = ", while_loop=True" if self.info.as_while else ""
        extra += f", inplace={list(self.inplace)}" if self.inplace else ""
        return f"Scan{{{label}{extra}}}"

    # -- positions ------------------------------------------------------------------------

    def outer_slices(self) -> dict[str, slice]:
        """Slices of the node's inputs by kind."""
        i = self.info
        bounds = np.cumsum([1, i.n_seqs, i.n_traced, i.n_untraced, i.n_nonseqs])
        names = ("seqs", "inits", "untraced", "nonseqs")
        return {k: slice(int(a), int(b)) for k, a, b in zip(names, bounds[:-1], bounds[1:])}

    def inner_slices(self) -> dict[str, slice]:
        """Slices of the inner inputs by kind."""
        i = self.info
        bounds = np.cumsum([0, i.n_seqs, i.n_taps, i.n_untraced, i.n_nonseqs])
        names = ("seqs", "taps", "untraced", "nonseqs")
        return {k: slice(int(a), int(b)) for k, a, b in zip(names, bounds[:-1], bounds[1:])}

    def tap_groups(self) -> list[list[int]]:
        """For each traced output, the positions of its tap inputs among the inner inputs."""
        start, groups = self.info.n_seqs, []
        for taps in self.info.traced_taps:
            groups.append(list(range(start, start + len(taps))))
            start += len(taps)
        return groups

    # -- building -------------------------------------------------------------------------

    def make_node(self, n_steps: Any, *args: Any) -> Apply:
        info = self.info
        n_steps = as_tensor_variable(n_steps)
        if n_steps.type.ndim != 0 or n_steps.type.dtype not in integer_dtypes:
            raise TypeError(f"{self}: n_steps must be an integer scalar, got {n_steps.type}")
        n_steps = cast(n_steps, "int64")
        expected = info.n_seqs + info.n_traced + info.n_untraced + info.n_nonseqs
        if len(args) != expected:
            raise TypeError(f"{self} takes {expected} inputs after n_steps, got {len(args)}")
        sl = self.outer_slices()
        args = list(args)
        inner_seqs = self._inputs[self.inner_slices()["seqs"]]
        seqs = [
            self._sequence(k, a, r) for k, (a, r) in enumerate(zip(args[: info.n_seqs], inner_seqs))
        ]
        inits = [
            self._init(j, a)
            for j, a in enumerate(args[sl["inits"].start - 1 : sl["inits"].stop - 1])
        ]
        untraced_inner = self._inputs[self.inner_slices()["untraced"]]
        untraced = [
            r.type.filter_variable(a, allow_convert=True)
            for a, r in zip(
                args[sl["untraced"].start - 1 : sl["untraced"].stop - 1], untraced_inner
            )
        ]
        nonseq_inner = self._inputs[self.inner_slices()["nonseqs"]]
        nonseqs = [
            r.type.filter_variable(a, allow_convert=True)
            for a, r in zip(args[sl["nonseqs"].start - 1 :], nonseq_inner)
        ]
        outputs = self._output_types(n_steps, inits)
        return Apply(self, [n_steps, *seqs, *inits, *untraced, *nonseqs], outputs)

    def _sequence(self, k: int, arg: Any, row: Variable) -> Variable:
        arg = as_tensor_variable(arg)
        if arg.type.ndim != row.type.ndim + 1 or arg.type.dtype != row.type.dtype:
            raise TypeError(
                f"{self}: sequence {k} must have rows of type {row.type}, got {arg.type}"
            )
        return arg

    def _init(self, j: int, arg: Any) -> Variable:
        row = self.inner_outputs[j]
        arg = as_tensor_variable(arg)
        if arg.type.ndim != row.type.ndim + 1 or arg.type.dtype != row.type.dtype:
            raise TypeError(
                f"{self}: the initial rows of output {j} must have type {row.type} with one more "
                f"dimension, got {arg.type}"
            )
        return arg

    def _output_types(self, n_steps: Variable, inits: list[Variable]) -> list[Variable]:
        info = self.info
        n = None if info.as_while else _static_int(n_steps)
        outs = []
        for j, lag in enumerate(info.lags):
            length = None if n is None else lag + n
            outs.append(self._kept_type(j, length, self._outputs[j].type))
        for m in range(info.n_mapped):
            inner = self._outputs[info.n_traced + m]
            outs.append(self._kept_type(info.n_traced + m, n, inner.type))
        start = info.n_traced + info.n_mapped
        outs += [o.type() for o in self._outputs[start : start + info.n_untraced]]
        return outs

    def _kept_type(self, position: int, length: int | None, row_type: TensorType) -> Variable:
        keep = self.keep[position]
        if keep is not None and length is not None:
            length = min(keep, length)
        elif keep is not None:
            length = None
        return TensorType(row_type.dtype, shape=(length, *row_type.shape))()

    # -- computing ------------------------------------------------------------------------

    def make_thunk(self, node, storage_map, compute_map, no_recycling, impl=None):
        # Compiled here, once per outer compiled function, with the outer function's mode.
        inner = self.compile_inner(linking_mode())
        input_cells = [storage_map[v] for v in node.inputs]
        output_cells = [storage_map[v] for v in node.outputs]
        flags = [compute_map[v] for v in node.outputs]
        empty_shapes: list = []

        def perform(node_: Apply, inputs: list, output_storage: list) -> None:
            # From values alone: the linker runs it on each call's own frame (thread-safe).
            results = run_loop(self, inner, node, inputs, empty_shapes)
            for cell, value in zip(output_storage, results):
                cell[0] = value

        def thunk() -> None:
            perform(node, [cell[0] for cell in input_cells], output_cells)
            for flag in flags:
                flag[0] = True

        thunk.perform = perform  # type: ignore[attr-defined]
        thunk.inputs = input_cells  # type: ignore[attr-defined]
        thunk.outputs = output_cells  # type: ignore[attr-defined]
        thunk.lazy = False  # type: ignore[attr-defined]
        return thunk

    def perform(self, node, inputs, output_storage):
        # Only used where no thunk is made (a direct call): compiles the inner graph each time.
        results = run_loop(self, self.compile_inner(linking_mode()), node, inputs, [])
        for cell, value in zip(output_storage, results):
            cell[0] = value

    # -- shapes ---------------------------------------------------------------------------

    def infer_shape(self, fgraph, node, input_shapes):
        info = self.info
        n_steps = node.inputs[0]
        sl = self.outer_slices()
        shapes = []
        row_shapes = self.inner_row_shapes(node)
        for j, lag in enumerate(info.lags):
            length = Shape_i(0)(node.outputs[j]) if info.as_while else lag + n_steps
            init_shape = input_shapes[sl["inits"].start + j]
            shapes.append((self._kept_length(j, length), *init_shape[1:]))
        for m in range(info.n_mapped):
            out = node.outputs[info.n_traced + m]
            length = Shape_i(0)(out) if info.as_while else n_steps
            row = [
                Shape_i(d + 1)(out) if e is None else e
                for d, e in enumerate(row_shapes[info.n_traced + m])
            ]
            shapes.append((self._kept_length(info.n_traced + m, length), *row))
        shapes += [None] * info.n_untraced
        return shapes

    def _kept_length(self, position: int, length: Variable) -> Variable:
        keep = self.keep[position]
        return length if keep is None else minimum(length, keep)

    def inner_row_shapes(self, node: Apply) -> list[list[Variable | None]]:
        """Shapes of the inner outputs as graphs of the node's inputs (None: unknown before
        running the loop, such as a shape that depends on a state's value)."""
        fgraph = FunctionGraph(
            self._inputs, self._outputs, features=[ShapeFeature()], copy_inputs=False
        )
        feature = fgraph.shape_feature
        outer_rows = self._outer_row_shapes(node)
        for inner, shape in zip(fgraph.inputs, outer_rows):
            if shape is not None:
                feature.set_shape(inner, shape)
        known = dict(zip(fgraph.inputs, self._outer_values(node)))
        results = []
        for out in fgraph.outputs:
            shape = feature.shape_tuple(out) if isinstance(out.type, TensorType) else None
            results.append([_outer_entry(e, fgraph.inputs, known) for e in (shape or ())])
        return results

    def _outer_row_shapes(self, node: Apply) -> list:
        """The shape of each inner input as outer graphs (None where not a tensor)."""
        sl, info = self.outer_slices(), self.info
        shapes: list = [
            tuple(s.shape[d + 1] for d in range(s.type.ndim - 1)) for s in node.inputs[sl["seqs"]]
        ]
        for j, taps in enumerate(info.traced_taps):
            init = node.inputs[sl["inits"].start + j]
            shapes += [tuple(init.shape[d + 1] for d in range(init.type.ndim - 1))] * len(taps)
        shapes += [None] * info.n_untraced
        for v in node.inputs[sl["nonseqs"]]:
            shapes.append(tuple(v.shape) if isinstance(v.type, TensorType) else None)
        return shapes

    def _outer_values(self, node: Apply) -> list:
        """Each inner input's outer value where it is the same at every step (non-sequences)."""
        info = self.info
        fixed = [None] * (info.n_seqs + info.n_taps + info.n_untraced)
        return fixed + list(node.inputs[self.outer_slices()["nonseqs"]])

    # -- derivatives ----------------------------------------------------------------------

    def connection_pattern(self, node):
        return scan_connection_pattern(self)

    def L_op(self, inputs, outputs, output_grads):
        return SCAN_DERIVATIVES["L_op"](self, inputs, outputs, output_grads)

    def R_op(self, inputs, eval_points):
        return SCAN_DERIVATIVES["R_op"](self, inputs, eval_points)


#: The derivative builders (``arignote.scan.gradient`` registers them; it builds Scans itself).
SCAN_DERIVATIVES: dict[str, Any] = {}


def _outer_entry(entry: Any, inner_inputs: list, known: dict) -> Variable | None:
    """An inner shape entry rewritten over outer variables, or None if it needs a per-step
    value (a sequence row, a state, ...)."""
    if entry is None:
        return None
    used = [v for v in ancestors([entry]) if v in known or v in inner_inputs]
    if any(known.get(v) is None for v in used):
        return None
    return clone_replace(entry, replace={v: known[v] for v in used})


def _check_inner(inputs: list, outputs: list, info: ScanInfo) -> None:
    if len(inputs) != info.n_inner_inputs:
        raise ValueError(
            f"Scan: {len(inputs)} inner inputs, the layout needs {info.n_inner_inputs}"
        )
    if len(outputs) != info.n_inner_outputs:
        raise ValueError(
            f"Scan: {len(outputs)} inner outputs, the layout needs {info.n_inner_outputs}"
        )
    for taps in info.traced_taps:
        if not taps or any(k >= 0 for k in taps) or len(set(taps)) != len(taps):
            raise ValueError(f"Scan: output taps must be distinct negative integers, got {taps}")
    for out in outputs[: info.n_traced + info.n_mapped]:
        if not isinstance(out.type, TensorType):
            raise TypeError(f"Scan: traced and mapped outputs must be tensors, got {out.type}")


# -- the loop --------------------------------------------------------------------------------


def run_loop(op: Scan, inner: Any, node: Apply, values: list, empty_shapes: list) -> list:
    """Run the loop of ``node`` on input ``values``; the values of its outputs."""
    info = op.info
    n_steps = int(values[0])
    if n_steps < 0:
        raise ValueError(f"{op}: n_steps must not be negative, got {n_steps}")
    sl = op.outer_slices()
    seqs = values[sl["seqs"]]
    for k, seq in enumerate(seqs):
        if len(seq) < n_steps:
            raise ValueError(
                f"{op}: sequence {k} has {len(seq)} rows, fewer than the {n_steps} steps"
            )
    traced = [
        _TracedBuffer(op, node, j, init, n_steps) for j, init in enumerate(values[sl["inits"]])
    ]
    mapped = [_MappedBuffer(op, node, info.n_traced + m, n_steps) for m in range(info.n_mapped)]
    states = list(values[sl["untraced"]])
    nonseqs = list(values[sl["nonseqs"]])
    steps = 0
    writers = [b.write for b in traced] + [b.write for b in mapped]
    first_state = len(writers)
    last_state = first_state + info.n_untraced
    as_while = info.as_while
    for t in range(n_steps):
        args = [seq[t] for seq in seqs]
        for buffer in traced:
            args += buffer.taps(t)
        outs = inner(*args, *states, *nonseqs)
        for write, value in zip(writers, outs):
            write(t, value)
        if last_state > first_state:
            states = list(outs[first_state:last_state])
        steps = t + 1
        if as_while and bool(outs[-1]):
            break
    if steps == 0 and mapped:
        shapes = _empty_mapped_shapes(op, node, values, empty_shapes)
        for buffer, shape in zip(mapped, shapes):
            buffer.allocate(shape)
    return [b.result(steps) for b in traced] + [b.result(steps) for b in mapped] + states


class _TracedBuffer:
    """The rows of a traced output: all of them, or a circular buffer of the last ones."""

    def __init__(self, op: Scan, node: Apply, j: int, init: np.ndarray, n_steps: int) -> None:
        self.op, self.j = op, j
        self.lag = op.info.lags[j]
        self.taps_ = op.info.traced_taps[j]
        if len(init) < self.lag:
            raise ValueError(
                f"{op}: output {j} needs {self.lag} initial rows for taps {self.taps_}, got "
                f"{len(init)}"
            )
        keep = op.keep[j]
        self.size = self.lag + n_steps if keep is None else max(keep, self.lag)
        self.keep = keep
        dtype = node.outputs[j].type.dtype
        if j in op.inplace and len(init) == self.size and init.dtype == dtype:
            self.rows = init  # the initial rows are already in place
            self.row_shape = init.shape[1:]
            return
        self.rows = np.empty((self.size, *init.shape[1:]), dtype=dtype)
        self.rows[: self.lag] = init[: self.lag]
        self.row_shape = self.rows.shape[1:]

    def taps(self, t: int) -> list:
        rows, size, lag = self.rows, self.size, self.lag
        return [rows[(t + lag + k) % size] for k in self.taps_]

    def write(self, t: int, value: np.ndarray) -> None:
        if value.shape != self.row_shape:
            raise ValueError(
                f"{self.op}: output {self.j} has shape {np.shape(value)} at step {t}, but its "
                f"initial value has rows of shape {self.rows.shape[1:]} (they must be equal)"
            )
        self.rows[(t + self.lag) % self.size] = value

    def result(self, steps: int) -> np.ndarray:
        total = self.lag + steps
        if self.keep is None:
            return self.rows[:total] if total < self.size else self.rows
        count = min(self.keep, total)
        order = np.arange(total - count, total) % self.size
        return self.rows[order]


class _MappedBuffer:
    """The rows of a mapped output (allocated from the first row's shape)."""

    def __init__(self, op: Scan, node: Apply, position: int, n_steps: int) -> None:
        self.op, self.position = op, position
        self.keep = op.keep[position]
        self.size = n_steps if self.keep is None else max(min(self.keep, n_steps), 1)
        self.dtype = node.outputs[position].type.dtype
        self.rows: np.ndarray | None = None

    def allocate(self, shape: tuple) -> None:
        self.rows = np.empty((self.size if self.keep is None else 0, *shape), dtype=self.dtype)

    def write(self, t: int, value: np.ndarray) -> None:
        if self.rows is None:
            self.rows = np.empty((self.size, *np.shape(value)), dtype=self.dtype)
            self.row_shape = self.rows.shape[1:]
        elif value.shape != self.row_shape:
            raise ValueError(
                f"{self.op}: mapped output {self.position} has shape {np.shape(value)} at step "
                f"{t} but {self.rows.shape[1:]} at step 0; all steps must agree"
            )
        self.rows[t % self.size] = value

    def result(self, steps: int) -> np.ndarray:
        if self.keep is None:
            return self.rows[:steps] if steps < len(self.rows) else self.rows
        count = min(self.keep, steps)
        order = np.arange(steps - count, steps) % self.size
        return self.rows[order]


def _empty_mapped_shapes(op: Scan, node: Apply, values: list, cache: list) -> list:
    """Row shapes of the mapped outputs of a loop of zero steps, from the inner shape graphs
    of the non-sequences (compiled once per thunk, on first need)."""
    info = op.info
    if not cache:
        placeholders = [v.type() for v in node.inputs]
        fake = Apply(op, placeholders, [v.type() for v in node.outputs])
        entries = op.inner_row_shapes(fake)[info.n_traced : info.n_traced + info.n_mapped]
        for m, shape in enumerate(entries):
            if any(e is None for e in shape):
                raise ValueError(
                    f"{op}: with 0 steps the shape of mapped output {m} cannot be known (it "
                    "depends on values computed in the loop)"
                )
        flat = [e for shape in entries for e in shape]
        fn = function(placeholders, flat, on_unused_input="ignore") if flat else None
        cache.append(([len(s) for s in entries], fn))
    lengths, fn = cache[0]
    flat = iter(fn(*values) if fn is not None else [])
    return [tuple(int(next(flat)) for _ in range(n)) for n in lengths]


# -- connection pattern ----------------------------------------------------------------------


def scan_connection_pattern(op: Scan) -> list[list[bool]]:
    """``[outer input][outer output]``: whether the output depends on the input, following the
    recurrences (a state feeds the next step's taps)."""
    info = op.info
    inner = graph_connection_pattern(op.inner_inputs, op.inner_outputs)
    # feedback: inner output position -> the inner inputs it becomes at the next step
    feedback = dict(enumerate(op.tap_groups()))
    un = op.inner_slices()["untraced"]
    first_untraced_out = info.n_traced + info.n_mapped
    for u, position in enumerate(range(un.start, un.stop)):
        feedback[first_untraced_out + u] = [position]
    n_outer_out = info.n_traced + info.n_mapped + info.n_untraced
    outer_to_inner = _outer_to_inner_inputs(op)
    pattern = [[False] * n_outer_out]  # n_steps only sets the number of rows
    for k, inner_positions in enumerate(outer_to_inner):
        reached = _reached_outputs(inner, feedback, inner_positions)
        row = [j in reached for j in range(n_outer_out)]
        own = _own_output(op, k)
        if own is not None:
            row[own] = True  # the initial rows are part of the output
        pattern.append(row)
    return pattern


def _outer_to_inner_inputs(op: Scan) -> list[list[int]]:
    """For each outer input after n_steps, the inner inputs it feeds."""
    info, inner = op.info, op.inner_slices()
    result = [[k] for k in range(info.n_seqs)]
    result += op.tap_groups()
    result += [[k] for k in range(inner["untraced"].start, inner["untraced"].stop)]
    result += [[k] for k in range(inner["nonseqs"].start, inner["nonseqs"].stop)]
    return result


def _own_output(op: Scan, k: int) -> int | None:
    """The outer output that starts with outer input ``k + 1`` (an initial value), if any."""
    info = op.info
    if info.n_seqs <= k < info.n_seqs + info.n_traced:
        return k - info.n_seqs
    start = info.n_seqs + info.n_traced
    if start <= k < start + info.n_untraced:
        return info.n_traced + info.n_mapped + (k - start)
    return None


def _reached_outputs(inner: list, feedback: dict, positions: list[int]) -> set[int]:
    n_out = len(inner[0]) if inner else 0
    reached: set[int] = set()
    frontier = list(positions)
    seen = set(positions)
    while frontier:
        position = frontier.pop()
        for j in range(n_out):
            if inner[position][j] and j not in reached:
                reached.add(j)
                for nxt in feedback.get(j, ()):
                    if nxt not in seen:
                        seen.add(nxt)
                        frontier.append(nxt)
    return reached
