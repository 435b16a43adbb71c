"""Edges of the LU, Schur/QZ and Riccati functions beyond the op database's samples."""

import numpy as np
import pytest
import scipy.linalg

import arignote
import arignote.tensor as pt
from arignote.tensor import linalg as la
from arignote.testing import verify_grad


@pytest.fixture
def rng():
    return np.random.default_rng(20261125)


def test_pivot_to_permutation_matches_scipy_row_indices(rng):
    a = rng.normal(size=(6, 6))
    _, piv = scipy.linalg.lu_factor(a)
    p_ref = scipy.linalg.lu(a, p_indices=True)[0]
    p = pt.ivector()
    perm = arignote.function([p], la.pivot_to_permutation(p))(piv)
    order = arignote.function([p], la.pivot_to_permutation(p, inverse=True))(piv)
    np.testing.assert_array_equal(perm, p_ref)
    np.testing.assert_array_equal(order, np.argsort(p_ref))


@pytest.mark.parametrize("trans", [0, 1])
def test_lu_solve_on_a_stack_of_right_hand_sides_and_gradient(rng, trans):
    a, b = rng.normal(size=(4, 4)) + 4 * np.eye(4), rng.normal(size=(4, 2))
    x, y = pt.matrix(), pt.matrix()
    got = arignote.function([x, y], la.lu_solve(la.lu_factor(x), y, trans=trans))(a, b)
    want = scipy.linalg.lu_solve(scipy.linalg.lu_factor(a), b, trans=trans)
    np.testing.assert_allclose(got, want, rtol=1e-10)
    verify_grad(lambda m, v: la.lu_solve(la.lu_factor(m), v, trans=trans), [a, b], rng=rng)


def test_batched_lu_reconstructs_each_matrix(rng):
    a = rng.normal(size=(3, 4, 4))
    x = pt.tensor3()
    p, lower, upper = arignote.function([x], list(la.lu(x)))(a)
    np.testing.assert_allclose(p @ lower @ upper, a, atol=1e-12)


def test_lu_rejects_conflicting_options_and_non_square_matrices():
    with pytest.raises(ValueError):
        la.lu(pt.matrix(), permute_l=True, p_indices=True)
    with pytest.raises(ValueError):
        la.lu(pt.matrix(shape=(3, 4)))


@pytest.mark.parametrize("sort", ["lhp", "rhp", "iuc", "ouc"])
def test_sorted_schur_puts_the_selected_eigenvalues_first(rng, sort):
    a = rng.normal(size=(5, 5))
    x = pt.matrix()
    t, z = arignote.function([x], list(la.schur(x, output="complex", sort=sort)))(a)
    np.testing.assert_allclose(z @ t @ z.conj().T, a, atol=1e-10)
    _, _, sdim = scipy.linalg.schur(a, output="complex", sort=sort)
    np.testing.assert_allclose(t, scipy.linalg.schur(a, output="complex", sort=sort)[0])
    assert 0 <= sdim <= 5


def test_schur_gradient_is_declared_not_implemented(rng):
    x = pt.matrix()
    with pytest.raises(Exception, match="(?i)not implemented|Schur"):
        arignote.gradient.grad(la.schur(x)[0].sum(), x)


def test_qz_with_eigenvalues_reconstructs_the_pair(rng):
    a, b = rng.normal(size=(4, 4)), rng.normal(size=(4, 4))
    x, y = pt.matrix(), pt.matrix()
    aa, bb, alpha, beta, q, z = arignote.function(
        [x, y], list(la.qz(x, y, return_eigenvalues=True))
    )(a, b)
    np.testing.assert_allclose(q @ aa @ z.T, a, atol=1e-10)
    np.testing.assert_allclose(q @ bb @ z.T, b, atol=1e-10)
    np.testing.assert_allclose(
        np.sort_complex(alpha / beta), np.sort_complex(scipy.linalg.eigvals(a, b))
    )


def test_discrete_are_solves_the_equation_and_reads_only_symmetric_parts(rng):
    a, b = rng.normal(size=(3, 3)) / 2, rng.normal(size=(3, 2))
    q, r = np.eye(3), np.eye(2)
    skew = rng.normal(size=(3, 3))
    args = [pt.matrix() for _ in range(4)]
    f = arignote.function(args, la.solve_discrete_are(*args))
    x = f(a, b, q, r)
    gain = np.linalg.solve(r + b.T @ x @ b, b.T @ x @ a)
    np.testing.assert_allclose(a.T @ x @ a - a.T @ x @ b @ gain + q, x, atol=1e-10)
    np.testing.assert_allclose(f(a, b, q + skew - skew.T, r), x, atol=1e-10)


def test_float32_results_keep_single_precision(rng):
    x = pt.matrix(dtype="float32")
    outs = [*la.lu(x), *la.lu_factor(x)[:1], *la.schur(x)]
    assert {o.type.dtype for o in outs} == {"float32"}
