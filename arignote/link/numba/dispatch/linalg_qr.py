"""NumPy's QR factorisation in native code through NumPy's own LAPACK (:mod:`.lapack`):
``?geqrf`` then ``?orgqr``, in double precision, as ``numpy.linalg.qr`` does. numba's
``np.linalg.qr`` refuses infinities and NaN, which NumPy factors (NaN results): calling LAPACK
directly gives NumPy's values for them too.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np

from arignote.link.numba.dispatch.lapack import (
    _jit,
    check_argument,
    fortran,
    fortran_empty,
    integer,
    numpy_routine,
    with_workspace,
)


@cache
def _factors_function(complete: bool) -> Callable:
    """``(q, r)`` from the Householder form ``f, tau`` of an ``m x n`` matrix (``?orgqr``):
    ``Q`` of ``min(m, n)`` columns (``m`` when ``complete``), ``R`` the upper triangle of the
    first rows of ``f``."""
    orgqr, it = numpy_routine("dorgqr", 0)

    @_jit
    def factors(f, tau, m, n):
        k = min(m, n)
        cols = m if complete else k
        r = np.triu(np.ascontiguousarray(f[:cols, :]))
        q = fortran_empty(m, cols, np.float64)
        q[:, :] = 0.0
        q[:, : min(n, cols)] = f[:, : min(n, cols)]
        info, ld = integer(0, it), integer(max(1, m), it)
        head = (integer(m, it).ctypes, integer(cols, it).ctypes, integer(k, it).ctypes)
        with_workspace(orgqr, (*head, q.ctypes, ld.ctypes, tau.ctypes), (), info, np.float64, it)
        check_argument(info[0])
        return np.ascontiguousarray(q), r

    return factors


@cache
def qr_function(complete: bool) -> Callable:
    """``(q, r)`` of one non-empty real matrix (see :func:`_factors_function`) by
    ``?geqrf``."""
    geqrf, it = numpy_routine("dgeqrf", 0)
    factors = _factors_function(complete)

    @_jit
    def qr(a):
        m, n = a.shape
        f, tau = fortran(a, np.float64), np.zeros(max(1, min(m, n)))
        mm, nn, ld, info = integer(m, it), integer(n, it), integer(max(1, m), it), integer(0, it)
        head = (mm.ctypes, nn.ctypes, f.ctypes, ld.ctypes, tau.ctypes)
        with_workspace(geqrf, head, (), info, np.float64, it)
        check_argument(info[0])
        return factors(f, tau, m, n)

    return qr


@cache
def pivoted_qr_function(complete: bool) -> Callable:
    """``(q, r, p)`` of one non-empty real matrix, as ``scipy.linalg.qr(pivoting=True)``:
    ``?geqp3`` (columns chosen by decreasing norm, all free) then the factors of
    :func:`_factors_function`; ``p`` the 0-based column order."""
    geqp3, it = numpy_routine("dgeqp3", 0)
    factors = _factors_function(complete)

    @_jit
    def qr(a):
        m, n = a.shape
        f, tau = fortran(a, np.float64), np.zeros(max(1, min(m, n)))
        columns = np.zeros(max(1, n), dtype=it)  # 0: every column is free to move
        mm, nn, ld, info = integer(m, it), integer(n, it), integer(max(1, m), it), integer(0, it)
        head = (mm.ctypes, nn.ctypes, f.ctypes, ld.ctypes, columns.ctypes, tau.ctypes)
        with_workspace(geqp3, head, (), info, np.float64, it)
        check_argument(info[0])
        q, r = factors(f, tau, m, n)
        return q, r, (columns[:n] - 1).astype(np.int32)

    return qr
