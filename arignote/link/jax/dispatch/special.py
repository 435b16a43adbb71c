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


def _broadcast(node: Apply, args: tuple) -> list:
    (dtype,) = output_dtypes(node)
    return list(jnp.broadcast_arrays(*(jnp.asarray(v, dtype) for v in args)))


@jax_funcify.register(GammaIncInv)
def jax_funcify_GammaIncInv(op: GammaIncInv, node: Apply, **kwargs: Any) -> Callable:
    def gammaincinv(a, p):
        return _gamma_inverse(*_broadcast(node, (a, p)), lower_given=True)

    return gammaincinv


@jax_funcify.register(GammaIncCInv)
def jax_funcify_GammaIncCInv(op: GammaIncCInv, node: Apply, **kwargs: Any) -> Callable:
    def gammainccinv(a, q):
        return _gamma_inverse(*_broadcast(node, (a, q)), lower_given=False)

    return gammainccinv


@jax_funcify.register(BetaIncInv)
def jax_funcify_BetaIncInv(op: BetaIncInv, node: Apply, **kwargs: Any) -> Callable:
    def betaincinv(a, b, y):
        return _beta_inverse(*_broadcast(node, (a, b, y)))

    return betaincinv
