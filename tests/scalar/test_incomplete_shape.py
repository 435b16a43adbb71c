"""Shape derivatives of the incomplete gamma and beta integrals (``GammaIncGrad``,
``BetaIncGrad``) against mpmath, on every path that evaluates them."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.scalar as ps
import arignote.tensor as pt
from arignote.gradient import grad, verify_grad
from arignote.graph.grad_types import NullTypeGradError
from arignote.scalar.incomplete_shape import digamma

mp = pytest.importorskip("mpmath")

# (a, x): both expansions (x <= a + 1: the series; beyond: the continued fraction), shapes from
# 1e-3 to 1e4, and x from far below to far above the mean
GAMMA_POINTS = [
    (0.5, 1.0),
    (10.0, 3.0),
    (3.0, 10.0),
    (1000.0, 1000.0),
    (50.0, 51.0),
    (1e-3, 0.5),
    (0.2, 30.0),
    (2.5, 3.4),
    (7.0, 0.01),
    (1e4, 1.02e4),
    (150.0, 120.0),
    (4.0, 4.9999),
]
# (a, b, x): either side of the mean (the direct and the mirrored fraction), small and large
BETA_POINTS = [
    (1.5, 11.0, 0.001),
    (1.5, 11.0, 0.5),
    (1000.0, 1000.0, 0.5),
    (1000.0, 1000.0, 0.55),
    (2.0, 3.0, 0.9),
    (0.3, 0.7, 0.2),
    (0.05, 40.0, 1e-4),
    (25.0, 2.0, 0.97),
    (5.0, 5.0, 0.5),
    (0.8, 0.02, 0.999),
    (300.0, 4.0, 0.985),
    (3.5, 1.5, 0.05),
]
MODES = ["FAST_RUN", "FAST_COMPILE", "NUMBA", "JAX"]


def _exact_gamma(a, x):
    # the smaller tail is differentiated: 1 - (a tiny number) has no digits left for it
    with mp.workdps(50):
        a, x = mp.mpf(a), mp.mpf(x)
        if x < a:
            return float(mp.diff(lambda t: mp.gammainc(t, 0, x, regularized=True), a))
        return float(-mp.diff(lambda t: mp.gammainc(t, x, mp.inf, regularized=True), a))


def _exact_beta(a, b, x, position):
    with mp.workdps(50):
        args = [mp.mpf(a), mp.mpf(b)]
        x = mp.mpf(x)

        def integral(t):
            shapes = [t if k == position else v for k, v in enumerate(args)]
            if x < args[0] / (args[0] + args[1]):
                return mp.betainc(*shapes, 0, x, regularized=True)
            return -mp.betainc(*shapes, x, 1, regularized=True)

        return float(mp.diff(integral, args[position]))


def _mode(mode):
    if mode == "JAX":
        pytest.importorskip("jax")
    return mode


@pytest.mark.parametrize("mode", MODES)
def test_gammainc_shape_derivatives_match_mpmath(mode):
    a, x = pt.dvectors("a", "x")
    lower = grad(pt.gammainc(a, x).sum(), a)
    upper = grad(pt.gammaincc(a, x).sum(), a)
    fn = arignote.function([a, x], [lower, upper], mode=_mode(mode))
    shapes, points = (np.array(c) for c in zip(*GAMMA_POINTS, strict=True))
    expected = np.array([_exact_gamma(*p) for p in GAMMA_POINTS])
    got_lower, got_upper = fn(shapes, points)
    np.testing.assert_allclose(got_lower, expected, rtol=1e-10)
    np.testing.assert_allclose(got_upper, -expected, rtol=1e-10)


@pytest.mark.parametrize("mode", MODES)
def test_betainc_shape_derivatives_match_mpmath(mode):
    a, b, x = pt.dvectors("a", "b", "x")
    fn = arignote.function([a, b, x], grad(pt.betainc(a, b, x).sum(), [a, b]), mode=_mode(mode))
    columns = [np.array(c) for c in zip(*BETA_POINTS, strict=True)]
    got_a, got_b = fn(*columns)
    np.testing.assert_allclose(got_a, [_exact_beta(*p, 0) for p in BETA_POINTS], rtol=1e-9)
    np.testing.assert_allclose(got_b, [_exact_beta(*p, 1) for p in BETA_POINTS], rtol=1e-9)


@pytest.mark.parametrize("mode", MODES)
def test_edges_of_the_domains(mode):
    a, b, x = pt.dvectors("a", "b", "x")
    gamma = arignote.function([a, x], ps_grad_gamma(a, x), mode=_mode(mode))
    got = gamma([2.0, 2.0, -1.0, 0.0, np.nan], [0.0, np.inf, 1.0, 1.0, 1.0])
    np.testing.assert_array_equal(got, [0.0, 0.0, np.nan, np.nan, np.nan])
    beta = arignote.function([a, b, x], grad(pt.betainc(a, b, x).sum(), a), mode=_mode(mode))
    got = beta([2.0, 2.0, -1.0, 2.0, 2.0], [3.0, 3.0, 3.0, 3.0, 0.0], [0.0, 1.0, 0.5, 1.5, 0.5])
    np.testing.assert_array_equal(got, [0.0, 0.0, np.nan, np.nan, np.nan])


def ps_grad_gamma(a, x):
    return grad(pt.gammainc(a, x).sum(), a)


def test_scalar_functions_with_pytensor_names():
    p, q, x = ps.float64("p"), ps.float64("q"), ps.float64("x")
    outputs = [
        ps.gammainc_grad(p, x),
        ps.gammaincc_grad(p, x),
        ps.betainc_grad(p, q, x, True),
        ps.betainc_grad(p, q, x, False),
    ]
    got = arignote.function([p, q, x], outputs)(1.5, 11.0, 0.5)
    exact_gamma = _exact_gamma(1.5, 0.5)
    np.testing.assert_allclose(got[:2], [exact_gamma, -exact_gamma], rtol=1e-12)
    exact_beta = [_exact_beta(1.5, 11.0, 0.5, k) for k in (0, 1)]
    np.testing.assert_allclose(got[2:], exact_beta, rtol=1e-10)


def test_the_derivatives_are_differentiable_in_x():
    rng = np.random.default_rng(7)
    shapes, points = rng.uniform(0.5, 4.0, (2, 3)), rng.uniform(0.2, 5.0, (2, 3))
    verify_grad(lambda x: pt.Elemwise(ps.GammaIncGrad())(shapes, x), [points], rng=rng)
    y = rng.uniform(0.1, 0.9, (2, 3))
    for wrt_a in (True, False):
        op = pt.Elemwise(ps.BetaIncGrad(wrt_a))
        verify_grad(lambda x, op=op: op(shapes, shapes[::-1], x), [y], rng=rng)


def test_second_derivatives_in_the_shapes_are_reported_not_implemented():
    a, x = ps.float64("a"), ps.float64("x")
    with pytest.raises(NullTypeGradError, match="not implemented"):
        grad(grad(ps.gammainc(a, x), a), a)
    with pytest.raises(NullTypeGradError, match="not implemented"):
        grad(grad(ps.betainc(a, 2.0, x), a), a)


def test_digamma_helper_matches_scipy():
    sp = pytest.importorskip("scipy.special")
    points = np.geomspace(1e-4, 1e6, 41)
    got = np.array([digamma(v) for v in points])
    np.testing.assert_allclose(got, sp.psi(points), rtol=1e-13, atol=1e-15)
