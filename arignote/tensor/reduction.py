"""Reductions over axes: sum, max, min, mean, argmax (``CAReduce`` ops and helpers)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arignote import scalar as ps
from arignote.graph.basic import Apply, Variable
from arignote.graph.op import Op
from arignote.scalar.basic import continuous_dtypes, discrete_dtypes, grad_dtype
from arignote.tensor.basic import as_tensor_variable, constant
from arignote.tensor.elemwise import CAReduce, DimShuffle
from arignote.tensor.math import cast, eq, fill, switch, true_div
from arignote.tensor.shape import shape_i
from arignote.tensor.type import tensor_type


def normalize_axes(axis: Any, ndim: int) -> tuple[int, ...] | None:
    """``axis`` (None, an int or a sequence of ints, negatives allowed) as sorted non-negative
    ints; None means every axis. Raises ``ValueError`` for an axis out of range or repeated."""
    if axis is None:
        return None
    axes = [axis] if np.ndim(axis) == 0 else list(axis)
    normalized = []
    for a in axes:
        a = int(a)
        if not -ndim <= a < ndim:
            raise ValueError(f"axis {a} is out of bounds for a tensor of dimension {ndim}")
        normalized.append(a % ndim)
    if len(set(normalized)) != len(normalized):
        raise ValueError(f"repeated axis in {axis}")
    return tuple(sorted(normalized))


def _sum_dtype(dtype: str) -> str:
    """The dtype NumPy's ``sum``/``prod`` give (small integers grow to the platform integer)."""
    if dtype == "bool" or dtype in ("int8", "int16", "int32"):
        return "int64"
    if dtype in ("uint8", "uint16", "uint32"):
        return "uint64"
    return dtype


def _acc_dtype(dtype: str) -> str:
    """Accumulate low-precision floats in the next wider type (sums of many float32 drift)."""
    return {"float16": "float32", "float32": "float64", "complex64": "complex128"}.get(
        dtype, _sum_dtype(dtype)
    )


class Sum(CAReduce):
    """Sum over ``axis`` (None: all axes): ``np.sum(x, axis)``."""

    __props__ = ("axis", "dtype", "acc_dtype")

    def __init__(self, axis=None, dtype=None, acc_dtype=None) -> None:
        super().__init__(ps.add, axis, dtype, acc_dtype)

    def make_node(self, x):
        x = as_tensor_variable(x)
        if self.dtype is None or self.acc_dtype is None:
            dtype = self.dtype or _sum_dtype(x.type.dtype)
            return Sum(self.axis, dtype, self.acc_dtype or _acc_dtype(dtype)).make_node(x)
        return super().make_node(x)

    def L_op(self, inputs, outputs, output_grads):
        (x,), (out,), (gz,) = inputs, outputs, output_grads
        if out.type.dtype in discrete_dtypes:
            return [x.zeros_like(dtype=grad_dtype(x))]  # an integer sum is a step function
        # each input element contributes once to its sum: broadcast gz back over the axes
        gz = _restore_axes(gz, self._reduced_axes(x.type.ndim), x.type.ndim)
        return [fill(x, gz).astype(grad_dtype(x))]

    def R_op(self, inputs, eval_points):
        (ev,) = eval_points
        return [None if ev is None else self(ev)]  # linear

    def __str__(self) -> str:
        axis = "" if self.axis is None else "axis=[" + ", ".join(map(str, self.axis)) + "], "
        return f"Sum{{{axis}acc_dtype={self.acc_dtype}}}"


def _restore_axes(g: Variable, axes: Sequence[int], ndim: int) -> Variable:
    """Re-insert reduced ``axes`` into ``g`` as length-1 dimensions."""
    order: list = []
    kept = iter(range(g.type.ndim))
    for d in range(ndim):
        order.append("x" if d in axes else next(kept))
    return DimShuffle(g.type.ndim, order)(g)


class MaxOrMin(CAReduce):
    """Common derivative of ``Max`` and ``Min``: the cotangent goes to the extreme elements."""

    def L_op(self, inputs, outputs, output_grads):
        (x,), (out,), (gz,) = inputs, outputs, output_grads
        if x.type.dtype in discrete_dtypes:
            return [x.zeros_like(dtype=grad_dtype(x))]
        axes = self._reduced_axes(x.type.ndim)
        where_extreme = eq(x, _restore_axes(out, axes, x.type.ndim))
        return [switch(where_extreme, _restore_axes(gz, axes, x.type.ndim), 0).astype(x.type.dtype)]

    def R_op(self, inputs, eval_points):
        (x,), (ev,) = inputs, eval_points
        if ev is None:
            return [None]
        axes = self._reduced_axes(x.type.ndim)
        out = self(x)
        # J v adds up v where x reaches the extreme: the transpose of L_op, which gives the
        # cotangent to every tied extreme (so <u, J v> == <J^T u, v> holds even at ties)
        picked = switch(eq(x, _restore_axes(out, axes, x.type.ndim)), ev, 0)
        return [Sum(self.axis, dtype=out.type.dtype)(picked)]


class Max(MaxOrMin):
    """Largest element over ``axis``: ``np.max(x, axis)``."""

    __props__ = ("axis",)

    def __init__(self, axis=None) -> None:
        super().__init__(ps.maximum, axis)

    def __str__(self) -> str:
        return "Max" if self.axis is None else f"Max{{{', '.join(map(str, self.axis))}}}"


class Min(MaxOrMin):
    """Smallest element over ``axis``: ``np.min(x, axis)``."""

    __props__ = ("axis",)

    def __init__(self, axis=None) -> None:
        super().__init__(ps.minimum, axis)

    def __str__(self) -> str:
        return "Min" if self.axis is None else f"Min{{{', '.join(map(str, self.axis))}}}"


def _keepdims(x: Variable, out: Variable, axes: tuple[int, ...] | None, keepdims: bool):
    if not keepdims:
        return out
    axes = tuple(range(x.type.ndim)) if axes is None else axes
    return _restore_axes(out, axes, x.type.ndim)


def sum(x: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False, acc_dtype=None):
    """Sum of the elements over ``axis``, like ``np.sum``."""
    x = as_tensor_variable(x)
    axes = normalize_axes(axis, x.type.ndim)
    out = Sum(axes, dtype, acc_dtype)(x)
    return _keepdims(x, out, axes, keepdims)


def max(x: Any, axis: Any = None, keepdims: bool = False) -> Variable:
    """Largest element over ``axis``, like ``np.max``."""
    x = as_tensor_variable(x)
    axes = normalize_axes(axis, x.type.ndim)
    return _keepdims(x, Max(axes)(x), axes, keepdims)


def min(x: Any, axis: Any = None, keepdims: bool = False) -> Variable:
    """Smallest element over ``axis``, like ``np.min``."""
    x = as_tensor_variable(x)
    axes = normalize_axes(axis, x.type.ndim)
    return _keepdims(x, Min(axes)(x), axes, keepdims)


def _count(x: Variable, axes: tuple[int, ...] | None) -> Variable:
    """The number of elements reduced over ``axes``, as an int64 scalar (static when known)."""
    dims = range(x.type.ndim) if axes is None else axes
    static = [x.type.shape[d] for d in dims]
    if all(s is not None for s in static):
        return constant(int(np.prod(static, dtype=np.int64)), dtype="int64")
    count = constant(1, dtype="int64")
    for d in dims:
        count = count * shape_i(x, d)
    return count


def mean(x: Any, axis: Any = None, dtype: Any = None, keepdims: bool = False) -> Variable:
    """Arithmetic mean over ``axis``, like ``np.mean`` (integers average as float64)."""
    x = as_tensor_variable(x)
    axes = normalize_axes(axis, x.type.ndim)
    if dtype is None:
        dtype = x.type.dtype if x.type.dtype in continuous_dtypes else "float64"
    total = Sum(axes, dtype=dtype)(x)
    out = true_div(
        total, cast(_count(x, axes), dtype) if dtype in continuous_dtypes else _count(x, axes)
    )
    return _keepdims(x, cast(out, dtype), axes, keepdims)


class Argmax(Op):
    """Index of the largest element along ``axis`` (None: of the flattened tensor)."""

    __props__ = ("axis",)

    def __init__(self, axis: int | None = None) -> None:
        self.axis = axis

    def make_node(self, x):
        x = as_tensor_variable(x)
        if self.axis is not None and not 0 <= self.axis < x.type.ndim:
            raise ValueError(f"Argmax axis {self.axis} is out of range for {x.type}")
        shape = (
            ()
            if self.axis is None
            else tuple(s for d, s in enumerate(x.type.shape) if d != self.axis)
        )
        return Apply(self, [x], [tensor_type("int64", shape)()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = np.asarray(np.argmax(inputs[0], axis=self.axis), dtype="int64")

    def infer_shape(self, fgraph, node, input_shapes):
        (shape,) = input_shapes
        if self.axis is None:
            return [()]
        return [tuple(s for d, s in enumerate(shape) if d != self.axis)]

    def grad(self, inputs, output_grads):
        (x,) = inputs
        # the position of the maximum does not change under small perturbations
        return [x.zeros_like(dtype=grad_dtype(x))]

    def R_op(self, inputs, eval_points):
        return [None]  # integer-valued output: no derivative


def argmax(x: Any, axis: int | None = None, keepdims: bool = False) -> Variable:
    """Indices of the largest elements along ``axis``, like ``np.argmax``."""
    x = as_tensor_variable(x)
    if axis is not None:
        axis = normalize_axes(axis, x.type.ndim)[0]
    out = Argmax(axis)(x)
    return _keepdims(x, out, None if axis is None else (axis,), keepdims)


__all__ = ["Argmax", "Max", "Min", "Sum", "argmax", "max", "mean", "min", "normalize_axes", "sum"]
