"""Scalar special functions: derivatives at points against closed forms."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.special as sp

import arignote
import arignote.scalar as ps
import arignote.tensor as pt
from arignote.gradient import grad
from arignote.graph.grad_types import NullTypeGradError


@pytest.mark.parametrize(
    ("op", "point", "derivative"),
    [
        (ps.erfcx, 0.7, 2 * 0.7 * sp.erfcx(0.7) - 2 / math.sqrt(math.pi)),
        (ps.erfinv, 0.3, math.sqrt(math.pi) / 2 * math.exp(sp.erfinv(0.3) ** 2)),
        (ps.erfcinv, 0.3, -math.sqrt(math.pi) / 2 * math.exp(sp.erfcinv(0.3) ** 2)),
        (ps.gamma, 2.5, sp.gamma(2.5) * sp.psi(2.5)),
        (ps.psi, 2.5, sp.polygamma(1, 2.5)),
        (ps.i1, 1.2, (sp.i0(1.2) + sp.iv(2, 1.2)) / 2),
        (ps.j1, 1.2, (sp.j0(1.2) - sp.jv(2, 1.2)) / 2),
        (ps.logit, 0.2, 1 / 0.16),
    ],
)
def test_unary_derivatives(op, point, derivative):
    x = ps.float64("x")
    got = arignote.function([x], grad(op(x), x))(point)
    assert got == pytest.approx(derivative, rel=1e-12)


def test_incomplete_integral_densities():
    a, x = ps.float64("a"), ps.float64("x")
    lower = arignote.function([a, x], grad(ps.gammainc(a, x), x))(2.5, 1.3)
    upper = arignote.function([a, x], grad(ps.gammaincc(a, x), x))(2.5, 1.3)
    density = 1.3**1.5 * math.exp(-1.3) / math.gamma(2.5)
    assert lower == pytest.approx(density, rel=1e-12)
    assert upper == pytest.approx(-density, rel=1e-12)
    beta = arignote.function([x], grad(ps.betainc(2.0, 3.0, x), x))(0.25)
    assert beta == pytest.approx(0.25 * 0.75**2 / sp.beta(2.0, 3.0), rel=1e-12)


def test_betainc_density_at_the_ends_of_the_interval():
    x = ps.float64("x")
    fn = arignote.function([x], grad(ps.betainc(1.0, 1.0, x), x))
    assert fn(0.0) == pytest.approx(1.0)  # uniform density: 0 log 0 counted as 0
    assert fn(1.0) == pytest.approx(1.0)


@pytest.mark.parametrize("op", [ps.iv, ps.jv])
def test_parameter_gradients_not_implemented(op):
    a, x = ps.float64("a"), ps.float64("x")
    with pytest.raises(NullTypeGradError, match="not implemented"):
        grad(op(a, x), a)


def test_polygamma_order_gradient_undefined():
    n, x = ps.float64("n"), ps.float64("x")
    with pytest.raises(NullTypeGradError, match="undefined"):
        grad(ps.polygamma(n, x), n)
    assert arignote.function([x], grad(ps.polygamma(2, x), x))(1.5) == pytest.approx(
        sp.polygamma(3, 1.5)
    )


def test_integer_parameters_are_differentiated_like_real_ones():
    """An integer input of a float-valued function has the derivative a float one would have
    (the Op contract's mixed-dot example): the Bessel order has none written."""
    v, x = ps.int64("v"), ps.float64("x")
    with pytest.raises(NullTypeGradError, match="order"):
        grad(ps.iv(v, x), v)
    n, y = ps.int64("n"), ps.float64("y")
    gn = grad(ps.xlogy(n, y), n)  # d/dn n log(y) = log(y)
    assert gn.type.dtype == "float64"
    assert arignote.function([n, y], gn, on_unused_input="ignore")(3, 0.5) == pytest.approx(
        np.log(0.5)
    )


def _exact_erfcx_slope(mp, x):
    # d/dx e^(x^2) erfc(x) = 2 x erfcx(x) - 2 / sqrt(pi): the two terms agree to about 2 x^2
    # parts in one, so 250 digits leave 40 correct ones at x = 1e100
    with mp.workdps(250):
        x = mp.mpf(float(x))
        return float(2 * x * mp.exp(x * x) * mp.erfc(x) - 2 / mp.sqrt(mp.pi))


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE"])
@pytest.mark.parametrize(
    ("dtype", "rtol"),
    # below the switch the product rule loses up to 2 x^2 eps: 4.4e-14 at x = 10 in float64,
    # 4e-6 at x = 5 in float32
    [("float64", 5e-14), ("float32", 1e-5)],
)
def test_erfcx_derivative_is_accurate_for_large_x(dtype, rtol, mode):
    """The product rule cancels for large x (1.6e-6 relative error at x = 1e5 in float64, 0
    from 1e8; 2e3 relative error at 1e5 in float32): there the asymptotic series is used."""
    mp = pytest.importorskip("mpmath")
    points = np.array([-3.0, 0.5, 4.99, 5.0, 9.99, 10.0, 700.0, 1e5, 1e10, 1e20], dtype)
    if dtype == "float64":
        points = np.append(points, [1e50, 1e100])
    x = pt.vector("x", dtype=dtype)
    slope = arignote.function([x], grad(pt.erfcx(x).sum(), x), mode=mode)(points)
    assert slope.dtype == dtype
    expected = [_exact_erfcx_slope(mp, p) for p in points]
    np.testing.assert_allclose(slope, np.array(expected, dtype), rtol=rtol)


# (a, b) where one shape parameter is tiny beside the other: psi(b) - psi(a + b) cancelled
# (11% relative error at (1e-10, 1e4) in float64, a zero gradient in float32)
UNEVEN_SHAPES = [(1e-10, 0.5), (1e-10, 1e4), (0.01, 100.0), (2.5, 1e-10), (3.0, 7.0), (1e5, 0.5)]


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE"])
@pytest.mark.parametrize(("dtype", "rtol"), [("float64", 1e-13), ("float32", 2e-5)])
def test_betaln_and_poch_gradients_where_the_shapes_differ_in_scale(dtype, rtol, mode):
    mp = pytest.importorskip("mpmath")
    a, b = pt.vector("a", dtype=dtype), pt.vector("b", dtype=dtype)
    outputs = grad(pt.betaln(a, b).sum(), [a, b]) + [grad(pt.poch(a, b).sum(), a)]
    av, bv = (np.array(v, dtype) for v in zip(*UNEVEN_SHAPES, strict=True))
    got = arignote.function([a, b], outputs, mode=mode)(av, bv)
    with mp.workdps(50):
        pairs = [(mp.mpf(float(p)), mp.mpf(float(q))) for p, q in zip(av, bv, strict=True)]
        expected = [
            [float(mp.digamma(p) - mp.digamma(p + q)) for p, q in pairs],
            [float(mp.digamma(q) - mp.digamma(p + q)) for p, q in pairs],
            [float(mp.rf(p, q) * (mp.digamma(p + q) - mp.digamma(p))) for p, q in pairs],
        ]
    for g, e in zip(got, expected, strict=True):
        assert g.dtype == dtype
        with np.errstate(over="ignore"):  # poch(1e-10, 1e4) overflows, to inf on both sides
            np.testing.assert_allclose(g, np.array(e, dtype), rtol=rtol)


# (a, x) and (a, b, x) around the bulk of large-shape distributions, where the plain log
# density subtracted terms of size a log a (2.4e-7 relative error at a = 1e8 in float64,
# 7e-2 at a = 1e5 in float32); with a small shape, SciPy's betaln lost 1.5e-10 at (1e6, 0.5)
GAMMA_POINTS = [
    (0.5, 0.3),
    (10.0, 1e-5),
    (100.0, 71.0),
    (1e4, 9000.0),
    (1e5, 1e5 + 300),
    (1e8, 1e8 - 3e4),
]
BETA_POINTS = [
    (2.5, 3.0, 0.3),
    (30.0, 40.0, 0.4),
    (1e4, 1e3, 0.9),
    (1e6, 10.0, 1 - 1e-5),
    (1e6, 0.5, 1 - 1e-6),
    (0.5, 1e4, 1e-4),
]


def _exact_densities(mp, gamma_points, beta_points):
    with mp.workdps(60):
        gamma = [
            mp.exp((a - 1) * mp.log(x) - x - mp.loggamma(a))
            for a, x in ((mp.mpf(float(a)), mp.mpf(float(x))) for a, x in gamma_points)
        ]
        beta = [
            mp.exp((a - 1) * mp.log(x) + (b - 1) * mp.log1p(-x) - mp.log(mp.beta(a, b)))
            for a, b, x in ([mp.mpf(float(v)) for v in p] for p in beta_points)
        ]
        return [float(v) for v in gamma], [float(v) for v in beta]


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE"])
@pytest.mark.parametrize(("dtype", "rtol"), [("float64", 1e-12), ("float32", 3e-5)])
def test_incomplete_integral_slopes_are_accurate_for_large_shapes(dtype, rtol, mode):
    mp = pytest.importorskip("mpmath")
    a, b, x = (pt.vector(n, dtype=dtype) for n in "abx")
    ga, gx = (np.array(c, dtype) for c in zip(*GAMMA_POINTS, strict=True))
    ba, bb, bx = (np.array(c, dtype) for c in zip(*BETA_POINTS, strict=True))
    gamma_slope = grad(pt.gammainc(a, x).sum(), x)
    beta_slope = grad(pt.betainc(a, b, x).sum(), x)
    got_gamma = arignote.function([a, x], gamma_slope, mode=mode)(ga, gx)
    got_beta = arignote.function([a, b, x], beta_slope, mode=mode)(ba, bb, bx)
    expected = _exact_densities(mp, zip(ga, gx, strict=True), zip(ba, bb, bx, strict=True))
    np.testing.assert_allclose(got_gamma, np.array(expected[0], dtype), rtol=rtol)
    np.testing.assert_allclose(got_beta, np.array(expected[1], dtype), rtol=rtol)
    # the inverses' slopes are the reciprocals at the inverse's output
    p = pt.vector("p", dtype=dtype)
    inverse = arignote.function([a, p], grad(pt.gammaincinv(a, p).sum(), p), mode=mode)
    points = np.array([1e4, 1e6], dtype)
    x_at = sp.gammaincinv(points, 0.3).astype(dtype)
    expected = _exact_densities(mp, zip(points, x_at, strict=True), [])[0]
    np.testing.assert_allclose(
        inverse(points, np.full(2, 0.3, dtype)), 1 / np.array(expected), rtol=rtol * 10
    )
