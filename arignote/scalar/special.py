"""Scalar special functions (``scipy.special``): error functions, gamma and beta families,
incomplete gamma and beta integrals, Bessel functions, ``xlogy``, ``logit``, ``factorial``.

Values and output dtypes are SciPy's (``nfunc`` is the SciPy ufunc). Derivatives are the
textbook identities (DLMF references in comments). The shape derivatives of the incomplete
gamma and beta integrals have no closed form: the ops ``GammaIncGrad`` and ``BetaIncGrad``
compute them (``scalar/incomplete_shape.py``). Where no derivative is computed (the order of a
Bessel function), the gradient is reported as not implemented, never as zero.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.special as sp

from arignote.graph.grad_types import grad_not_implemented, grad_undefined
from arignote.scalar.arithmetic import _grad_or_zero, abs, and_, ge, gt, lt, neg, neq, switch
from arignote.scalar.basic import (
    BinaryScalarOp,
    FloatUnaryOp,
    ScalarOp,
    conj_if_complex,
    is_complex,
    is_discrete,
    zero_grad_for,
)
from arignote.scalar.incomplete_shape import betainc_shape_derivative, gammainc_shape_derivative
from arignote.scalar.math import exp, expm1, log, log1p

TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
INV_SQRT_PI = 1.0 / math.sqrt(math.pi)
SQRT_PI_OVER_TWO = math.sqrt(math.pi) / 2.0


def _grad_term(x, term):
    """``term`` as the gradient for ``x`` (conjugated for complex x).

    An integer ``x`` gets the same derivative, in a float dtype: the functions are defined
    between the integers (see the Op contract's mixed-dot example).
    """
    return _grad_or_zero(x, conj_if_complex(term))


# -- error functions -------------------------------------------------------------------------


class Erf(FloatUnaryOp):
    nfunc = sp.erf

    def derivative(self, x, y):
        return TWO_OVER_SQRT_PI * exp(neg(x * x))  # d erf = 2/sqrt(pi) e^(-x^2)


class Erfc(FloatUnaryOp):
    nfunc = sp.erfc

    def derivative(self, x, y):
        return -TWO_OVER_SQRT_PI * exp(neg(x * x))


class Erfcx(FloatUnaryOp):
    """The scaled complementary error function e^(x^2) erfc(x)."""

    nfunc = sp.erfcx

    def derivative(self, x, y):
        if is_complex(x):
            return 2 * x * y - TWO_OVER_SQRT_PI  # product rule on e^(x^2) erfc(x)
        return _erfcx_slope(x, y)


# d erfcx / dx for large x: differentiating erfcx's asymptotic series (DLMF 7.12.1) term by
# term, -x^-2 / sqrt(pi) * sum_n (-1)^n (2n+1)!! / 2^n x^-2n. The terms shrink by (n + 1/2) /
# x^2 before the series diverges: 16 terms are within 6e-18 relative from x = 10 on, 4e-9
# from x = 5 on (float32, where the product rule already loses 3e-6 at x = 5).
ERFCX_SERIES_FROM = {"float32": 5.0, "float16": 5.0}
ERFCX_SLOPE_SERIES = tuple((-1) ** n * math.prod(range(1, 2 * n + 2, 2)) / 2**n for n in range(16))


def _erfcx_slope(x, y):
    """d erfcx(x) / dx for real x, where y = erfcx(x).

    The product rule 2 x erfcx(x) - 2 / sqrt(pi) subtracts two numbers that agree to about
    2 x^2 parts in one (1.6e-6 relative error at x = 1e5, 0 from x = 1e8), so large x take the
    asymptotic series instead. ``far`` is x clamped into the series' range, so neither branch
    sees an infinity it would not use (the unused one still enters second derivatives).
    """
    start = ERFCX_SERIES_FROM.get(x.type.dtype, 10.0)  # float64, and integers (in float64)
    series = ge(x, start)
    near = 2 * x * y - TWO_OVER_SQRT_PI
    r = 1 / switch(series, x, start)
    t = r * r
    total = ERFCX_SLOPE_SERIES[-1]
    for c in reversed(ERFCX_SLOPE_SERIES[:-1]):  # Horner's rule in t = 1 / x^2
        total = total * t + c
    # r * r underflows gradually (x^-2 is still a subnormal where x^2 overflows)
    far = -INV_SQRT_PI * r * r * total
    return switch(series, far, near)


class Erfinv(FloatUnaryOp):
    nfunc = sp.erfinv

    def derivative(self, x, y):
        return SQRT_PI_OVER_TWO * exp(y * y)  # inverse function rule: 1 / erf'(erfinv(x))


class Erfcinv(FloatUnaryOp):
    nfunc = sp.erfcinv

    def derivative(self, x, y):
        return -SQRT_PI_OVER_TWO * exp(y * y)


# -- gamma family ------------------------------------------------------------------------------


class Gamma(FloatUnaryOp):
    nfunc = sp.gamma

    def derivative(self, x, y):
        return y * psi(x)  # Gamma' = Gamma psi (DLMF 5.2.2)


class GammaLn(FloatUnaryOp):
    """``log |Gamma(x)|`` (``scipy.special.gammaln``)."""

    nfunc = sp.gammaln

    def derivative(self, x, y):
        return psi(x)


class Psi(FloatUnaryOp):
    """The digamma function Gamma'/Gamma (``scipy.special.psi``)."""

    nfunc = sp.psi

    def derivative(self, x, y):
        return polygamma(1, x)


class Polygamma(BinaryScalarOp):
    """``polygamma(n, x)``: the n-th derivative of the digamma function (n = 0, 1, 2, ...)."""

    # scipy.special.polygamma is a Python function calling np.asarray on n and x: a Python
    # number is an int64 or float64 array there, not a weak scalar.
    weak_python_scalars = False

    def elementwise(self, n, x):
        return sp.polygamma(n, x)

    def L_op(self, inputs, outputs, output_grads):
        (n, x), (gz,) = inputs, output_grads
        return [
            grad_undefined(self, 0, n, "polygamma is only defined for integer orders n."),
            _grad_term(x, gz * polygamma(n + 1, x)),
        ]


class GammaInc(BinaryScalarOp):
    """The regularized lower incomplete gamma function P(a, x)."""

    nfunc = sp.gammainc

    def L_op(self, inputs, outputs, output_grads):
        (a, x), (gz,) = inputs, output_grads
        return [
            _grad_term(a, gz * gammainc_grad(a, x)),
            _grad_term(x, gz * _gamma_density(a, x)),
        ]


class GammaIncC(BinaryScalarOp):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""

    nfunc = sp.gammaincc

    def L_op(self, inputs, outputs, output_grads):
        (a, x), (gz,) = inputs, output_grads
        return [
            _grad_term(a, neg(gz) * gammainc_grad(a, x)),
            _grad_term(x, neg(gz) * _gamma_density(a, x)),
        ]


def _gamma_density(a, x):
    """dP(a, x)/dx = x^(a-1) e^-x / Gamma(a) (DLMF 8.8.13), via logs to avoid overflow."""
    return exp(gamma_log_density(a, x))


# -- log densities of the incomplete gamma and beta integrals ----------------------------------

#: B_2k / (2k (2k - 1)), k = 1..7: log Gamma(a) = (a - 1/2) log a - a + log(2 pi) / 2 + mu(a)
#: with mu(a) ~ sum_k B_2k / (2k (2k - 1) a^(2k-1)) (DLMF 5.11.1), within 3e-17 from a = 10.
STIRLING = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156)
#: Shapes from which the log densities use Stirling's series (below, the plain formula loses
#: at most a few hundred ulps).
LARGE_SHAPE = 10.0
LOG1PMX_SERIES_BELOW = 0.25
LOG1PMX_TERMS = 26  # 0.25^26 / 28: within 1e-17 relative
LOG_TWO_PI = math.log(2 * math.pi)


def _stirling_correction(a):
    """mu(a) = log Gamma(a) - ((a - 1/2) log a - a + log(2 pi) / 2), for a >= 10."""
    inverse = 1 / a
    square = inverse * inverse
    total = STIRLING[-1]
    for c in reversed(STIRLING[:-1]):
        total = total * square + c
    return total * inverse


def _log1pmx(d, ratio):
    """log(1 + d) - d, given d and ratio = 1 + d computed apart (as x / a, exact to an ulp
    where 1 + d is not: d = -1 + 1e-6 has lost 10 digits of 1 + d).

    Small |d| takes the series -d^2 sum_k (-d)^k / (k + 2), where the difference cancels.
    """
    small = lt(abs(d), LOG1PMX_SERIES_BELOW)
    t = neg(switch(small, d, 0))
    total = 1 / (LOG1PMX_TERMS + 1)
    for k in reversed(range(LOG1PMX_TERMS - 1)):
        total = total * t + 1 / (k + 2)
    return switch(small, neg(t * t) * total, log(ratio) - d)


def gamma_log_density(a, x):
    """log(x^(a-1) e^-x / Gamma(a)), the log of the slope of gammainc(a, x) in x.

    The plain (a - 1) log x - x - gammaln(a) subtracts terms of size a log a to leave one of
    size log a: 7e-10 relative error in the density at a = 1e6 in float64, 7e-2 at a = 1e5 in
    float32. For a >= 10 and x > 0, Stirling's series for gammaln(a) lets the large terms
    cancel exactly: a log1pmx((x - a) / a) + log(a / 2 pi) / 2 - log x - mu(a), which loses
    about |x - a| eps instead of a log(a) eps.
    """
    large = and_(ge(a, LARGE_SHAPE), gt(x, 0))
    a_, x_ = switch(large, a, LARGE_SHAPE), switch(large, x, LARGE_SHAPE)  # unused values
    stirling = a_ * _log1pmx((x_ - a_) / a_, x_ / a_) + (log(a_) - LOG_TWO_PI) / 2
    stirling = stirling - log(x_) - _stirling_correction(a_)
    return switch(large, stirling, xlogy(a - 1, x) - x - gammaln(a))


def beta_log_density(a, b, x):
    """log(x^(a-1) (1 - x)^(b-1) / B(a, b)), the log of the slope of betainc(a, b, x) in x.

    As in :func:`gamma_log_density`, the plain formula leaves a small number from large
    terms. For a, b >= 10 and 0 < x < 1, with n = a + b, p = a / n and q = b / n, Stirling's
    series for the three gammas turns it into a log1pmx(x / p - 1) + b log1pmx((1 - x) / q - 1)
    + log(p b / 2 pi) / 2 - log x - log(1 - x) - mu(a) - mu(b) + mu(n) (the linear terms,
    n (x - p) and n ((1 - x) - q), cancel exactly).
    """
    inside = and_(gt(x, 0), lt(x, 1))
    large = and_(and_(ge(a, LARGE_SHAPE), ge(b, LARGE_SHAPE)), inside)
    a_, b_ = switch(large, a, LARGE_SHAPE), switch(large, b, LARGE_SHAPE)
    x_ = switch(large, x, 0.5)
    n = a_ + b_
    p, q = a_ / n, b_ / n
    # (1 - x) - q rather than p - x: where q is tiny, p - x has lost its digits
    y_ = 1 - x_
    body = a_ * _log1pmx((x_ - p) / p, x_ / p) + b_ * _log1pmx((y_ - q) / q, y_ / q)
    scale = (log(p * b_) - LOG_TWO_PI) / 2 - log(x_) - log1p(neg(x_))
    mu = _stirling_correction(n) - _stirling_correction(a_) - _stirling_correction(b_)
    plain = xlogy(a - 1, x) + xlog1py(b - 1, neg(x)) - _betaln_for_density(a, b)
    return switch(large, body + scale + mu, plain)


def _betaln_for_density(a, b):
    """betaln(a, b), with one shape >= 10 and the other below as gammaln(s) - (gammaln(L + s)
    - gammaln(L)), the difference from Stirling's series: (L - 1/2) log1p(s / L) +
    s log(L + s) - s + mu(L + s) - mu(L). SciPy's betaln loses 1.5e-10 relative at
    (1e6, 0.5) (1e-9 in the density); both shapes large or both small: SciPy's value."""
    a_large = ge(a, LARGE_SHAPE)
    lopsided = neq(a_large, ge(b, LARGE_SHAPE))
    small = switch(lopsided, switch(a_large, b, a), 1)
    large = switch(lopsided, switch(a_large, a, b), LARGE_SHAPE)
    ratio = (large - 0.5) * log1p(small / large) + small * log(large + small) - small
    ratio = ratio + _stirling_correction(large + small) - _stirling_correction(large)
    return switch(lopsided, gammaln(small) - ratio, betaln(a, b))


class GammaIncGrad(BinaryScalarOp):
    """dP(a, x)/da, the derivative of ``gammainc`` in its shape a (no closed form: computed by
    :func:`arignote.scalar.incomplete_shape.gammainc_shape_derivative`)."""

    _vectorized = np.vectorize(gammainc_shape_derivative, otypes=[np.float64])

    def elementwise(self, a, x):
        return in_dtype_of(sp.gammainc, (a, x), self._vectorized(a, x))

    def L_op(self, inputs, outputs, output_grads):
        (a, x), (gz,) = inputs, output_grads
        # d/dx dP/da = d/da [x^(a-1) e^-x / Gamma(a)] = the density times (ln x - psi(a))
        slope = _gamma_density(a, x) * (log(x) - psi(a))
        return [_second_shape_grad(self, 0, a), _grad_term(x, gz * slope)]


class BetaIncGrad(ScalarOp):
    """dI_x(a, b)/da (``wrt_a``) or dI_x(a, b)/db, the derivatives of ``betainc`` in its shapes
    (no closed form: :func:`arignote.scalar.incomplete_shape.betainc_shape_derivative`)."""

    nin = 3
    __props__ = ("wrt_a",)
    _vectorized = np.vectorize(betainc_shape_derivative, otypes=[np.float64])

    def __init__(self, wrt_a: bool = True, name: str | None = None) -> None:
        super().__init__(name=name)
        self.wrt_a = bool(wrt_a)

    def elementwise(self, a, b, x):
        return in_dtype_of(sp.betainc, (a, b, x), self._vectorized(a, b, x, self.wrt_a))

    def L_op(self, inputs, outputs, output_grads):
        (a, b, x), (gz,) = inputs, output_grads
        # d/dx dI/da = density (ln x - psi(a) + psi(a + b)); in b: ln(1 - x) - psi(b) + psi(a + b)
        own = log(x) - psi(a) if self.wrt_a else log1p(neg(x)) - psi(b)
        slope = exp(beta_log_density(a, b, x)) * (own + psi(a + b))
        return [
            _second_shape_grad(self, 0, a),
            _second_shape_grad(self, 1, b),
            _grad_term(x, gz * slope),
        ]

    def __str__(self) -> str:
        return f"betainc_grad{{wrt={'a' if self.wrt_a else 'b'}}}"


def in_dtype_of(ufunc, arrays, result):
    """``result`` (computed in float64) in the dtype ``ufunc`` gives for ``arrays``."""
    dtypes = tuple(np.asarray(v).dtype for v in arrays)
    return np.asarray(result).astype(ufunc.resolve_dtypes((*dtypes, None))[-1], copy=False)


def _second_shape_grad(op, position, var):
    reason = "The second derivative with respect to a shape parameter is not implemented."
    return grad_not_implemented(op, position, var, reason)


def gammainc_grad(k, x):
    """dP(k, x)/dk, the derivative of ``gammainc`` in its shape (as ``pytensor.scalar.math``)."""
    return _gammainc_grad(k, x)


def gammaincc_grad(k, x, skip_loops=False):
    """dQ(k, x)/dk = -dP(k, x)/dk. ``skip_loops`` is accepted for PyTensor's signature: the
    derivative here has no loops to skip."""
    return neg(_gammainc_grad(k, x))


def betainc_grad(p, q, x, wrtp: bool):
    """dI_x(p, q)/dp (``wrtp``) or dI_x(p, q)/dq (as ``pytensor.scalar.math``)."""
    return (_betainc_grad_p if wrtp else _betainc_grad_q)(p, q, x)


# -- differences of digamma values -------------------------------------------------------------

#: B_2k / 2k for k = 1..7: psi(x) ~ log x - 1/(2x) - sum_k B_2k / (2k x^2k) (DLMF 5.11.2);
#: from x = 10 on, the first omitted term is below 1e-15 relative.
PSI_ASYMPTOTIC = (1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760, 1 / 12)
#: psi(x + n) = psi(x) + sum_(j<n) 1/(x + j) (DLMF 5.5.2) moves x to x + n >= 10.
DIGAMMA_SHIFT = 10


def digamma_difference(x, h):
    """psi(x + h) - psi(x), accurate also where h is small beside x.

    The gradients of the beta family take this difference; subtracting the two digamma values
    loses all digits where h << x (psi(1e4 + 1e-10) - psi(1e4) came out 11% off in float64,
    0 in float32). For x > 0 and x + h > 0 it is computed as a sum of terms without
    cancellation: the shift terms h / ((x + j)(x + h + j)), then at X = x + 10 the
    difference of the asymptotic series, log1p(h/X) + h / (2X(X + h)) -
    sum_k B_2k/2k X^-2k expm1(-2k log1p(h/X)). Elsewhere (poles, negative arguments) it is the
    plain difference.
    """
    inside = and_(gt(x, 0), gt(x + h, 0))
    x_, h_ = switch(inside, x, 1), switch(inside, h, 0)  # harmless values where unused
    total = 0
    for j in range(DIGAMMA_SHIFT):
        total = total + h_ / ((x_ + j) * (x_ + h_ + j))
    big = x_ + DIGAMMA_SHIFT
    growth = log1p(h_ / big)  # log((X + h) / X)
    total = total + growth + h_ / (2 * big * (big + h_))
    inverse_square = 1 / (big * big)
    power = 1
    for k, c in enumerate(PSI_ASYMPTOTIC, start=1):
        power = power * inverse_square
        total = total - c * power * expm1(-2 * k * growth)
    return switch(inside, total, psi(x + h) - psi(x))


# -- beta family ---------------------------------------------------------------------------------


class Beta(BinaryScalarOp):
    """B(a, b) = Gamma(a) Gamma(b) / Gamma(a + b)."""

    nfunc = sp.beta
    commutative = True

    def L_op(self, inputs, outputs, output_grads):
        (a, b), (z,), (gz,) = inputs, outputs, output_grads
        # dB/da = B(a, b) (psi(a) - psi(a + b))
        da, db = neg(digamma_difference(a, b)), neg(digamma_difference(b, a))
        return [_grad_term(a, gz * z * da), _grad_term(b, gz * z * db)]


class BetaLn(BinaryScalarOp):
    """``log |B(a, b)|``."""

    nfunc = sp.betaln
    commutative = True

    def L_op(self, inputs, outputs, output_grads):
        (a, b), (gz,) = inputs, output_grads
        da, db = neg(digamma_difference(a, b)), neg(digamma_difference(b, a))  # psi(a) - psi(a+b)
        return [_grad_term(a, gz * da), _grad_term(b, gz * db)]


class BetaInc(ScalarOp):
    """The regularized incomplete beta function I_x(a, b)."""

    nin = 3
    nfunc = sp.betainc

    def L_op(self, inputs, outputs, output_grads):
        (a, b, x), (gz,) = inputs, output_grads
        # dI_x(a, b)/dx = x^(a-1) (1-x)^(b-1) / B(a, b) (DLMF 8.17.1); xlogy keeps 0 log 0 = 0
        density = exp(beta_log_density(a, b, x))
        return [
            _grad_term(a, gz * betainc_grad(a, b, x, True)),  # integer or not: real shapes
            _grad_term(b, gz * betainc_grad(a, b, x, False)),
            _grad_term(x, gz * density),
        ]


class Poch(BinaryScalarOp):
    """The Pochhammer symbol (rising factorial) (z)_m = Gamma(z + m) / Gamma(z)."""

    nfunc = sp.poch

    def L_op(self, inputs, outputs, output_grads):
        (z, m), (y,), (gy,) = inputs, outputs, output_grads
        rise = digamma_difference(z, m)  # psi(z + m) - psi(z)
        return [_grad_term(z, gy * y * rise), _grad_term(m, gy * y * psi(z + m))]


class Factorial(ScalarOp):
    """``scipy.special.factorial(n, exact)``: n! = Gamma(n + 1), and 0 for n < 0.

    With ``exact=True`` the inputs must be integers and the result is an integer.
    """

    nin = 1
    __props__ = ("exact",)

    def __init__(self, exact: bool = False, name: str | None = None) -> None:
        super().__init__(name=name)
        self.exact = bool(exact)

    def elementwise(self, n):
        return sp.factorial(n, exact=self.exact)

    def L_op(self, inputs, outputs, output_grads):
        (n,), (y,), (gy,) = inputs, outputs, output_grads
        if is_discrete(n) or is_discrete(y):
            return [zero_grad_for(n)]
        # d Gamma(n + 1) = Gamma(n + 1) psi(n + 1) where n >= 0; the value is 0 below 0
        return [switch(ge(n, 0), gy * y * psi(n + 1), 0)]

    def __str__(self) -> str:
        return "factorial{exact=True}" if self.exact else "factorial"


# -- Bessel functions ------------------------------------------------------------------------


class I0(FloatUnaryOp):
    """The modified Bessel function of the first kind of order 0."""

    nfunc = sp.i0

    def derivative(self, x, y):
        return i1(x)  # DLMF 10.29.3


class I1(FloatUnaryOp):
    nfunc = sp.i1

    def derivative(self, x, y):
        return (i0(x) + iv(2, x)) / 2  # I_v' = (I_{v-1} + I_{v+1}) / 2 (DLMF 10.29.1)


class Iv(BinaryScalarOp):
    """``iv(v, x)``: the modified Bessel function of the first kind of real order v."""

    nfunc = sp.iv

    def L_op(self, inputs, outputs, output_grads):
        (v, x), (gz,) = inputs, output_grads
        return [
            _bessel_order_grad(self, v),
            _grad_term(x, gz * (iv(v - 1, x) + iv(v + 1, x)) / 2),
        ]


class J0(FloatUnaryOp):
    """The Bessel function of the first kind of order 0."""

    nfunc = sp.j0

    def derivative(self, x, y):
        return neg(j1(x))  # DLMF 10.6.3


class J1(FloatUnaryOp):
    nfunc = sp.j1

    def derivative(self, x, y):
        return (j0(x) - jv(2, x)) / 2  # J_v' = (J_{v-1} - J_{v+1}) / 2 (DLMF 10.6.1)


class Jv(BinaryScalarOp):
    """``jv(v, x)``: the Bessel function of the first kind of real order v."""

    nfunc = sp.jv

    def L_op(self, inputs, outputs, output_grads):
        (v, x), (gz,) = inputs, output_grads
        return [
            _bessel_order_grad(self, v),
            _grad_term(x, gz * (jv(v - 1, x) - jv(v + 1, x)) / 2),
        ]


def _bessel_order_grad(op, v):
    # Bessel functions are defined for real orders: an integer v does not make this zero
    return grad_not_implemented(
        op, 0, v, "The derivative with respect to the order has no closed form."
    )


# -- logarithms of products and odds -----------------------------------------------------------


class XLogY(BinaryScalarOp):
    """x log(y), defined as 0 where x = 0 (``scipy.special.xlogy``)."""

    nfunc = sp.xlogy

    def L_op(self, inputs, outputs, output_grads):
        (x, y), (gz,) = inputs, output_grads
        return [_grad_term(x, gz * log(y)), _grad_term(y, gz * x / y)]


class XLog1pY(BinaryScalarOp):
    """x log(1 + y), defined as 0 where x = 0 (``scipy.special.xlog1py``)."""

    nfunc = sp.xlog1py

    def L_op(self, inputs, outputs, output_grads):
        (x, y), (gz,) = inputs, output_grads
        return [_grad_term(x, gz * log1p(y)), _grad_term(y, gz * x / (y + 1))]


class Logit(FloatUnaryOp):
    """log(p / (1 - p)), the inverse of the sigmoid (``scipy.special.logit``)."""

    nfunc = sp.logit

    def derivative(self, x, y):
        return 1 / (x * (1 - x))


erf = Erf(name="erf")
erfc = Erfc(name="erfc")
erfcx = Erfcx(name="erfcx")
erfinv = Erfinv(name="erfinv")
erfcinv = Erfcinv(name="erfcinv")
gamma = Gamma(name="gamma")
gammaln = GammaLn(name="gammaln")
psi = Psi(name="psi")
polygamma = Polygamma(name="polygamma")
gammainc = GammaInc(name="gammainc")
gammaincc = GammaIncC(name="gammaincc")
beta = Beta(name="beta")
betaln = BetaLn(name="betaln")
betainc = BetaInc(name="betainc")
_gammainc_grad = GammaIncGrad(name="gammainc_grad")
_betainc_grad_p = BetaIncGrad(wrt_a=True)
_betainc_grad_q = BetaIncGrad(wrt_a=False)
poch = Poch(name="poch")
factorial = Factorial(name="factorial")
i0 = I0(name="i0")
i1 = I1(name="i1")
iv = Iv(name="iv")
j0 = J0(name="j0")
j1 = J1(name="j1")
jv = Jv(name="jv")
xlogy = XLogY(name="xlogy")
xlog1py = XLog1pY(name="xlog1py")
logit = Logit(name="logit")
