"""Native kernels of ``Det``, ``SlogDet`` and ``MatrixInverse`` through NumPy's own LAPACK
(:mod:`.lapack`): ``?getrf`` for the determinants and ``?gesv`` against the identity for the
inverse, exactly the routines ``numpy.linalg`` calls, in double precision whatever the input's
(NumPy's ``_commonType``), then cast.

numba's ``np.linalg`` wrappers refuse infinities and NaNs with a ``LinAlgError``, where NumPy
hands them to LAPACK and returns what it computes (NaN entries, mostly): calling LAPACK
directly gives NumPy's values for such inputs too. Errors as in ``perform``: a non-square
input raises ``ValueError``; an exactly singular matrix (a zero pivot, LAPACK's ``info > 0``)
gives a zero determinant (``SlogDet``: sign 0 and ``-inf``) and makes ``MatrixInverse`` raise
``np.linalg.LinAlgError("Singular matrix")``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np

from arignote.graph.basic import Apply
from arignote.link.numba.dispatch.basic import compile_source, numba_funcify
from arignote.link.numba.dispatch.lapack import (
    PREFIX,
    _jit,
    check_argument,
    fortran,
    integer,
    numpy_routine,
)
from arignote.link.numba.dispatch.linalg import _batched, _out, _real_floats
from arignote.tensor.linalg.inverse import Det, MatrixInverse, SlogDet


@cache
def _factor() -> Callable:
    """``(lu, piv, info)`` of one square matrix: ``?getrf`` on a float64 copy."""
    getrf, it = numpy_routine("dgetrf", 0)

    @_jit
    def factor(a):
        n = a.shape[0]
        f, piv = fortran(a, np.float64), np.zeros(max(1, n), it)
        nn, ld, info = integer(n, it), integer(max(1, n), it), integer(0, it)
        getrf(nn.ctypes, nn.ctypes, f.ctypes, ld.ctypes, piv.ctypes, info.ctypes)
        check_argument(info[0])
        return f, piv, info[0]

    return factor


@cache
def slogdet_function() -> Callable:
    """NumPy's ``slogdet`` of one square matrix: the sign from the row swaps and the signs
    of ``U``'s diagonal, the log of the product of its absolute values as a sum of logs."""
    factor = _factor()

    @_jit
    def slogdet(a):
        if a.shape[0] == 0:
            return 1.0, 0.0
        f, piv, info = factor(a)
        if info > 0:  # an exactly zero pivot: singular
            return 0.0, -np.inf
        sign, logdet = 1.0, 0.0
        for i in range(a.shape[0]):
            if piv[i] != i + 1:  # LAPACK's pivots count from 1
                sign = -sign
            d = f[i, i]
            if d < 0:
                sign, d = -sign, -d
            logdet += np.log(d)
        return sign, logdet

    return slogdet


@cache
def solve_function(dtype: str) -> Callable:
    """NumPy's ``solve(a, b)`` of one system in ``dtype`` (its double precision: ``float64``
    or ``complex128``): ``?gesv`` on Fortran-ordered copies, ``x`` returned C-contiguous."""
    gesv, it = numpy_routine(PREFIX[dtype] + "gesv", 0)
    kind = np.dtype(dtype).type

    @_jit
    def solve(a, b):
        n, k = b.shape
        f, x, piv = fortran(a, kind), fortran(b, kind), np.zeros(max(1, n), it)
        nn, nk, ld, info = integer(n, it), integer(k, it), integer(max(1, n), it), integer(0, it)
        if n == 0 or k == 0:
            return np.ascontiguousarray(x)
        gesv(
            nn.ctypes, nk.ctypes, f.ctypes, ld.ctypes, piv.ctypes, x.ctypes, ld.ctypes, info.ctypes
        )
        check_argument(info[0])
        if info[0] > 0:
            raise np.linalg.LinAlgError("Singular matrix")
        return np.ascontiguousarray(x)

    return solve


@cache
def inverse_function() -> Callable:
    """NumPy's ``inv`` of one square matrix: ``?gesv`` with the identity as right-hand side."""
    solve = solve_function("float64")

    @_jit
    def inverse(a):
        return solve(a, np.eye(a.shape[0]))

    return inverse


def double(dtype: str) -> str:
    """The dtype ``numpy.linalg`` computes in for ``dtype``: its double precision."""
    return "complex128" if np.dtype(dtype).kind == "c" else "float64"


def _kernel(node: Apply, outs: list, call: list[str], function: Callable) -> Callable:
    _real_floats(node)
    return compile_source(_batched(node, outs, call, True), "kernel", {"lapack": function})


@numba_funcify.register(Det)
def _det(op: Det, node: Apply) -> Callable:
    # NumPy's det is sign * exp(logdet), not the product of the pivots
    call = ["sign, logdet = lapack(a)", "r0 = sign * np.exp(logdet)"]
    return _kernel(node, [("()", _out(node))], call, slogdet_function())


@numba_funcify.register(SlogDet)
def _slogdet(op: SlogDet, node: Apply) -> Callable:
    outs = [("()", _out(node, 0)), ("()", _out(node, 1))]
    return _kernel(node, outs, ["r0, r1 = lapack(a)"], slogdet_function())


@numba_funcify.register(MatrixInverse)
def _inv(op: MatrixInverse, node: Apply) -> Callable:
    return _kernel(node, [("(m, n)", _out(node))], ["r0 = lapack(a)"], inverse_function())
