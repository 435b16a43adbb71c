"""NumPy's array manipulations: cumulative sums and products (``CumOp``), ``Flip``,
``Repeat`` (and its adjoint ``SegmentSum``), diagonals (``ExtractDiag``, ``AllocDiag``), and
the functions built on them and on ``Join``/``Split``/``Alloc`` (tile, roll, trace, tril...)."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from arignote.config import config
from arignote.graph.basic import Apply, Constant, Variable
from arignote.graph.grad_types import disconnected
from arignote.graph.op import Op
from arignote.scalar.basic import discrete_dtypes, grad_dtype, integer_dtypes
from arignote.tensor.alloc import (
    alloc,
    arange,
    as_size,
    is_sequence,
    shape_entries,
    static_int,
    tri,
)
from arignote.tensor.basic import as_index_variable, as_tensor_variable, constant
from arignote.tensor.elemwise import DimShuffle
from arignote.tensor.indexing_ops import bincount, diff
from arignote.tensor.join import join, split
from arignote.tensor.math import cast, eq, maximum, minimum, mod, mul, switch
from arignote.tensor.reduction import Sum, _sum_dtype, normalize_axes
from arignote.tensor.reshape import flatten, reshape
from arignote.tensor.shape import as_axis, shape_i, shape_padleft, shape_tuple, squeeze
from arignote.tensor.sort import searchsorted, unique
from arignote.tensor.type import tensor_type


def _one_axis(axis: Any, ndim: int, context: str) -> int:
    try:
        (axis,) = normalize_axes(as_axis(axis, context), ndim)
    except ValueError as err:
        raise type(err)(f"{context}: {err}") from err  # AxisError stays one (NumPy's class)
    return axis


def _check_axis(op: Op, axis: int, x: Variable) -> None:
    if not 0 <= axis < x.type.ndim:
        raise np.exceptions.AxisError(f"{op}: axis {axis} is out of range for {x.type}")


# -- cumulative sums and products -----------------------------------------------------------


class CumOp(Op):
    """``np.cumsum`` (``mode="add"``) or ``np.cumprod`` (``mode="mul"``) along ``axis``.

    ``axis=None`` works on the flattened input. The dtype follows NumPy (small integers and
    booleans accumulate as int64).
    """

    __props__ = ("axis", "mode")

    def __init__(self, axis: int | None = None, mode: str = "add") -> None:
        if mode not in ("add", "mul"):
            raise ValueError(f"CumOp mode must be 'add' or 'mul', got {mode!r}")
        if axis is not None and int(axis) < 0:
            raise ValueError(f"CumOp expects a non-negative axis (or None), got {axis}")
        self.axis = None if axis is None else int(axis)
        self.mode = mode

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        if self.axis is None:
            static = x.type.shape
            shape = (None if None in static else int(np.prod(static, dtype=np.int64)),)
        else:
            _check_axis(self, self.axis, x)
            shape = x.type.shape
        return Apply(self, [x], [tensor_type(_sum_dtype(x.type.dtype), shape)()])

    def perform(self, node, inputs, output_storage):
        fn = np.cumsum if self.mode == "add" else np.cumprod
        dtype = node.outputs[0].type.dtype
        output_storage[0][0] = fn(inputs[0], axis=self.axis, dtype=dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        (shape,) = input_shapes
        if self.axis is None:
            return [(_product(shape),)]
        return [shape]

    def L_op(self, inputs, outputs, output_grads):
        (x,), (gz,) = inputs, output_grads
        if x.type.dtype in discrete_dtypes:
            return [x.zeros_like(dtype=grad_dtype(x))]
        axis = 0 if self.axis is None else self.axis
        if self.mode == "add":
            g = _reverse_cumsum(gz, axis)  # d out_j / d x_i = 1 for i <= j
        else:
            g = _cumprod_vjp(flatten(x) if self.axis is None else x, gz, axis)
        if self.axis is None:
            g = reshape(g, shape_tuple(x), ndim=x.type.ndim)
        return [g.astype(x.type.dtype)]

    def R_op(self, inputs, eval_points):
        (x,), (ev,) = inputs, eval_points
        if ev is None:
            return [None]
        if self.mode == "add":
            return [self(ev)]  # linear
        if self.axis is None:
            return [_cumprod_jvp(flatten(x), flatten(ev), 0)]
        return [_cumprod_jvp(x, ev, self.axis)]

    def __str__(self) -> str:
        name = "CumSum" if self.mode == "add" else "CumProd"
        return name if self.axis is None else f"{name}{{{self.axis}}}"


def _product(lengths: tuple) -> Any:
    """The product of dimension lengths (1 for a 0-d input)."""
    result = constant(1, dtype="int64")
    for length in lengths:
        result = mul(result, length)
    return result


def _reverse_cumsum(g: Variable, axis: int) -> Variable:
    """Sums from each position to the end of ``axis``."""
    return flip(CumOp(axis, "add")(flip(g, axis)), axis)


# The derivatives of cumprod, exact where x has zeros (no division by a zero x_i).
# With out_j = prod_{k <= j} x_k, d out_j / d x_i = prod_{k <= j, k != i} x_k for i <= j.
# Let nz be x with its zeros replaced by 1, Q = cumprod(nz) and Z = cumsum(x == 0) (the zeros
# seen so far). For x_i != 0 the partial is Q_j / x_i where Z_j == 0 (else 0); for x_i == 0 it
# is Q_j where Z_j == 1 (x_i is then the only zero up to j), else 0.


def _cumprod_parts(x: Variable, axis: int) -> tuple[Variable, Variable, Variable, Variable]:
    """``(is_zero, nz, Q, Z)`` of the comment above, along ``axis``."""
    is_zero = eq(x, 0)
    nz = switch(is_zero, constant(1, dtype=x.type.dtype), x)
    return is_zero, nz, CumOp(axis, "mul")(nz), CumOp(axis, "add")(is_zero)


def _cumprod_vjp(x: Variable, gz: Variable, axis: int) -> Variable:
    """sum_{j >= i} gz_j * d out_j / d x_i."""
    is_zero, nz, q, zeros = _cumprod_parts(x, axis)
    weighted = gz * q
    before_any_zero = _reverse_cumsum(switch(eq(zeros, 0), weighted, 0), axis) / nz
    after_first_zero = _reverse_cumsum(switch(eq(zeros, 1), weighted, 0), axis)
    return switch(is_zero, after_first_zero, before_any_zero)


def _cumprod_jvp(x: Variable, v: Variable, axis: int) -> Variable:
    """sum_{i <= j} d out_j / d x_i * v_i."""
    is_zero, nz, q, zeros = _cumprod_parts(x, axis)
    from_nonzeros = switch(eq(zeros, 0), CumOp(axis, "add")(v / nz), 0)
    from_first_zero = switch(eq(zeros, 1), CumOp(axis, "add")(switch(is_zero, v, 0)), 0)
    return q * (from_nonzeros + from_first_zero)


def _cum(x: Any, axis: Any, mode: str, dtype: Any) -> Variable:
    x = as_tensor_variable(x)
    if axis is not None:
        axis = _one_axis(axis, x.type.ndim, "cumsum" if mode == "add" else "cumprod")
    if dtype is None:
        return CumOp(axis, mode)(x)
    # accumulating in ``dtype``: integers wrap modulo 2**bits whether the casts come before
    # or after the wider accumulation, and booleans or/and as NumPy's do
    dtype = np.dtype(dtype).name
    return cast(CumOp(axis, mode)(cast(x, dtype)), dtype)


def cumsum(x: Any, axis: int | None = None, dtype: Any = None) -> Variable:
    """Cumulative sum along ``axis`` (None: of the flattened tensor), like ``np.cumsum``.

    Small integers and booleans accumulate as int64 (unsigned as uint64) unless ``dtype``
    is given.
    """
    return _cum(x, axis, "add", dtype)


def cumprod(x: Any, axis: int | None = None, dtype: Any = None) -> Variable:
    """Cumulative product along ``axis`` (None: of the flattened tensor), like ``np.cumprod``.

    Its first derivatives (gradient and R_op) are exact where the input holds zeros (no
    division by a zero element); at such points the second derivative is not (as for prod).
    """
    return _cum(x, axis, "mul", dtype)


# -- Flip -----------------------------------------------------------------------------------


class Flip(Op):
    """``x`` with the order of its elements reversed along ``axis`` (a tuple); a view."""

    __props__ = ("axis",)
    view_map = {0: [0]}

    def __init__(self, axis: Any) -> None:
        axis = tuple(sorted(int(a) for a in axis))
        if builtins.any(a < 0 for a in axis) or len(set(axis)) != len(axis):
            raise ValueError(f"Flip axes must be distinct and non-negative, got {axis}")
        self.axis = axis

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        for a in self.axis:
            _check_axis(self, a, x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = np.flip(inputs[0], self.axis)

    def infer_shape(self, fgraph, node, input_shapes):
        return [input_shapes[0]]

    def grad(self, inputs, output_grads):
        return [self(output_grads[0])]  # a permutation is its own adjoint's inverse

    def R_op(self, inputs, eval_points):
        return [None if eval_points[0] is None else self(eval_points[0])]  # linear


def flip(x: Any, axis: Any = None) -> Variable:
    """``x`` reversed along ``axis`` (an int, a tuple, or None for all), like ``np.flip``."""
    x = as_tensor_variable(x)
    axes = normalize_axes(axis, x.type.ndim)
    axes = tuple(range(x.type.ndim)) if axes is None else axes
    if not axes:
        return x
    return Flip(axes)(x)


def fliplr(x: Any) -> Variable:
    """``x`` reversed along its second dimension, like ``np.fliplr``."""
    return flip(x, 1)


def flipud(x: Any) -> Variable:
    """``x`` reversed along its first dimension, like ``np.flipud``."""
    return flip(x, 0)


# -- Repeat and SegmentSum ------------------------------------------------------------------


def _as_counts(counts: Any, context: str) -> Variable:
    counts = as_index_variable(counts)
    if counts.type.ndim > 1 or counts.type.dtype not in integer_dtypes:
        raise TypeError(
            f"{context}: repeats must be an integer scalar or vector, got {counts.type}"
        )
    if isinstance(counts, Constant) and np.any(counts.data < 0):
        raise ValueError(f"{context}: repeats must be non-negative, got {counts.data}")
    return counts


def _constant_counts(counts: Variable) -> np.ndarray | None:
    if isinstance(counts, Constant):
        return np.asarray(counts.data)
    value = static_int(counts) if counts.type.ndim == 0 else None
    return None if value is None else np.asarray(value)


class Repeat(Op):
    """Each element of ``x`` along ``axis`` repeated ``repeats`` times, like ``np.repeat``.

    ``repeats`` is an integer scalar (the same count for every element) or a vector with one
    count per element along ``axis``.
    """

    __props__ = ("axis",)

    def __init__(self, axis: int) -> None:
        if int(axis) < 0:
            raise ValueError(f"Repeat expects a non-negative axis, got {axis}")
        self.axis = int(axis)

    def make_node(self, x: Any, repeats: Any) -> Apply:
        x = as_tensor_variable(x)
        repeats = _as_counts(repeats, "Repeat")
        _check_axis(self, self.axis, x)
        shape = list(x.type.shape)
        shape[self.axis] = self._static_length(x.type.shape[self.axis], repeats)
        return Apply(self, [x, repeats], [tensor_type(x.type.dtype, tuple(shape))()])

    def _static_length(self, length: int | None, repeats: Variable) -> int | None:
        if repeats.type.ndim == 1:
            count = repeats.type.shape[0]
            if None not in (count, length) and count != length:
                raise ValueError(f"{self}: {count} repeat counts for an axis of length {length}")
        counts = _constant_counts(repeats)
        if counts is None:
            return None
        if counts.ndim == 1:
            return int(counts.sum())
        return None if length is None else length * int(counts)

    def perform(self, node, inputs, output_storage):
        x, repeats = inputs
        if repeats.ndim == 1 and repeats.shape[0] != x.shape[self.axis]:
            raise ValueError(
                f"{self}: {repeats.shape[0]} repeat counts for an axis of length "
                f"{x.shape[self.axis]}"
            )
        if np.any(repeats < 0):
            raise ValueError(f"{self}: negative repeat counts {repeats}")
        output_storage[0][0] = np.repeat(x, repeats, axis=self.axis)

    def infer_shape(self, fgraph, node, input_shapes):
        repeats = node.inputs[1]
        shape = list(input_shapes[0])
        if repeats.type.ndim == 0:
            shape[self.axis] = mul(shape[self.axis], repeats)
        else:
            shape[self.axis] = Sum()(repeats)
        return [tuple(shape)]

    def connection_pattern(self, node):
        return [[True], [False]]

    def grad(self, inputs, output_grads):
        x, repeats = inputs
        (gz,) = output_grads
        if x.type.dtype in discrete_dtypes:
            return [x.zeros_like(dtype=grad_dtype(x)), disconnected()]
        if repeats.type.ndim == 1:
            gx = SegmentSum(self.axis)(gz, repeats)
        else:
            # view gz as (..., n, repeats, ...) and add up the copies of each element
            lengths = list(shape_tuple(x))
            lengths.insert(self.axis + 1, repeats)
            gx = reshape(gz, lengths, ndim=x.type.ndim + 1).sum(axis=self.axis + 1)
        return [gx.astype(x.type.dtype), disconnected()]

    def R_op(self, inputs, eval_points):
        if eval_points[0] is None:
            return [None]
        return [self(eval_points[0], inputs[1])]  # linear in x


class SegmentSum(Op):
    """Sums of consecutive groups along ``axis``: group ``i`` has ``sizes[i]`` elements.

    The adjoint of ``Repeat`` with per-element counts (and so its gradient); the sizes must
    add up to ``x.shape[axis]``. An empty group sums to 0.
    """

    __props__ = ("axis",)

    def __init__(self, axis: int) -> None:
        if int(axis) < 0:
            raise ValueError(f"SegmentSum expects a non-negative axis, got {axis}")
        self.axis = int(axis)

    def make_node(self, x: Any, sizes: Any) -> Apply:
        x = as_tensor_variable(x)
        sizes = _as_counts(sizes, "SegmentSum")
        if sizes.type.ndim != 1:
            raise TypeError(f"{self}: sizes must be an integer vector, got {sizes.type}")
        _check_axis(self, self.axis, x)
        shape = list(x.type.shape)
        shape[self.axis] = sizes.type.shape[0]
        return Apply(self, [x, sizes], [tensor_type(x.type.dtype, tuple(shape))()])

    def perform(self, node, inputs, output_storage):
        x, sizes = inputs
        if np.any(sizes < 0) or sizes.sum() != x.shape[self.axis]:
            raise ValueError(
                f"{self}: group sizes {sizes} do not split an axis of length {x.shape[self.axis]}"
            )
        shape = list(x.shape)
        shape[self.axis] = len(sizes)
        out = np.zeros(shape, dtype=x.dtype)
        nonempty = sizes > 0
        if np.any(nonempty):
            starts = (np.cumsum(sizes) - sizes)[nonempty]
            index = [slice(None)] * x.ndim
            index[self.axis] = nonempty
            out[tuple(index)] = np.add.reduceat(x, starts, axis=self.axis)
        output_storage[0][0] = out

    def infer_shape(self, fgraph, node, input_shapes):
        shape = list(input_shapes[0])
        shape[self.axis] = input_shapes[1][0]
        return [tuple(shape)]

    def connection_pattern(self, node):
        return [[True], [False]]

    def grad(self, inputs, output_grads):
        x, sizes = inputs
        (gz,) = output_grads
        if x.type.dtype in discrete_dtypes:
            return [x.zeros_like(dtype=grad_dtype(x)), disconnected()]
        return [Repeat(self.axis)(gz, sizes).astype(x.type.dtype), disconnected()]

    def R_op(self, inputs, eval_points):
        if eval_points[0] is None:
            return [None]
        return [self(eval_points[0], inputs[1])]  # linear in x


def repeat(x: Any, repeats: Any, axis: int | None = None) -> Variable:
    """Each element of ``x`` repeated ``repeats`` times along ``axis``, like ``np.repeat``.

    ``repeats`` is an int (or integer scalar) for every element, or a vector of one count per
    element along ``axis``. With ``axis=None`` the flattened tensor is repeated.
    """
    x = as_tensor_variable(x)
    if axis is None:
        x, axis = flatten(x), 0
    else:
        axis = _one_axis(axis, x.type.ndim, "repeat")
    repeats = _as_counts(repeats, "repeat")
    if repeats.type.ndim == 1 and repeats.type.shape[0] == 1:
        repeats = DimShuffle(1, ())(repeats)  # one count for all elements, as NumPy broadcasts
    return Repeat(axis)(x, repeats)


# -- tile and roll (compositions) -----------------------------------------------------------


def tile(x: Any, reps: Any) -> Variable:
    """``x`` repeated ``reps[d]`` times along each dimension ``d``, like ``np.tile``.

    As in NumPy, ``x`` gains leading dimensions when ``reps`` is longer than ``x.ndim``, and
    ``reps`` is padded with leading 1s when shorter.
    """
    x = as_tensor_variable(x)
    reps = shape_entries(reps, "tile")
    ndim = builtins.max(len(reps), x.type.ndim)
    x = shape_padleft(x, ndim - x.type.ndim) if ndim > x.type.ndim else x
    reps = [constant(1, dtype="int64")] * (ndim - len(reps)) + reps
    if builtins.all(static_int(r) == 1 for r in reps):
        return x
    # view x as (1, s0, 1, s1, ...), broadcast to (r0, s0, r1, s1, ...) and merge each pair
    order: list = []
    lengths = []
    for d, r in enumerate(reps):
        order += ["x", d]
        lengths += [r, shape_i(x, d)]
    tiled = alloc(DimShuffle(ndim, order)(x), *lengths)
    return reshape(tiled, [mul(r, shape_i(x, d)) for d, r in enumerate(reps)], ndim=ndim)


def _roll_pairs(shift: Any, axis: Any, ndim: int) -> dict[int, list]:
    shifts = list(shift) if is_sequence(shift) else [shift]
    axes = list(axis) if is_sequence(axis) else [axis]
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    if len(axes) == 1:
        axes = axes * len(shifts)
    if len(shifts) != len(axes):
        raise ValueError(f"roll: {len(shifts)} shifts for {len(axes)} axes")
    per_axis: dict[int, list] = {}
    for s, a in zip(shifts, axes):
        per_axis.setdefault(_one_axis(a, ndim, "roll"), []).append(s)
    return per_axis


def roll(x: Any, shift: Any, axis: Any = None) -> Variable:
    """``x`` with its elements shifted by ``shift`` positions along ``axis``, like ``np.roll``.

    Elements leaving at one end come back at the other. ``axis=None`` rolls the flattened
    tensor; ``shift`` and ``axis`` may be sequences (one shift per axis).
    """
    x = as_tensor_variable(x)
    if x.type.ndim == 0:
        return x
    if axis is None and x.type.ndim > 1:
        rolled = roll(flatten(x), shift, 0)
        return reshape(rolled, shape_tuple(x), ndim=x.type.ndim)
    axis = 0 if axis is None else axis
    for a, shifts in _roll_pairs(shift, axis, x.type.ndim).items():
        total = shifts[0]
        for s in shifts[1:]:
            total = total + s
        x = _roll_axis(x, total, a)
    return x


def _roll_axis(x: Variable, shift: Any, axis: int) -> Variable:
    shift = as_tensor_variable(shift)
    if shift.type.ndim != 0 or shift.type.dtype not in integer_dtypes:
        raise TypeError(f"roll: a shift must be an integer scalar, got {shift.type}")
    length = shape_i(x, axis)
    moved = mod(shift, maximum(length, 1))  # in [0, length): NumPy's modulo is non-negative
    if static_int(moved) == 0:
        return x
    head, tail = split(x, [length - moved, moved], axis=axis)
    return join(axis, tail, head)


# -- diagonals ------------------------------------------------------------------------------


def _diag_length(rows: Any, cols: Any, offset: int) -> Any:
    """The length of diagonal ``offset`` of a rows x cols matrix (ints or int scalars)."""
    if offset >= 0:
        a, b = rows, cols - offset
    else:
        a, b = rows + offset, cols
    if isinstance(a, (int, np.integer)) and isinstance(b, (int, np.integer)):
        return builtins.max(0, builtins.min(int(a), int(b)))
    return maximum(minimum(a, b), 0)


class _DiagOp(Op):
    """Common part of the diagonal ops: ``offset`` and the plane ``(axis1, axis2)``."""

    __props__ = ("offset", "axis1", "axis2")

    def __init__(self, offset: int = 0, axis1: int = 0, axis2: int = 1) -> None:
        self.offset, self.axis1, self.axis2 = int(offset), int(axis1), int(axis2)
        if self.axis1 < 0 or self.axis2 < 0 or self.axis1 == self.axis2:
            raise ValueError(
                f"{type(self).__name__} axes must be distinct and non-negative, got "
                f"{axis1} and {axis2}"
            )

    def _check_axes(self, ndim: int, what: str) -> None:
        if builtins.max(self.axis1, self.axis2) >= ndim:
            raise ValueError(
                f"{self}: axes {self.axis1} and {self.axis2} are out of range for {what}"
            )


class ExtractDiag(_DiagOp):
    """The diagonal ``offset`` of ``x`` in the plane ``(axis1, axis2)``: ``np.diagonal``.

    The other dimensions come first, in order; the diagonal is the last dimension.
    """

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        if x.type.ndim < 2:
            raise ValueError(f"{self} needs at least 2 dimensions, got {x.type}")
        self._check_axes(x.type.ndim, str(x.type))
        return Apply(self, [x], [tensor_type(x.type.dtype, self._out_shape(x.type.shape))()])

    def _out_shape(self, shape: tuple) -> tuple:
        batch = [s for d, s in enumerate(shape) if d not in (self.axis1, self.axis2)]
        rows, cols = shape[self.axis1], shape[self.axis2]
        length = None if None in (rows, cols) else _diag_length(rows, cols, self.offset)
        return (*batch, length)

    def perform(self, node, inputs, output_storage):
        diagonal = np.diagonal(inputs[0], self.offset, self.axis1, self.axis2)
        output_storage[0][0] = diagonal.copy()  # NumPy's is a read-only view

    def infer_shape(self, fgraph, node, input_shapes):
        (shape,) = input_shapes
        batch = [s for d, s in enumerate(shape) if d not in (self.axis1, self.axis2)]
        return [(*batch, _diag_length(shape[self.axis1], shape[self.axis2], self.offset))]

    def grad(self, inputs, output_grads):
        (x,), (gz,) = inputs, output_grads
        if x.type.dtype in discrete_dtypes:
            return [x.zeros_like(dtype=grad_dtype(x))]
        rows, cols = shape_i(x, self.axis1), shape_i(x, self.axis2)
        embed = AllocDiag(self.offset, self.axis1, self.axis2)
        return [embed(gz, rows, cols).astype(x.type.dtype)]

    def R_op(self, inputs, eval_points):
        return [None if eval_points[0] is None else self(eval_points[0])]  # linear


class AllocDiag(_DiagOp):
    """Zeros with the last dimension of ``diagonal`` laid on diagonal ``offset`` of the plane
    ``(axis1, axis2)`` of a new array (the adjoint of ``ExtractDiag``).

    The inputs are ``diagonal`` and the lengths of output dimensions ``axis1`` and ``axis2``;
    the other dimensions of ``diagonal`` fill the remaining output dimensions in order.
    """

    def make_node(self, diagonal: Any, rows: Any, cols: Any) -> Apply:
        diagonal = as_tensor_variable(diagonal)
        if diagonal.type.ndim < 1:
            raise ValueError(f"{self} needs a diagonal of at least 1 dimension")
        self._check_axes(diagonal.type.ndim + 1, f"a {diagonal.type.ndim + 1}-d result")
        rows, cols = as_size(rows, str(self)), as_size(cols, str(self))
        static = self._place(list(diagonal.type.shape[:-1]), static_int(rows), static_int(cols))
        length = diagonal.type.shape[-1]
        if None not in (static[self.axis1], static[self.axis2], length):
            expected = _diag_length(static[self.axis1], static[self.axis2], self.offset)
            if expected != length:
                raise ValueError(
                    f"{self}: a diagonal of length {length} does not fit diagonal "
                    f"{self.offset} of a {static[self.axis1]} x {static[self.axis2]} matrix"
                )
        out = tensor_type(diagonal.type.dtype, tuple(static))()
        return Apply(self, [diagonal, rows, cols], [out])

    def _place(self, batch: list, rows: Any, cols: Any) -> list:
        """The output shape: ``rows``/``cols`` at axis1/axis2, ``batch`` elsewhere in order."""
        entries = iter(batch)
        shape = []
        for d in range(len(batch) + 2):
            if d == self.axis1:
                shape.append(rows)
            elif d == self.axis2:
                shape.append(cols)
            else:
                shape.append(next(entries))
        return shape

    def perform(self, node, inputs, output_storage):
        diagonal, rows, cols = inputs
        rows, cols = int(rows), int(cols)
        expected = _diag_length(rows, cols, self.offset)
        if diagonal.shape[-1] != expected:
            raise ValueError(
                f"{self}: a diagonal of length {diagonal.shape[-1]} does not fit diagonal "
                f"{self.offset} of a {rows} x {cols} matrix"
            )
        out = np.zeros(self._place(list(diagonal.shape[:-1]), rows, cols), diagonal.dtype)
        plane = np.moveaxis(out, (self.axis1, self.axis2), (-2, -1))  # a view of out
        i = np.arange(expected)
        plane[..., i + builtins.max(-self.offset, 0), i + builtins.max(self.offset, 0)] = diagonal
        output_storage[0][0] = out

    def infer_shape(self, fgraph, node, input_shapes):
        _, rows, cols = node.inputs
        return [tuple(self._place(list(input_shapes[0][:-1]), rows, cols))]

    def connection_pattern(self, node):
        return [[True], [False], [False]]

    def grad(self, inputs, output_grads):
        diagonal = inputs[0]
        (gz,) = output_grads
        extract = ExtractDiag(self.offset, self.axis1, self.axis2)
        if diagonal.type.dtype in discrete_dtypes:
            g = diagonal.zeros_like(dtype=grad_dtype(diagonal))
        else:
            g = extract(gz).astype(diagonal.type.dtype)
        return [g, disconnected(), disconnected()]

    def R_op(self, inputs, eval_points):
        if eval_points[0] is None:
            return [None]
        return [self(eval_points[0], *inputs[1:])]  # linear in the diagonal


def _static_offset(offset: Any, context: str) -> int:
    """A diagonal offset known when the graph is built (it is a prop of the diagonal ops)."""
    if isinstance(offset, Variable):
        value = static_int(offset)
        if value is None:
            raise TypeError(
                f"{context}: the offset must be an int known when the graph is built, got the "
                f"symbolic {offset} ({offset.type})"
            )
        return value
    if not isinstance(offset, (int, np.integer)) or isinstance(offset, bool):
        raise TypeError(f"{context}: the offset must be an int, got {offset!r}")
    return int(offset)


def diagonal(x: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Variable:
    """Diagonal ``offset`` of ``x`` in the plane ``(axis1, axis2)``, like ``np.diagonal``.

    The result has the other dimensions of ``x`` first and the diagonal last. ``offset`` is
    an int (or a constant): it is a property of the op, as in PyTensor.
    """
    offset = _static_offset(offset, "diagonal")
    x = as_tensor_variable(x)
    if x.type.ndim < 2:
        raise ValueError(f"diagonal needs at least 2 dimensions, got {x.type}")
    a1 = _one_axis(axis1, x.type.ndim, "diagonal")
    a2 = _one_axis(axis2, x.type.ndim, "diagonal")
    if a1 == a2:
        raise ValueError(f"diagonal: axis1 and axis2 cannot be the same ({axis1}, {axis2})")
    return ExtractDiag(offset, a1, a2)(x)


def diag(v: Any, k: int = 0) -> Variable:
    """Like ``np.diag``: the matrix with vector ``v`` on diagonal ``k``, or the diagonal ``k``
    of matrix ``v`` (``k`` is an int known when the graph is built)."""
    v = as_tensor_variable(v)
    k = _static_offset(k, "diag")
    if v.type.ndim == 1:
        n = shape_i(v, 0) + builtins.abs(k)
        return AllocDiag(k, 0, 1)(v, n, n)
    if v.type.ndim == 2:
        return diagonal(v, k)
    raise ValueError(f"diag expects a vector or a matrix, got {v.type}")


def trace(x: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None):
    """Sum along diagonal ``offset`` of ``x`` (in the plane ``(axis1, axis2)``), ``np.trace``.

    ``offset`` is an int known when the graph is built.
    """
    return diagonal(x, offset, axis1, axis2).sum(axis=-1, dtype=dtype)


def _triangle(m: Any, k: int, lower: bool) -> Variable:
    m = as_tensor_variable(m)
    if m.type.ndim == 0:
        raise ValueError(f"{'tril' if lower else 'triu'} needs at least 1 dimension")
    rows = shape_i(m, -2) if m.type.ndim >= 2 else shape_i(m, 0)
    cols = shape_i(m, -1)
    if lower:
        mask = tri(rows, cols, k, dtype="bool")  # j <= i + k
    else:
        mask = ~tri(rows, cols, k - 1, dtype="bool")  # j >= i + k
    return switch(mask, m, constant(0, dtype=m.type.dtype))


def tril(m: Any, k: int = 0) -> Variable:
    """``m`` with the elements above diagonal ``k`` zeroed (in its last two dimensions), like
    ``np.tril``."""
    return _triangle(m, k, lower=True)


def triu(m: Any, k: int = 0) -> Variable:
    """``m`` with the elements below diagonal ``k`` zeroed (in its last two dimensions), like
    ``np.triu``."""
    return _triangle(m, k, lower=False)


__all__ = [
    "AllocDiag",
    "CumOp",
    "ExtractDiag",
    "Flip",
    "Repeat",
    "SegmentSum",
    "cumprod",
    "cumsum",
    "diag",
    "diagonal",
    "flip",
    "fliplr",
    "flipud",
    "repeat",
    "roll",
    "tile",
    "trace",
    "tril",
    "triu",
]


def to_one_hot(y: Any, nb_class: int, dtype: Any = None) -> Variable:
    """Theano's ``to_one_hot``: the rows of the identity picked by the integer vector ``y``,
    ``(len(y), nb_class)``, of ``dtype`` (default floatX)."""
    y = as_tensor_variable(y)
    if y.type.ndim != 1 or y.type.dtype not in integer_dtypes:
        raise TypeError(f"to_one_hot expects an integer vector, got {y.type}")
    classes = DimShuffle(1, ("x", 0))(arange(nb_class))
    hot = eq(DimShuffle(1, (0, "x"))(y), classes)
    return cast(hot, dtype or config.floatX)


# Theano's tensor.extra_ops also held these; they live with their families (the same objects).
__all__ += ["bincount", "diff", "searchsorted", "squeeze", "to_one_hot", "unique"]
