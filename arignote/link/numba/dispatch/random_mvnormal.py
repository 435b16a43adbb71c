"""Native ``multivariate_normal`` draws (``arignote/tensor/random/multivariate.py``), NumPy's
numbers bit for bit.

``Generator.multivariate_normal(mean, cov, size)`` (NumPy 2.4) draws ``M x k`` standard normals
(``M`` the number of draws), factors ``cov`` as ``A`` with ``A @ A.T == cov`` with its own
LAPACK (``svd``: ``u * sqrt(s)`` from ``?gesdd``; ``eigh``: ``u * sqrt(|s|)`` from ``?syevd``;
``cholesky``: the lower factor of ``?potrf``), and returns ``mean + x @ A.T``, which its
``matmul`` computes with its own BLAS: ``cblas_dgemm`` (row-major, ``A.T`` as a transposed
operand) for ``M > 1``, ``cblas_dgemv`` for one draw, and a plain product for ``k == 1``. The
kernel makes the same calls in NumPy's bundled OpenBLAS (``dispatch/lapack.py`` binds it), so
the factors and products are NumPy's to the last bit, and draws the normals with numba's port
of NumPy's ziggurat, which consumes the bit generator exactly as NumPy does.

``perform`` calls NumPy once (with ``size``) when no parameter has batch dimensions, else once
per batch entry in C order (one draw each, ``draw_batched``): the kernel does the same. Every
factor is computed before the first draw; a matrix that is not finite, that LAPACK cannot
factor, or whose positive-semidefiniteness NumPy's check might doubt (the ``svd`` check is
repeated with a margin for the order of summation), goes to ``perform``, which raises or warns
as on the VM.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from functools import cache

import numpy as np

import numba
from arignote.graph.basic import Apply
from arignote.link.numba.dispatch.basic import NotNative, numba_funcify
from arignote.link.numba.dispatch.lapack import (
    L,
    fortran,
    fortran_empty,
    integer,
    numpy_cblas,
    numpy_routine,
    work_size,
)
from arignote.link.numba.dispatch.linalg_eigen import eigh_function
from arignote.link.numba.dispatch.random_vector import _BatchWriter, _compile
from arignote.tensor.random.multivariate import MvNormalRV
from numba.np.random.distributions import random_standard_normal

_jit = numba.njit(error_model="numpy", cache=False)

#: CBLAS's enumerations.
_ROW_MAJOR, _COL_MAJOR, _NO_TRANS, _TRANS = 101, 102, 111, 112
_EPS = float(np.finfo(np.float64).eps)
_A = ord("A")

_double, _pointer = ctypes.c_double, ctypes.c_void_p


@cache
def _blas() -> tuple[Callable, Callable]:
    """NumPy's ``cblas_dgemm`` and ``cblas_dgemv``; raises ``NotNative`` without them."""
    flag = ctypes.c_int
    gemm = numpy_cblas(
        "dgemm",
        None,
        *(flag, flag, flag, "int", "int", "int", _double, _pointer, "int"),
        *(_pointer, "int", _double, _pointer, "int"),
    )
    gemv = numpy_cblas(
        "dgemv",
        None,
        *(flag, flag, "int", "int", _double, _pointer, "int", _pointer, "int"),
        *(_double, _pointer, "int"),
    )
    if gemm is None or gemv is None:
        raise NotNative("MvNormalRV", "NumPy's bundled CBLAS (dgemm, dgemv) was not found")
    return gemm[0], gemv[0]


# -- the factor A (C-ordered, A @ A.T == cov) ------------------------------------------------


@cache
def _svd_factor() -> Callable:
    gesdd, it = numpy_routine("dgesdd", 1)

    @_jit
    def factor(cov, out, check, tol):
        """``u * sqrt(s)`` of NumPy's ``svd(cov)`` (``?gesdd``, every vector); False when
        LAPACK fails or NumPy's positive-semidefiniteness check might fail."""
        k = cov.shape[0]
        a, s = fortran(cov, np.float64), np.empty(k)
        u, vt = fortran_empty(k, k, np.float64), fortran_empty(k, k, np.float64)
        kk, ld, job = integer(k, it), integer(max(1, k), it), np.full(1, _A, np.uint8)
        iwork, info, work = np.empty(8 * k, it), integer(0, it), np.empty(1)
        for lwork in (-1, 0):  # a workspace query, then the call
            if lwork == 0:
                work = np.empty(work_size(work))
            lw = integer(lwork or work.size, it)
            gesdd(
                job.ctypes,
                kk.ctypes,
                kk.ctypes,
                a.ctypes,
                ld.ctypes,
                s.ctypes,
                u.ctypes,
                ld.ctypes,
                vt.ctypes,
                ld.ctypes,
                work.ctypes,
                lw.ctypes,
                iwork.ctypes,
                info.ctypes,
            )
        if info[0] != 0 or (check and not _surely_psd(cov, s, vt, tol)):
            return False
        root = np.sqrt(s)
        for i in range(k):
            for j in range(k):
                out[i, j] = u[i, j] * root[j]
        return True

    return factor


@_jit
def _surely_psd(cov, s, vt, tol):
    """NumPy's check ``allclose((vh.T * s) @ vh, cov, rtol=tol, atol=tol)``, answered True
    only when it holds with a margin covering another order of summation."""
    k = cov.shape[0]
    for i in range(k):
        for j in range(k):
            total, size = 0.0, 0.0
            for m in range(k):
                term = vt[m, i] * s[m] * vt[m, j]
                total += term
                size += abs(term)
            slack = (4 * k + 8) * _EPS * size
            if not (abs(total - cov[i, j]) + slack <= tol + tol * abs(cov[i, j])):
                return False
    return True


@cache
def _eigh_factor() -> Callable:
    eigh = eigh_function("float64", True)

    @_jit
    def factor(cov, out, check, tol):
        """``u * sqrt(|s|)`` of NumPy's ``eigh(cov)`` (``?syevd``, lower triangle); False
        when an eigenvalue is below ``-tol`` and the check is on."""
        s, u = eigh(cov.astype(np.float64), L)
        if check and np.any(s < -tol):
            return False
        root = np.sqrt(np.abs(s))
        for i in range(s.shape[0]):
            for j in range(s.shape[0]):
                out[i, j] = u[i, j] * root[j]
        return True

    return factor


@cache
def _cholesky_factor() -> Callable:
    potrf, it = numpy_routine("dpotrf", 1)

    @_jit
    def factor(cov, out, check, tol):
        """The lower factor of NumPy's ``cholesky(cov)`` (``?potrf``); False when ``cov`` is
        not positive definite (NumPy raises ``LinAlgError``)."""
        k = cov.shape[0]
        a, info = fortran(cov, np.float64), integer(0, it)
        kk, ld, lower = integer(k, it), integer(max(1, k), it), np.full(1, L, np.uint8)
        potrf(lower.ctypes, kk.ctypes, a.ctypes, ld.ctypes, info.ctypes)
        if info[0] != 0:
            return False
        for i in range(k):
            for j in range(k):
                out[i, j] = a[i, j] if j <= i else 0.0
        return True

    return factor


_FACTORS = {"svd": _svd_factor, "eigh": _eigh_factor, "cholesky": _cholesky_factor}

# -- the draws ---------------------------------------------------------------------------------


@cache
def _draw_function() -> Callable:
    gemm, gemv = _blas()

    @_jit
    def draw_into(bitgen, mean, factor, out):
        """``mean + x @ factor.T`` for ``x`` the next ``M x k`` standard normals (``out`` is
        ``M x k``), with the BLAS call NumPy's ``matmul`` makes for that shape."""
        m, k = out.shape
        x = np.empty((m, k))
        for i in range(m):
            for j in range(k):
                x[i, j] = random_standard_normal(bitgen)
        y = np.empty((m, k))
        if k == 1:  # a 1 x 1 factor: NumPy's plain loop (or a dot of length 1)
            for i in range(m):
                y[i, 0] = 0.0 + x[i, 0] * factor[0, 0]
        elif m == 1:  # vector @ matrix: gemv on the factor, column-major, transposed
            gemv(_COL_MAJOR, _TRANS, k, k, 1.0, factor.ctypes, k, x.ctypes, 1, 0.0, y.ctypes, 1)
        else:  # row-major gemm, the factor transposed
            gemm(
                _ROW_MAJOR,
                _NO_TRANS,
                _TRANS,
                m,
                k,
                k,
                1.0,
                x.ctypes,
                k,
                factor.ctypes,
                k,
                0.0,
                y.ctypes,
                k,
            )
        for i in range(m):
            for j in range(k):
                out[i, j] = mean[j] + y[i, j]

    return draw_into


@_jit
def _all_finite(values):
    return bool(np.all(np.isfinite(values)))


class _MvNormalWriter(_BatchWriter):
    """Factors first (every batch entry), then the draws (see the module docstring)."""

    def __init__(self, op: MvNormalRV, node: Apply) -> None:
        super().__init__(op, node)
        mean, cov = node.inputs[2:]
        self.batched = mean.type.ndim > 1 or cov.type.ndim > 2

    def mvn_source(self) -> str:
        mean, cov = self.node.inputs[2:]
        complex_ = any(np.dtype(v.type.dtype).kind == "c" for v in (mean, cov))
        self.lines = ["def kernel(rng, size, p0, p1):", "    ok = True"]
        self._shape()
        count = " * ".join(f"n{d}" for d in range(self.ndim)) or "1"
        checks = [f"{count} > 0", "p0.shape[-1] > 0", "all_finite(p1)"]
        self._checks(["False"] if complex_ else checks)
        for k in range(2):
            self._line(f"b{k} = {self._broadcast(k)}")
        self._factors()
        if not self.op.inplace:
            self._line("rng = copy_rng(rng)")
        self._line("bitgen = rng.bit_generator")
        self._draw()
        return "\n".join(self.lines) + "\n"

    def _factors(self) -> None:
        check = self.op.check_valid != "ignore" and self.op.method != "cholesky"
        args = f"{check}, {self.op.tol!r}"
        if self.batched:
            batch = "".join(f"n{d}, " for d in range(self.ndim))
            self._line(f"factors = np.empty(({batch}p0.shape[-1], p0.shape[-1]))")
            self._line(f"for idx in np.ndindex({self._shape_tuple()}):")
            self._line(f"if ok and not factor_into(b1[idx], factors[idx], {args}):", 2)
            self._line("ok = False", 3)
        else:
            self._line("factors = np.empty((p0.shape[-1], p0.shape[-1]))")
            self._line(f"ok = factor_into(p1, factors, {args})")
        self._checks([])

    def _draw(self) -> None:
        batch = "".join(f"n{d}, " for d in range(self.ndim))
        self._line(f"out = np.empty(({batch}p0.shape[-1]))")
        if self.batched:  # one draw per entry: NumPy's vector @ matrix
            self._line(f"for idx in np.ndindex({self._shape_tuple()}):")
            self._line("draw_into(bitgen, b0[idx], factors[idx], out[idx].reshape((1, -1)))", 2)
        else:
            self._line("draw_into(bitgen, p0, factors, out.reshape((-1, p0.shape[-1])))")
        self._line("return rng, out.astype(DT)")


@numba_funcify.register(MvNormalRV)
def _multivariate_normal(op: MvNormalRV, node: Apply) -> Callable:
    draw_into = _draw_function()
    factor_into = _FACTORS[op.method]()
    source = _MvNormalWriter(op, node).mvn_source()
    return _compile(
        node, source, draw_into=draw_into, factor_into=factor_into, all_finite=_all_finite
    )


__all__: list[str] = []
