"""``IndexMap``: evaluate a graph for every index of ``range(n)`` and stack the results.

It is the loop ``jacobian`` and ``hessian`` need when the number of rows is only known at run
time: row ``i`` of a Jacobian is the gradient of the ``i``-th output, one inner graph with the
index as an input. The op is complete on its own: its derivatives are maps of the inner graph's
derivatives, so a Jacobian can be differentiated again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from arignote.autodiff import Rop, grad
from arignote.autodiff.connection import graph_connection_pattern
from arignote.compile import function
from arignote.compile.mode import get_mode, linking_mode, linking_profile
from arignote.graph.basic import Apply, Constant, Variable, ancestors, clone, graph_inputs
from arignote.graph.fg import FunctionGraph
from arignote.graph.grad_types import disconnected, is_disconnected, is_null
from arignote.graph.op import Op, StoredInnerGraph
from arignote.graph.replace import clone_replace
from arignote.graph.traversal import io_toposort
from arignote.scalar.basic import integer_dtypes
from arignote.tensor.basic import (
    NotScalarConstantError,
    as_tensor_variable,
    get_scalar_constant_value,
)
from arignote.tensor.math import cast
from arignote.tensor.shape import Shape_i
from arignote.tensor.shape_feature import ShapeFeature
from arignote.tensor.type import TensorType


def graph_key(inputs: Sequence[Variable], outputs: Sequence[Variable]) -> tuple:
    """A hashable description of a closed graph; equal for structurally equal graphs.

    Variables are named by position (input k, output j of the n-th node in topological
    order); constants by value. A free variable (neither input nor constant) is an error.
    """
    refs: dict[Variable, tuple] = {v: ("input", k) for k, v in enumerate(inputs)}

    def ref(v: Variable) -> tuple:
        if v in refs:
            return refs[v]
        if isinstance(v, Constant):
            return ("constant", v.signature())
        raise ValueError(f"The inner graph uses {v}, which is neither an input nor a constant")

    nodes = []
    for node in io_toposort(inputs, outputs):
        nodes.append((node.op, tuple(ref(v) for v in node.inputs)))
        refs.update({out: ("node", len(nodes) - 1, j) for j, out in enumerate(node.outputs)})
    return (tuple(v.type for v in inputs), tuple(nodes), tuple(ref(o) for o in outputs))


def _row_type(var: Variable) -> TensorType:
    """The type of ``var[i]`` for a tensor ``var``."""
    return TensorType(var.type.dtype, shape=var.type.shape[1:])


def _static_length(n: Variable) -> int | None:
    try:
        return int(get_scalar_constant_value(n))
    except NotScalarConstantError:
        return None


class IndexMap(Op, StoredInnerGraph):
    """``stack([f(i, *[s[i] for s in sequences], *non_sequences) for i in range(n)])``.

    The inner graph ``f`` has inputs ``[index, *sequence_rows, *non_sequences]`` (the index an
    int64 0-d tensor) and tensor outputs; it must be closed (its only free variables are those
    inputs and constants). The op's inputs are ``[n, *sequences, *non_sequences]``, where each
    sequence has ``n`` rows; output ``j`` has shape ``(n, *f_j.shape)``. Use
    :func:`index_map` to build one from a Python function.
    """

    __props__ = ("n_sequences", "graph_key")

    def __init__(
        self, inputs: Sequence[Variable], outputs: Sequence[Variable], n_sequences: int = 0
    ) -> None:
        inputs, outputs = clone(list(inputs), list(outputs), copy_inputs=True)
        _check_inner_graph(inputs, outputs, n_sequences)
        self._inputs = inputs
        self._outputs = outputs
        self.n_sequences = int(n_sequences)
        self.graph_key = graph_key(inputs, outputs)  # also checks that the graph is closed
        self._row_shapes: list | None = None
        self._pattern: list | None = None

    # -- the inner graph (``inner_inputs``/``inner_outputs``: StoredInnerGraph's) ----------

    def clone(self) -> IndexMap:
        return IndexMap(self._inputs, self._outputs, self.n_sequences)

    def __getstate__(self) -> dict:
        state = super().__getstate__()
        state.update(_row_shapes=None, _pattern=None)
        return state

    def __str__(self) -> str:
        return f"IndexMap{{{len(self._outputs)} outputs, {self.n_sequences} sequences}}"

    # -- building -----------------------------------------------------------------------

    def make_node(self, n: Any, *args: Any) -> Apply:
        n = as_tensor_variable(n)
        if n.type.ndim != 0 or n.type.dtype not in integer_dtypes:
            raise TypeError(f"{self}: the length must be an integer scalar, got {n.type}")
        n = cast(n, "int64")
        expected = len(self._inputs) - 1
        if len(args) != expected:
            raise TypeError(f"{self} takes {expected} arguments after the length, got {len(args)}")
        args = [self._outer_argument(k, a) for k, a in enumerate(args)]
        length = _static_length(n)
        outputs = [TensorType(o.type.dtype, shape=(length, *o.type.shape))() for o in self._outputs]
        return Apply(self, [n, *args], outputs)

    def _outer_argument(self, k: int, arg: Any) -> Variable:
        inner = self._inputs[1 + k]
        if k >= self.n_sequences:
            return inner.type.filter_variable(arg, allow_convert=True)
        arg = as_tensor_variable(arg)
        row = _row_type(arg) if arg.type.ndim >= 1 else None
        if row is None or row.dtype != inner.type.dtype or row.ndim != inner.type.ndim:
            raise TypeError(
                f"{self}: sequence {k} must have rows of type {inner.type}, got {arg.type}"
            )
        return arg

    # -- computing ----------------------------------------------------------------------

    def make_thunk(self, node, storage_map, compute_map, no_recycling, impl=None):
        """Compile the inner graph once, with the mode of the function being linked.

        The outer function's mode (DebugMode, NanGuardMode, profiling...) thus reaches the
        inner graph, and calls compile nothing. The thunk carries ``perform``, which computes
        from values alone: the linker runs it on each call's own frame (thread-safe).
        """
        mode = linking_mode() or get_mode(None)
        outer_profile = linking_profile()
        profile = None if outer_profile is None else outer_profile.inner_profile(str(self))
        inner = function(
            self._inputs, self._outputs, mode=mode, profile=profile, on_unused_input="ignore"
        )
        empty_shapes = self._empty_row_shapes_function(mode)

        def perform(node, inputs, output_storage):
            self._run(inner, empty_shapes, node, inputs, output_storage)

        in_cells = [storage_map[v] for v in node.inputs]
        out_cells = [storage_map[v] for v in node.outputs]
        flags = [compute_map[v] for v in node.outputs]

        def thunk():
            perform(node, [cell[0] for cell in in_cells], out_cells)
            for flag in flags:
                flag[0] = True

        thunk.perform = perform
        thunk.lazy = False
        return thunk

    def _run(self, inner, empty_shapes, node, inputs, output_storage) -> None:
        n, *args = inputs
        n = int(n)
        sequences, rest = args[: self.n_sequences], args[self.n_sequences :]
        if n < 0:
            raise ValueError(f"{self}: negative length {n}")
        for k, seq in enumerate(sequences):
            if len(seq) != n:
                raise ValueError(f"{self}: sequence {k} has {len(seq)} rows, expected {n}")
        if n == 0:
            shapes = empty_shapes(rest)
            for cell, out, shape in zip(output_storage, node.outputs, shapes):
                cell[0] = np.empty((0, *shape), dtype=out.type.dtype)
            return
        results = None
        for i in range(n):
            rows = inner(np.asarray(i, dtype="int64"), *[s[i] for s in sequences], *rest)
            if results is None:  # allocated from the first rows' shapes
                results = [
                    np.empty((n, *np.shape(r)), dtype=o.type.dtype)
                    for r, o in zip(rows, node.outputs)
                ]
            for j, (result, row) in enumerate(zip(results, rows)):
                if np.shape(row) != result.shape[1:]:
                    raise ValueError(
                        f"{self}: output {j} has shape {np.shape(row)} at index {i} but "
                        f"{result.shape[1:]} at index 0; all rows must have the same shape"
                    )
                result[i] = row
        for cell, result in zip(output_storage, results):
            cell[0] = result

    def _empty_row_shapes_function(self, mode: Any) -> Callable[[list], list[tuple[int, ...]]]:
        """``non_sequences -> row shapes`` for n = 0: static, or from the index-free shape
        graphs (compiled here, once, with ``mode``)."""
        entries = self.row_shape_graphs()
        placeholders = self._inputs[1 + self.n_sequences :]
        needed = [e for shape in entries for e in shape if e is not None]
        compute = (
            function(placeholders, needed, mode=mode, on_unused_input="ignore") if needed else None
        )

        def shapes_of(non_sequences: list) -> list[tuple[int, ...]]:
            values = iter(compute(*non_sequences) if compute is not None else [])
            shapes = []
            for out, shape in zip(self._outputs, entries):
                if any(e is None for e in shape):
                    raise ValueError(
                        f"{self}: with n = 0 the shape of output {out} cannot be known (it "
                        "depends on the index or on the sequences)"
                    )
                shapes.append(tuple(int(next(values)) for _ in shape))
            return shapes

        return shapes_of

    def row_shape_graphs(self) -> list[list[Variable | None]]:
        """For each output, the length of each row dimension as a graph of the non-sequence
        inputs only (None where it depends on the index or the sequences)."""
        if self._row_shapes is None:
            fgraph = FunctionGraph(
                self._inputs, self._outputs, features=[ShapeFeature()], copy_inputs=False
            )
            per_row = set(self._inputs[: 1 + self.n_sequences])
            self._row_shapes = [
                [None if per_row.intersection(ancestors([e])) else e for e in shape]
                for shape in (fgraph.shape_feature.shape_tuple(o) for o in fgraph.outputs)
            ]
        return self._row_shapes

    def infer_shape(self, fgraph, node, input_shapes):
        placeholders = self._inputs[1 + self.n_sequences :]
        outer = node.inputs[1 + self.n_sequences :]
        replace = dict(zip(placeholders, outer))
        shapes = []
        for out, entries in zip(node.outputs, self.row_shape_graphs()):
            row = [
                Shape_i(d + 1)(out) if e is None else clone_replace(e, replace=replace)
                for d, e in enumerate(entries)
            ]
            shapes.append((node.inputs[0], *row))
        return shapes

    # -- derivatives --------------------------------------------------------------------

    def connection_pattern(self, node):
        if self._pattern is None:
            inner = graph_connection_pattern(self._inputs[1:], self._outputs)
            self._pattern = [[False] * len(self._outputs)] + inner
        return self._pattern

    def L_op(self, inputs, outputs, output_grads):
        return map_gradients(self, inputs, output_grads)

    def R_op(self, inputs, eval_points):
        return map_tangents(self, inputs, eval_points)


def _check_inner_graph(inputs: list, outputs: list, n_sequences: int) -> None:
    if not inputs:
        raise ValueError("IndexMap needs the index as its first inner input")
    index = inputs[0]
    if not isinstance(index.type, TensorType) or index.type.ndim != 0:
        raise TypeError(f"IndexMap: the index must be a 0-d int64 tensor, got {index.type}")
    if index.type.dtype != "int64":
        raise TypeError(f"IndexMap: the index must be int64, got {index.type.dtype}")
    if not 0 <= n_sequences <= len(inputs) - 1:
        raise ValueError(f"IndexMap: {n_sequences} sequences for {len(inputs) - 1} arguments")
    for row in inputs[1 : 1 + n_sequences]:
        if not isinstance(row.type, TensorType):
            raise TypeError(f"IndexMap: sequence rows must be tensors, got {row.type}")
    for out in outputs:
        if not isinstance(out.type, TensorType):
            raise TypeError(f"IndexMap: inner outputs must be tensors, got {out} ({out.type})")


def _split(op: IndexMap, values: Sequence) -> tuple[list, list]:
    """(sequence part, non-sequence part) of the op's arguments (its inputs after ``n``)."""
    return list(values[: op.n_sequences]), list(values[op.n_sequences :])


def map_gradients(op: IndexMap, inputs: list, output_grads: list) -> list:
    """``L_op`` of an IndexMap: a map of the inner vector-Jacobian products.

    Row ``i`` of each output cotangent is fed to the inner graph's ``Lop``; the products for
    sequence rows are stacked (they are the rows of the sequence's gradient), those for the
    non-sequences are summed over ``i``.
    """
    n, args = inputs[0], inputs[1:]
    index, rows_and_rest = op.inner_inputs[0], op.inner_inputs[1:]
    live = [j for j, g in enumerate(output_grads) if not is_disconnected(g)]
    if not live:
        return [disconnected() for _ in inputs]
    g_rows = [_row_type(output_grads[j])(f"g{j}[i]") for j in live]
    known: dict[Variable, Variable] = {}
    for j, g_row in zip(live, g_rows):
        out = op.inner_outputs[j]
        known[out] = known[out] + g_row if out in known else g_row
    inner_grads = grad(
        None,
        rows_and_rest,
        known_grads=known,
        disconnected_inputs="ignore",
        return_disconnected="disconnected",
        null_gradients="return",
    )
    computed = [k for k, g in enumerate(inner_grads) if not is_disconnected(g) and not is_null(g)]
    results: list = [disconnected()] + [g if is_null(g) else disconnected() for g in inner_grads]
    if not computed:
        return results
    rows, rest = _split(op, rows_and_rest)
    seqs, nonseqs = _split(op, args)
    mapped = IndexMap(
        [index, *rows, *g_rows, *rest],
        [inner_grads[k] for k in computed],
        n_sequences=len(rows) + len(g_rows),
    )(n, *seqs, *[output_grads[j] for j in live], *nonseqs, return_list=True)
    for k, stacked in zip(computed, mapped):
        is_sequence = k < op.n_sequences
        results[1 + k] = stacked if is_sequence else stacked.sum(axis=0)
    return results


def map_tangents(op: IndexMap, inputs: list, eval_points: list) -> list:
    """``R_op`` of an IndexMap: a map of the inner Jacobian-vector products."""
    n, args, evs = inputs[0], inputs[1:], eval_points[1:]
    if all(ev is None for ev in evs):
        return [None] * len(op.inner_outputs)
    index, rows_and_rest = op.inner_inputs[0], op.inner_inputs[1:]
    rows, rest = _split(op, rows_and_rest)
    seq_evs, nonseq_evs = _split(op, evs)
    seq_pairs = [(r, ev) for r, ev in zip(rows, seq_evs) if ev is not None]
    rest_pairs = [(r, ev) for r, ev in zip(rest, nonseq_evs) if ev is not None]
    seq_points = [_row_type(ev)(f"d{r.name or 'row'}") for r, ev in seq_pairs]
    rest_points = [ev.type() for _, ev in rest_pairs]
    tangents = Rop(
        list(op.inner_outputs),
        [r for r, _ in seq_pairs] + [r for r, _ in rest_pairs],
        seq_points + rest_points,
        disconnected_outputs="ignore",
        return_disconnected="none",
    )
    kept = [j for j, t in enumerate(tangents) if t is not None]
    if not kept:
        return [None] * len(op.inner_outputs)
    seqs, nonseqs = _split(op, args)
    mapped = IndexMap(
        [index, *rows, *seq_points, *rest, *rest_points],
        [tangents[j] for j in kept],
        n_sequences=len(rows) + len(seq_points),
    )(
        n,
        *seqs,
        *[ev for _, ev in seq_pairs],
        *nonseqs,
        *[ev for _, ev in rest_pairs],
        return_list=True,
    )
    results: list = [None] * len(op.inner_outputs)
    for j, stacked in zip(kept, mapped):
        results[j] = stacked
    return results


def index_map(
    fn: Callable,
    n: Any,
    sequences: Sequence[Variable] = (),
    non_sequences: Sequence[Variable] = (),
) -> Any:
    """The results of ``fn(i, *[s[i] for s in sequences], *non_sequences)`` for ``i`` in
    ``range(n)``, stacked along a new first dimension.

    ``n`` may be symbolic. ``fn`` receives a symbolic int64 index, one row variable per
    sequence and the ``non_sequences`` themselves, and returns a tensor or a list of tensors
    (a list gives a list). It may use any variable of the enclosing graph: those it depends on
    become inputs of the loop (the ``non_sequences`` are passed as they are, so nothing that
    computes them is repeated at every index).
    """
    n = cast(as_tensor_variable(n), "int64")
    sequences = [as_tensor_variable(s) for s in sequences]
    index = TensorType("int64", shape=())("i")
    rows = [_row_type(s)(f"{s.name or 'seq'}[i]") for s in sequences]
    result = fn(index, *rows, *non_sequences)
    single = not isinstance(result, (list, tuple))
    outputs = [as_tensor_variable(o) for o in ([result] if single else result)]
    cut = list(dict.fromkeys(non_sequences))
    own = {index, *rows, *cut}
    free = [
        v
        for v in graph_inputs(outputs, blockers=cut)
        if v not in own and not isinstance(v, Constant)
    ]
    outer = cut + free
    placeholders = [v.type(v.name) for v in outer]
    inner_outputs = clone_replace(outputs, replace=dict(zip(outer, placeholders)))
    op = IndexMap([index, *rows, *placeholders], inner_outputs, n_sequences=len(rows))
    results = op(n, *sequences, *outer, return_list=True)
    return results[0] if single else results


__all__ = ["IndexMap", "index_map"]
