"""``Eigvalsh`` (scipy.linalg.eigvalsh with an optional b): values, the triangle read,
gradients and tangents of the generalized problem, dtypes and errors."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

import arignote
import arignote.tensor as pt
from arignote.graph.grad_types import NullTypeGradError
from arignote.tensor import linalg as la
from arignote.testing import verify_grad


def _pencil(rng, n=4):
    m, q = rng.normal(size=(n, n)), rng.normal(size=(n, n))
    return m + m.T, q @ q.T + n * np.eye(n)


@pytest.mark.parametrize("lower", [True, False])
def test_values_read_one_triangle_and_match_scipy(rng, lower):
    a_val, b_val = _pencil(rng)
    keep = np.tril if lower else np.triu
    a, b = pt.dmatrix("a"), pt.dmatrix("b")
    f = arignote.function([a, b], [la.Eigvalsh(lower)(a), la.Eigvalsh(lower)(a, b)])
    standard, generalized = f(keep(a_val), keep(b_val))  # the other triangle is never read
    np.testing.assert_allclose(standard, scipy.linalg.eigvalsh(a_val), rtol=1e-12)
    np.testing.assert_allclose(generalized, scipy.linalg.eigvalsh(a_val, b_val), rtol=1e-12)


@pytest.mark.parametrize("lower", [True, False])
def test_gradients_of_the_generalized_problem(rng, lower):
    a_val, b_val = _pencil(rng)
    verify_grad(lambda a, b: la.Eigvalsh(lower)(a, b), [a_val, b_val], rng=rng)
    verify_grad(lambda a: la.Eigvalsh(lower)(a), [a_val], rng=rng)


def test_tangent_of_the_generalized_problem_matches_finite_differences(rng):
    a_val, b_val = _pencil(rng)
    da, db = _pencil(rng)
    a, b, ea, eb = pt.dmatrices("a", "b", "ea", "eb")
    tangent = arignote.Rop(la.Eigvalsh()(a, b), [a, b], [ea, eb])
    got = arignote.function([a, b, ea, eb], tangent)(a_val, b_val, da, db)
    eps = 1e-6
    plus = scipy.linalg.eigvalsh(a_val + eps * da, b_val + eps * db)
    minus = scipy.linalg.eigvalsh(a_val - eps * da, b_val - eps * db)
    np.testing.assert_allclose(got, (plus - minus) / (2 * eps), rtol=1e-6, atol=1e-8)


def test_second_derivatives_of_the_generalized_problem_are_refused(rng):
    a, b = pt.dmatrices("a", "b")
    g = arignote.grad(la.Eigvalsh()(a, b).sum(), a)
    with pytest.raises(NullTypeGradError, match="second derivatives"):
        arignote.grad(g.sum(), a)


def test_dtypes_and_errors():
    assert la.Eigvalsh()(pt.fmatrix()).type.dtype == "float32"
    assert la.Eigvalsh()(pt.fmatrix(), pt.dmatrix()).type.dtype == "float64"
    with pytest.raises(ValueError, match="at least 2 dimensions"):
        la.Eigvalsh()(pt.dvector())
    with pytest.raises(TypeError, match="one matrix per input"):
        la.Eigvalsh()(pt.dtensor3())
    a = pt.dmatrix("a")
    f = arignote.function([a], la.Eigvalsh()(a))
    with pytest.raises(ValueError, match="square"):
        f(np.ones((2, 3)))


def test_eigvalsh_takes_scipys_and_numpys_signatures(rng):
    # PyTensor documents eigvalsh(a, b, lower=True); NumPy's is eigvalsh(a, UPLO="L")
    a, b = pt.dmatrix("a"), pt.dmatrix("b")
    m, q = rng.normal(size=(4, 4)), rng.normal(size=(4, 4))
    av, bv = m + m.T, q @ q.T + 4 * np.eye(4)
    outs = [
        la.eigvalsh(a, None),
        la.eigvalsh(a, b),
        la.eigvalsh(a, b, lower=False),
        la.eigvalsh(a, "U"),
        la.eigvalsh(a, lower=False),
    ]
    got = arignote.function([a, b], outs)(np.tril(av), bv)
    full = np.tril(av) + np.tril(av, -1).T
    np.testing.assert_allclose(got[0], np.linalg.eigvalsh(full))
    np.testing.assert_allclose(got[1], scipy.linalg.eigvalsh(full, bv))
    np.testing.assert_allclose(got[2], scipy.linalg.eigvalsh(np.tril(av), bv, lower=False))
    np.testing.assert_allclose(got[3], np.linalg.eigvalsh(np.tril(av), "U"))
    np.testing.assert_allclose(got[4], got[3])
