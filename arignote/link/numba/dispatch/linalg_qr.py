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
def qr_function(complete: bool) -> Callable:
    """``(q, r)`` of one non-empty real matrix: ``Q`` of ``min(m, n)`` columns (``m`` when
    ``complete``) and ``R`` the upper triangle of the first rows of ``?geqrf``'s result."""
    geqrf, it = numpy_routine("dgeqrf", 0)
    orgqr, _ = numpy_routine("dorgqr", 0)

    @_jit
    def qr(a):
        m, n = a.shape
        k = min(m, n)
        f, tau = fortran(a, np.float64), np.zeros(max(1, k))
        mm, nn, kk, ld = integer(m, it), integer(n, it), integer(k, it), integer(max(1, m), it)
        info = integer(0, it)
        with_workspace(
            geqrf, (mm.ctypes, nn.ctypes, f.ctypes, ld.ctypes, tau.ctypes), (), info, np.float64, it
        )
        check_argument(info[0])
        cols = m if complete else k
        r = np.triu(np.ascontiguousarray(f[:cols, :]))
        q = fortran_empty(m, cols, np.float64)
        q[:, :] = 0.0
        q[:, : min(n, cols)] = f[:, : min(n, cols)]
        head = (mm.ctypes, integer(cols, it).ctypes, kk.ctypes, q.ctypes, ld.ctypes, tau.ctypes)
        with_workspace(orgqr, head, (), info, np.float64, it)
        check_argument(info[0])
        return np.ascontiguousarray(q), r

    return qr


@cache
def pivoted_qr_function(complete: bool) -> Callable:
    """``(q, r, p)`` of one non-empty real matrix, as ``scipy.linalg.qr(pivoting=True)``:
    ``?geqp3`` (columns chosen by decreasing norm, all free) then ``?orgqr``; ``p`` the 0-based
    column order."""
    geqp3, it = numpy_routine("dgeqp3", 0)
    orgqr, _ = numpy_routine("dorgqr", 0)

    @_jit
    def qr(a):
        m, n = a.shape
        k = min(m, n)
        f, tau = fortran(a, np.float64), np.zeros(max(1, k))
        columns = np.zeros(max(1, n), dtype=it)  # 0: every column is free to move
        mm, nn, kk, ld = integer(m, it), integer(n, it), integer(k, it), integer(max(1, m), it)
        info = integer(0, it)
        head = (mm.ctypes, nn.ctypes, f.ctypes, ld.ctypes, columns.ctypes, tau.ctypes)
        with_workspace(geqp3, head, (), info, np.float64, it)
        check_argument(info[0])
        cols = m if complete else k
        r = np.triu(np.ascontiguousarray(f[:cols, :]))
        q = fortran_empty(m, cols, np.float64)
        q[:, :] = 0.0
        q[:, : min(n, cols)] = f[:, : min(n, cols)]
        head = (mm.ctypes, integer(cols, it).ctypes, kk.ctypes, q.ctypes, ld.ctypes, tau.ctypes)
        with_workspace(orgqr, head, (), info, np.float64, it)
        check_argument(info[0])
        return np.ascontiguousarray(q), r, (columns[:n] - 1).astype(np.int32)

    return qr
