"""More scalar special functions (``scipy.special``): modified Bessel functions of the second
kind and scaled Bessel functions, the inverses of the incomplete gamma and beta integrals,
Gauss's hypergeometric function and Owen's T function.

As in :mod:`arignote.scalar.special`, values and output dtypes are SciPy's, derivatives are
the textbook identities (DLMF references in comments); those of 2F1 in its parameters are
computed by ``Hyp2F1Grad`` (``scalar/hyp2f1_params.py``), and the other parameter derivatives
without a closed form are reported as not implemented, never as zero.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.special as sp

from arignote.graph.grad_types import grad_not_implemented, grad_undefined
from arignote.scalar.arithmetic import neg, sign
from arignote.scalar.basic import BinaryScalarOp, ScalarOp
from arignote.scalar.hyp2f1_params import hyp2f1_parameter_derivative
from arignote.scalar.math import exp, log
from arignote.scalar.special import (
    _bessel_order_grad,
    _grad_term,
    beta_log_density,
    erf,
    gamma_log_density,
    in_dtype_of,
)

INV_TWO_SQRT_TWO_PI = 1.0 / (2.0 * math.sqrt(2.0 * math.pi))

# -- modified Bessel functions of the second kind, scaled Bessel functions ----------------------


class Kv(BinaryScalarOp):
    """``kv(v, x)``: the modified Bessel function of the second kind of real order v."""

    nfunc = sp.kv

    def L_op(self, inputs, outputs, output_grads):
        (v, x), (gz,) = inputs, output_grads
        # K_v' = -(K_{v-1} + K_{v+1}) / 2 (DLMF 10.29.1)
        return [
            _bessel_order_grad(self, v),
            _grad_term(x, neg(gz) * (kv(v - 1, x) + kv(v + 1, x)) / 2),
        ]


class Kve(BinaryScalarOp):
    """``kve(v, x) = kv(v, x) exp(x)``, the exponentially scaled ``kv``."""

    nfunc = sp.kve

    def L_op(self, inputs, outputs, output_grads):
        (v, x), (y,), (gz,) = inputs, outputs, output_grads
        # d/dx [K_v e^x] = K_v' e^x + K_v e^x
        side = (kve(v - 1, x) + kve(v + 1, x)) / 2
        return [_bessel_order_grad(self, v), _grad_term(x, gz * (y - side))]


class Kn(BinaryScalarOp):
    """``kn(n, x)``: the modified Bessel function of the second kind of integer order n."""

    nfunc = sp.kn

    def L_op(self, inputs, outputs, output_grads):
        (n, x), (gz,) = inputs, output_grads
        reason = "kn is defined for integer orders only"
        return [
            grad_undefined(self, 0, n, reason),
            _grad_term(x, neg(gz) * (kv(n - 1, x) + kv(n + 1, x)) / 2),
        ]


class Ive(BinaryScalarOp):
    """``ive(v, x) = iv(v, x) exp(-|x|)``, the exponentially scaled ``iv``."""

    nfunc = sp.ive

    def L_op(self, inputs, outputs, output_grads):
        (v, x), (y,), (gz,) = inputs, outputs, output_grads
        # d/dx [I_v e^-|x|] = (I_{v-1} + I_{v+1}) / 2 e^-|x| - sign(x) I_v e^-|x|
        side = (ive(v - 1, x) + ive(v + 1, x)) / 2
        return [_bessel_order_grad(self, v), _grad_term(x, gz * (side - sign(x) * y))]


# -- inverses of the incomplete gamma and beta integrals ---------------------------------------


def _shape_grad(op, position, var):
    reason = "The derivative with respect to a shape parameter has no closed form here."
    return grad_not_implemented(op, position, var, reason)


class GammaIncInv(BinaryScalarOp):
    """``gammaincinv(a, p)``: the x with ``gammainc(a, x) = p``."""

    nfunc = sp.gammaincinv

    def L_op(self, inputs, outputs, output_grads):
        (a, p), (x,), (gz,) = inputs, outputs, output_grads
        # dx/dp = 1 / (dP/dx) = Gamma(a) e^x x^(1-a) (inverse function rule, DLMF 8.8.13)
        slope = exp(neg(gamma_log_density(a, x)))
        return [_shape_grad(self, 0, a), _grad_term(p, gz * slope)]


class GammaIncCInv(BinaryScalarOp):
    """``gammainccinv(a, q)``: the x with ``gammaincc(a, x) = q``."""

    nfunc = sp.gammainccinv

    def L_op(self, inputs, outputs, output_grads):
        (a, q), (x,), (gz,) = inputs, outputs, output_grads
        slope = exp(neg(gamma_log_density(a, x)))  # dQ/dx = -dP/dx
        return [_shape_grad(self, 0, a), _grad_term(q, neg(gz) * slope)]


class BetaIncInv(ScalarOp):
    """``betaincinv(a, b, y)``: the x with ``betainc(a, b, x) = y``."""

    nin = 3
    nfunc = sp.betaincinv

    def L_op(self, inputs, outputs, output_grads):
        (a, b, y), (x,), (gz,) = inputs, outputs, output_grads
        # dx/dy = 1 / (dI/dx) = B(a, b) / (x^(a-1) (1-x)^(b-1)) (DLMF 8.17.1)
        slope = exp(neg(beta_log_density(a, b, x)))
        return [_shape_grad(self, 0, a), _shape_grad(self, 1, b), _grad_term(y, gz * slope)]


# -- hypergeometric and Owen's T -----------------------------------------------------------------


class Hyp2F1(ScalarOp):
    """``hyp2f1(a, b, c, z)``: Gauss's hypergeometric function 2F1(a, b; c; z)."""

    nin = 4
    nfunc = sp.hyp2f1

    def L_op(self, inputs, outputs, output_grads):
        (a, b, c, z), (gz,) = inputs, output_grads
        # d/dz 2F1(a, b; c; z) = a b / c 2F1(a + 1, b + 1; c + 1; z) (DLMF 15.5.1)
        dz = a * b / c * hyp2f1(a + 1, b + 1, c + 1, z)
        partials = hyp2f1_grad(a, b, c, z, (0, 1, 2))
        return [
            *(_grad_term(v, gz * d) for v, d in zip((a, b, c), partials, strict=True)),
            _grad_term(z, gz * dz),
        ]


class Hyp2F1Grad(ScalarOp):
    """d 2F1(a, b; c; z) / d(a, b or c) (``wrt`` 0, 1 or 2): no closed form, computed by
    :func:`arignote.scalar.hyp2f1_params.hyp2f1_parameter_derivative`."""

    nin = 4
    __props__ = ("wrt",)
    _vectorized = np.vectorize(hyp2f1_parameter_derivative, otypes=[np.float64])

    def __init__(self, wrt: int = 0, name: str | None = None) -> None:
        if wrt not in (0, 1, 2):
            raise ValueError(f"Hyp2F1Grad: wrt must be 0 (a), 1 (b) or 2 (c), got {wrt!r}")
        super().__init__(name=name)
        self.wrt = int(wrt)

    def elementwise(self, a, b, c, z):
        return in_dtype_of(sp.hyp2f1, (a, b, c, z), self._vectorized(a, b, c, z, self.wrt))

    def L_op(self, inputs, outputs, output_grads):
        (a, b, c, z), (gz,) = inputs, output_grads
        # d/dz of dF/dp, with dF/dz = (a b / c) F(a + 1, b + 1; c + 1; z): the product rule
        shifted = (a + 1, b + 1, c + 1, z)
        own = (b / c, a / c, -a * b / (c * c))[self.wrt]
        slope = own * hyp2f1(*shifted) + a * b / c * Hyp2F1Grad(self.wrt)(*shifted)
        reason = "The second derivative with respect to a parameter is not implemented."
        return [
            *(grad_not_implemented(self, k, v, reason) for k, v in enumerate((a, b, c))),
            _grad_term(z, gz * slope),
        ]

    def __str__(self) -> str:
        return f"hyp2f1_grad{{wrt={'abc'[self.wrt]}}}"


def hyp2f1_grad(a, b, c, z, wrt):
    """The derivatives of ``hyp2f1(a, b, c, z)`` with respect to the parameters numbered in
    ``wrt`` (0: a, 1: b, 2: c), as ``pytensor.scalar.math.hyp2f1_grad``."""
    return [_HYP2F1_GRADS[k](a, b, c, z) for k in wrt]


class OwensT(BinaryScalarOp):
    """``owens_t(h, a)``: Owen's T function, (1/2pi) int_0^a exp(-h^2 (1+x^2)/2) / (1+x^2) dx."""

    nfunc = sp.owens_t

    def L_op(self, inputs, outputs, output_grads):
        (h, a), (gz,) = inputs, output_grads
        # dT/dh = -exp(-h^2/2) erf(a h / sqrt 2) / (2 sqrt(2 pi)); dT/da by differentiating
        # under the integral's upper limit
        dh = neg(exp(neg(h * h) / 2)) * erf(a * h / math.sqrt(2.0)) * INV_TWO_SQRT_TWO_PI
        spread = 1 + a * a
        da = exp(neg(h * h) * spread / 2 - log(spread) - math.log(2 * math.pi))
        return [_grad_term(h, gz * dh), _grad_term(a, gz * da)]


kv = Kv(name="kv")
kve = Kve(name="kve")
kn = Kn(name="kn")
ive = Ive(name="ive")
gammaincinv = GammaIncInv(name="gammaincinv")
gammainccinv = GammaIncCInv(name="gammainccinv")
betaincinv = BetaIncInv(name="betaincinv")
hyp2f1 = Hyp2F1(name="hyp2f1")
_hyp2f1_grad_a, _hyp2f1_grad_b, _hyp2f1_grad_c = (Hyp2F1Grad(k) for k in range(3))
_HYP2F1_GRADS = (_hyp2f1_grad_a, _hyp2f1_grad_b, _hyp2f1_grad_c)
owens_t = OwensT(name="owens_t")

__all__ = [
    "betaincinv",
    "gammainccinv",
    "gammaincinv",
    "hyp2f1",
    "hyp2f1_grad",
    "ive",
    "kn",
    "kv",
    "kve",
    "owens_t",
]
