"""Scalar rounding ops: tie rules, props, zero gradients."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import arignote
import arignote.scalar as ps
from arignote.gradient import grad

TIES = np.array([-3.5, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5])


def test_half_away_from_zero_vectorized():
    np.testing.assert_array_equal(
        ps.round_half_away_from_zero.elementwise(TIES), [-4, -3, -2, -1, 1, 2, 3, 4]
    )
    near_half = np.nextafter(0.5, 0.0)  # 0.49999999999999994: x + 0.5 would round it up
    assert ps.round_half_away_from_zero.elementwise(np.array([near_half]))[0] == 0.0
    assert ps.round_half_away_from_zero.elementwise(np.array([-near_half]))[0] == 0.0
    big = np.array([2.0**52 + 1, -(2.0**53)])
    np.testing.assert_array_equal(ps.round_half_away_from_zero.elementwise(big), big)
    assert ps.round_half_away_from_zero.elementwise(np.array([7], "int16")).dtype == "int16"


def test_half_to_even_is_numpy_round():
    np.testing.assert_array_equal(ps.round_half_to_even.elementwise(TIES), np.round(TIES))
    np.testing.assert_array_equal(ps.RoundHalfToEven(-1).elementwise(np.array([15, 25])), [20, 20])


def test_round_props():
    assert ps.RoundHalfToEven(2) == ps.RoundHalfToEven(2)
    assert ps.RoundHalfToEven(2) != ps.RoundHalfToEven(1)
    assert hash(ps.RoundHalfToEven(0)) == hash(ps.round_half_to_even)
    assert pickle.loads(pickle.dumps(ps.RoundHalfToEven(3))) == ps.RoundHalfToEven(3)
    assert str(ps.RoundHalfToEven(3)) == "round_half_to_even{decimals=3}"
    with pytest.raises(TypeError, match="decimals"):
        ps.RoundHalfToEven(0.5)
    with pytest.raises(TypeError, match="decimals"):
        ps.RoundHalfToEven(True)


@pytest.mark.parametrize("op", [ps.floor, ps.ceil, ps.trunc, ps.round_half_to_even])
def test_rounding_gradients_are_zero(op):
    x = ps.float32("x")
    g = grad(op(x), x)
    assert g.type.dtype == "float32"
    assert arignote.function([x], g, on_unused_input="ignore")(np.float32(1.3)) == 0
