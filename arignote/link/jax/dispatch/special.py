"""JAX versions of the inverses of the incomplete gamma and beta integrals
(``scalar/special_more.py``: ``gammaincinv``, ``gammainccinv``, ``betaincinv``), and why the
Bessel functions of that module have none.

``jax.scipy.special`` has the integrals (``gammainc``, ``gammaincc``, ``betainc``, accurate to
about 1e-12 relative in float64) but not their inverses. The inverse is found by bisection on
the logarithm of the unknown over the whole positive float64 range (the smallest subnormal to
the largest float): 64 halvings of that interval leave it below 1e-16 wide, so the result is as
accurate as the integral it inverts allows, for every valid input, without a starting guess
that could fail. Near 1 the equation is solved for the complements (``1 - p``, computed
exactly, against ``gammaincc`` or the mirrored ``betainc``), so that no precision is lost where
the integral is close to 1. Edge values and NaNs follow SciPy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import jax.numpy as jnp
import jax.scipy.special as jsp
from arignote.graph.basic import Apply
from arignote.link.jax.dispatch.basic import jax_funcify, output_dtypes, register_unsupported
from arignote.scalar.special import Beta
from arignote.scalar.special_more import BetaIncInv, GammaIncCInv, GammaIncInv
from jax import lax

_NO_BESSEL = (
    "jax.scipy.special has modified Bessel functions of orders 0 and 1 only (i0e, i1e); one of "
    "real order matching SciPy (AMOS) for every order and argument needs Temme's series, "
    "Steed's continued fractions and the large-argument and uniform asymptotic expansions, "
    "which are not written here"
)
for _name in ("Kv", "Kve", "Kn", "Ive"):
    register_unsupported(f"arignote.scalar.special_more.{_name}", _NO_BESSEL)
# found by the path fuzzing (tests/reliability/test_fuzz_regressions.py)
register_unsupported(
    "arignote.scalar.special_more.Hyp2F1",
    "jax.scipy.special.hyp2f1 sums the series without the transformations SciPy applies "
    "outside the unit disc: wrong for z <= -1 (6e39 instead of 0.739 for 2F1(0.5, 1.5; 2.5; "
    "-1.5)) and off by 5e-4 relative near z = 1 (z = 0.99)",
)

# the logarithms of the smallest positive (subnormal) and of the largest float64
_LOG_SMALLEST = float(np.log(np.nextafter(0.0, 1.0)))
_LOG_LARGEST = float(np.log(np.finfo(np.float64).max))
_LOG_HALF = float(np.log(0.5))
_HALVINGS = 64


def _bisect_log(increasing: Callable, shape: tuple, dtype: Any, upper: float) -> Any:
    """``exp(t)`` for the root ``t`` in ``[log(smallest), upper]`` of the increasing function
    ``increasing(exp(t))`` (elementwise, ``_HALVINGS`` halvings)."""

    def halve(_, bounds):
        lo, hi = bounds
        mid = (lo + hi) / 2
        above = increasing(jnp.exp(mid)) > 0
        return jnp.where(above, lo, mid), jnp.where(above, mid, hi)

    start = (jnp.full(shape, _LOG_SMALLEST, dtype), jnp.full(shape, upper, dtype))
    lo, hi = lax.fori_loop(0, _HALVINGS, halve, start)
    return jnp.exp((lo + hi) / 2)


def _gamma_inverse(a: Any, p: Any, lower_given: bool) -> Any:
    """The ``x`` with ``P(a, x) = p`` (``lower_given``) or ``Q(a, x) = p``."""
    q = 1 - p  # exact where it is used (p >= 1/2)

    def increasing(x):
        # P(a, x) - P_target, written with whichever of P and Q is far from 1
        if lower_given:
            return jnp.where(p < 0.5, jsp.gammainc(a, x) - p, q - jsp.gammaincc(a, x))
        return jnp.where(p < 0.5, p - jsp.gammaincc(a, x), jsp.gammainc(a, x) - q)

    x = _bisect_log(increasing, p.shape, p.dtype, _LOG_LARGEST)
    at_zero, at_one = (0.0, jnp.inf) if lower_given else (jnp.inf, 0.0)
    invalid = jnp.isnan(a) | (a < 0) | jnp.isnan(p) | (p < 0) | (p > 1)
    degenerate = (a == 0) | jnp.isinf(a)  # SciPy: only the end points are defined there
    x = jnp.where(degenerate, jnp.nan, x)
    x = jnp.where(p == 0, at_zero, jnp.where(p == 1, at_one, x))
    return jnp.where(invalid, jnp.nan, x)


def _beta_inverse(a: Any, b: Any, y: Any) -> Any:
    """The ``x`` with ``I_x(a, b) = y``: bisection on ``log x`` when the root is at most 1/2,
    on ``log(1 - x)`` (the mirrored integral, ``I_x(a, b) = 1 - I_{1-x}(b, a)``) otherwise."""
    low_root = jsp.betainc(a, b, 0.5) >= y
    small_y = y < 0.5

    def below_half(v):  # I_v(a, b) - y; its complement near 1 while 1 - v stays accurate
        use_complement = ~small_y & (v > 1e-3)
        return jnp.where(
            use_complement, (1 - y) - jsp.betainc(b, a, 1 - v), jsp.betainc(a, b, v) - y
        )

    def above_half(w):  # increasing in w = 1 - x
        return jnp.where(small_y, y - jsp.betainc(a, b, 1 - w), jsp.betainc(b, a, w) - (1 - y))

    def increasing(v):
        return jnp.where(low_root, below_half(v), above_half(v))

    v = _bisect_log(increasing, y.shape, y.dtype, _LOG_HALF)
    x = jnp.where(low_root, v, 1 - v)
    x = jnp.where(jnp.isinf(a), 1.0, jnp.where(jnp.isinf(b), jnp.nan, x))
    x = jnp.where(y == 0, 0.0, jnp.where(y == 1, 1.0, x))
    invalid = ~(a > 0) | ~(b > 0) | jnp.isnan(y) | (y < 0) | (y > 1)
    return jnp.where(invalid, jnp.nan, x)


def _broadcast(node: Apply | None, args: tuple) -> list:
    """The arguments broadcast together, in the node's output dtype (without a node: their
    common float dtype)."""
    dtype = output_dtypes(node)[0] if node is not None else jnp.result_type(*args, 1.0)
    return list(jnp.broadcast_arrays(*(jnp.asarray(v, dtype) for v in args)))


@jax_funcify.register(GammaIncInv)
def jax_funcify_GammaIncInv(op: GammaIncInv, node: Apply | None = None, **kwargs: Any) -> Callable:
    def gammaincinv(a, p):
        return _gamma_inverse(*_broadcast(node, (a, p)), lower_given=True)

    return gammaincinv


@jax_funcify.register(GammaIncCInv)
def jax_funcify_GammaIncCInv(
    op: GammaIncCInv, node: Apply | None = None, **kwargs: Any
) -> Callable:
    def gammainccinv(a, q):
        return _gamma_inverse(*_broadcast(node, (a, q)), lower_given=False)

    return gammainccinv


@jax_funcify.register(BetaIncInv)
def jax_funcify_BetaIncInv(op: BetaIncInv, node: Apply | None = None, **kwargs: Any) -> Callable:
    def betaincinv(a, b, y):
        return _beta_inverse(*_broadcast(node, (a, b, y)))

    return betaincinv


# -- the beta function -------------------------------------------------------------------------


def _beta_by_logs(a: Any, b: Any) -> Any:
    """``B(a, b)`` as ``sign * exp(lgamma(a) + lgamma(b) - lgamma(a + b))`` for a and b off
    the poles of Gamma; 0 where ``a + b`` alone is a pole (``Gamma(a + b)`` is infinite)."""
    total = a + b
    sign = jsp.gammasgn(a) * jsp.gammasgn(b) * jsp.gammasgn(total)
    value = sign * jnp.exp(jsp.gammaln(a) + jsp.gammaln(b) - jsp.gammaln(total))
    return jnp.where((total <= 0) & (total == jnp.floor(total)), 0.0, value)


def _beta_at_pole(other: Any, pole: Any) -> Any:
    """SciPy's ``B(pole, other)`` for a non-positive integer (or -inf) ``pole``, as Cephes'
    ``beta_negint``: ``(-1)^other B(1 - pole - other, other)`` for a positive integer
    ``other`` with ``1 - pole - other > 0``; ``(-1)^other inf`` for an integer ``other <= 0``;
    else inf."""
    integer = other == jnp.floor(other)
    signed = jnp.where(integer & (jnp.mod(other, 2) == 1), -1.0, 1.0)
    rest = 1 - pole - other
    finite_pole = jnp.isfinite(pole)
    finite = integer & (other > 0) & (rest > 0) & finite_pole
    value = _beta_by_logs(jnp.where(finite, rest, 1.0), jnp.where(finite, other, 1.0))
    infinite = jnp.where(integer & (other <= 0) & finite_pole, signed * jnp.inf, jnp.inf)
    return jnp.where(finite, signed * value, infinite)


def _beta_at_infinity(other: Any) -> Any:
    """SciPy's ``B(inf, other)``: 0 for a finite ``other > 0``, NaN for ``other = inf``,
    ``sign(Gamma(other)) inf`` for a negative ``other`` (its poles are handled before)."""
    positive = other > 0
    infinite = jsp.gammasgn(other) * jnp.inf
    return jnp.where(positive & jnp.isfinite(other), 0.0, jnp.where(positive, jnp.nan, infinite))


def _beta(a: Any, b: Any) -> Any:
    """SciPy's ``beta`` (Cephes) on every real pair, in Cephes' order of cases:
    ``jax.scipy.special.beta`` is NaN for negative arguments (found by the path fuzzing)."""
    dtype = jnp.result_type(a, b, 1.0)
    a, b = jnp.asarray(a, dtype), jnp.asarray(b, dtype)
    result = _beta_by_logs(a, b)
    result = jnp.where(b == jnp.inf, _beta_at_infinity(a), result)
    result = jnp.where(a == jnp.inf, _beta_at_infinity(b), result)
    result = jnp.where(jnp.isnan(a) | jnp.isnan(b), jnp.nan, result)
    # the poles come first in Cephes: a non-positive integer (or -inf) b, then a
    result = jnp.where((b <= 0) & (b == jnp.floor(b)), _beta_at_pole(a, b), result)
    return jnp.where((a <= 0) & (a == jnp.floor(a)), _beta_at_pole(b, a), result)


@jax_funcify.register(Beta)
def jax_funcify_Beta(op: Beta, node: Apply | None = None, **kwargs: Any) -> Callable:
    return _beta
