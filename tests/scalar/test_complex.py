"""Scalar complex ops: output dtypes and construction."""

from __future__ import annotations

import numpy as np
import pytest

import arignote.scalar as ps


@pytest.mark.parametrize(
    ("op", "dtype", "expected"),
    [
        (ps.real, "complex64", "float32"),
        (ps.imag, "complex128", "float64"),
        (ps.real, "int16", "int16"),
        (ps.angle, "complex64", "float32"),
        (ps.angle, "bool", "float64"),
    ],
)
def test_output_dtypes(op, dtype, expected):
    assert op(ps.get_scalar_type(dtype)()).type.dtype == expected
    assert np.asarray(op.elementwise(np.ones(2, dtype))).dtype == expected


@pytest.mark.parametrize(
    ("left", "right", "expected"),
    [
        ("float32", "float32", "complex64"),
        ("float16", "int8", "complex64"),
        ("float32", "float64", "complex128"),
        ("int64", "int64", "complex128"),
    ],
)
def test_complex_from_parts(left, right, expected):
    out = ps.complex_(ps.get_scalar_type(left)(), ps.get_scalar_type(right)())
    assert out.type.dtype == expected
    value = ps.complex_.elementwise(np.array([1, 2], left), np.array([3], right))
    np.testing.assert_array_equal(value, [1 + 3j, 2 + 3j])
    assert value.dtype == expected


def test_complex_refuses_complex_parts():
    with pytest.raises(TypeError, match="real parts"):
        ps.complex_(ps.scalar(dtype="complex64"), ps.float32())
