"""``arignote.tensor.nlinalg`` and ``arignote.tensor.slinalg``: PyTensor's older module paths
for the linear-algebra functions, as its reference pages use them."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

import arignote
import arignote.tensor as pt
from arignote.tensor import linalg, nlinalg, slinalg


@pytest.mark.parametrize("module", [nlinalg, slinalg])
def test_every_name_is_linalgs(module):
    own = {"qr"} if module is nlinalg else set()  # numpy.linalg.qr's default mode there
    for name in module.NAMES - own:
        assert getattr(module, name) is getattr(linalg, name), name
    with pytest.raises(AttributeError):
        module.not_a_function  # noqa: B018


def test_qr_defaults_follow_numpy_in_nlinalg_and_scipy_in_linalg(rng):
    a = pt.dmatrix("a")
    tall = rng.normal(size=(5, 3))
    thin = arignote.function([a], list(nlinalg.qr(a)))(tall)  # numpy.linalg.qr: reduced
    full = arignote.function([a], list(linalg.qr(a)))(tall)  # PyTensor 3, SciPy: full
    assert [v.shape for v in thin] == [(5, 3), (3, 3)]
    assert [v.shape for v in full] == [(5, 5), (5, 3)]
    assert slinalg.qr is linalg.qr


def test_imports_from_pytensor_paths(rng):
    from arignote.tensor.nlinalg import det, matrix_inverse
    from arignote.tensor.slinalg import cholesky, solve

    a, b = pt.dmatrix("a"), pt.dmatrix("b")
    value = rng.normal(size=(4, 4))
    spd, rhs = value @ value.T + 4 * np.eye(4), rng.normal(size=(4, 3))
    outs = [det(a), matrix_inverse(a), cholesky(a), solve(a, b)]
    got = arignote.function([a, b], outs)(spd, rhs)
    np.testing.assert_allclose(got[0], np.linalg.det(spd))
    np.testing.assert_allclose(got[1], np.linalg.inv(spd), atol=1e-12)
    np.testing.assert_allclose(got[2], np.linalg.cholesky(spd))
    np.testing.assert_allclose(got[3], np.linalg.solve(spd, rhs))


def test_slinalg_qr_has_scipys_default_mode(rng):
    a = pt.dmatrix("a")
    value = rng.normal(size=(5, 3))
    q, r = arignote.function([a], list(slinalg.qr(a)))(value)
    expected_q, expected_r = scipy.linalg.qr(value)
    assert q.shape == (5, 5) and r.shape == (5, 3)
    np.testing.assert_allclose(q @ r, value, atol=1e-12)
    np.testing.assert_allclose(np.abs(q), np.abs(expected_q), atol=1e-12)
