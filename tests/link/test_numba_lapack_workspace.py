"""LAPACK workspace queries in native code (``dispatch/lapack.py``): the length a query
answers is read rounded up, an answer a routine never wrote reads as 1 (not as stale memory),
and the integer width of NumPy's bundled LAPACK is probed, not guessed.

Regression: ``Eigvalsh`` of float32 raised ``MemoryError`` natively because the real
``?syevd`` writes no ``rwork`` length, and the uninitialised one-element answer was read as
the length of a workspace to allocate. Freed small buffers holding a huge float32 make the
allocator hand such stale memory to the next small arrays, which reproduced it every time.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

import arignote
import arignote.tensor as pt
from arignote.tensor.linalg.generalized_eigen import Eigvalsh

numba = pytest.importorskip("numba")
lapack = pytest.importorskip("arignote.link.numba.dispatch.lapack")
eigen = pytest.importorskip("arignote.link.numba.dispatch.linalg_eigen")


@numba.njit
def _stale(count, value):
    """``count`` small float32 buffers holding ``value``, all freed on return."""
    buffers = [np.full(1, value, np.float32) for _ in range(count)]
    return len(buffers)


def _after_stale_memory(kernel):
    @numba.njit
    def run(*args):
        _stale(32, np.float32(1e12))
        return kernel(*args)

    return run


def test_eigenvalues_of_float32_read_no_stale_workspace_length():
    a = np.random.default_rng(0).normal(size=(5, 5)).astype("float32")
    a = a + a.T
    run = _after_stale_memory(eigen.eigh_function("float32", False))
    for _ in range(3):  # the stale buffers are reused from the second call on
        w = run(a, lapack.L)[0]
        np.testing.assert_allclose(w, np.linalg.eigvalsh(a.astype("float64")), rtol=1e-4)


def test_pencil_of_float32_reads_no_stale_workspace_length():
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=(2, 4, 4)).astype("float32")
    a, b = a + a.T, b @ b.T + 4 * np.eye(4, dtype="float32")
    run = _after_stale_memory(eigen.eigh_pencil("float32", False))
    for _ in range(3):
        w = run(a, b, lapack.L)[0]
        np.testing.assert_allclose(w, scipy.linalg.eigh(a, b, eigvals_only=True), rtol=1e-4)


def test_native_eigvalsh_float32_matches_scipy():
    x = pt.matrix("x", dtype="float32")
    fn = arignote.function([x], Eigvalsh()(x), mode="NUMBA")
    assert fn.runner.fallbacks == {}
    a = np.random.default_rng(2).normal(size=(6, 6)).astype("float32")
    a = a + a.T
    got = fn(a)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, scipy.linalg.eigvalsh(a), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    ("answer", "dtype", "expected"),
    [
        (7.0, "float64", 7),
        (6.25, "float64", 7),  # rounded up, never down
        (0.0, "float64", 1),  # nothing written: one element
        (-3.0, "float32", 1),
        (np.nan, "float32", 1),
        (3.0 + 0.0j, "complex64", 3),
    ],
)
def test_work_size_rounds_up(answer, dtype, expected):
    assert lapack.work_size(np.array([answer], dtype)) == expected


def test_work_size_of_float32_beyond_exact_integers_has_a_margin():
    # 2**24 + 1 is not a float32: an old LAPACK rounding to nearest answers 2**24
    answer = np.array([2.0**24 + 1], np.float32)
    assert answer[0] == 2.0**24
    assert 2**24 + 1 <= lapack.work_size(answer) <= 2**24 + 8


def test_query_workspace_answers_and_checks_info():
    geqrf = lapack.lapack_for("geqrf", "float64")  # SciPy's: 32-bit integers
    m, n = 7, 5

    @numba.njit
    def query(lda):
        a, tau, info = np.zeros((n, m)).T, np.zeros(n), lapack.ints(0)
        mm, nn, ld = lapack.ints(m), lapack.ints(n), lapack.ints(lda)
        head = (mm.ctypes, nn.ctypes, a.ctypes, ld.ctypes, tau.ctypes)
        return lapack.query_workspace(geqrf, head, (), info, np.float64, np.int32)

    assert query(m).size >= n  # ?geqrf needs at least n
    with pytest.raises(ValueError, match="illegal value"):
        query(1)  # a leading dimension below m: LAPACK refuses argument 4


def test_integer_width_is_probed():
    assert lapack.integer_width(lapack.routine("dgeqrf")) is np.int32  # SciPy's Cython LAPACK
    found = lapack._numpy_library()
    if found is None:
        pytest.skip("NumPy's wheel ships no OpenBLAS here")
    library, prefix, suffix, itype = found
    # a NumPy wheel's OpenBLAS names its 64-bit integer symbols with "64_"
    assert itype is (np.int64 if "64" in suffix else np.int32)
