"""Native linear solvers and LU factorisations: values against SciPy/NumPy (on batched,
non-square right-hand sides, real and complex), the errors and warnings of ``perform``, and
no object-mode node."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

import arignote
import arignote.tensor as pt
from arignote.link.jit import JITRunner
from arignote.tensor import linalg as la

numba_backend = pytest.importorskip("arignote.link.numba")


def _native(inputs, outputs, solvers_only=False):
    """A NUMBA function whose every node (``solvers_only``: every solver node) is native."""
    fn = arignote.function(inputs, outputs, mode="NUMBA", on_unused_input="ignore")
    assert isinstance(fn.runner, JITRunner)
    fallbacks = fn.runner.fallbacks
    if solvers_only:  # the Hermitian matrix is built by an einsum, complex Cholesky by NumPy
        fallbacks = {n: why for n, why in fallbacks.items() if why.key not in _HELPERS}
    assert fallbacks == {}, numba_backend.native_report(fn.runner)
    return fn


_HELPERS = {"Einsum", "Cholesky"}


def _check(got, expected, rtol=1e-10):
    for g, e in zip(got, expected, strict=True):
        e = np.asarray(e)
        assert g.dtype == e.dtype and g.shape == e.shape, (g.dtype, e.dtype, g.shape, e.shape)
        np.testing.assert_allclose(g, e, rtol=rtol, atol=rtol)


def _spd(rng, n, dtype=float):
    m = rng.normal(size=(n, n)).astype(dtype)
    if np.dtype(dtype).kind == "c":
        m = m + 1j * rng.normal(size=(n, n))
    return m @ m.conj().T + n * np.eye(n)


def test_solvers_match_scipy_on_batched_systems(rng):
    a, b, t = pt.dtensor3("a"), pt.dtensor3("b"), pt.dmatrix("t")
    outputs = [
        la.solve(a, b),
        la.solve(a, b, assume_a="pos"),
        la.solve(a, b, assume_a="sym", lower=True),
        la.solve(t, b[0], transposed=True),
        *(la.solve_triangular(t, b[1], trans=k, lower=k != 1) for k in range(3)),
        la.solve_triangular(t, b[0], unit_diagonal=True),
        la.cho_solve((la.cholesky(t), True), b[0]),
        la.cho_solve((la.cholesky(t, lower=False), False), b[1]),
    ]
    fn = _native([a, b, t], outputs)
    av = np.stack([_spd(rng, 4), _spd(rng, 4)])
    av[1, 0, 3] += 0.5  # the "sym" solve reads the lower triangle only
    bv, tv = rng.normal(size=(2, 4, 3)), _spd(rng, 4)
    sym = np.tril(av) + np.tril(av, -1).transpose(0, 2, 1)
    st = scipy.linalg.solve_triangular
    expected = [
        np.linalg.solve(av, bv),
        np.linalg.solve(av, bv),
        np.linalg.solve(sym, bv),
        np.linalg.solve(tv.T, bv[0]),
        *(st(tv, bv[1], trans=k, lower=k != 1) for k in range(3)),
        st(tv, bv[0], unit_diagonal=True),
        np.linalg.solve(tv, bv[0]),
        np.linalg.solve(tv, bv[1]),
    ]
    expected[1] = np.stack([scipy.linalg.solve(m, v, assume_a="pos") for m, v in zip(av, bv)])
    _check(fn(av, bv, tv), expected)


def test_lu_family_matches_scipy(rng):
    a, b = pt.dmatrix("a"), pt.dmatrix("b")
    packed, piv = la.lu_factor(a)
    outputs = [
        *la.lu(a),
        *la.lu(a, p_indices=True),
        *la.lu(a, permute_l=True),
        packed,
        piv,
        la.lu_solve((packed, piv), b),
        la.lu_solve((packed, piv), b, trans=1),
        la.pivot_to_permutation(piv),
        la.pivot_to_permutation(piv, inverse=True),
        *la.lstsq(a[:, :3], b, rcond=None),
    ]
    fn = _native([a, b], outputs)
    av, bv = rng.normal(size=(5, 5)), rng.normal(size=(5, 2))
    lu_piv = scipy.linalg.lu_factor(av)
    order = np.arange(5)
    for i, j in enumerate(lu_piv[1]):
        order[i], order[j] = order[j], order[i]
    x, res, rank, sv = np.linalg.lstsq(av[:, :3], bv, rcond=None)
    expected = [
        *scipy.linalg.lu(av),
        *scipy.linalg.lu(av, p_indices=True),
        *scipy.linalg.lu(av, permute_l=True),
        *lu_piv,
        scipy.linalg.lu_solve(lu_piv, bv),
        scipy.linalg.lu_solve(lu_piv, bv, trans=1),
        np.argsort(order).astype(np.int32),
        order.astype(np.int32),
        x,
        res,
        np.int32(rank),
        sv,
    ]
    got = fn(av, bv)
    assert not np.array_equal(lu_piv[1], np.arange(5))  # rows were swapped
    _check(got, expected)


@pytest.mark.slow
def test_complex_solvers_match_scipy(rng):
    a, b = pt.zmatrix("a"), pt.zmatrix("b")
    outputs = [
        la.solve(a, b),
        la.solve(a, b, assume_a="her"),
        la.solve(a, b, assume_a="pos"),
        la.solve_triangular(a, b, trans=2, lower=True),
        la.cho_solve((la.cholesky(a), True), b),
        *la.lu(a),
    ]
    fn = _native([a, b], outputs, solvers_only=True)
    av, bv = _spd(rng, 4, complex), rng.normal(size=(4, 3)) + 1j * rng.normal(size=(4, 3))
    expected = [
        np.linalg.solve(av, bv),
        scipy.linalg.solve(av, bv, assume_a="her"),
        scipy.linalg.solve(av, bv, assume_a="pos"),
        scipy.linalg.solve_triangular(av, bv, trans=2, lower=True),
        scipy.linalg.cho_solve((np.linalg.cholesky(av), True), bv),
        *scipy.linalg.lu(av),
    ]
    expected[-3] = expected[-3].astype(complex)  # the op's P has the input's dtype
    _check(fn(av, bv), expected)


@pytest.mark.slow
def test_solver_errors_and_warnings_are_scipys(rng):
    a, b = pt.dmatrix("a"), pt.dmatrix("b")
    gen, pos, sym = (_native([a, b], [la.solve(a, b, assume_a=k)]) for k in ("gen", "pos", "sym"))
    tri = _native([a, b], [la.solve_triangular(a, b, lower=True)])
    factor = _native([a], [la.lu_factor(a)[0]])
    singular, bv = np.ones((3, 3)), rng.normal(size=(3, 2))
    for fn in (gen, pos, sym):
        with pytest.raises(np.linalg.LinAlgError):
            fn(singular, bv)
    with pytest.raises(np.linalg.LinAlgError):
        pos(-np.eye(3), bv)  # not positive definite
    with pytest.raises(ValueError, match="infs or NaNs"):
        sym(np.full((3, 3), np.nan), bv)
    with pytest.raises(ValueError):
        gen(np.eye(3), rng.normal(size=(4, 2)))
    with pytest.warns(scipy.linalg.LinAlgWarning):
        pos(np.diag([1.0, 1.0, 1e-18]), bv)
    # a triangular solve does not refuse a zero on the diagonal (perform's BLAS trsm, as
    # PyTensor): the rows it reaches are inf/nan
    [x] = tri(np.diag([1.0, 0.0, 1.0]), bv)
    np.testing.assert_array_equal(x[0], bv[0])
    assert not np.isfinite(x[1]).any()
    rank2 = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 1.0]])
    with pytest.warns(scipy.linalg.LinAlgWarning, match="Diagonal number 3"):
        [packed] = factor(rank2)
    with pytest.warns(scipy.linalg.LinAlgWarning):
        expected = scipy.linalg.lu_factor(rank2)[0]
    np.testing.assert_allclose(packed, expected)


def test_qr_complete_raw_and_hermitian_pinv_match_numpy(rng):
    x, h = pt.dmatrix("x"), pt.dmatrix("h")
    outputs = [*la.qr(x, mode="complete"), *la.qr(x, mode="raw"), la.pinv(h, hermitian=True)]
    fn = _native([x, h], outputs)
    w = np.array([3.0, -2.0, 1e-20, 0.5])  # one value under the cutoff, one negative
    v = np.linalg.qr(rng.normal(size=(4, 4)))[0]
    hv = (v * w) @ v.T
    for shape in [(5, 3), (3, 5), (4, 4)]:
        value = rng.normal(size=shape)
        qr = [*np.linalg.qr(value, mode="complete"), *np.linalg.qr(value, "raw")]
        _check(fn(value, hv), [*qr, np.linalg.pinv(hv, hermitian=True)])


@pytest.mark.slow
def test_expm_matches_scipy_with_and_without_scaling(rng):
    x = pt.dtensor3("x")
    fn = _native([x], [la.expm(x)])
    value = np.stack([rng.normal(size=(4, 4)) * 0.1, rng.normal(size=(4, 4)) * 4])
    _check(fn(value), [scipy.linalg.expm(value)], rtol=1e-12)
    with pytest.raises(ValueError):
        fn(rng.normal(size=(2, 3, 4)))
