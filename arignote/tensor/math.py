"""Elementwise math on tensors, with NumPy's names (``Elemwise`` instances and helpers)."""

from __future__ import annotations

import operator
from functools import cache
from typing import Any

import numpy as np

from arignote import scalar as ps
from arignote.graph.basic import Apply, Variable
from arignote.graph.op import Op
from arignote.scalar.basic import complex_dtypes, integer_dtypes
from arignote.tensor.basic import as_tensor_variable, constant, constant_value_rule
from arignote.tensor.elemwise import DimShuffle, Elemwise
from arignote.tensor.shape import _normalize_axis_list
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
ceil = Elemwise(ps.ceil)
trunc = Elemwise(ps.trunc)
round_half_to_even = Elemwise(ps.round_half_to_even)
round_half_away_from_zero = Elemwise(ps.round_half_away_from_zero)
left_shift = Elemwise(ps.left_shift)
right_shift = Elemwise(ps.right_shift)
logical_and = Elemwise(ps.logical_and)
logical_or = Elemwise(ps.logical_or)
logical_xor = Elemwise(ps.logical_xor)
logical_not = Elemwise(ps.logical_not)
isnan = Elemwise(ps.isnan)
isinf = Elemwise(ps.isinf)
isfinite = Elemwise(ps.isfinite)
cbrt = Elemwise(ps.cbrt)
reciprocal = Elemwise(ps.reciprocal)
arcsin = Elemwise(ps.arcsin)
arccos = Elemwise(ps.arccos)
arctan = Elemwise(ps.arctan)
arctan2 = Elemwise(ps.arctan2)
hypot = Elemwise(ps.hypot)
deg2rad = Elemwise(ps.deg2rad)
rad2deg = Elemwise(ps.rad2deg)
arcsinh = Elemwise(ps.arcsinh)
arccosh = Elemwise(ps.arccosh)
arctanh = Elemwise(ps.arctanh)
log1mexp = Elemwise(ps.log1mexp)
logaddexp = Elemwise(ps.logaddexp)
logaddexp2 = Elemwise(ps.logaddexp2)
real = Elemwise(ps.real)
imag = Elemwise(ps.imag)
conj = Elemwise(ps.conj)
angle = Elemwise(ps.angle)
complex = Elemwise(ps.complex_)
erf = Elemwise(ps.erf)
erfc = Elemwise(ps.erfc)
erfcx = Elemwise(ps.erfcx)
erfinv = Elemwise(ps.erfinv)
erfcinv = Elemwise(ps.erfcinv)
gamma = Elemwise(ps.gamma)
gammaln = Elemwise(ps.gammaln)
psi = Elemwise(ps.psi)
polygamma = Elemwise(ps.polygamma)
gammainc = Elemwise(ps.gammainc)
gammaincc = Elemwise(ps.gammaincc)
betainc = Elemwise(ps.betainc)
i0 = Elemwise(ps.i0)
i1 = Elemwise(ps.i1)
iv = Elemwise(ps.iv)
j0 = Elemwise(ps.j0)
j1 = Elemwise(ps.j1)
jv = Elemwise(ps.jv)
xlogy = Elemwise(ps.xlogy)
xlog1py = Elemwise(ps.xlog1py)
fmax = Elemwise(ps.fmax)
fmin = Elemwise(ps.fmin)
fmod = Elemwise(ps.fmod)
copysign = Elemwise(ps.copysign)
gcd = Elemwise(ps.gcd)
lcm = Elemwise(ps.lcm)
signbit = Elemwise(ps.signbit)
float_power = Elemwise(ps.float_power)

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


def zeros_like(x: Any, dtype: Any = None, opt: bool = False) -> Variable:
    """Zeros with the shape of ``x`` (and its dtype unless ``dtype`` is given).

    ``opt`` is accepted for PyTensor's signature (there it returns a constant when ``x`` is
    one); constant folding does that here whatever its value.
    """
    x = as_tensor_variable(x)
    return fill(x, constant(0, dtype=dtype or x.type.dtype))


def ones_like(x: Any, dtype: Any = None, opt: bool = False) -> Variable:
    """Ones with the shape of ``x`` (and its dtype unless ``dtype`` is given).

    ``opt`` is accepted for PyTensor's signature (there it returns a constant when ``x`` is
    one); constant folding does that here whatever its value.
    """
    x = as_tensor_variable(x)
    return fill(x, constant(1, dtype=dtype or x.type.dtype))


# -- more NumPy and PyTensor spellings ---------------------------------------------------------

remainder = mod
sgn = sign
abs_ = abs
conjugate = conj
log1pexp = softplus
digamma = psi
bitwise_invert = invert
bitwise_left_shift = left_shift
bitwise_right_shift = right_shift
# the array-API names that NumPy 2 also accepts
acos, asin, atan, atan2 = arccos, arcsin, arctan, arctan2
acosh, asinh, atanh = arccosh, arcsinh, arctanh


def astype(x: Any, dtype: Any) -> Variable:
    """``x`` converted to ``dtype``, like ``np.astype(x, dtype)`` (see :func:`cast`)."""
    return cast(x, dtype)


def divmod(x: Any, y: Any) -> tuple[Variable, Variable]:
    """``(x // y, x % y)``, like ``np.divmod`` (floor division and Python's remainder)."""
    return int_div(x, y), mod(x, y)


def clip(x: Any, min: Any = None, max: Any = None) -> Variable:
    """Limit the values of ``x`` to ``[min, max]``, like ``np.clip``.

    Parameters
    ----------
    x : tensor-like
    min, max : tensor-like or None
        Bounds, broadcast against ``x``; ``None`` leaves that side open. Where ``min > max``
        every value becomes ``max``, as in NumPy.

    Returns
    -------
    TensorVariable
        The clipped tensor, of NumPy's dtype for ``(x, min, max)``. Its gradient flows to ``x``
        inside the bounds (bounds included) and to the bound that is active outside them.
    """
    # As np.clip: x is made an array (a Python number there is strong), and a Python integer
    # bound beyond the range of an integer x is no bound at all (NumPy drops it rather than
    # overflow).
    x = as_tensor_variable(x)
    if x.type.dtype in integer_dtypes:
        info = np.iinfo(x.type.dtype)
        if type(min) is int and min <= info.min:
            min = None
        if type(max) is int and max >= info.max:
            max = None
    if min is None and max is None:
        return identity(x)
    if min is None:
        return minimum(x, max)
    if max is None:
        return maximum(x, min)
    return _clip(x, min, max)


_clip = Elemwise(ps.clip)

_ROUND_MODES = ("half_to_even", "half_away_from_zero")


def round(a: Any, mode: str | None = None, decimals: int = 0) -> Variable:
    """Round to the nearest integer (or to ``decimals`` decimal places).

    Parameters
    ----------
    a : tensor-like
    mode : {"half_to_even", "half_away_from_zero"}, optional
        How to break ties. The default, ``"half_to_even"``, is NumPy's (``np.round``: 0.5 -> 0,
        1.5 -> 2, 2.5 -> 2); ``"half_away_from_zero"`` sends 2.5 to 3 and -2.5 to -3. For
        NumPy-style calls, an integer in this position is taken as ``decimals``.
    decimals : int
        Number of decimal places (negative: round to tens, hundreds...), ``"half_to_even"`` only.

    Returns
    -------
    TensorVariable
        Rounded values, in NumPy's dtype for ``np.round`` (integer inputs stay integers).
    """
    if mode is not None and not isinstance(mode, str):
        mode, decimals = None, mode  # np.round(a, decimals) called positionally
    if isinstance(decimals, bool) or not isinstance(decimals, (int, np.integer)):
        raise TypeError(f"round: decimals must be an integer, got {decimals!r}")
    mode = mode or "half_to_even"
    if mode not in _ROUND_MODES:
        raise ValueError(f"round: mode must be one of {_ROUND_MODES}, got {mode!r}")
    if mode == "half_away_from_zero":
        if decimals != 0:
            raise ValueError("round: decimals is only supported with mode='half_to_even'")
        return round_half_away_from_zero(a)
    if decimals == 0:
        return round_half_to_even(a)
    return _round_decimals(operator.index(decimals))(a)


@cache
def _round_decimals(decimals: int) -> Elemwise:
    return Elemwise(ps.RoundHalfToEven(decimals))


def isclose(
    a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> Variable:
    """Elementwise ``|a - b| <= atol + rtol * |b|``, like ``np.isclose``.

    Parameters
    ----------
    a, b : tensor-like
        Broadcast against each other. The test is not symmetric: the tolerance scales with
        ``|b|``.
    rtol, atol : float
        Relative and absolute tolerances (Python numbers).
    equal_nan : bool
        Whether NaN counts as close to NaN. Infinities are close only to an equal infinity.

    Returns
    -------
    TensorVariable
        A boolean tensor.
    """
    # np.isclose makes a Python integer b a float, and compares in the float dtype of b: a
    # Python integer (or bool) beyond the range of the other operand is no overflow there.
    a, b = (float(v) if isinstance(v, int) else v for v in (a, b))
    return _isclose_op(rtol, atol, bool(equal_nan))(a, b)


@cache
def _isclose_op(rtol: float, atol: float, equal_nan: bool) -> Elemwise:
    return Elemwise(ps.IsClose(rtol, atol, equal_nan))


# -- logsumexp (here rather than in special so that ``arignote.tensor.math.logsumexp`` exists,
# as in PyTensor; the softmax ops of special share its frame) -----------------------------------


def exp_dtype(op: Any, dtype: str) -> str:
    """The output dtype of ``np.exp`` (and scipy's softmax family) for inputs of ``dtype``."""
    if dtype in complex_dtypes:
        raise TypeError(f"{op} expects real inputs, got dtype {dtype}")
    return np.exp.resolve_dtypes((np.dtype(dtype), None))[-1].name


def normalized_axes(axis: Any, ndim: int, context: str) -> tuple[int, ...]:
    """``axis`` (int, tuple or None for all) as a sorted tuple of non-negative ints."""
    if axis is None:
        return tuple(range(ndim))
    for a in [axis] if np.ndim(axis) == 0 else axis:
        if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)):
            raise TypeError(f"{context}: axis entries must be integers, got {a!r}")
    return tuple(sorted(_normalize_axis_list(axis, ndim, context)))


def expand_reduced(g: Variable, axes: tuple[int, ...], ndim: int) -> Variable:
    """Re-insert the reduced ``axes`` into ``g`` as length-1 dimensions (keepdims)."""
    kept = iter(range(g.type.ndim))
    order = ["x" if d in axes else next(kept) for d in range(ndim)]
    return DimShuffle(g.type.ndim, order)(g)


class AxisOp(Op):
    """Common frame of the ops normalizing over ``axis``: props, validation, float output."""

    __props__ = ("axis",)

    def __init__(self, axis: tuple[int, ...]) -> None:
        axis = tuple(int(a) for a in axis)
        if any(a < 0 for a in axis) or len(set(axis)) != len(axis):
            raise ValueError(f"{type(self).__name__} expects distinct axes >= 0, got {axis}")
        self.axis = tuple(sorted(axis))

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        if any(a >= x.type.ndim for a in self.axis):
            raise np.exceptions.AxisError(f"{self}: axis {self.axis} is out of range for {x.type}")
        out_dtype = exp_dtype(self, x.type.dtype)
        return Apply(self, [x], [tensor_type(out_dtype, self._out_shape(x.type.shape))()])

    def _out_shape(self, shape: tuple) -> tuple:
        return shape

    def infer_shape(self, fgraph, node, input_shapes):
        return [self._out_shape(input_shapes[0])]

    def __str__(self) -> str:
        return f"{type(self).__name__}{{axis={self.axis}}}"


class LogSumExp(AxisOp):
    """``log(sum(exp(x), axis))`` with the reduced axes removed: ``scipy.special.logsumexp``."""

    def _out_shape(self, shape: tuple) -> tuple:
        return tuple(s for d, s in enumerate(shape) if d not in self.axis)

    def perform(self, node, inputs, output_storage):
        dtype = node.outputs[0].type.dtype
        x = np.asarray(inputs[0], dtype=dtype)
        if x.size == 0:
            out_shape = self._out_shape(x.shape)
            output_storage[0][0] = np.full(out_shape, -np.inf, dtype=dtype)
            return
        top = np.max(x, axis=self.axis, keepdims=True)
        # An infinite maximum would make x - top NaN: shift by 0 there instead (inf stays inf,
        # an all -inf slice gives log(0) = -inf, as in SciPy).
        top = np.where(np.isfinite(top), top, 0).astype(dtype, copy=False)
        with np.errstate(divide="ignore"):
            total = np.log(np.sum(np.exp(x - top), axis=self.axis, keepdims=True))
        # 0-d arithmetic gives NumPy scalars: store an array of the declared type
        output_storage[0][0] = np.asarray(np.squeeze(total + top, axis=self.axis), dtype=dtype)

    def L_op(self, inputs, outputs, output_grads):
        (x,), (out,), (gz,) = inputs, outputs, output_grads
        ndim = x.type.ndim
        # d logsumexp / dx = softmax(x) = exp(x - logsumexp(x))
        weights = exp(x - expand_reduced(out, self.axis, ndim))
        return [expand_reduced(gz, self.axis, ndim) * weights]

    def R_op(self, inputs, eval_points):
        (x,), (v,) = inputs, eval_points
        if v is None:
            return [None]
        weights = exp(x - expand_reduced(self(x), self.axis, x.type.ndim))
        # the sum method: reductions are a family above this module
        return [(weights * v).sum(axis=self.axis)]


def logsumexp(x: Any, axis: Any = None, keepdims: bool = False) -> Variable:
    """``log(sum(exp(x), axis))`` without overflow, like ``scipy.special.logsumexp``.

    Parameters
    ----------
    x : tensor-like
    axis : int, tuple of ints or None
        The axes summed over (None: all).
    keepdims : bool
        Keep the reduced axes as length-1 dimensions.

    Returns
    -------
    TensorVariable
        ``-inf`` for empty or all ``-inf`` slices, ``inf`` where a slice holds ``inf``.
    """
    x = as_tensor_variable(x)
    axes = normalized_axes(axis, x.type.ndim, "logsumexp")
    out = LogSumExp(axes)(x)
    return expand_reduced(out, axes, x.type.ndim) if keepdims else out


def variadic_add(*args: Any) -> Any:
    """``add`` of any number of terms: the constant 0 for none, the term itself for one."""
    if not args:
        return constant(0)
    return args[0] if len(args) == 1 else add(*args)


def variadic_mul(*args: Any) -> Any:
    """``mul`` of any number of factors: the constant 1 for none, the factor itself for one."""
    if not args:
        return constant(1)
    return args[0] if len(args) == 1 else mul(*args)


# Every elementwise op instance (all spellings) plus the helper functions.
__all__ = sorted(
    [
        name
        for name, value in list(globals().items())
        if isinstance(value, Elemwise) and not name.startswith("_")
    ]
    + ["astype", "cast", "clip", "divmod", "isclose", "ones_like", "round", "zeros_like"]
    + ["LogSumExp", "logsumexp"]
    + ["variadic_add", "variadic_mul"]
)
