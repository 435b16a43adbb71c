"""Scalar math: accuracy of the careful log/exp combinations, dtypes of derivatives."""

from __future__ import annotations

import math

import numpy as np
import pytest

import arignote
import arignote.scalar as ps
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
