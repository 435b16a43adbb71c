"""Reductions over axes: sum, prod, max, min, all, any (``CAReduce`` ops), argmax/argmin, and
the statistics built on them (mean, var, std, ptp)."""

from __future__ import annotations

import builtins
import typing
from collections.abc import Sequence

import numpy as np

from arignote import scalar as ps
from arignote.graph.basic import Apply, Variable
from arignote.graph.op import Op
from arignote.scalar.basic import complex_dtypes, continuous_dtypes, discrete_dtypes, grad_dtype
from arignote.tensor.basic import as_tensor_variable, constant
from arignote.tensor.elemwise import CAReduce, DimShuffle
from arignote.tensor.math import abs, cast, eq, fill, maximum, neq, sqr, sqrt, sub, switch, true_div
from arignote.tensor.shape import as_axis, shape_i
from arignote.tensor.type import tensor_type


def normalize_axes(axis: typing.Any, ndim: int) -> tuple[int, ...] | None:
    """``axis`` (None, an int or a sequence of ints, negatives allowed) as sorted non-negative
    ints; None means every axis. Raises ``ValueError`` for an axis out of range or repeated."""
    if axis is None:
        return None
    axes = [axis] if np.ndim(axis) == 0 else list(axis)
    normalized = []
    for a in axes:
        a = as_axis(a, "axis")
        if not -ndim <= a < ndim:
            raise np.exceptions.AxisError(
                f"axis {a} is out of bounds for a tensor of dimension {ndim}"
            )
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


class Accumulation(CAReduce):
    """Sum and Prod: the output and accumulator dtypes default to NumPy's ``sum``/``prod`` rules
    (small integers grow to 64 bits; low-precision floats accumulate one size up)."""

    scalar: ps.ScalarOp

    def __init__(self, axis=None, dtype=None, acc_dtype=None) -> None:
        super().__init__(self.scalar, axis, dtype, acc_dtype)

    def make_node(self, x):
        x = as_tensor_variable(x)
        if self.dtype is None or self.acc_dtype is None:
            dtype = self.dtype or _sum_dtype(x.type.dtype)
            return type(self)(self.axis, dtype, self.acc_dtype or _acc_dtype(dtype)).make_node(x)
        return super().make_node(x)


class Sum(Accumulation):
    """Sum over ``axis`` (None: all axes): ``np.sum(x, axis)``."""

    __props__ = ("axis", "dtype", "acc_dtype")
    scalar = ps.add

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

    # An extreme of no elements is undefined: both raise (naming the op), as NumPy does.
    def make_node(self, x):
        node = super().make_node(x)
        x = node.inputs[0]
        for d in self._reduced_axes(x.type.ndim):
            if x.type.shape[d] == 0:
                raise ValueError(
                    f"{self}: dimension {d} of {x.type} is empty: the {self._what} of no "
                    "elements is undefined"
                )
        return node

    def _reduce(self, x, axes, acc_dtype):
        for d in axes:
            if x.shape[d] == 0:
                raise ValueError(
                    f"{self}: cannot reduce dimension {d} of an array of shape {x.shape}: the "
                    f"{self._what} of no elements is undefined"
                )
        return super()._reduce(x, axes, acc_dtype)

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

    def __str__(self) -> str:
        name = type(self).__name__
        return name if self.axis is None else f"{name}{{{', '.join(map(str, self.axis))}}}"


class Max(MaxOrMin):
    """Largest element over ``axis``: ``np.max(x, axis)``."""

    __props__ = ("axis",)
    _what = "maximum"

    def __init__(self, axis=None) -> None:
        super().__init__(ps.maximum, axis)


class Min(MaxOrMin):
    """Smallest element over ``axis``: ``np.min(x, axis)``."""

    __props__ = ("axis",)
    _what = "minimum"

    def __init__(self, axis=None) -> None:
        super().__init__(ps.minimum, axis)


class Prod(Accumulation):
    """Product over ``axis`` (None: all axes): ``np.prod(x, axis)``.

    Its derivative is exact when the input holds zeros: d prod / d x_i is the product of the
    other elements, computed without dividing by x_i. (Second derivatives at such points are
    not: the masks that pick the zeros out have no derivative.)
    """

    __props__ = ("axis", "dtype", "acc_dtype")
    scalar = ps.mul

    def L_op(self, inputs, outputs, output_grads):
        (x,), (out,), (gz,) = inputs, outputs, output_grads
        if out.type.dtype in discrete_dtypes:
            return [x.zeros_like(dtype=grad_dtype(x))]  # an integer product is a step function
        axes = self._reduced_axes(x.type.ndim)
        gz = _restore_axes(gz, axes, x.type.ndim)
        return [(_prod_partials(x, axes) * gz).astype(grad_dtype(x))]

    def R_op(self, inputs, eval_points):
        (x,), (ev,) = inputs, eval_points
        if ev is None:
            return [None]
        axes = self._reduced_axes(x.type.ndim)
        jvp = Sum(self.axis)(_prod_partials(x, axes) * ev)
        return [jvp.astype(self.make_node(x).outputs[0].type.dtype)]

    def __str__(self) -> str:
        axis = "" if self.axis is None else "axis=[" + ", ".join(map(str, self.axis)) + "], "
        return f"Prod{{{axis}acc_dtype={self.acc_dtype}}}"


def _prod_partials(x: Variable, axes: tuple[int, ...]) -> Variable:
    """d prod(x, axes) / d x, elementwise: exact with zeros, and so are its own derivatives.

    The partial at x_i is the product of the other elements of its group, computed without
    dividing by zero. At a nonzero x_i it is prod(x) / x_i (which is 0 in a group holding a
    zero, with the right derivative in that zero). At a zero x_i, with P the product of the
    group's nonzero elements and Z its number of zeros, it is P when Z == 1; when Z == 2 it is
    P times the other zero, written P * (sum of the group's zeros - x_i) so that its derivative
    in the other zero is P (a Hessian of a product with two zeros is not 0); with more zeros
    it is 0 together with its first derivatives.
    """
    ndim = x.type.ndim
    dtype = x.type.dtype
    is_zero = eq(x, 0)
    zeros_in_group = _restore_axes(Sum(axes)(is_zero), axes, ndim)
    nonzero = switch(is_zero, 1, x)
    product = _restore_axes(Prod(axes, dtype=dtype)(x), axes, ndim)
    nonzero_product = _restore_axes(Prod(axes, dtype=dtype)(nonzero), axes, ndim)
    zero_sum = _restore_axes(Sum(axes, dtype=dtype)(switch(is_zero, x, 0)), axes, ndim)
    two_zeros = switch(eq(zeros_in_group, 2), nonzero_product * (zero_sum - x), 0)
    at_zero = switch(eq(zeros_in_group, 1), nonzero_product, two_zeros)
    return switch(is_zero, at_zero, product / nonzero)


class _BoolReduce(CAReduce):
    """``All``/``Any``: a boolean result; non-boolean inputs are first compared with 0."""

    __props__ = ("axis",)

    def make_node(self, x):
        x = as_tensor_variable(x)
        if x.type.dtype != "bool":
            x = neq(x, 0)
        return super().make_node(x)

    def L_op(self, inputs, outputs, output_grads):
        (x,) = inputs
        return [x.zeros_like(dtype=grad_dtype(x))]  # a boolean result is locally constant

    def R_op(self, inputs, eval_points):
        return [None]

    def __str__(self) -> str:
        name = type(self).__name__
        return name if self.axis is None else f"{name}{{{', '.join(map(str, self.axis))}}}"


class All(_BoolReduce):
    """Whether every element over ``axis`` is true (nonzero): ``np.all(x, axis)``."""

    def __init__(self, axis=None) -> None:
        super().__init__(ps.and_, axis, "bool", "bool")

    def _reduce(self, x, axes, acc_dtype):
        return np.all(x, axis=axes)


class Any(_BoolReduce):
    """Whether some element over ``axis`` is true (nonzero): ``np.any(x, axis)``."""

    def __init__(self, axis=None) -> None:
        super().__init__(ps.or_, axis, "bool", "bool")

    def _reduce(self, x, axes, acc_dtype):
        return np.any(x, axis=axes)


def _keepdims(x: Variable, out: Variable, axes: tuple[int, ...] | None, keepdims: bool):
    if not keepdims:
        return out
    axes = tuple(range(x.type.ndim)) if axes is None else axes
    return _restore_axes(out, axes, x.type.ndim)


def _build_reduction(
    op_class: type, x: typing.Any, axis: typing.Any, keepdims: bool, **props: typing.Any
) -> Variable:
    x = as_tensor_variable(x)
    axes = normalize_axes(axis, x.type.ndim)
    return _keepdims(x, op_class(axes, **props)(x), axes, keepdims)


def sum(
    x: typing.Any,
    axis: typing.Any = None,
    dtype: typing.Any = None,
    keepdims: bool = False,
    acc_dtype=None,
):
    """Sum of the elements over ``axis`` (an int, a tuple, or None for all), like ``np.sum``.

    Integers and booleans sum as int64 (unsigned as uint64) unless ``dtype`` is given.
    """
    return _build_reduction(Sum, x, axis, keepdims, dtype=dtype, acc_dtype=acc_dtype)


def prod(
    x: typing.Any,
    axis: typing.Any = None,
    dtype: typing.Any = None,
    keepdims: bool = False,
    acc_dtype=None,
    no_zeros_in_input: bool = False,
):
    """Product of the elements over ``axis``, like ``np.prod`` (the product of none is 1).

    ``no_zeros_in_input`` is PyTensor's promise that ``x`` has no zeros, which lets it use a
    cheaper gradient; it is accepted and changes nothing here (the gradient is exact anyway).
    """
    return _build_reduction(Prod, x, axis, keepdims, dtype=dtype, acc_dtype=acc_dtype)


def max(x: typing.Any, axis: typing.Any = None, keepdims: bool = False) -> Variable:
    """Largest element over ``axis``, like ``np.max`` (NaN propagates; empty raises)."""
    return _build_reduction(Max, x, axis, keepdims)


def min(x: typing.Any, axis: typing.Any = None, keepdims: bool = False) -> Variable:
    """Smallest element over ``axis``, like ``np.min`` (NaN propagates; empty raises)."""
    return _build_reduction(Min, x, axis, keepdims)


def all(x: typing.Any, axis: typing.Any = None, keepdims: bool = False) -> Variable:
    """Whether all elements over ``axis`` are nonzero, like ``np.all`` (True when empty)."""
    return _build_reduction(All, x, axis, keepdims)


def any(x: typing.Any, axis: typing.Any = None, keepdims: bool = False) -> Variable:
    """Whether some element over ``axis`` is nonzero, like ``np.any`` (False when empty)."""
    return _build_reduction(Any, x, axis, keepdims)


def ptp(x: typing.Any, axis: typing.Any = None, keepdims: bool = False) -> Variable:
    """Range (maximum minus minimum) over ``axis``, like ``np.ptp``."""
    return sub(max(x, axis, keepdims), min(x, axis, keepdims))


def _count(x: Variable, axes: tuple[int, ...] | None) -> Variable:
    """The number of elements reduced over ``axes``, as an int64 scalar (static when known)."""
    dims = range(x.type.ndim) if axes is None else axes
    static = [x.type.shape[d] for d in dims]
    if builtins.all(s is not None for s in static):
        return constant(int(np.prod(static, dtype=np.int64)), dtype="int64")
    count = constant(1, dtype="int64")
    for d in dims:
        count = count * shape_i(x, d)
    return count


def _mean_dtype(dtype: str) -> str:
    """``np.mean``'s result dtype: floats keep theirs, integers and booleans give float64."""
    return dtype if dtype in continuous_dtypes else "float64"


def mean(
    x: typing.Any,
    axis: typing.Any = None,
    dtype: typing.Any = None,
    keepdims: bool = False,
    acc_dtype: typing.Any = None,
) -> Variable:
    """Arithmetic mean over ``axis``, like ``np.mean`` (integers average as float64).

    ``acc_dtype`` (PyTensor's) is the dtype the sum and the division are computed in; the
    result is then cast to ``dtype``.
    """
    x = as_tensor_variable(x)
    axes = normalize_axes(axis, x.type.ndim)
    dtype = _mean_dtype(x.type.dtype) if dtype is None else np.dtype(dtype).name
    # divide at the accumulation precision (float16 counts overflow past 65504)
    total_dtype = _acc_dtype(dtype) if dtype in ("float16",) else dtype
    if acc_dtype is not None:
        total_dtype = np.dtype(acc_dtype).name
    total = Sum(axes, dtype=total_dtype)(x)
    count = _count(x, axes)
    if total_dtype in continuous_dtypes:
        count = cast(count, total_dtype)
    return _keepdims(x, cast(true_div(total, count), dtype), axes, keepdims)


def var(
    x: typing.Any,
    axis: typing.Any = None,
    ddof: int = 0,
    keepdims: bool = False,
    dtype: typing.Any = None,
    correction: typing.Any = None,
    corrected: bool = False,
) -> Variable:
    """Variance over ``axis``, like ``np.var``: ``sum(|x - mean|**2) / (N - ddof)``.

    ``ddof`` ("delta degrees of freedom", or its NumPy 2 name ``correction``) is 1 for the
    unbiased estimate. When ``N - ddof <= 0`` the result is inf or NaN, as NumPy's.
    ``corrected`` (PyTensor's choice of the corrected two-pass algorithm) is accepted: this
    computation subtracts the mean first, which is already the accurate two-pass form.
    """
    ddof = _degrees_of_freedom(ddof, correction)
    x = as_tensor_variable(x)
    axes = normalize_axes(axis, x.type.ndim)
    dtype = _mean_dtype(x.type.dtype) if dtype is None else np.dtype(dtype).name
    xf = cast(x, dtype)
    centered = sub(xf, mean(xf, axis=axes, keepdims=True))
    squares = sqr(abs(centered)) if dtype in complex_dtypes else sqr(centered)
    out_dtype = squares.type.dtype
    total = Sum(axes, dtype=out_dtype)(squares)
    dof = maximum(sub(_count(x, axes), ddof), 0)
    return _keepdims(x, cast(true_div(total, cast(dof, out_dtype)), out_dtype), axes, keepdims)


def std(
    x: typing.Any,
    axis: typing.Any = None,
    ddof: int = 0,
    keepdims: bool = False,
    dtype: typing.Any = None,
    correction: typing.Any = None,
    corrected: bool = False,
) -> Variable:
    """Standard deviation over ``axis`` (the square root of :func:`var`), like ``np.std``."""
    ddof = _degrees_of_freedom(ddof, correction)
    return sqrt(var(x, axis=axis, ddof=ddof, keepdims=keepdims, dtype=dtype))


def _degrees_of_freedom(ddof: typing.Any, correction: typing.Any) -> typing.Any:
    if correction is None:
        return ddof
    if not isinstance(ddof, int) or ddof != 0:
        raise ValueError("var/std: give ddof or correction, not both")
    return correction


# -- argmax / argmin ------------------------------------------------------------------------


class _ArgReduce(Op):
    """Index of the extreme element over ``axis`` (a tuple of dimensions; None: all).

    Several axes are read as one flattened (C-order) axis, as ``np.argmax`` does for None.
    """

    __props__ = ("axis",)
    _numpy_fn: typing.Any = None

    def __init__(self, axis: typing.Any = None) -> None:
        if axis is not None:
            axis = tuple(sorted(int(a) for a in np.atleast_1d(axis)))
            if builtins.any(a < 0 for a in axis) or len(set(axis)) != len(axis):
                raise ValueError(f"{type(self).__name__} axes must be distinct and >= 0: {axis}")
        self.axis = axis

    def _axes(self, ndim: int) -> tuple[int, ...]:
        return tuple(range(ndim)) if self.axis is None else self.axis

    def make_node(self, x):
        x = as_tensor_variable(x)
        axes = self._axes(x.type.ndim)
        if builtins.any(a >= x.type.ndim for a in axes):
            raise np.exceptions.AxisError(f"{self}: axis {self.axis} is out of range for {x.type}")
        if builtins.any(x.type.shape[a] == 0 for a in axes):
            raise ValueError(f"{self}: cannot find the position of an extreme in an empty axis")
        shape = tuple(s for d, s in enumerate(x.type.shape) if d not in axes)
        return Apply(self, [x], [tensor_type("int64", shape)()])

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        axes = self._axes(x.ndim)
        kept = [d for d in range(x.ndim) if d not in axes]
        kept_shape = tuple(x.shape[d] for d in kept)
        reduced = int(np.prod([x.shape[d] for d in axes], dtype=np.int64))
        grouped = x.transpose(kept + list(axes)).reshape((*kept_shape, reduced))
        try:
            result = type(self)._numpy_fn(grouped, axis=-1)
        except ValueError as err:
            raise ValueError(f"{self}: {err} (input shape {x.shape})") from err
        output_storage[0][0] = np.asarray(result, dtype="int64")

    def infer_shape(self, fgraph, node, input_shapes):
        (shape,) = input_shapes
        axes = self._axes(len(shape))
        return [tuple(s for d, s in enumerate(shape) if d not in axes)]

    def connection_pattern(self, node):
        return [[True]]

    def grad(self, inputs, output_grads):
        (x,) = inputs
        # the position of the extreme does not change under small perturbations
        return [x.zeros_like(dtype=grad_dtype(x))]

    def R_op(self, inputs, eval_points):
        return [None]  # integer-valued output: no derivative


class Argmax(_ArgReduce):
    """Index of the largest element over ``axis``: ``np.argmax``."""

    _numpy_fn = staticmethod(np.argmax)


class Argmin(_ArgReduce):
    """Index of the smallest element over ``axis``: ``np.argmin``."""

    _numpy_fn = staticmethod(np.argmin)


def argmax(x: typing.Any, axis: typing.Any = None, keepdims: bool = False) -> Variable:
    """Indices of the largest elements along ``axis``, like ``np.argmax`` (first of ties;
    NaN counts as the largest). ``axis=None`` looks at the flattened tensor."""
    return _build_reduction(Argmax, x, axis, keepdims)


def argmin(x: typing.Any, axis: typing.Any = None, keepdims: bool = False) -> Variable:
    """Indices of the smallest elements along ``axis``, like ``np.argmin``."""
    return _build_reduction(Argmin, x, axis, keepdims)


def max_and_argmax(
    x: typing.Any, axis: typing.Any = None, keepdims: bool = False
) -> list[Variable]:
    """``[max(x, axis), argmax(x, axis)]``."""
    return [max(x, axis, keepdims), argmax(x, axis, keepdims)]


__all__ = [
    "All",
    "Any",
    "Argmax",
    "Argmin",
    "Max",
    "Min",
    "Prod",
    "Sum",
    "all",
    "any",
    "argmax",
    "argmin",
    "max",
    "max_and_argmax",
    "mean",
    "min",
    "normalize_axes",
    "prod",
    "ptp",
    "std",
    "sum",
    "var",
]
