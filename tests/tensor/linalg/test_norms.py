"""numpy.linalg.norm's orders, axes and keepdims, as a table against NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.tensor import linalg as la
from arignote.testing import verify_grad

VECTOR_ORDERS = [None, 2, 1, np.inf, -np.inf, 0, 3, 0.5, -1, -2.5]
MATRIX_ORDERS = [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]


def _evaluate(value, **kwargs):
    x = pt.tensor(shape=(None,) * value.ndim, dtype=value.dtype.name)
    return arignote.function([x], la.norm(x, **kwargs))(value)


@pytest.mark.parametrize("ord", VECTOR_ORDERS, ids=str)
@pytest.mark.parametrize(
    ("shape", "axis", "keepdims"),
    [((5,), None, False), ((3, 4), 1, False), ((3, 4, 2), 0, True), ((3, 4), -1, True)],
    ids=str,
)
def test_vector_norms(rng, ord, shape, axis, keepdims):
    value = rng.normal(size=shape)
    value.reshape(-1)[0] = 0.0  # a zero entry for ord=0
    result = _evaluate(value, ord=ord, axis=axis, keepdims=keepdims)
    expected = np.linalg.norm(value, ord=ord, axis=axis, keepdims=keepdims)
    assert result.shape == expected.shape
    np.testing.assert_allclose(result, expected, rtol=1e-12)


@pytest.mark.parametrize("ord", MATRIX_ORDERS, ids=str)
@pytest.mark.parametrize(
    ("shape", "axis", "keepdims"),
    [((3, 4), None, False), ((2, 3, 4), (1, 2), False), ((3, 2, 4), (2, 0), True)],
    ids=str,
)
def test_matrix_norms(rng, ord, shape, axis, keepdims):
    value = rng.normal(size=shape)
    result = _evaluate(value, ord=ord, axis=axis, keepdims=keepdims)
    expected = np.linalg.norm(value, ord=ord, axis=axis, keepdims=keepdims)
    assert result.shape == expected.shape
    np.testing.assert_allclose(result, expected, rtol=1e-12)


@pytest.mark.parametrize("keepdims", [False, True])
def test_default_norm_of_any_tensor(rng, keepdims):
    value = rng.normal(size=(2, 3, 4))
    expected = np.linalg.norm(value, keepdims=keepdims)
    np.testing.assert_allclose(_evaluate(value, keepdims=keepdims), expected, rtol=1e-12)


@pytest.mark.parametrize(("dtype", "expected"), [("int64", "float64"), ("float32", "float32")])
def test_norm_dtypes(rng, dtype, expected):
    value = rng.integers(-5, 5, (3, 4)).astype(dtype)
    for ord in (None, 1, "nuc"):
        result = _evaluate(value, ord=ord)
        reference = np.linalg.norm(value, ord=ord)
        assert result.dtype == expected == reference.dtype
        np.testing.assert_allclose(result, reference, rtol=1e-5)


def test_complex_norm(rng):
    value = rng.normal(size=(3, 4)) + 1j * rng.normal(size=(3, 4))
    for ord, axis in ((None, None), (1, 1), (3, 0), ("fro", None)):
        expected = np.linalg.norm(value, ord=ord, axis=axis)
        np.testing.assert_allclose(_evaluate(value, ord=ord, axis=axis), expected, rtol=1e-12)


@pytest.mark.parametrize(
    ("shape", "kwargs", "error", "message"),
    [
        ((4,), {"ord": "fro"}, ValueError, "for vectors"),
        ((3, 4), {"ord": 3}, ValueError, "for matrices"),
        ((3, 4), {"axis": (0, 0)}, ValueError, "duplicate"),
        ((2, 3, 4), {"ord": 2}, ValueError, "improper"),
        ((2, 3, 4), {"axis": (0, 1, 2)}, ValueError, "improper"),
        ((3, 4), {"axis": 2}, ValueError, "out of bounds"),
        ((3, 4), {"axis": 1.5}, TypeError, "axis"),
    ],
)
def test_norm_errors(shape, kwargs, error, message):
    with pytest.raises(error, match=message):
        la.norm(pt.tensor(shape=shape), **kwargs)


@pytest.mark.parametrize("ord", ["fro", "nuc", 2, 1, np.inf], ids=str)
def test_matrix_norm_gradients(rng, ord):
    value = rng.normal(size=(4, 3))
    verify_grad(lambda x: la.norm(x, ord=ord), [value], rng=rng)
