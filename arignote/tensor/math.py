"""Elementwise math, reductions and the dot product on tensors, with NumPy's names."""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

import numpy as np

from arignote import scalar as ps
from arignote.graph.basic import Apply, Variable
from arignote.graph.op import Op
from arignote.scalar.basic import continuous_dtypes, discrete_dtypes, grad_dtype, upcast
from arignote.tensor.basic import as_tensor_variable, constant, constant_value_rule
from arignote.tensor.elemwise import CAReduce, DimShuffle, Elemwise
from arignote.tensor.shape import shape_i
from arignote.tensor.type import tensor_type

# -- elementwise ----------------------------------------------------------------------------

add = Elemwise(ps.add)
sub = Elemwise(ps.sub)
mul = Elemwise(ps.mul)
true_div = Elemwise(ps.true_div)
int_div = Elemwise(ps.int_div)
mod = Elemwise(ps.mod)
pow = Elemwise(ps.pow)
neg = Elemwise(ps.neg)
abs = Elemwise(ps.abs)
sign = Elemwise(ps.sign)
floor = Elemwise(ps.floor)
maximum = Elemwise(ps.maximum)
minimum = Elemwise(ps.minimum)
lt = Elemwise(ps.lt)
gt = Elemwise(ps.gt)
le = Elemwise(ps.le)
ge = Elemwise(ps.ge)
eq = Elemwise(ps.eq)
neq = Elemwise(ps.neq)
and_ = Elemwise(ps.and_)
or_ = Elemwise(ps.or_)
xor = Elemwise(ps.xor)
invert = Elemwise(ps.invert)
switch = Elemwise(ps.switch)
second = Elemwise(ps.second)
identity = Elemwise(ps.identity)
exp = Elemwise(ps.exp)
exp2 = Elemwise(ps.exp2)
expm1 = Elemwise(ps.expm1)
log = Elemwise(ps.log)
log2 = Elemwise(ps.log2)
log10 = Elemwise(ps.log10)
log1p = Elemwise(ps.log1p)
sqrt = Elemwise(ps.sqrt)
sqr = Elemwise(ps.sqr)
sin = Elemwise(ps.sin)
cos = Elemwise(ps.cos)
tan = Elemwise(ps.tan)
tanh = Elemwise(ps.tanh)
sinh = Elemwise(ps.sinh)
cosh = Elemwise(ps.cosh)
sigmoid = Elemwise(ps.sigmoid)
softplus = Elemwise(ps.softplus)

# NumPy spellings of the same ops.
subtract = sub
multiply = mul
divide = true_div
true_divide = true_div
floor_divide = int_div
power = pow
negative = neg
absolute = abs
less = lt
greater = gt
less_equal = le
greater_equal = ge
equal = eq
not_equal = neq
bitwise_and = and_
bitwise_or = or_
bitwise_xor = xor
bitwise_not = invert
square = sqr
expit = sigmoid
fill = second
where = switch


@cache
def _cast_elemwise(dtype: str) -> Elemwise:
    return Elemwise(ps.Cast(ps.get_scalar_type(dtype)))


def cast(x: Any, dtype: Any) -> Variable:
    """``x`` converted to ``dtype`` (``x.astype(dtype)``); ``x`` itself if it already has it."""
    x = as_tensor_variable(x)
    dtype = x.type.dtype if dtype is None else np.dtype(dtype).name
    if x.type.dtype == dtype:
        return x
    return _cast_elemwise(dtype)(x)


@constant_value_rule.register(Elemwise)
def _elemwise_value(op, node, index, recurse):
    values = [recurse(i) for i in node.inputs]
    result = op.scalar_op.impl(*values)
    if op.scalar_op.nout > 1:
        result = result[index]
    return np.asarray(result, dtype=node.outputs[index].type.dtype)


def zeros_like(x: Any, dtype: Any = None) -> Variable:
    """Zeros with the shape of ``x`` (and its dtype unless ``dtype`` is given)."""
    x = as_tensor_variable(x)
    return fill(x, constant(0, dtype=dtype or x.type.dtype))


def ones_like(x: Any, dtype: Any = None) -> Variable:
    """Ones with the shape of ``x`` (and its dtype unless ``dtype`` is given)."""
    x = as_tensor_variable(x)
    return fill(x, constant(1, dtype=dtype or x.type.dtype))


# -- reductions -----------------------------------------------------------------------------


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
        (x,), (gz,) = inputs, output_grads
        if x.type.dtype in discrete_dtypes:
            return [x.zeros_like(dtype=grad_dtype(x))]
        # each input element contributes once to its sum: broadcast gz back over the axes
        gz = _restore_axes(gz, self._reduced_axes(x.type.ndim), x.type.ndim)
        return [fill(x, gz).astype(x.type.dtype)]

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
        # J v picks v at the position of the extreme (first one, as argmax does)
        picked = switch(eq(x, _restore_axes(out, axes, x.type.ndim)), ev, 0)
        return [Sum(self.axis)(picked) / Sum(self.axis)(eq(x, _restore_axes(out, axes, x.type.ndim)))]


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
    out = true_div(total, cast(_count(x, axes), dtype) if dtype in continuous_dtypes else _count(x, axes))
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
        shape = () if self.axis is None else tuple(
            s for d, s in enumerate(x.type.shape) if d != self.axis
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


class Dot(Op):
    """Dot product of vectors and matrices (``np.dot`` for 1-d and 2-d operands)."""

    __props__ = ()

    def make_node(self, x, y):
        x, y = as_tensor_variable(x), as_tensor_variable(y)
        if x.type.ndim not in (1, 2) or y.type.ndim not in (1, 2):
            raise TypeError(f"Dot takes 1-d or 2-d inputs, got {x.type} and {y.type}")
        xk, yk = x.type.shape[-1], y.type.shape[0]
        if xk is not None and yk is not None and xk != yk:
            raise ValueError(f"Dot: shapes {x.type.shape} and {y.type.shape} are not aligned")
        shape = x.type.shape[:-1] + y.type.shape[1:]
        return Apply(self, [x, y], [tensor_type(upcast(x.type.dtype, y.type.dtype), shape)()])

    def perform(self, node, inputs, output_storage):
        x, y = inputs
        if x.shape[-1] != y.shape[0]:
            raise ValueError(f"Dot: shapes {x.shape} and {y.shape} are not aligned")
        output_storage[0][0] = np.asarray(np.dot(x, y), dtype=node.outputs[0].type.dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        xs, ys = input_shapes
        return [tuple(xs[:-1]) + tuple(ys[1:])]

    def flops(self, inputs, outputs):
        x, y = inputs
        return 2 * int(np.prod(x, dtype=np.int64)) * int(np.prod(y[1:], dtype=np.int64))

    def grad(self, inputs, output_grads):
        (x, y), (gz,) = inputs, output_grads
        if x.type.dtype in discrete_dtypes and y.type.dtype in discrete_dtypes:
            # an integer-valued output is a step function: zero gradient almost everywhere
            return [x.zeros_like(dtype=grad_dtype(x)), y.zeros_like(dtype=grad_dtype(y))]
        gx, gy = _dot_grads(x, y, gz)
        return [_to_grad_dtype(gx, x), _to_grad_dtype(gy, y)]

    def R_op(self, inputs, eval_points):
        (x, y), (ex, ey) = inputs, eval_points
        terms = []
        if ex is not None:
            terms.append(self(ex, y))  # bilinear: d(x.y) = dx.y + x.dy
        if ey is not None:
            terms.append(self(x, ey))
        if not terms:
            return [None]
        return [terms[0] if len(terms) == 1 else terms[0] + terms[1]]


def _to_grad_dtype(g: Variable, wrt: Variable) -> Variable:
    return g.astype(grad_dtype(wrt))


def _dot_grads(x: Variable, y: Variable, gz: Variable) -> tuple[Variable, Variable]:
    """d(x.y): gx = gz.y^T, gy = x^T.gz, with outer products where a side is a vector."""
    if x.type.ndim == 2 and y.type.ndim == 2:
        return _dot(gz, y.T), _dot(x.T, gz)
    if x.type.ndim == 1 and y.type.ndim == 2:
        return _dot(y, gz), outer(x, gz)
    if x.type.ndim == 2 and y.type.ndim == 1:
        return outer(gz, y), _dot(x.T, gz)
    return gz * y, gz * x


_dot = Dot()


def outer(x: Any, y: Any) -> Variable:
    """Outer product of two vectors (other inputs are flattened, as in ``np.outer``)."""
    x, y = as_tensor_variable(x), as_tensor_variable(y)
    if x.type.ndim != 1:
        x = x.flatten()
    if y.type.ndim != 1:
        y = y.flatten()
    return mul(DimShuffle(1, (0, "x"))(x), DimShuffle(1, ("x", 0))(y))


def dot(x: Any, y: Any) -> Variable:
    """``np.dot`` for operands of up to two dimensions (a 0-d operand multiplies)."""
    x, y = as_tensor_variable(x), as_tensor_variable(y)
    if x.type.ndim == 0 or y.type.ndim == 0:
        return mul(x, y)
    if x.type.ndim > 2 or y.type.ndim > 2:
        if _tensordot_fallback is None:
            raise TypeError("dot of tensors with more than 2 dimensions needs tensordot")
        return _tensordot_fallback(x, y)
    return _dot(x, y)


# Installed by the module defining tensordot (np.dot semantics for ndim > 2).
_tensordot_fallback = None


def register_tensordot_fallback(fn) -> None:
    global _tensordot_fallback
    _tensordot_fallback = fn


__all__ = [
    "Argmax",
    "Dot",
    "Max",
    "Min",
    "Sum",
    "add",
    "argmax",
    "cast",
    "dot",
    "exp",
    "log",
    "max",
    "mean",
    "min",
    "mul",
    "sum",
]
