"""Advanced indexing: integer arrays and boolean masks (``x[[0, 2]]``, ``x[:, idx]``, ``x[x > 0]``).

``AdvancedSubtensor1`` is the common case of one integer vector on axis 0; ``AdvancedSubtensor``
takes any mix of integers, slices, new axes, an ellipsis, integer arrays and boolean masks, with
NumPy's rules for where the broadcast dimensions of the advanced indices go. Their set/inc
counterparts accumulate repeated positions like ``np.add.at`` (inc) or keep the last write, as
NumPy does (set). Index structure and values are split as described in ``index_spec``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arignote.graph.basic import Apply, Constant, Variable
from arignote.graph.grad_types import disconnected
from arignote.graph.op import Op
from arignote.scalar.basic import integer_dtypes
from arignote.tensor import math as tm
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.index_spec import (
    ARRAY,
    INT,
    MASK,
    SliceSpec,
    as_index_scalar,
    check_idx_list,
    check_input_count,
    check_runtime_value,
    check_static_bound,
    check_value_fits,
    entry_groups,
    entry_str,
    int_or_variable,
    numpy_index,
    slice_length,
    static_int,
    static_slice_length,
    sum_to_type,
    zero_cotangent,
)
from arignote.tensor.reduction import sum as tensor_sum
from arignote.tensor.type import tensor_type

ADVANCED_ENTRIES = (INT, ARRAY, MASK, SliceSpec, None, Ellipsis)


def is_advanced_entry(entry: Any) -> bool:
    """Integers count as advanced indices once an index holds an array (they broadcast)."""
    return not isinstance(entry, SliceSpec) and entry in (INT, ARRAY, MASK)


def runtime_target_shape(x_shape: tuple, index: tuple) -> tuple:
    """The shape of ``x[index]`` for an array of shape ``x_shape``, without reading ``x``.

    Indexing a zero-strided int8 array gives NumPy's exact result shape (and its IndexErrors)
    for one byte per result element.
    """
    return np.broadcast_to(np.zeros((), dtype=np.int8), x_shape)[index].shape


# -- index inputs --------------------------------------------------------------------------


def _index_array(op: Any, value: Any, entry: str) -> Variable:
    var = as_tensor_variable(value)
    if entry == MASK and var.type.dtype != "bool":
        raise IndexError(f"{op}: a boolean mask must have dtype bool, got {var.type}")
    if entry == ARRAY and var.type.dtype not in integer_dtypes:
        raise IndexError(
            f"{op}: arrays used as indices must be of integer (or boolean) type, got {var.type}"
        )
    return var


def prepare_index(op: Any, idx_list: Sequence[Any], index: Sequence[Any]) -> list[Variable]:
    """The index inputs as tensors of the kinds ``idx_list`` says, or TypeError/IndexError."""
    check_input_count(op, idx_list, index)
    prepared = []
    for entry, group in entry_groups(idx_list, list(index)):
        for value in group:
            if value is None:
                continue
            if entry in (ARRAY, MASK):
                prepared.append(_index_array(op, value, entry))
            else:
                prepared.append(as_index_scalar(op, value))
    return prepared


# -- result shapes ---------------------------------------------------------------------------
# The result of x[index]: the dimensions of the basic entries (slices, new axes, the ellipsis)
# in order, and one block for the broadcast shape of all advanced entries. The block replaces the
# advanced entries when they are adjacent in the index, and goes first otherwise (NumPy's rule;
# a new axis or an ellipsis between two advanced entries separates them).


def _dims_read(entry: Any, group: tuple) -> int:
    if entry is None or entry is Ellipsis:
        return 0
    if entry == MASK:
        return group[0].type.ndim
    return 1


def _layout(op: Any, idx_list: Sequence[Any], groups: list, x_ndim: int) -> tuple[list, int]:
    """For each entry, the list of ``x`` dimensions it reads; the first dimension none reads."""
    reads = [_dims_read(entry, group) for entry, group in groups]
    explicit = sum(reads)
    if explicit > x_ndim:
        raise IndexError(
            f"too many indices for array: array is {x_ndim}-dimensional, but {explicit} were "
            f"indexed ({op})"
        )
    dims, start = [], 0
    for entry, count in zip(idx_list, reads):
        count = x_ndim - explicit if entry is Ellipsis else count
        dims.append(list(range(start, start + count)))
        start += count
    return dims, start


def _assemble(idx_list: Sequence[Any], basic_parts: list, advanced: tuple, trailing) -> tuple:
    positions = [i for i, e in enumerate(idx_list) if is_advanced_entry(e)]
    adjacent = positions == list(range(positions[0], positions[-1] + 1))
    shape = [] if adjacent else list(advanced)
    for i, part in enumerate(basic_parts):
        if adjacent and i == positions[0]:
            shape.extend(advanced)
        shape.extend(part)
    return tuple(shape) + tuple(trailing)


def _broadcast_static(shapes: list[tuple]) -> tuple:
    ndim = max((len(s) for s in shapes), default=0)
    padded = [(1,) * (ndim - len(s)) + tuple(s) for s in shapes]
    result = []
    for sizes in zip(*padded):
        known = {s for s in sizes if s is not None and s != 1}
        if len(known) > 1:
            raise IndexError(
                "shape mismatch: indexing arrays could not be broadcast together with shapes "
                + " ".join(str(s) for s in shapes)
            )
        result.append(known.pop() if known else (1 if all(s == 1 for s in sizes) else None))
    return tuple(result)


def _static_mask_count(mask: Variable, lengths: list, dims: list) -> int | None:
    for d, m_len, x_len in zip(dims, mask.type.shape, lengths):
        if None not in (m_len, x_len) and m_len != x_len:
            raise IndexError(
                f"boolean index did not match indexed array along axis {d}; size of axis is "
                f"{x_len} but size of corresponding boolean axis is {m_len}"
            )
    return int(np.count_nonzero(mask.data)) if isinstance(mask, Constant) else None


def _static_array_check(array: Variable, length: int | None, dim: int) -> None:
    if isinstance(array, Constant) and length is not None and array.data.size:
        for bad in (int(array.data.max()), int(array.data.min())):
            check_static_bound(bad, length, dim)


def _static_advanced_part(entry: str, var: Variable, lengths: list, dims: list) -> tuple:
    if entry == INT:
        check_static_bound(static_int(var), lengths[0], dims[0])
        return ()
    if entry == ARRAY:
        _static_array_check(var, lengths[0], dims[0])
        return var.type.shape
    return (_static_mask_count(var, lengths, dims),)


def advanced_static_shape(op: Any, x: Variable, idx_list: Sequence, index: Sequence) -> tuple:
    """The static shape of ``x[index]``, raising IndexError for what is known to be wrong."""
    groups = list(entry_groups(idx_list, list(index)))
    dims, end = _layout(op, idx_list, groups, x.type.ndim)
    basic, advanced = [], []
    for (entry, group), read in zip(groups, dims):
        lengths = [x.type.shape[d] for d in read]
        if isinstance(entry, SliceSpec):
            bounds = [static_int(v) for v in group]
            basic.append([static_slice_length(lengths[0], *bounds)])
        elif entry is None:
            basic.append([1])
        elif entry is Ellipsis:
            basic.append(lengths)
        else:
            basic.append([])
            advanced.append(_static_advanced_part(entry, group[0], lengths, read))
    return _assemble(idx_list, basic, _broadcast_static(advanced), x.type.shape[end:])


def broadcast_lengths(*lengths: Any) -> Any:
    """The broadcast of compatible lengths (ints or 0-d int variables): the one that is not 1."""
    lengths = [int_or_variable(n) for n in lengths]
    candidates = [n for n in lengths if not (isinstance(n, int) and n == 1)]
    known = [n for n in candidates if isinstance(n, int)]
    if known or not candidates:
        return known[0] if known else 1
    length = candidates[0]
    for other in candidates[1:]:
        length = tm.switch(tm.eq(length, 1), other, length)  # a length 1 takes the other
    return length


def _broadcast_symbolic(shapes: list[tuple]) -> tuple:
    """Broadcast shapes whose entries are ints or 0-d variables (assumed compatible)."""
    ndim = max((len(s) for s in shapes), default=0)
    padded = [(1,) * (ndim - len(s)) + tuple(s) for s in shapes]
    return tuple(broadcast_lengths(*sizes) for sizes in zip(*padded))


def _symbolic_advanced_part(entry: str, var: Variable, shape: tuple) -> tuple:
    if entry == INT:
        return ()
    if entry == ARRAY:
        return tuple(int_or_variable(s) for s in shape)
    # Data-dependent: a mask selects as many positions as it has True values.
    return (tensor_sum(var, dtype="int64"),)


def advanced_symbolic_shape(
    op: Any, idx_list: Sequence, x_shape: Sequence, index: Sequence, index_shapes: Sequence
) -> tuple:
    """The shape of ``x[index]`` from the shapes of ``x`` and of the index inputs."""
    groups = list(entry_groups(idx_list, list(zip(index, index_shapes))))
    var_groups = [(e, tuple(None if g is None else g[0] for g in group)) for e, group in groups]
    dims, end = _layout(op, idx_list, var_groups, len(x_shape))
    basic, advanced = [], []
    for (entry, group), read in zip(groups, dims):
        lengths = [int_or_variable(x_shape[d]) for d in read]
        if isinstance(entry, SliceSpec):
            bounds = [None if g is None else int_or_variable(g[0]) for g in group]
            basic.append([slice_length(lengths[0], *bounds)])
        elif entry is None:
            basic.append([1])
        elif entry is Ellipsis:
            basic.append(lengths)
        else:
            basic.append([])
            advanced.append(_symbolic_advanced_part(entry, *group[0]))
    return _assemble(idx_list, basic, _broadcast_symbolic(advanced), x_shape[end:])


# -- one integer vector on axis 0 ------------------------------------------------------------


def _check_vector_index(op: Any, x: Variable, ilist: Variable) -> None:
    if ilist.type.ndim != 1 or ilist.type.dtype not in integer_dtypes:
        raise TypeError(f"{op} expects an integer vector as index, got {ilist.type}")
    if x.type.ndim == 0:
        raise IndexError(
            f"too many indices for array: array is 0-dimensional, but 1 were indexed ({op})"
        )
    _static_array_check(ilist, x.type.shape[0], 0)


class AdvancedSubtensor1(Op):
    """``x[ilist]`` for one integer vector ``ilist`` on axis 0 (``np.take(x, ilist, axis=0)``)."""

    __props__ = ()

    def make_node(self, x: Any, ilist: Any) -> Apply:
        x, ilist = as_tensor_variable(x), as_tensor_variable(ilist)
        _check_vector_index(self, x, ilist)
        shape = (ilist.type.shape[0], *x.type.shape[1:])
        return Apply(self, [x, ilist], [tensor_type(x.type.dtype, shape)()])

    def perform(self, node, inputs, output_storage):
        x, ilist = inputs
        output_storage[0][0] = x[ilist]

    def infer_shape(self, fgraph, node, input_shapes):
        x_shape, i_shape = input_shapes
        return [(i_shape[0], *x_shape[1:])]

    def connection_pattern(self, node):
        return [[True], [False]]

    def grad(self, inputs, output_grads):
        (x, ilist), (gz,) = inputs, output_grads
        # the adjoint of gathering rows is scatter-adding them (repeated rows accumulate)
        zeros = tm.zeros_like(x, dtype=gz.type.dtype)
        return [AdvancedIncSubtensor1()(zeros, gz, ilist), disconnected()]

    def R_op(self, inputs, eval_points):
        if eval_points[0] is None:
            return [None]
        return [self(eval_points[0], inputs[1])]  # linear in x


def _inc_flags(op: Any, inplace: bool, set_instead_of_inc: bool, ignore_duplicates: bool):
    op.inplace = bool(inplace)
    op.set_instead_of_inc = bool(set_instead_of_inc)
    op.ignore_duplicates = bool(ignore_duplicates)
    op.destroy_map = {0: [0]} if op.inplace else {}


def _write(op: Any, out: np.ndarray, index: Any, y: np.ndarray) -> None:
    if op.set_instead_of_inc:
        out[index] = y  # repeated positions: the last write wins, as in NumPy
    elif op.ignore_duplicates:
        out[index] += y  # NumPy's buffered +=: a repeated position gets one of its values
    else:
        np.add.at(out, index, y)  # repeated positions accumulate


def _inc_name(op: Any, base: str) -> str:
    name = base.replace("Inc", "Set") if op.set_instead_of_inc else base
    flags = [f for f in ("inplace", "ignore_duplicates") if getattr(op, f)]
    return name + (f"{{{','.join(flags)}}}" if flags else "")


class AdvancedIncSubtensor1(Op):
    """``x`` with ``y`` added to (or written into) the rows ``x[ilist]``.

    Repeated rows accumulate (``np.add.at``) unless ``ignore_duplicates`` (NumPy's ``+=``, where
    one value wins). With ``set_instead_of_inc`` the last write of a repeated row wins.
    """

    __props__ = ("inplace", "set_instead_of_inc", "ignore_duplicates")

    def __init__(
        self,
        inplace: bool = False,
        set_instead_of_inc: bool = False,
        ignore_duplicates: bool = False,
    ) -> None:
        _inc_flags(self, inplace, set_instead_of_inc, ignore_duplicates)

    def make_node(self, x: Any, y: Any, ilist: Any) -> Apply:
        x, y, ilist = (as_tensor_variable(v) for v in (x, y, ilist))
        _check_vector_index(self, x, ilist)
        check_value_fits(self, x, y, (ilist.type.shape[0], *x.type.shape[1:]))
        return Apply(self, [x, y, ilist], [x.type()])

    def perform(self, node, inputs, output_storage):
        x, y, ilist = inputs
        out = x if self.inplace else x.copy()
        check_runtime_value(self, node.inputs[1], y, (len(ilist), *x.shape[1:]))
        _write(self, out, ilist, y)
        output_storage[0][0] = out

    def infer_shape(self, fgraph, node, input_shapes):
        return [input_shapes[0]]

    def connection_pattern(self, node):
        return [[True], [True], [False]]

    def grad(self, inputs, output_grads):
        (x, y, ilist), (gz,) = inputs, output_grads
        if self.set_instead_of_inc:
            gx = AdvancedIncSubtensor1(set_instead_of_inc=True)(gz, zero_cotangent(gz), ilist)
        else:
            gx = gz
        gy = AdvancedSubtensor1()(gz, ilist)
        if self.set_instead_of_inc or self.ignore_duplicates:
            gy = tm.switch(WriteWinners((ARRAY,))(x, ilist), gy, 0)
        return [gx, sum_to_type(gy, y), disconnected()]

    def R_op(self, inputs, eval_points):
        return _inc_r_op(self, inputs, eval_points, type(self)(**_linear_props(self)))

    def __str__(self) -> str:
        return _inc_name(self, "AdvancedIncSubtensor1")


def _linear_props(op: Any) -> dict:
    props = {
        "set_instead_of_inc": op.set_instead_of_inc,
        "ignore_duplicates": op.ignore_duplicates,
    }
    if hasattr(op, "idx_list"):
        props["idx_list"] = op.idx_list
    return props


def _inc_r_op(op: Any, inputs: list, eval_points: list, linear_op: Op) -> list:
    (x, y, *index), (ev_x, ev_y, *_) = inputs, eval_points
    if ev_x is None and ev_y is None:
        return [None]
    ev_x = tm.zeros_like(x) if ev_x is None else ev_x
    ev_y = tm.zeros_like(y) if ev_y is None else ev_y
    return [linear_op(ev_x, ev_y, *index)]  # linear in (x, y) jointly, for inc and set


# -- the general case ------------------------------------------------------------------------


class AdvancedSubtensor(Op):
    """``x[index]`` for an index with integer arrays or boolean masks (a copy, as in NumPy).

    ``idx_list`` entries: :data:`INT`, :data:`ARRAY`, :data:`MASK`, :class:`SliceSpec`, ``None``
    and ``Ellipsis`` (kept, since even an empty ellipsis separates advanced entries).
    """

    __props__ = ("idx_list",)

    def __init__(self, idx_list: Sequence[Any]) -> None:
        self.idx_list = check_idx_list("AdvancedSubtensor", idx_list, ADVANCED_ENTRIES)
        if not any(is_advanced_entry(e) for e in self.idx_list):
            raise ValueError("AdvancedSubtensor needs an integer or boolean array entry")

    def make_node(self, x: Any, *index: Any) -> Apply:
        x = as_tensor_variable(x)
        index = prepare_index(self, self.idx_list, index)
        shape = advanced_static_shape(self, x, self.idx_list, index)
        return Apply(self, [x, *index], [tensor_type(x.type.dtype, shape)()])

    def perform(self, node, inputs, output_storage):
        x, *values = inputs
        out = x[numpy_index(self.idx_list, values)]
        output_storage[0][0] = out if isinstance(out, np.ndarray) else np.asarray(out, x.dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        index, shapes = node.inputs[1:], input_shapes[1:]
        return [advanced_symbolic_shape(self, self.idx_list, input_shapes[0], index, shapes)]

    def connection_pattern(self, node):
        return [[True]] + [[False]] * (len(node.inputs) - 1)

    def grad(self, inputs, output_grads):
        (x, *index), (gz,) = inputs, output_grads
        zeros = tm.zeros_like(x, dtype=gz.type.dtype)
        gx = AdvancedIncSubtensor(self.idx_list)(zeros, gz, *index)  # scatter-add
        return [gx] + [disconnected() for _ in index]

    def R_op(self, inputs, eval_points):
        if eval_points[0] is None:
            return [None]
        return [self(eval_points[0], *inputs[1:])]  # linear in x

    def __str__(self) -> str:
        return f"AdvancedSubtensor{{{', '.join(entry_str(e) for e in self.idx_list)}}}"


class AdvancedIncSubtensor(Op):
    """``x`` with ``y`` added to (or written into) ``x[index]`` for an advanced index.

    Repeated positions accumulate (``np.add.at``) unless ``ignore_duplicates``; with
    ``set_instead_of_inc`` the last write wins, as in NumPy.
    """

    __props__ = ("idx_list", "inplace", "set_instead_of_inc", "ignore_duplicates")

    def __init__(
        self,
        idx_list: Sequence[Any],
        inplace: bool = False,
        set_instead_of_inc: bool = False,
        ignore_duplicates: bool = False,
    ) -> None:
        self.idx_list = AdvancedSubtensor(idx_list).idx_list
        _inc_flags(self, inplace, set_instead_of_inc, ignore_duplicates)

    def make_node(self, x: Any, y: Any, *index: Any) -> Apply:
        x, y = as_tensor_variable(x), as_tensor_variable(y)
        index = prepare_index(self, self.idx_list, index)
        check_value_fits(self, x, y, advanced_static_shape(self, x, self.idx_list, index))
        return Apply(self, [x, y, *index], [x.type()])

    def perform(self, node, inputs, output_storage):
        x, y, *values = inputs
        out = x if self.inplace else x.copy()
        index = numpy_index(self.idx_list, values)
        check_runtime_value(self, node.inputs[1], y, runtime_target_shape(x.shape, index))
        _write(self, out, index, y)
        output_storage[0][0] = out

    def infer_shape(self, fgraph, node, input_shapes):
        return [input_shapes[0]]

    def connection_pattern(self, node):
        return [[True], [True]] + [[False]] * (len(node.inputs) - 2)

    def grad(self, inputs, output_grads):
        (x, y, *index), (gz,) = inputs, output_grads
        if self.set_instead_of_inc:
            gx = AdvancedIncSubtensor(self.idx_list, set_instead_of_inc=True)(
                gz, zero_cotangent(gz), *index
            )
        else:
            gx = gz
        gy = AdvancedSubtensor(self.idx_list)(gz, *index)
        # Only integer arrays can repeat a position; then only the surviving writes matter.
        overwrites = self.set_instead_of_inc or self.ignore_duplicates
        if overwrites and ARRAY in self.idx_list:
            gy = tm.switch(WriteWinners(self.idx_list)(x, *index), gy, 0)
        return [gx, sum_to_type(gy, y)] + [disconnected() for _ in index]

    def R_op(self, inputs, eval_points):
        return _inc_r_op(self, inputs, eval_points, type(self)(**_linear_props(self)))

    def __str__(self) -> str:
        entries = ", ".join(entry_str(e) for e in self.idx_list)
        name = _inc_name(self, "AdvancedIncSubtensor")
        return name.replace("Subtensor", f"Subtensor{{{entries}}}", 1)


class WriteWinners(Op):
    """Which elements of a value written by ``x[index] = y`` end up in the result.

    With an index that repeats a position, NumPy keeps the last write: the output (a boolean
    tensor of the shape of ``x[index]``) is True where the write is kept. It is what the
    gradient of set-with-repeats needs: the overwritten elements of ``y`` do not matter.
    """

    __props__ = ("idx_list",)

    def __init__(self, idx_list: Sequence[Any]) -> None:
        self.idx_list = AdvancedSubtensor(idx_list).idx_list

    def make_node(self, x: Any, *index: Any) -> Apply:
        x = as_tensor_variable(x)
        index = prepare_index(self, self.idx_list, index)
        shape = advanced_static_shape(self, x, self.idx_list, index)
        return Apply(self, [x, *index], [tensor_type("bool", shape)()])

    def perform(self, node, inputs, output_storage):
        x, *values = inputs
        index = numpy_index(self.idx_list, values)
        target = runtime_target_shape(x.shape, index)
        ids = np.arange(int(np.prod(target, dtype=np.int64)), dtype=np.int64).reshape(target)
        slots = np.full(x.shape, -1, dtype=np.int64)
        slots[index] = ids
        output_storage[0][0] = slots[index] == ids

    def infer_shape(self, fgraph, node, input_shapes):
        index, shapes = node.inputs[1:], input_shapes[1:]
        return [advanced_symbolic_shape(self, self.idx_list, input_shapes[0], index, shapes)]

    def connection_pattern(self, node):
        return [[False] for _ in node.inputs]

    def grad(self, inputs, output_grads):
        return [disconnected() for _ in inputs]

    def R_op(self, inputs, eval_points):
        return [None]

    def __str__(self) -> str:
        return f"WriteWinners{{{', '.join(entry_str(e) for e in self.idx_list)}}}"


__all__ = [
    "AdvancedIncSubtensor",
    "AdvancedIncSubtensor1",
    "AdvancedSubtensor",
    "AdvancedSubtensor1",
]
