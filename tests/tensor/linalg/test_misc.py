"""Tests of kron, expm and block_diag beyond the op database."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

import arignote
import arignote.tensor as pt
from arignote.tensor import linalg as la
from arignote.testing import verify_grad


@pytest.mark.parametrize(
    ("a_shape", "b_shape"),
    [((), (2, 3)), ((3,), (4,)), ((2, 3), (4, 1)), ((2, 1, 3), (2, 2)), ((2,), (3, 2, 2))],
    ids=str,
)
def test_kron_matches_numpy(rng, a_shape, b_shape):
    a, b = rng.normal(size=a_shape), rng.normal(size=b_shape)
    x, y = pt.tensor(shape=(None,) * len(a_shape)), pt.tensor(shape=(None,) * len(b_shape))
    result = arignote.function([x, y], la.kron(x, y))(a, b)
    np.testing.assert_allclose(result, np.kron(a, b), rtol=1e-12)


def test_kron_static_shape():
    out = la.kron(pt.tensor(shape=(2, 3)), pt.tensor(shape=(4, None)))
    assert out.type.shape == (8, None)


def test_ExpmFrechet_matches_scipy(rng):
    a, e = rng.normal(size=(4, 4)) / 2, rng.normal(size=(4, 4))
    x, y = pt.matrix(), pt.matrix()
    result = arignote.function([x, y], la.ExpmFrechet()(x, y))(a, e)
    expected = scipy.linalg.expm_frechet(a, e, compute_expm=False)
    np.testing.assert_allclose(result, expected, rtol=1e-10, atol=1e-12)
    # linear in E: its gradient with respect to E is again a Frechet derivative
    verify_grad(lambda direction: la.ExpmFrechet()(pt.constant(a), direction), [e], rng=rng)


def test_expm_of_integers_and_batches(rng):
    value = rng.integers(-2, 3, (2, 3, 3))
    x = pt.tensor3(dtype="int64")
    out = la.expm(x)
    assert out.type.dtype == "float64"
    np.testing.assert_allclose(arignote.function([x], out)(value), scipy.linalg.expm(value))


def test_block_diag_dtypes_and_shapes(rng):
    a = rng.integers(0, 5, (2, 3))
    b = rng.normal(size=(3,)).astype("float32")
    x, y = pt.matrix(dtype="int64"), pt.vector(dtype="float32")
    out = la.block_diag(x, y, 7)
    expected = scipy.linalg.block_diag(a, b, 7)
    result = arignote.function([x, y], out)(a, b)
    assert result.dtype == expected.dtype
    np.testing.assert_array_equal(result, expected)
    assert la.block_diag(pt.tensor(shape=(2, 3)), pt.tensor(shape=(1, 4))).type.shape == (3, 7)


def test_block_diag_errors():
    with pytest.raises(ValueError, match="at least one"):
        la.block_diag()
    with pytest.raises(ValueError, match="at most 2"):
        la.block_diag(pt.tensor3())


def test_block_diagonal_ops_share_one_base():
    assert issubclass(la.BlockDiagonal, la.BaseBlockDiagonal)
    op = la.BlockDiagonal(2)
    a, b = pt.dmatrix("a"), pt.dmatrix("b")
    out = op(a, b)
    shape = arignote.function([a, b], out.shape)(np.ones((2, 3)), np.ones((1, 4)))
    np.testing.assert_array_equal(shape, [3, 7])
    with pytest.raises(ValueError, match="BlockDiagonal needs at least one block"):
        la.BlockDiagonal(0)
