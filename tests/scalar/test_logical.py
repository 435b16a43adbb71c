"""Scalar logical ops and isclose (checked against np.isclose on awkward values)."""

from __future__ import annotations

import numpy as np
import pytest

import arignote.scalar as ps

AWKWARD = np.array([0.0, -0.0, 1.0, 1.0 + 1e-9, 1e-9, np.inf, -np.inf, np.nan, 1e300, -2.0])


@pytest.mark.parametrize("equal_nan", [False, True])
@pytest.mark.parametrize(("rtol", "atol"), [(1e-5, 1e-8), (0.0, 0.0), (0.5, 1e-3)])
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
def test_isclose_matches_numpy(dtype, rtol, atol, equal_nan):
    op = ps.IsClose(rtol, atol, equal_nan)
    with np.errstate(all="ignore"):  # 1e300 overflows float32
        a = np.repeat(AWKWARD, AWKWARD.size).astype(dtype)
        b = np.tile(AWKWARD, AWKWARD.size).astype(dtype)
        expected = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    np.testing.assert_array_equal(op.elementwise(a, b), expected)


@pytest.mark.parametrize(
    ("left", "right"), [("int64", "uint8"), ("bool", "float32"), ("int8", "int8")]
)
def test_isclose_mixed_dtypes_match_numpy(left, right):
    a = np.array([0, 1, 1, 0]).astype(left)
    b = np.array([0, 1, 0, 1]).astype(right)
    np.testing.assert_array_equal(ps.IsClose().elementwise(a, b), np.isclose(a, b))
    out = ps.IsClose()(ps.get_scalar_type(left)(), ps.get_scalar_type(right)())
    assert out.type.dtype == "bool"


def test_isclose_arguments():
    with pytest.raises(TypeError, match="atol"):
        ps.IsClose(atol=None)
    assert ps.IsClose(1e-3) == ps.IsClose(0.001, 1e-08, False)
    assert ps.IsClose(equal_nan=True) != ps.IsClose()


def test_logical_ops_on_numbers():
    a = np.array([0.0, 2.0, -1.0, 0.0])
    b = np.array([0, 0, 3, 5])
    assert ps.logical_and(ps.float64(), ps.int64()).type.dtype == "bool"
    np.testing.assert_array_equal(ps.logical_xor.elementwise(a, b), np.logical_xor(a, b))
    np.testing.assert_array_equal(ps.isfinite.elementwise(np.array([1, 2])), [True, True])
