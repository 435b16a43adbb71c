"""The inverses of the incomplete gamma and beta integrals in JAX mode against SciPy, over
parameters spanning six decades, targets down to 1e-30 and up to 1 - 1e-15, and the edge
values; and the Bessel functions that stay refused, with their reason."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sp

pytest.importorskip("jax", reason="the JAX backend needs jax (pip install arignote[jax])")

import arignote
import arignote.tensor as pt
from arignote.link.jax import UnsupportedOpError


def _targets(rng, n):
    """Probabilities: uniform, tiny, and within 1e-15 of 1."""
    return np.concatenate(
        [rng.uniform(0, 1, n), 10 ** rng.uniform(-30, 0, n), 1 - 10 ** rng.uniform(-15, 0, n)]
    )


def _jax(fn, *values):
    symbols = [pt.dvector(f"v{k}") for k in range(len(values))]
    return np.asarray(arignote.function(symbols, fn(*symbols), mode="JAX")(*values))


def _assert_close(got, expected):
    # the inverse is ill-conditioned where its slope is huge (tiny shape parameters): a
    # relative error of 1e-12 in the integral moves x by up to 1e-10 relative there
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-280, equal_nan=True)


@pytest.mark.parametrize("name", ["gammaincinv", "gammainccinv"])
def test_gamma_inverses_match_scipy(name):
    rng = np.random.default_rng(1)
    p = _targets(rng, 150)
    a = 10 ** rng.uniform(-2, 3, p.size)
    edges_a = np.array([0.0, -1.0, 1.0, 1.0, 1.0, 1.0, np.inf, np.inf, np.nan, 2.0])
    edges_p = np.array([0.5, 0.5, 0.0, 1.0, -0.1, 1.1, 0.0, 0.5, 0.5, np.nan])
    a, p = np.concatenate([a, edges_a]), np.concatenate([p, edges_p])
    with np.errstate(all="ignore"):
        _assert_close(_jax(getattr(pt, name), a, p), getattr(sp, name)(a, p))


def test_beta_inverse_matches_scipy():
    rng = np.random.default_rng(2)
    y = _targets(rng, 150)
    a, b = 10 ** rng.uniform(-1, 3, (2, y.size))
    edges = np.array(
        [
            [0.0, 1.0, 0.5],
            [1.0, -1.0, 0.5],
            [2.0, 3.0, 0.0],
            [2.0, 3.0, 1.0],
            [2.0, 3.0, 1.5],
            [np.inf, 1.0, 0.5],
            [2.0, np.inf, 0.5],
            [2.0, 3.0, np.nan],
        ]
    ).T
    a, b, y = (np.concatenate([v, e]) for v, e in zip((a, b, y), edges, strict=True))
    got = _jax(pt.betaincinv, a, b, y)
    # SciPy is itself inaccurate where the root is below about 1e-16 (it returns 2^-56 there,
    # e.g. a=1.23, b=0.134, y=3.3e-22 where the root is 2.04e-17): compare larger roots
    expected = sp.betaincinv(a, b, y)
    comparable = ~(expected < 1e-15)
    _assert_close(got[comparable], expected[comparable])
    # and check the small roots by the integral they must give back
    small = ~comparable & (got > 0)
    np.testing.assert_allclose(sp.betainc(a[small], b[small], got[small]), y[small], rtol=1e-9)


@pytest.mark.parametrize("name", ["kv", "kve", "kn", "ive"])
def test_bessel_functions_of_real_order_are_refused_with_the_reason(name):
    v, x = pt.dvector("v"), pt.dvector("x")
    with pytest.raises(UnsupportedOpError, match="orders 0 and 1 only"):
        arignote.function([v, x], getattr(pt, name)(v, x), mode="JAX")


def test_polygamma_limits_at_infinities_and_poles_match_scipy():
    # jax's polygamma gives NaN at +inf (SciPy: 0) and at the poles 0, -1, ..., -inf (SciPy:
    # an infinity of sign (-1)^(n+1)): found by the hostile-input sweep (issue 14)
    orders = np.repeat([1.0, 2.0, 3.0], 6)
    args = np.tile([np.inf, -np.inf, np.nan, 0.0, -3.0, 2.5], 3)
    with np.errstate(invalid="ignore"):
        expected = sp.polygamma(orders.astype(int), args)
    np.testing.assert_allclose(_jax(pt.polygamma, orders, args), expected, equal_nan=True)


@pytest.mark.parametrize("name", ["erf", "erfc", "erfcx", "gamma", "psi"])
def test_complex_special_functions_are_refused_with_the_listed_reason(name):
    # refused before conversion, as a listed op is, naming the reason; real inputs still run
    z, x = pt.zvector("z"), pt.dvector("x")
    node = getattr(pt, name)(z).owner
    from_jax = pytest.importorskip("arignote.link.jax.dispatch.basic")
    reason = from_jax.unsupported_reason(node.op, node)
    assert reason is not None and "jax.scipy.special" in reason
    assert from_jax.unsupported_reason(node.op) is None  # the op alone: real inputs run
    with pytest.raises(UnsupportedOpError, match="complex inputs|real arguments|SciPy's"):
        arignote.function([z], pt.exp(getattr(pt, name)(z)) * 2, mode="JAX")
    values = np.array([0.5, 1.5, 2.5])
    got = arignote.function([x], getattr(pt, name)(x), mode="JAX")(values)
    np.testing.assert_allclose(got, getattr(sp, name)(values), rtol=1e-12)


@pytest.mark.parametrize("order", [0, 1, 2, 3, 6])
def test_polygamma_at_negative_arguments_matches_mpmath(order):
    # jax's polygamma is wrong below x = -3 or so (-0.0099 for polygamma(1, -100.5), exact
    # 9.8597; trigamma is the gradient of psi); the reflection formula fixes it. SciPy itself
    # loses up to 1e-2 for even orders at large negative half-integers: mpmath is the reference
    mp = pytest.importorskip("mpmath")
    x = np.array([-0.5, -2.5, -3.7, -10.5, -30.25, -100.5, -1000.75, -1e-8, -0.01, 1.5, 40.0])
    with mp.workdps(40):
        expected = [float(mp.polygamma(order, mp.mpf(float(v)))) for v in x]
    got = _jax(pt.polygamma, np.full(x.shape, float(order)), x)
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_erfinv_near_one_matches_mpmath():
    # jax's erfinv loses up to 1.6e-11 relative near |x| = 1 (4e-13 at 1 - 1e-6): a Newton
    # step on erfc(y) = 1 - |x| restores it
    mp = pytest.importorskip("mpmath")
    x = np.array([0.1, 0.5, 0.9, 0.999999, 1 - 1e-8, -(1 - 1e-8), 1 - 1e-12, 1e-300, -0.3])
    with mp.workdps(50):  # erf(y) = 1 - 1e-12 leaves 38 digits of y
        expected = [float(mp.erfinv(mp.mpf(v))) for v in x]
    got = _jax(pt.erfinv, x)
    np.testing.assert_allclose(got, expected, rtol=2e-15)
    edges = _jax(pt.erfinv, np.array([0.0, -0.0, 1.0, -1.0, np.nan, 2.0]))
    np.testing.assert_array_equal(edges, sp.erfinv(np.array([0.0, -0.0, 1.0, -1.0, np.nan, 2.0])))
    assert np.signbit(edges[1])
