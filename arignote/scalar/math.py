"""Scalar powers, exponentials, logarithms, trigonometric and hyperbolic functions (and their
inverses), and the numerically careful log/exp combinations (softplus, log1mexp, logaddexp)."""

from __future__ import annotations

import math

import numpy as np
import scipy.special as sp

from arignote.scalar.arithmetic import _grad_or_zero, eq, neg, switch
from arignote.scalar.basic import (
    BinaryScalarOp,
    FloatUnaryOp,
    conj_if_complex,
    is_complex,
    is_discrete,
    zero_grad_for,
)

LN2 = math.log(2.0)
LN10 = math.log(10.0)


class RealExpLike(FloatUnaryOp):
    """A function of real numbers with the output dtypes of ``np.exp`` (ints -> float, floats
    kept); complex inputs are refused (the formulas compare with 0). Subclasses have the rule
    ``numpy_float_real`` in ``dtype_rules.DTYPE_RULES``."""


def _as_float_like_exp(x):
    """``x`` as an array of the dtype ``np.exp(x)`` would have (ints -> float64...)."""
    x = np.asarray(x)
    if x.dtype.kind in "fc":
        return x
    return x.astype(np.exp.resolve_dtypes((x.dtype, None))[-1])


class Pow(BinaryScalarOp):
    nfunc = np.power

    def L_op(self, inputs, outputs, output_grads):
        (x, y), (z,), (gz,) = inputs, outputs, output_grads
        if is_discrete(z):
            return [zero_grad_for(x), zero_grad_for(y)]
        # z = x^y: dz/dx = y x^(y-1), dz/dy = log(x) x^y. At x = 0, x^y is 0 for every y > 0
        # (so dz/dy = 0) where the formula gives log(0) * 0 = NaN.
        gx = _grad_or_zero(x, gz * conj_if_complex(y * pow(x, y - 1)))
        gy = _grad_or_zero(y, switch(eq(x, 0), 0, gz * conj_if_complex(log(x) * z)))
        return [gx, gy]


class FloatPower(Pow):
    """x^y computed in float64 or complex128 whatever the inputs (``np.float_power``)."""

    nfunc = np.float_power


# -- exponentials and logarithms ---------------------------------------------------------------


class Exp(FloatUnaryOp):
    nfunc = np.exp

    def derivative(self, x, y):
        return y  # d e^x = e^x


class Exp2(FloatUnaryOp):
    nfunc = np.exp2

    def derivative(self, x, y):
        return y * LN2  # d 2^x = 2^x ln 2


class Expm1(FloatUnaryOp):
    nfunc = np.expm1

    def derivative(self, x, y):
        # d (e^x - 1) = e^x; not y + 1, which cancels for x < 0 (y = -1 + 9e-14 at x = -30)
        return exp(x)


class Log(FloatUnaryOp):
    nfunc = np.log

    def derivative(self, x, y):
        return 1 / x


class Log2(FloatUnaryOp):
    nfunc = np.log2

    def derivative(self, x, y):
        return 1 / (x * LN2)


class Log10(FloatUnaryOp):
    nfunc = np.log10

    def derivative(self, x, y):
        return 1 / (x * LN10)


class Log1p(FloatUnaryOp):
    nfunc = np.log1p

    def derivative(self, x, y):
        return 1 / (x + 1)


class Sqrt(FloatUnaryOp):
    nfunc = np.sqrt

    def derivative(self, x, y):
        return 0.5 / y  # d sqrt(x) = 1 / (2 sqrt(x))


class Sqr(FloatUnaryOp):
    nfunc = np.square

    def derivative(self, x, y):
        return x * 2  # d x^2 = 2x


class Cbrt(FloatUnaryOp):
    nfunc = np.cbrt

    def derivative(self, x, y):
        return 1 / (3 * y * y)  # d x^(1/3) = 1 / (3 x^(2/3))


class Reciprocal(FloatUnaryOp):
    """1 / x (``np.reciprocal``: integer division for integer x, as in NumPy)."""

    nfunc = np.reciprocal

    def derivative(self, x, y):
        return neg(y * y)  # d (1/x) = -1/x^2


# -- trigonometric functions and their inverses --------------------------------------------------


class Sin(FloatUnaryOp):
    nfunc = np.sin

    def derivative(self, x, y):
        return cos(x)


class Cos(FloatUnaryOp):
    nfunc = np.cos

    def derivative(self, x, y):
        return neg(sin(x))


class Tan(FloatUnaryOp):
    nfunc = np.tan

    def derivative(self, x, y):
        return y * y + 1  # d tan = 1 + tan^2


def _one_minus_square(x):
    """1 - x^2 as (1 - x)(1 + x): exact factors near |x| = 1, where 1 - x*x loses the low
    bits of x*x (5e-10 relative error at x = 1 - 1e-8)."""
    return (1 - x) * (1 + x)


class ArcSin(FloatUnaryOp):
    nfunc = np.arcsin

    def derivative(self, x, y):
        return 1 / sqrt(_one_minus_square(x))


class ArcCos(FloatUnaryOp):
    nfunc = np.arccos

    def derivative(self, x, y):
        return -1 / sqrt(_one_minus_square(x))


class ArcTan(FloatUnaryOp):
    nfunc = np.arctan

    def derivative(self, x, y):
        return 1 / (x * x + 1)


class ArcTan2(BinaryScalarOp):
    """The angle of the point (x, y) in (-pi, pi]: ``arctan2(y, x)`` (``np.arctan2``)."""

    nfunc = np.arctan2

    def L_op(self, inputs, outputs, output_grads):
        (y, x), (gz,) = inputs, output_grads
        if is_discrete(outputs[0]):
            return [zero_grad_for(y), zero_grad_for(x)]
        # d atan2(y, x) = (x dy - y dx) / (x^2 + y^2)
        r2 = x * x + y * y
        gy = _grad_or_zero(y, gz * x / r2)
        gx = _grad_or_zero(x, neg(gz) * y / r2)
        return [gy, gx]


class Hypot(BinaryScalarOp):
    """sqrt(x^2 + y^2) without intermediate overflow (``np.hypot``)."""

    nfunc = np.hypot
    commutative = True

    def L_op(self, inputs, outputs, output_grads):
        (x, y), (z,), (gz,) = inputs, outputs, output_grads
        if is_discrete(z):
            return [zero_grad_for(x), zero_grad_for(y)]
        gx = _grad_or_zero(x, gz * x / z)
        gy = _grad_or_zero(y, gz * y / z)
        return [gx, gy]


class Deg2Rad(FloatUnaryOp):
    nfunc = np.deg2rad

    def derivative(self, x, y):
        return math.pi / 180.0  # a weak Python float: the gradient keeps its dtype


class Rad2Deg(FloatUnaryOp):
    nfunc = np.rad2deg

    def derivative(self, x, y):
        return 180.0 / math.pi


# -- hyperbolic functions and their inverses ---------------------------------------------------


class Tanh(FloatUnaryOp):
    nfunc = np.tanh

    def derivative(self, x, y):
        # d tanh = sech^2 = 1 / cosh^2; 1 - tanh^2 is 0 from |x| = 19, where tanh rounds to 1
        c = cosh(x)
        return 1 / (c * c)


class Sinh(FloatUnaryOp):
    nfunc = np.sinh

    def derivative(self, x, y):
        return cosh(x)


class Cosh(FloatUnaryOp):
    nfunc = np.cosh

    def derivative(self, x, y):
        return sinh(x)


class ArcSinh(FloatUnaryOp):
    nfunc = np.arcsinh

    def derivative(self, x, y):
        if is_complex(x):
            return 1 / sqrt(x * x + 1)
        return 1 / hypot(x, 1)  # x * x overflows from |x| = 1.4e154, where 1 / |x| does not


class ArcCosh(FloatUnaryOp):
    nfunc = np.arccosh

    def derivative(self, x, y):
        # 1 / sqrt(x^2 - 1), factored: no cancellation near 1, no overflow of x^2 from 1.4e154,
        # and the principal branch for complex x
        return 1 / (sqrt(x - 1) * sqrt(x + 1))


class ArcTanh(FloatUnaryOp):
    nfunc = np.arctanh

    def derivative(self, x, y):
        return 1 / _one_minus_square(x)


# -- log / exp combinations ----------------------------------------------------------------------


class Sigmoid(FloatUnaryOp):
    """The logistic function 1 / (1 + e^-x) (``scipy.special.expit``)."""

    nfunc = sp.expit

    def derivative(self, x, y):
        # sigmoid(x) sigmoid(-x), not y (1 - y): 1 - y cancels for x > 0 and is 0 from x = 37
        return y * sigmoid(neg(x))


class Softplus(RealExpLike):
    """log(1 + e^x), computed without overflow for large x (also called ``log1pexp``)."""

    def elementwise(self, x):
        x = _as_float_like_exp(x)
        # log(1 + e^x) = max(x, 0) + log1p(e^-|x|): no overflow at either end
        return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))

    def derivative(self, x, y):
        return sigmoid(x)


class Log1mexp(RealExpLike):
    """log(1 - e^x) for x <= 0, accurate near 0 and for very negative x (Maechler, 2012)."""

    def elementwise(self, x):
        x = _as_float_like_exp(x)
        # Near 0, 1 - e^x cancels: use -expm1(x). For x < -ln 2, e^x is small: use log1p(-e^x).
        # Both branches are computed everywhere; x > 0 (outside the domain) gives NaN quietly.
        with np.errstate(all="ignore"):
            near_zero = np.log(-np.expm1(x))
            far = np.log1p(-np.exp(x))
        return np.where(x < -LN2, far, near_zero)

    def derivative(self, x, y):
        return -1 / expm1(neg(x))  # d log(1 - e^x) = -e^x / (1 - e^x) = -1 / (e^-x - 1)


class LogAddExp(BinaryScalarOp):
    """log(e^x + e^y) without overflow (``np.logaddexp``)."""

    nfunc = np.logaddexp
    commutative = True

    def L_op(self, inputs, outputs, output_grads):
        (x, y), (z,), (gz,) = inputs, outputs, output_grads
        # dz/dx = e^x / (e^x + e^y) = e^(x - z)
        gx = _grad_or_zero(x, gz * exp(x - z))
        gy = _grad_or_zero(y, gz * exp(y - z))
        return [gx, gy]


class LogAddExp2(BinaryScalarOp):
    """log2(2^x + 2^y) without overflow (``np.logaddexp2``)."""

    nfunc = np.logaddexp2
    commutative = True

    def L_op(self, inputs, outputs, output_grads):
        (x, y), (z,), (gz,) = inputs, outputs, output_grads
        # dz/dx = 2^x / (2^x + 2^y) = 2^(x - z)
        gx = _grad_or_zero(x, gz * exp2(x - z))
        gy = _grad_or_zero(y, gz * exp2(y - z))
        return [gx, gy]


pow = Pow(name="pow")
float_power = FloatPower(name="float_power")
exp = Exp(name="exp")
exp2 = Exp2(name="exp2")
expm1 = Expm1(name="expm1")
log = Log(name="log")
log2 = Log2(name="log2")
log10 = Log10(name="log10")
log1p = Log1p(name="log1p")
sqrt = Sqrt(name="sqrt")
sqr = Sqr(name="sqr")
cbrt = Cbrt(name="cbrt")
reciprocal = Reciprocal(name="reciprocal")
sin = Sin(name="sin")
cos = Cos(name="cos")
tan = Tan(name="tan")
arcsin = ArcSin(name="arcsin")
arccos = ArcCos(name="arccos")
arctan = ArcTan(name="arctan")
arctan2 = ArcTan2(name="arctan2")
hypot = Hypot(name="hypot")
deg2rad = Deg2Rad(name="deg2rad")
rad2deg = Rad2Deg(name="rad2deg")
tanh = Tanh(name="tanh")
sinh = Sinh(name="sinh")
cosh = Cosh(name="cosh")
arcsinh = ArcSinh(name="arcsinh")
arccosh = ArcCosh(name="arccosh")
arctanh = ArcTanh(name="arctanh")
sigmoid = Sigmoid(name="sigmoid")
softplus = Softplus(name="softplus")
log1mexp = Log1mexp(name="log1mexp")
logaddexp = LogAddExp(name="logaddexp")
logaddexp2 = LogAddExp2(name="logaddexp2")
