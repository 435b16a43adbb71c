"""Tridiagonal LU (LAPACK gttrf/gttrs): factors and solutions against SciPy and NumPy, the
derivative in b, the refused derivatives, and the errors."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

import arignote
import arignote.tensor as pt
from arignote.graph.grad_types import NullTypeGradError
from arignote.tensor import linalg as la
from arignote.testing import verify_grad


def _tridiagonal(rng, n, shift=3.0):
    a = np.triu(np.tril(rng.normal(size=(n, n)), 1), -1)
    return a + shift * np.eye(n)


def _diagonals(a):
    return [np.ascontiguousarray(np.diagonal(a, k)) for k in (-1, 0, 1)]


@pytest.mark.parametrize("shift", [3.0, -0.5])  # -0.5: rows swap (pivots)
def test_factors_are_lapacks_and_solves_match_numpy(rng, shift):
    A, b = _tridiagonal(rng, 6, shift), rng.normal(size=(6, 3))
    a, bv = pt.dmatrix("a"), pt.dmatrix("b")
    factors = la.tridiagonal_lu_factor(a)
    x = la.tridiagonal_lu_solve(factors, bv, b_ndim=2)
    xt = la.tridiagonal_lu_solve(factors, bv, b_ndim=2, transposed=True)
    got = arignote.function([a, bv], [*factors, x, xt])(A, b)
    gttrf = scipy.linalg.get_lapack_funcs("gttrf", (A,))
    for value, want in zip(got[:5], gttrf(*_diagonals(A))[:5]):
        np.testing.assert_array_equal(value, want)
    assert got[4].dtype == np.int32
    np.testing.assert_allclose(got[5], np.linalg.solve(A, b), rtol=1e-10)
    np.testing.assert_allclose(got[6], np.linalg.solve(A.T, b), rtol=1e-10)


def test_stacks_of_matrices_and_vectors(rng):
    A = np.stack([_tridiagonal(rng, 4), _tridiagonal(rng, 4, -1.0)])
    b = rng.normal(size=(2, 4))
    a, bv = pt.dtensor3("a"), pt.dmatrix("b")
    x = la.tridiagonal_lu_solve(la.tridiagonal_lu_factor(a), bv, b_ndim=1)
    got = arignote.function([a, bv], x)(A, b)
    np.testing.assert_allclose(got, np.linalg.solve(A, b[..., None])[..., 0], rtol=1e-10)


def test_float32_stays_float32_and_integers_compute_in_float64(rng):
    for dtype, expected in (("float32", "float32"), ("int64", "float64")):
        a = pt.matrix(dtype=dtype)
        assert [f.type.dtype for f in la.tridiagonal_lu_factor(a)] == [expected] * 4 + ["int32"]


@pytest.mark.parametrize("transposed", [False, True])
def test_gradient_with_respect_to_b(rng, transposed):
    A = _tridiagonal(rng, 5, -0.5)
    factors = la.tridiagonal_lu_factor(pt.constant(A))

    def solve(b):
        return la.tridiagonal_lu_solve(factors, b, b_ndim=2, transposed=transposed)

    verify_grad(solve, [rng.normal(size=(5, 2))], rng=rng)


def test_the_packed_factors_have_no_gradient_and_say_why():
    a, b = pt.dmatrix("a"), pt.dvector("b")
    x = la.tridiagonal_lu_solve(la.tridiagonal_lu_factor(a), b, b_ndim=1)
    with pytest.raises(NullTypeGradError, match="solve\\(a, b\\)"):
        arignote.grad(x.sum(), a)


def test_r_op_in_b_is_the_solve_of_the_tangent(rng):
    A, b, v = _tridiagonal(rng, 4), rng.normal(size=4), rng.normal(size=4)
    bv, ev = pt.dvector("b"), pt.dvector("v")
    x = la.tridiagonal_lu_solve(la.tridiagonal_lu_factor(pt.constant(A)), bv, b_ndim=1)
    tangent = arignote.Rop(x, bv, ev)
    fn = arignote.function([bv, ev], tangent, on_unused_input="ignore")  # linear: b unused
    np.testing.assert_allclose(fn(b, v), np.linalg.solve(A, v))


def test_errors_name_the_problem():
    with pytest.raises(ValueError, match="b_ndim"):
        la.SolveLUFactorTridiagonal(b_ndim=3)
    a = pt.dmatrix("a")
    with pytest.raises(TypeError, match="dimension"):
        la.SolveLUFactorTridiagonal(b_ndim=1)(*la.tridiagonal_lu_factor(a), pt.dmatrix())
    with pytest.raises(TypeError, match="vectors"):
        la.LUFactorTridiagonal()(pt.dmatrix(), pt.dvector(), pt.dvector())
    dl, d, du = pt.dvectors("dl", "d", "du")
    f = arignote.function([dl, d, du], la.LUFactorTridiagonal()(dl, d, du))
    with pytest.raises(ValueError, match="lengths n - 1, n, n - 1"):
        f(np.ones(2), np.ones(4), np.ones(3))


def test_wrong_number_of_rows_in_b_is_refused(rng):
    a, b = pt.dmatrix("a"), pt.dvector("b")
    f = arignote.function([a, b], la.tridiagonal_lu_solve(la.tridiagonal_lu_factor(a), b, b_ndim=1))
    with pytest.raises(ValueError, match="rows of b"):
        f(_tridiagonal(rng, 4), np.ones(3))
