"""Scalar math: accuracy of the careful log/exp combinations, dtypes of derivatives."""

from __future__ import annotations

import math

import numpy as np
import pytest

import arignote
import arignote.scalar as ps
import arignote.tensor as pt
from arignote.gradient import grad


def test_log1mexp_accuracy_at_both_ends():
    x = np.array([-1e-20, -1e-10, -0.5, -0.7, -1.0, -40.0, -800.0])
    expected = [math.log(-math.expm1(v)) if v > -1 else math.log1p(-math.exp(v)) for v in x]
    np.testing.assert_allclose(ps.log1mexp.elementwise(x), expected, rtol=1e-15)
    assert ps.log1mexp.elementwise(np.array([0.0]))[0] == -np.inf
    assert np.isnan(ps.log1mexp.elementwise(np.array([0.5]))[0])
    assert ps.log1mexp.elementwise(np.array([-1.0], "float32")).dtype == "float32"


def test_softplus_does_not_overflow():
    x = np.array([-1000.0, -30.0, 0.0, 30.0, 1000.0])
    np.testing.assert_allclose(ps.softplus.elementwise(x), np.logaddexp(0.0, x), rtol=1e-15)
    assert ps.softplus.elementwise(np.array([1], "int8")).dtype == "float16"


@pytest.mark.parametrize("op", [ps.exp2, ps.log2, ps.log10, ps.deg2rad, ps.rad2deg, ps.cbrt])
def test_constant_factors_keep_the_gradient_dtype(op):
    x = ps.float32("x")
    g = grad(op(x), x)
    assert g.type.dtype == "float32"


@pytest.mark.parametrize(
    ("op", "point", "derivative"),
    [
        (ps.arcsin, 0.3, 1 / math.sqrt(1 - 0.09)),
        (ps.arccosh, 2.0, 1 / math.sqrt(3.0)),
        (ps.arctanh, 0.5, 1 / 0.75),
        (ps.cbrt, 8.0, 1 / 12.0),
        (ps.reciprocal, 4.0, -1 / 16.0),
        (ps.log1mexp, -1.0, -1 / math.expm1(1.0)),
    ],
)
def test_derivatives_at_a_point(op, point, derivative):
    x = ps.float64("x")
    assert arignote.function([x], grad(op(x), x))(point) == pytest.approx(derivative, rel=1e-14)


def test_arctan2_partials():
    y, x = ps.float64("y"), ps.float64("x")
    gy, gx = arignote.function([y, x], grad(ps.arctan2(y, x), [y, x]))(1.0, 2.0)
    assert (gy, gx) == pytest.approx((2 / 5, -1 / 5))


# Derivatives whose textbook formula cancels or overflows somewhere, against mpmath at 60
# digits: (function of arignote.tensor, points, the exact derivative as an mpmath expression).
# The points are where the old formula failed: 1 - x*x near |x| = 1 (5e-10 relative error at
# 1 - 1e-8), x*x past 1.4e154 (0 instead of 1/x), 1 - tanh^2 and expm1(x) + 1 (0 or 1e-4
# relative error for |x| >= 19, resp. x <= -30).
NEAR_ONE = [1 - 1e-8, -(1 - 1e-8), 1 - 1e-12, 0.3, -(2.0**-30)]
CAREFUL_DERIVATIVES = [
    ("expm1", [-700.0, -100.0, -30.0, -1e-10, 1e-10, 30.0], lambda m, x: m.exp(x)),
    # y (1 - y) cancelled for x > 0 and was 0 from x = 37 without the fast_run rewrites
    ("sigmoid", [-700.0, -30.0, 0.5, 30.0, 37.0, 700.0], lambda m, x: m.sech(x / 2) ** 2 / 4),
    ("tanh", [-100.0, -30.0, -19.0, 1e-10, 0.5, 10.0, 30.0, 300.0], lambda m, x: m.sech(x) ** 2),
    ("arcsin", NEAR_ONE, lambda m, x: 1 / m.sqrt(1 - x * x)),
    ("arccos", NEAR_ONE, lambda m, x: -1 / m.sqrt(1 - x * x)),
    ("arctanh", NEAR_ONE, lambda m, x: 1 / (1 - x * x)),
    ("arccosh", [1 + 1e-10, 1 + 1e-5, 2.0, 1e155, 1e300], lambda m, x: 1 / m.sqrt(x * x - 1)),
    ("arcsinh", [-1e300, -1e155, -0.5, 1e-10, 3.0, 1e155], lambda m, x: 1 / m.sqrt(1 + x * x)),
]


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE"])
@pytest.mark.parametrize(
    ("name", "points", "exact"), CAREFUL_DERIVATIVES, ids=[c[0] for c in CAREFUL_DERIVATIVES]
)
def test_derivative_is_accurate_where_the_textbook_formula_is_not(name, points, exact, mode):
    mp = pytest.importorskip("mpmath")
    x = pt.dvector("x")
    slope = arignote.function([x], grad(getattr(pt, name)(x).sum(), x), mode=mode)
    with mp.workdps(60):
        expected = [float(exact(mp, mp.mpf(p))) for p in points]
    np.testing.assert_allclose(slope(np.array(points)), expected, rtol=1e-14)
