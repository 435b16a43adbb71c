"""Tests of cholesky, eigh, eig, svd and qr beyond the op database."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.gradient import Rop, grad
from arignote.graph.grad_types import NullTypeGradError
from arignote.tensor import linalg as la
from arignote.testing import verify_grad


def _spd(rng, n):
    a = rng.normal(size=(n, n))
    return a @ a.T + n * np.eye(n)


def test_cholesky_of_a_matrix_that_is_not_positive_definite_raises_on_request():
    x = pt.matrix()
    fn = arignote.function([x], la.cholesky(x, on_error="raise"))
    with pytest.raises(np.linalg.LinAlgError, match="positive definite"):
        fn(-np.eye(3))
    with pytest.raises(ValueError, match="on_error"):
        la.cholesky(x, on_error="warn")


@pytest.mark.parametrize("mode", ["FAST_RUN", "NUMBA", "JAX"])
def test_cholesky_gives_nans_for_the_matrices_it_cannot_factor_by_default(rng, mode):
    # PyTensor 3's default (on_error="nan"): only the failed matrices of a stack are NaN
    if mode == "JAX":
        pytest.importorskip("jax")
    x = pt.tensor3()
    fn = arignote.function([x], la.cholesky(x), mode=mode)
    stack = np.stack([_spd(rng, 3), -np.eye(3), _spd(rng, 3)])
    infinite = _spd(rng, 3)
    infinite[1, 0] = np.inf
    result = fn(np.concatenate([stack, infinite[None]]))
    np.testing.assert_allclose(result[0], np.linalg.cholesky(stack[0]), rtol=1e-12)
    assert np.isnan(result[1]).all() and np.isnan(result[3]).all()
    np.testing.assert_allclose(result[2], np.linalg.cholesky(stack[2]), rtol=1e-12)


def test_cholesky_reads_only_its_triangle(rng):
    spd = _spd(rng, 4)
    noisy = np.tril(spd) + np.triu(rng.normal(size=(4, 4)), 1)
    x = pt.matrix()
    result = arignote.function([x], la.cholesky(x))(noisy)
    np.testing.assert_allclose(result, np.linalg.cholesky(spd), rtol=1e-12)
    # the gradient with respect to the unread triangle is exactly zero
    g = arignote.function([x], grad(la.cholesky(x).sum(), x))(noisy)
    assert np.all(np.triu(g, 1) == 0)


def test_cholesky_second_derivative(rng):
    spd = _spd(rng, 3)
    verify_grad(lambda a: grad((la.cholesky(a) ** 3).sum(), a), [spd], rng=rng)


def test_eigh_second_derivative_of_eigenvalues(rng):
    q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    sym = q @ np.diag([1.0, 2.0, 4.0]) @ q.T
    verify_grad(lambda a: grad((la.eigvalsh(a) ** 3).sum(), a), [sym], rng=rng)


def test_eigh_integer_input_and_output_types():
    x = pt.matrix(dtype="int32")
    w, v = la.eigh(x)
    assert (w.type.dtype, v.type.dtype) == ("float64", "float64")
    w, v = la.eigh(pt.tensor(shape=(2, 3, 3), dtype="complex64"))
    assert (w.type.dtype, v.type.dtype) == ("float32", "complex64")
    assert (w.type.shape, v.type.shape) == ((2, 3), (2, 3, 3))


def test_eigh_uplo_is_checked():
    with pytest.raises(ValueError, match="UPLO"):
        la.eigh(pt.matrix(), UPLO="X")


def test_eig_outputs_are_complex_even_for_real_eigenvalues(rng):
    x = pt.matrix(dtype="float32")
    w, v = la.eig(x)
    assert (w.type.dtype, v.type.dtype) == ("complex64", "complex64")
    value = np.diag([1.0, 2.0, 3.0]).astype("float32")
    w_value, _ = arignote.function([x], [w, v])(value)
    assert w_value.dtype == np.complex64
    np.testing.assert_allclose(w_value, [1, 2, 3])


def test_eig_eigenvector_gradient_is_explicitly_not_implemented():
    x = pt.matrix()
    _, v = la.eig(x)
    with pytest.raises(NullTypeGradError, match="normalised by LAPACK"):
        grad(pt.abs(v).sum(), x)


def test_eig_tangent_of_eigenvalues(rng):
    a = rng.normal(size=(3, 3))
    direction = rng.normal(size=(3, 3))
    x, v = pt.matrix(), pt.matrix()
    w, _ = la.eig(x)
    tangent = arignote.function([x, v], Rop(w, x, v))(a, direction)
    eps = 1e-7
    w_plus = np.linalg.eigvals(a + eps * direction)
    w_minus = np.linalg.eigvals(a - eps * direction)
    base = np.linalg.eigvals(a)
    # match eigenvalues by proximity: the order of np.linalg.eig is not guaranteed to persist
    order_plus = [np.argmin(np.abs(w_plus - z)) for z in base]
    order_minus = [np.argmin(np.abs(w_minus - z)) for z in base]
    numeric = (w_plus[order_plus] - w_minus[order_minus]) / (2 * eps)
    np.testing.assert_allclose(tangent, numeric, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 3)], ids=str)
@pytest.mark.parametrize("full_matrices", [True, False])
def test_svd_shapes_and_values(rng, shape, full_matrices):
    value = rng.normal(size=shape)
    x = pt.tensor(shape=shape)
    outputs = la.svd(x, full_matrices=full_matrices)
    expected = np.linalg.svd(value, full_matrices=full_matrices)
    results = arignote.function([x], list(outputs))(value)
    for out, result, reference in zip(outputs, results, expected):
        assert out.type.shape == reference.shape
        np.testing.assert_allclose(np.abs(result), np.abs(reference), rtol=1e-10, atol=1e-12)


def test_svd_gradient_through_full_non_square_vectors_is_undefined():
    u, _, _ = la.svd(pt.tensor(shape=(5, 3)), full_matrices=True)
    with pytest.raises(NullTypeGradError, match="not unique"):
        grad(u.sum(), u.owner.inputs[0])


def test_svd_singular_value_gradient_is_defined_for_full_matrices(rng):
    value = rng.normal(size=(5, 3))
    verify_grad(lambda a: la.svd(a, full_matrices=True)[1], [value], rng=rng)


@pytest.mark.parametrize("mode", ["reduced", "complete", "r", "raw"])
def test_qr_modes_match_numpy(rng, mode):
    value = rng.normal(size=(5, 3))
    x = pt.tensor(shape=(5, 3))
    out = la.qr(x, mode=mode)
    outputs = [out] if mode == "r" else list(out)
    expected = np.linalg.qr(value, mode=mode)
    expected = [expected] if mode == "r" else list(expected)
    results = arignote.function([x], outputs)(value)
    for o, result, reference in zip(outputs, results, expected):
        assert o.type.shape == reference.shape
        np.testing.assert_allclose(result, reference, rtol=1e-10, atol=1e-12)


def test_qr_gradient_of_wide_matrices_matches_finite_differences():
    # A = [X | Y] with X = Q U square-R and Y = Q V (formerly refused as not implemented)
    rng = np.random.default_rng(7)
    value = rng.normal(size=(3, 5))
    verify_grad(lambda a: la.qr(a)[0], [value], rng=rng)
    verify_grad(lambda a: la.qr(a)[1], [value], rng=rng)
    verify_grad(lambda a: la.qr(a, mode="complete")[0], [value], rng=rng)
    x = pt.tensor(shape=(5, 3))
    with pytest.raises(NullTypeGradError, match="more rows than columns"):
        grad(la.qr(x, mode="complete")[0].sum(), x)
    with pytest.raises(ValueError, match="mode"):
        la.qr(x, mode="thin")  # SciPy's "economic" and "full" are accepted


@pytest.mark.parametrize("scipy_mode, numpy_mode", [("economic", "reduced"), ("full", "complete")])
def test_qr_takes_scipys_mode_names(scipy_mode, numpy_mode, rng):
    a = pt.dmatrix("a")
    value = rng.normal(size=(5, 3))
    got = arignote.function([a], list(pt.linalg.qr(a, mode=scipy_mode)))(value)
    for g, e in zip(got, np.linalg.qr(value, mode=numpy_mode)):
        np.testing.assert_allclose(np.abs(g), np.abs(e), atol=1e-12)


@pytest.mark.parametrize("mode", ["FAST_RUN", "NUMBA", "JAX"])
def test_generalized_eigh_matches_scipy(rng, mode):
    if mode == "JAX":
        pytest.importorskip("jax")
    scipy_linalg = pytest.importorskip("scipy.linalg")
    sym = rng.normal(size=(4, 4))
    sym = sym + sym.T
    spd = _spd(rng, 4)
    a, b = pt.dmatrices("a", "b")
    fn = arignote.function([a, b], la.eigh(a, b), mode=mode)
    noisy = np.tril(sym) + np.triu(rng.normal(size=(4, 4)), 1)  # only the lower triangle counts
    w, v = (np.asarray(r) for r in fn(noisy, np.tril(spd)))
    expected_w, expected_v = scipy_linalg.eigh(sym, spd)
    np.testing.assert_allclose(w, expected_w, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.abs(v), np.abs(expected_v), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(v.T @ spd @ v, np.eye(4), atol=1e-12)
    upper = arignote.function([a, b], la.eigh(a, b, lower=False)[0], mode=mode)
    np.testing.assert_allclose(upper(noisy.T, spd), expected_w, rtol=1e-12, atol=1e-12)


def test_generalized_eigh_gradients(rng):
    sym = rng.normal(size=(3, 3))
    spd = _spd(rng, 3)

    def values(a, b):
        return la.eigh(a, b)[0]

    def squared_vectors(a, b):  # independent of the eigenvectors' signs
        return la.eigh(a, b)[1] ** 2

    verify_grad(values, [sym + sym.T, spd], rng=rng)
    verify_grad(squared_vectors, [sym + sym.T, spd], rng=rng)


def test_eigh_takes_numpy_and_scipy_spellings(rng):
    a = pt.dmatrix("a")
    assert la.eigh(a, "U")[0].owner.op.uplo == "U"
    assert la.eigh(a, UPLO="U")[0].owner.op.uplo == "U"
    assert la.eigh(a, lower=False, driver="evd")[0].owner.op.uplo == "U"
    with pytest.raises(ValueError, match="driver"):
        la.eigh(a, driver="fast")


def test_pivoted_qr_reveals_the_rank(rng):
    low_rank = rng.normal(size=(6, 2)) @ rng.normal(size=(2, 4))
    a = pt.dmatrix("a")
    q, r, p = arignote.function([a], list(la.qr(a, mode="economic", pivoting=True)))(low_rank)
    assert p.dtype == np.int32 and sorted(p) == [0, 1, 2, 3]
    np.testing.assert_allclose(q @ r, low_rank[:, p], atol=1e-12)
    diagonal = np.abs(np.diag(r))
    assert np.all(np.diff(diagonal) <= 1e-12) and diagonal[2] < 1e-12 < diagonal[1]
    with pytest.raises(ValueError, match="raw"):
        la.qr(a, mode="raw", pivoting=True)
