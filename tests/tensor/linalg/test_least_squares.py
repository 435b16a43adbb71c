"""Tests of pinv and lstsq beyond the op database: options, residuals and rank."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.gradient import grad
from arignote.graph.grad_types import NullTypeGradError
from arignote.tensor import linalg as la


@pytest.mark.parametrize(
    ("a_shape", "b_shape"),
    [((5, 3), (5,)), ((5, 3), (5, 2)), ((3, 5), (3,)), ((4, 4), (4, 2))],
    ids=str,
)
def test_lstsq_outputs_match_numpy(rng, a_shape, b_shape):
    a, b = rng.normal(size=a_shape), rng.normal(size=b_shape)
    x, y = pt.matrix(), pt.tensor(shape=(None,) * len(b_shape))
    results = arignote.function([x, y], la.lstsq(x, y))(a, b)
    expected = np.linalg.lstsq(a, b)
    for result, reference in zip(results, expected):
        reference = np.asarray(reference)
        assert result.dtype == reference.dtype
        np.testing.assert_allclose(result, reference, rtol=1e-10, atol=1e-12)


def test_lstsq_rank_deficient_has_empty_residuals(rng):
    a = rng.normal(size=(5, 2)) @ rng.normal(size=(2, 3))  # rank 2
    b = rng.normal(size=5)
    x, y = pt.matrix(), pt.vector()
    _, residuals, rank, _ = arignote.function([x, y], la.lstsq(x, y))(a, b)
    assert residuals.shape == (0,) and rank == 2


def test_lstsq_rcond_and_residual_gradient(rng):
    a = np.diag([1.0, 1e-3, 1e-9])
    b = rng.normal(size=3)
    x, y = pt.matrix(), pt.vector()
    for rcond in (None, 1e-6, 1e-2):
        result = arignote.function([x, y], la.lstsq(x, y, rcond=rcond)[2])(a, b)
        assert result == np.linalg.lstsq(a, b, rcond=rcond)[2]
    residuals = la.lstsq(x, y)[1]
    with pytest.raises(NullTypeGradError, match="value-dependent"):
        grad(residuals.sum(), x)


def test_lstsq_shape_errors():
    with pytest.raises(ValueError, match="rows"):
        la.lstsq(pt.tensor(shape=(4, 3)), pt.tensor(shape=(5,)))
    with pytest.raises(ValueError, match="matrix"):
        la.lstsq(pt.tensor3(), pt.vector())


@pytest.mark.parametrize(
    "kwargs", [{}, {"rcond": 1e-2}, {"rtol": 1e-2}, {"rtol": None}, {"hermitian": True}], ids=str
)
def test_pinv_options_match_numpy(rng, kwargs):
    value = np.diag([3.0, 1.0, 1e-3, 1e-17]) + 0.0
    q, _ = np.linalg.qr(rng.normal(size=(4, 4)))
    value = q @ value @ q.T
    x = pt.matrix()
    result = arignote.function([x], la.pinv(x, **kwargs))(value)
    np.testing.assert_allclose(result, np.linalg.pinv(value, **kwargs), rtol=1e-8, atol=1e-10)


def test_pinv_refuses_rcond_with_rtol():
    with pytest.raises(ValueError, match="both"):
        la.pinv(pt.matrix(), rcond=1e-3, rtol=1e-3)
