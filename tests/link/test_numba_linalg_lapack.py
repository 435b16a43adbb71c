"""Native kernels calling LAPACK through ctypes (``dispatch/lapack.py``): eigenvalue problems,
Schur and QZ decompositions (sorted too), the discrete Riccati equation and the tridiagonal
LU, in NUMBA mode against ``perform`` on the Python VM: the same arrays (eigenvectors and
Schur vectors with the same signs and order, since the same LAPACK drivers run), the same
dtypes, the same errors, and no object-mode node.

Numba compiles each LAPACK wrapper once per dtype and process, slowly: the default run covers
float64 (and float32 where it shares double-precision code with float64, as NumPy's ``eig``
and ``eigh`` do); the other dtypes and the Riccati solver are slow-marked.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
import scipy.linalg

import arignote
import arignote.tensor as pt
from arignote.compile.mode import Mode
from arignote.tensor import linalg as la

numba_backend = pytest.importorskip("arignote.link.numba")

VM = Mode(linker="py")


def _functions(inputs, outputs):
    """The NUMBA function (every node native) and the VM function of one graph."""
    native = arignote.function(inputs, outputs, mode="NUMBA")
    assert native.runner.fallbacks == {}, numba_backend.native_report(native.runner)
    return native, arignote.function(inputs, outputs, mode=VM)


def check_same(functions, values, rtol):
    """Both functions' outputs agree in dtype, shape and value; returns the native ones."""
    native, vm = functions
    got, expected = native(*values), vm(*values)
    for g, e in zip(got, expected, strict=True):
        assert g.dtype == e.dtype and g.shape == e.shape, (g.dtype, e.dtype, g.shape, e.shape)
        np.testing.assert_allclose(g, e, rtol=rtol, atol=rtol)
    return got


def _tolerance(dtype):
    return 1e-4 if dtype in ("float32", "complex64") else 1e-10


def _random(rng, shape, dtype):
    x = rng.normal(size=shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.normal(size=shape)
    return x.astype(dtype)


# -- eig and eigh (NumPy) -------------------------------------------------------------------------


@cache  # one compilation per module run, shared by the tests
def _eig_graph(dtype):
    x = pt.tensor("x", dtype=dtype, shape=(None, None, None))
    outputs = [*la.eig(x), *la.eigh(x), *la.eigh(x, UPLO="U"), la.eigvalsh(x, UPLO="U")]
    return _functions([x], outputs)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_eig_and_eigh_match_numpy_on_stacks(rng, dtype):
    # NumPy computes float32 in double precision: both dtypes share the native code
    values = [_random(rng, (2, 5, 5), dtype)]  # not symmetric: eigh reads one triangle
    w, v, wl, vl, wu, vu, wu_only = check_same(_eig_graph(dtype), values, _tolerance(dtype))
    assert np.iscomplexobj(w) and np.abs(w.imag).max() > 0.1  # complex pairs were formed
    assert np.abs(wl - wu).max() > 1e-3  # the two triangles hold different matrices
    np.testing.assert_allclose(wu, wu_only, rtol=1e-5)


@pytest.mark.slow
@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_complex_eig_and_eigh_match_numpy(rng, dtype):
    values = [_random(rng, (2, 4, 4), dtype)]
    check_same(_eig_graph(dtype), values, _tolerance(dtype))


def test_eig_refuses_nans_as_numpy():
    bad = np.full((1, 2, 2), np.nan)
    for fn in _eig_graph("float64"):
        with pytest.raises(np.linalg.LinAlgError):
            fn(bad)


# -- the symmetric-definite pencil (SciPy) --------------------------------------------------------


@cache  # one compilation per module run, shared by the tests
def _pencil_graph(dtype, lower):
    a, b, da, db = (pt.tensor(n, dtype=dtype, shape=(None, None)) for n in ("a", "b", "da", "db"))
    gw = pt.dvector("gw")
    outputs = [
        la.Eigvalsh(lower)(a),
        la.Eigvalsh(lower)(a, b),
        *la.EigvalshGrad(lower)(a, b, gw),
        la.EigvalshTangent(lower)(a, b, da, db),
    ]
    return _functions([a, b, gw, da, db], outputs)


def _pencil_values(rng, dtype, n=4):
    m, q = _random(rng, (n, n), dtype), _random(rng, (n, n), dtype)
    a = m + m.conj().T
    a[0, n - 1] += 3.0  # the triangles disagree: only one is read
    b = q @ q.conj().T + n * np.eye(n, dtype=dtype)
    rest = [rng.normal(size=n), _random(rng, (n, n), dtype), _random(rng, (n, n), dtype)]
    return [a, b, *rest]


@pytest.mark.parametrize("lower", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_generalized_eigvalsh_family_matches_scipy(rng, lower):
    check_same(_pencil_graph("float64", lower), _pencil_values(rng, "float64"), 1e-10)


@pytest.mark.slow
@pytest.mark.parametrize("dtype", ["float32", "complex128"])
def test_generalized_eigvalsh_family_other_dtypes(rng, dtype):
    for lower in (True, False):
        check_same(_pencil_graph(dtype, lower), _pencil_values(rng, dtype), _tolerance(dtype))


def test_eigvalsh_of_an_indefinite_b_raises_as_scipy(rng):
    a, b, *rest = _pencil_values(rng, "float64")
    for fn in _pencil_graph("float64", False):
        with pytest.raises(np.linalg.LinAlgError):
            fn(a, -b, *rest)


# -- tridiagonal LU (?gttrf / ?gttrs) -------------------------------------------------------------


@cache  # one compilation per module run, shared by the tests
def _tridiagonal_graph(dtype):
    a = pt.tensor("a", dtype=dtype, shape=(None, None))
    b, c = (
        pt.tensor("b", dtype=dtype, shape=(None, None)),
        pt.tensor("c", dtype=dtype, shape=(None,)),
    )
    factors = la.tridiagonal_lu_factor(a)
    solves = [
        la.tridiagonal_lu_solve(factors, b, b_ndim=2),
        la.tridiagonal_lu_solve(factors, c, b_ndim=1, transposed=True),
    ]
    return _functions([a, b, c], [*factors, *solves])


def _check_tridiagonal(rng, dtype):
    n = 6
    a = np.triu(np.tril(_random(rng, (n, n), dtype), 1), -1) - 0.5 * np.eye(n, dtype=dtype)
    values = [a, _random(rng, (n, 3), dtype), _random(rng, (n,), dtype)]
    *_, ipiv, x, y = check_same(_tridiagonal_graph(dtype), values, _tolerance(dtype))
    assert (ipiv != np.arange(1, n + 1)).any()  # rows were swapped
    np.testing.assert_allclose(a @ x, values[1], atol=_tolerance(dtype) * 10)
    np.testing.assert_allclose(a.T @ y, values[2], atol=_tolerance(dtype) * 10)


def test_tridiagonal_lu_matches_lapack(rng):
    _check_tridiagonal(rng, "float64")


@pytest.mark.slow
@pytest.mark.parametrize("dtype", ["float32", "complex128", "complex64"])
def test_tridiagonal_lu_other_dtypes(rng, dtype):
    _check_tridiagonal(rng, dtype)


# -- Schur and QZ (SciPy), sorted ---------------------------------------------------------------

SCHUR_VARIANTS = [
    ("real", None),
    ("real", "lhp"),
    ("real", "iuc"),
    ("complex", "rhp"),
    ("complex", "ouc"),
]


@cache  # one compilation per module run, shared by the tests
def _schur_graph(dtype):
    a = pt.tensor("a", dtype=dtype, shape=(None, None))
    outputs = [out for o, s in SCHUR_VARIANTS for out in la.schur(a, output=o, sort=s)]
    return _functions([a], outputs)


_PREDICATES = {
    "lhp": lambda w: w.real < 0,
    "rhp": lambda w: w.real >= 0,
    "iuc": lambda w: np.abs(w) <= 1,
    "ouc": lambda w: np.abs(w) > 1,
}


def _check_schur(rng, dtype):
    a = _random(rng, (6, 6), dtype)
    got = check_same(_schur_graph(dtype), [a], _tolerance(dtype))
    for (_, sort), t, z in zip(SCHUR_VARIANTS, got[::2], got[1::2]):
        np.testing.assert_allclose(z @ t @ z.conj().T, a, atol=_tolerance(dtype) * 100)
        if sort is None:
            continue
        # the selected eigenvalues lead the diagonal (and both kinds occur)
        chosen = _PREDICATES[sort](scipy.linalg.eigvals(t))
        count = int(chosen.sum())
        assert 0 < count < 6 and chosen[:count].all(), (sort, chosen)


def test_schur_with_every_sort_matches_scipy():
    _check_schur(np.random.default_rng(3), "float64")


@pytest.mark.slow
@pytest.mark.parametrize("dtype", ["float32", "complex128", "complex64"])
def test_schur_other_dtypes(dtype):
    _check_schur(np.random.default_rng(3), dtype)


@cache  # one compilation per module run, shared by the tests
def _qz_graph(dtype):
    a, b = (pt.tensor(n, dtype=dtype, shape=(None, None)) for n in ("a", "b"))
    outputs = [
        *la.qz(a, b),
        *la.qz(a, b, output="complex"),
        *la.ordqz(a, b, sort="lhp"),
        *la.ordqz(a, b, sort="iuc", output="complex"),
        *la.qz(a, b, sort="ouc"),
    ]
    return _functions([a, b], outputs)


def _check_qz(rng, dtype):
    a, b = _random(rng, (5, 5), dtype), _random(rng, (5, 5), dtype)
    got = check_same(_qz_graph(dtype), [a, b], _tolerance(dtype))
    aa, bb, q, z = got[:4]
    np.testing.assert_allclose(q @ aa @ z.conj().T, a, atol=_tolerance(dtype) * 100)
    np.testing.assert_allclose(q @ bb @ z.conj().T, b, atol=_tolerance(dtype) * 100)
    alpha, beta = got[10:12]
    chosen = (alpha / beta).real < 0
    assert 0 < chosen.sum() < 5 and chosen[: chosen.sum()].all()


def test_qz_and_ordqz_match_scipy():
    _check_qz(np.random.default_rng(4), "float64")


@pytest.mark.slow
@pytest.mark.parametrize("dtype", ["float32", "complex128", "complex64"])
def test_qz_other_dtypes(dtype):
    _check_qz(np.random.default_rng(4), dtype)


def test_schur_refuses_infinities_as_scipy():
    for fn in _schur_graph("float64"):
        with pytest.raises(ValueError, match="infs or NaNs"):
            fn(np.array([[1.0, np.inf], [0.0, 1.0]]))


# -- the discrete algebraic Riccati equation ------------------------------------------------------


def _dare_values(rng, m, n, dtype, scale=1.0):
    q, r = rng.normal(size=(m, m)), rng.normal(size=(n, n))
    values = [
        0.8 * rng.normal(size=(m, m)),
        scale * rng.normal(size=(m, n)),
        q @ q.T + np.eye(m),
        r @ r.T + np.eye(n),
    ]
    return [v.astype(dtype) for v in values]


@pytest.mark.slow
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_solve_discrete_are_matches_scipy(rng, dtype):
    a, b, q, r = (pt.tensor(n, dtype=dtype, shape=(None, None)) for n in "abqr")
    functions = _functions([a, b, q, r], [la.SolveDiscreteARE()(a, b, q, r)])
    # the last case is badly scaled: the pencil is balanced there
    for m, n, scale in [(3, 2, 1.0), (4, 1, 1.0), (5, 3, 300.0)]:
        values = _dare_values(rng, m, n, dtype, scale)
        (x,) = check_same(functions, values, 1e-4 if dtype == "float32" else 1e-8)
        av, bv, qv, rv = (v.astype("float64") for v in values)
        gain = np.linalg.solve(rv + bv.T @ x @ bv, bv.T @ x @ av)
        residual = av.T @ x @ av - x - av.T @ x @ bv @ gain + qv
        assert np.abs(residual).max() < (1e-3 if dtype == "float32" else 1e-8) * np.abs(x).max()
    asymmetric = _dare_values(rng, 3, 2, dtype)
    asymmetric[2][0, 1] += 1.0
    for fn in functions:
        with pytest.raises(ValueError, match="symmetric"):
            fn(*asymmetric)
