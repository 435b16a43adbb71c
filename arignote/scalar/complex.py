"""Scalar ops on complex numbers: real and imaginary parts, angle, and building a complex.

Gradients with respect to a complex z are ``dC/dRe(z) + i dC/dIm(z)`` for a real cost C (see
``conj_if_complex``): a real input receives the real part of that rule.
"""

from __future__ import annotations

import numpy as np

from arignote.scalar.arithmetic import neg
from arignote.scalar.basic import (
    BinaryScalarOp,
    UnaryScalarOp,
    is_complex,
    is_discrete,
    register_complex_parts,
    zero_grad_for,
)


class Real(UnaryScalarOp):
    """The real part (``np.real``); the number itself for real dtypes."""

    def elementwise(self, x):
        # np.real returns its (real) argument itself, or a strided view of a complex one: the
        # output must own its memory (Elemwise declares no view).
        return np.array(np.real(x), copy=True)

    def L_op(self, inputs, outputs, output_grads):
        (x,), (gz,) = inputs, output_grads
        if is_discrete(outputs[0]):
            return [zero_grad_for(x)]
        if is_complex(x):
            return [complex_(gz, 0)]  # only Re(x) moves the output
        return [gz]


class Imag(UnaryScalarOp):
    """The imaginary part (``np.imag``); zero for real dtypes."""

    def elementwise(self, x):
        return np.array(np.imag(x), copy=True)  # a view of x for complex x

    def L_op(self, inputs, outputs, output_grads):
        (x,), (gz,) = inputs, output_grads
        if not is_complex(x) or is_discrete(outputs[0]):
            return [zero_grad_for(x)]  # the imaginary part of a real number is always 0
        return [complex_(0, gz)]  # only Im(x) moves the output


class Angle(UnaryScalarOp):
    """The argument of a complex number, in (-pi, pi] (``np.angle``); 0 or pi for reals."""

    def elementwise(self, x):
        return np.angle(x)

    def L_op(self, inputs, outputs, output_grads):
        (x,), (gz,) = inputs, output_grads
        if not is_complex(x):
            return [zero_grad_for(x)]  # piecewise constant on the real line
        # angle = atan2(b, a): d/da = -b / |x|^2, d/db = a / |x|^2
        re, im = real(x), imag(x)
        r2 = re * re + im * im
        return [complex_(neg(gz) * im / r2, gz * re / r2)]


class Complex(BinaryScalarOp):
    """``complex(re, im)`` = re + i im, complex64 for float32 parts (and smaller), else
    complex128."""

    def elementwise(self, re, im):
        re, im = np.asarray(re), np.asarray(im)
        dtype = np.result_type(re.dtype, im.dtype, np.complex64)
        out = np.empty(np.broadcast_shapes(re.shape, im.shape), dtype=dtype)
        out.real = re
        out.imag = im
        return out

    def L_op(self, inputs, outputs, output_grads):
        (re, im), (gz,) = inputs, output_grads
        return [
            zero_grad_for(re) if is_discrete(re) else real(gz),
            zero_grad_for(im) if is_discrete(im) else imag(gz),
        ]


def is_complex_dtype(dtype: str) -> bool:
    return np.dtype(dtype).kind == "c"


real = Real(name="real")
imag = Imag(name="imag")
angle = Angle(name="angle")
complex_ = Complex(name="complex")
register_complex_parts(real, complex_)
