"""Scalar powers, exponentials, logarithms, trigonometric and hyperbolic functions."""

from __future__ import annotations

import numpy as np
import scipy.special as sp

from arignote.scalar.arithmetic import neg
from arignote.scalar.basic import (
    BinaryScalarOp,
    FloatUnaryOp,
    is_discrete,
    resolve_ufunc_types,
    zero_grad_for,
)


def _float_like_exp(*types):
    """Output dtype of NumPy's float functions (``np.exp``): ints -> float, floats kept."""
    return resolve_ufunc_types("float function", np.exp, types, 1)


class Pow(BinaryScalarOp):
    nfunc = np.power

    def L_op(self, inputs, outputs, output_grads):
        (x, y), (z,), (gz,) = inputs, outputs, output_grads
        if is_discrete(z):
            return [zero_grad_for(x), zero_grad_for(y)]
        # z = x^y: dz/dx = y x^(y-1), dz/dy = log(x) x^y
        gx = zero_grad_for(x) if is_discrete(x) else gz * y * pow(x, y - 1)
        gy = zero_grad_for(y) if is_discrete(y) else gz * log(x) * z
        return [gx, gy]


class Exp(FloatUnaryOp):
    nfunc = np.exp

    def derivative(self, x, y):
        return y  # d e^x = e^x


class Exp2(FloatUnaryOp):
    nfunc = np.exp2

    def derivative(self, x, y):
        return y * np.log(2.0)  # d 2^x = 2^x ln 2


class Expm1(FloatUnaryOp):
    nfunc = np.expm1

    def derivative(self, x, y):
        return y + 1  # d (e^x - 1) = e^x


class Log(FloatUnaryOp):
    nfunc = np.log

    def derivative(self, x, y):
        return 1 / x


class Log2(FloatUnaryOp):
    nfunc = np.log2

    def derivative(self, x, y):
        return 1 / (x * np.log(2.0))


class Log10(FloatUnaryOp):
    nfunc = np.log10

    def derivative(self, x, y):
        return 1 / (x * np.log(10.0))


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


class Tanh(FloatUnaryOp):
    nfunc = np.tanh

    def derivative(self, x, y):
        return 1 - y * y  # d tanh = 1 - tanh^2


class Sinh(FloatUnaryOp):
    nfunc = np.sinh

    def derivative(self, x, y):
        return cosh(x)


class Cosh(FloatUnaryOp):
    nfunc = np.cosh

    def derivative(self, x, y):
        return sinh(x)


class Sigmoid(FloatUnaryOp):
    """The logistic function 1 / (1 + e^-x) (``scipy.special.expit``)."""

    nfunc = sp.expit

    def derivative(self, x, y):
        return y * (1 - y)


class Softplus(FloatUnaryOp):
    """log(1 + e^x), computed without overflow for large x."""

    def __init__(self, output_types_preference=_float_like_exp, name=None):
        super().__init__(output_types_preference, name)

    def elementwise(self, x):
        x = np.asarray(x)
        # log(1 + e^x) = max(x, 0) + log1p(e^-|x|): no overflow at either end
        out_dtype = np.exp.resolve_dtypes((x.dtype, None))[-1]
        x = x.astype(out_dtype, copy=False)
        return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))

    def derivative(self, x, y):
        return sigmoid(x)


pow = Pow(name="pow")
exp = Exp(name="exp")
exp2 = Exp2(name="exp2")
expm1 = Expm1(name="expm1")
log = Log(name="log")
log2 = Log2(name="log2")
log10 = Log10(name="log10")
log1p = Log1p(name="log1p")
sqrt = Sqrt(name="sqrt")
sqr = Sqr(name="sqr")
sin = Sin(name="sin")
cos = Cos(name="cos")
tan = Tan(name="tan")
tanh = Tanh(name="tanh")
sinh = Sinh(name="sinh")
cosh = Cosh(name="cosh")
sigmoid = Sigmoid(name="sigmoid")
softplus = Softplus(name="softplus")
