"""Native kernels of the tridiagonal LU: ``LUFactorTridiagonal`` (LAPACK's ``?gttrf``) and
``SolveLUFactorTridiagonal`` (``?gttrs``), called as ``perform`` calls them through SciPy
(:mod:`.lapack`): the same pivots (1-based, as LAPACK gives them), factors and errors
(``ValueError`` for diagonals of inconsistent lengths or fewer than two rows).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np

from arignote.graph.basic import Apply
from arignote.link.numba.dispatch.basic import compile_source, numba_funcify
from arignote.link.numba.dispatch.lapack import (
    N,
    T,
    _jit,
    check_argument,
    flag,
    fortran,
    ints,
    lapack_for,
)
from arignote.tensor.linalg.tridiagonal import LUFactorTridiagonal, SolveLUFactorTridiagonal


@_jit
def _check_lengths(dl, d, du):
    if d < 2 or dl != d - 1 or du != d - 1:
        raise ValueError(
            "the diagonals of an n x n tridiagonal matrix (n >= 2) have lengths n - 1, n, n - 1"
        )


@cache
def gttrf_function(dtype: str) -> Callable:
    """``(dl, d, du, du2, ipiv)`` of ``?gttrf`` on copies of the diagonals, in ``dtype``."""
    gttrf, kind = lapack_for("gttrf", dtype), np.dtype(dtype).type

    @_jit
    def factor(dl, d, du):
        _check_lengths(dl.shape[0], d.shape[0], du.shape[0])
        n = d.shape[0]
        dl, d, du = dl.astype(kind), d.astype(kind), du.astype(kind)  # copies: overwritten
        du2, ipiv, info = np.zeros(n - 2, kind), np.empty(n, np.int32), ints(0)
        gttrf(ints(n).ctypes, dl.ctypes, d.ctypes, du.ctypes, du2.ctypes, ipiv.ctypes, info.ctypes)
        check_argument(info[0])  # a zero pivot (info > 0) is left to the solve, as perform does
        return dl, d, du, du2, ipiv

    return factor


@cache
def gttrs_function(dtype: str) -> Callable:
    """``x`` with ``op(A) x = b`` (``b`` a matrix) from ``?gttrf``'s factors, in ``dtype``."""
    gttrs, kind = lapack_for("gttrs", dtype), np.dtype(dtype).type

    @_jit
    def solve(dl, d, du, du2, ipiv, b, trans):
        n = d.shape[0]
        _check_lengths(dl.shape[0], n, du.shape[0])
        if du2.shape[0] != max(n - 2, 0) or ipiv.shape[0] != n or b.shape[0] != n:
            raise ValueError("the factors and the rows of b do not fit one matrix")
        x = fortran(b, kind)
        if x.size == 0:  # no right-hand side: LAPACK is not called
            return x
        dl, d, du, du2 = dl.astype(kind), d.astype(kind), du.astype(kind), du2.astype(kind)
        piv, info = ipiv.astype(np.int32), ints(0)
        gttrs(
            flag(trans).ctypes,
            ints(n).ctypes,
            ints(b.shape[1]).ctypes,
            dl.ctypes,
            d.ctypes,
            du.ctypes,
            du2.ctypes,
            piv.ctypes,
            x.ctypes,
            ints(n).ctypes,
            info.ctypes,
        )
        check_argument(info[0])
        return x

    return solve


@numba_funcify.register(LUFactorTridiagonal)
def _factor(op: LUFactorTridiagonal, node: Apply) -> Callable:
    source = "def kernel(dl, d, du):\n    return factor(dl, d, du)\n"
    namespace = {"factor": gttrf_function(node.outputs[0].type.dtype)}
    return compile_source(source, "kernel", namespace)


@numba_funcify.register(SolveLUFactorTridiagonal)
def _solve(op: SolveLUFactorTridiagonal, node: Apply) -> Callable:
    dtype = node.outputs[0].type.dtype
    trans = T if op.transposed else N
    rhs = "b" if op.b_ndim == 2 else "np.ascontiguousarray(b).reshape((b.shape[0], 1))"
    result = "np.ascontiguousarray(x)" if op.b_ndim == 2 else "x[:, 0].copy()"
    source = (
        "def kernel(dl, d, du, du2, ipiv, b):\n"
        f"    x = solve(dl, d, du, du2, ipiv, {rhs}, {trans})\n"
        f"    return {result}\n"
    )
    return compile_source(source, "kernel", {"solve": gttrs_function(dtype)})
