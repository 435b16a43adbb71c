"""Differences of the JAX backend from the Python VM found by the 10,000-graph fuzz run
(``tests/reliability/run_fuzz.py``): integer division by zero and the symmetric
eigenvalue problem of an input that is not symmetric."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("jax", reason="the JAX backend needs jax (pip install arignote[jax])")

import arignote
import arignote.tensor as pt


@pytest.mark.parametrize("dtype", ["int64", "uint8", "int16"])
def test_integer_division_by_zero_is_zero_as_in_numpy(dtype):
    # XLA divides by 0 to -1 (all ones for unsigned types)
    a, b = pt.vector("a", dtype=dtype), pt.vector("b", dtype=dtype)
    fn = arignote.function([a, b], pt.int_div(a, b), mode="JAX")
    signed = np.dtype(dtype).kind == "i"
    x = np.array([-7 if signed else 250, 7, 8, 0, 5, 9]).astype(dtype)
    y = np.array([0, 0, 3, 0, -2 if signed else 2, 4]).astype(dtype)
    with np.errstate(divide="ignore"):
        expected = np.floor_divide(x, y)
    got = np.asarray(fn(x, y))
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_reads_only_the_named_triangle(uplo):
    # NumPy ignores the other triangle; jnp.linalg.eigh would average x with x.T first
    x = pt.dmatrix("x")
    values, vectors = pt.linalg.eigh(x, uplo)
    fn = arignote.function([x], [values, pt.linalg.eigvalsh(x, uplo)], mode="JAX")
    a = np.random.default_rng(5).normal(size=(4, 4))  # not symmetric
    got_values, got_only_values = fn(a)
    expected = np.linalg.eigvalsh(a, UPLO=uplo)
    np.testing.assert_allclose(got_values, expected, rtol=1e-10)
    np.testing.assert_allclose(got_only_values, expected, rtol=1e-10)
    assert not np.allclose(expected, np.linalg.eigvalsh((a + a.T) / 2))  # the test can fail
