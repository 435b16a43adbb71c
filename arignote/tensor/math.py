"""Elementwise math on tensors, with NumPy's names (``Elemwise`` instances and helpers)."""

from __future__ import annotations

import operator
from functools import cache
from typing import Any

import numpy as np

from arignote import scalar as ps
from arignote.graph.basic import Variable
from arignote.tensor.basic import as_tensor_variable, constant, constant_value_rule
from arignote.tensor.elemwise import Elemwise

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


def zeros_like(x: Any, dtype: Any = None) -> Variable:
    """Zeros with the shape of ``x`` (and its dtype unless ``dtype`` is given)."""
    x = as_tensor_variable(x)
    return fill(x, constant(0, dtype=dtype or x.type.dtype))


def ones_like(x: Any, dtype: Any = None) -> Variable:
    """Ones with the shape of ``x`` (and its dtype unless ``dtype`` is given)."""
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
    return _isclose_op(rtol, atol, bool(equal_nan))(a, b)


@cache
def _isclose_op(rtol: float, atol: float, equal_nan: bool) -> Elemwise:
    return Elemwise(ps.IsClose(rtol, atol, equal_nan))


# Every elementwise op instance (all spellings) plus the helper functions.
__all__ = sorted(
    [
        name
        for name, value in list(globals().items())
        if isinstance(value, Elemwise) and not name.startswith("_")
    ]
    + ["astype", "cast", "clip", "divmod", "isclose", "ones_like", "round", "zeros_like"]
)
