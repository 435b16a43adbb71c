"""Native kernels of the eigenvalue ops: ``Eig`` (``numpy.linalg.eig``), ``Eigh``
(``numpy.linalg.eigh``/``eigvalsh``), and the symmetric-definite ``Eigvalsh``,
``EigvalshGrad`` and ``EigvalshTangent`` (``scipy.linalg.eigh(a, b)``), on real and complex
matrices, through the LAPACK drivers ``perform`` reaches (:mod:`.lapack`).

Eigenvectors are defined up to a unit factor, so only the same driver with the same options
reproduces ``perform``'s: NumPy computes in double precision (then casts), its ``eig`` is
``?geev`` (right vectors only; LAPACK normalises
each to unit norm with its largest component real), its ``eigh`` is ``?syevd``/``?heevd`` on
the Fortran-ordered matrix with the given ``UPLO``; SciPy's generalized ``eigh`` is
``?sygvd``/``?hegvd`` (``itype=1``: ``a v = w b v``, ``V^H b V = I``). SciPy's standard
``eigvalsh`` calls ``?syevr``, whose eigenvalues-only path (``?sytrd`` then ``?sterf``) is
``?syevd``'s, which is used here. Errors as in ``perform``: ``LinAlgError`` when LAPACK does
not converge (or ``b`` is not positive definite), ``LinAlgError`` (NumPy's ``eig``) or
``ValueError`` (SciPy) on infinite or NaN entries.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np

from arignote.graph.basic import Apply
from arignote.link.numba.dispatch.basic import compile_source, numba_funcify
from arignote.link.numba.dispatch.lapack import (
    PREFIX,
    REAL_OF,
    L,
    N,
    U,
    V,
    _jit,
    check_argument,
    check_finite,
    flag,
    fortran,
    fortran_empty,
    integer,
    ints,
    is_complex,
    lapack_dtype,
    lapack_for,
    lead,
    numpy_routine,
    with_workspace,
    with_workspaces,
)
from arignote.link.numba.dispatch.linalg import _batched as batched_source
from arignote.tensor.linalg.decompositions import Eig, Eigh
from arignote.tensor.linalg.generalized_eigen import Eigvalsh, EigvalshGrad, EigvalshTangent

_NO_CONVERGENCE = "Eigenvalues did not converge"


# -- general matrices (?geev) ------------------------------------------------------------------


@cache
def eig_function(dtype: str) -> Callable:
    """``(w, v)`` of one square matrix of ``dtype``, as ``numpy.linalg.eig`` (complex)."""
    return _complex_eig(dtype) if is_complex(dtype) else _real_eig(dtype)


def _real_eig(dtype: str) -> Callable:
    (geev, it), real = numpy_routine(PREFIX[dtype] + "geev", 2), np.dtype(dtype).type
    cplx = np.result_type(dtype, np.complex64).type

    @_jit
    def eig(a):
        n = a.shape[0]
        f, ld, nn, one = fortran(a, real), integer(max(1, n), it), integer(n, it), integer(1, it)
        wr, wi, vr = np.empty(n, real), np.empty(n, real), fortran_empty(n, n, real)
        vl, info, jl, jr = np.empty(1, real), integer(0, it), flag(N), flag(V)
        head = (jl.ctypes, jr.ctypes, nn.ctypes, f.ctypes, ld.ctypes, wr.ctypes, wi.ctypes)
        vectors = (vl.ctypes, one.ctypes, vr.ctypes, ld.ctypes)
        with_workspace(geev, head + vectors, (), info, real, it)
        return _eig_result(info[0], wr, wi, vr, cplx)

    return eig


@_jit
def _eig_result(info, wr, wi, vr, cplx):
    """NumPy's complex eigenpairs from ``?geev``'s real ones: a conjugate pair ``j, j + 1``
    (``wi[j] != 0``) has the vectors ``vr[:, j] +- i vr[:, j + 1]``."""
    check_argument(info)
    if info > 0:
        raise np.linalg.LinAlgError(_NO_CONVERGENCE)
    n = wr.shape[0]
    w = np.empty(n, cplx)
    v = np.empty((n, n), cplx)
    j = 0
    while j < n:
        w[j] = wr[j] + 1j * wi[j]
        if wi[j] == 0 or j == n - 1:
            v[:, j] = vr[:, j]
            j += 1
            continue
        w[j + 1] = wr[j + 1] + 1j * wi[j + 1]
        v[:, j] = vr[:, j] + 1j * vr[:, j + 1]
        v[:, j + 1] = vr[:, j] - 1j * vr[:, j + 1]
        j += 2
    return w, v


def _complex_eig(dtype: str) -> Callable:
    (geev, it), cplx = numpy_routine(PREFIX[dtype] + "geev", 2), np.dtype(dtype).type
    real = np.dtype(REAL_OF[dtype]).type

    @_jit
    def eig(a):
        n = a.shape[0]
        f, ld, nn, one = fortran(a, cplx), integer(max(1, n), it), integer(n, it), integer(1, it)
        w, vr, vl = np.empty(n, cplx), fortran_empty(n, n, cplx), np.empty(1, cplx)
        rwork, info, jl, jr = np.empty(max(1, 2 * n), real), integer(0, it), flag(N), flag(V)
        head = (jl.ctypes, jr.ctypes, nn.ctypes, f.ctypes, ld.ctypes, w.ctypes, vl.ctypes)
        vectors = (one.ctypes, vr.ctypes, ld.ctypes)
        with_workspace(geev, head + vectors, (rwork.ctypes,), info, cplx, it)
        check_argument(info[0])
        if info[0] > 0:
            raise np.linalg.LinAlgError(_NO_CONVERGENCE)
        return w, np.ascontiguousarray(vr)

    return eig


@_jit
def _numpy_finite(a):
    """NumPy's ``eig`` refuses infinities and NaNs with a ``LinAlgError``."""
    if not np.isfinite(a).all():
        raise np.linalg.LinAlgError("Array must not contain infs or NaNs")


def _numpy_dtype(node: Apply) -> str:
    """NumPy's ``linalg`` computes in double precision whatever the input's, then casts."""
    return "complex128" if is_complex(node.inputs[0].type.dtype) else "float64"


@numba_funcify.register(Eig)
def _eig(op: Eig, node: Apply) -> Callable:
    dtype = _numpy_dtype(node)
    outs = [("(n,)", node.outputs[0].type.dtype), ("(m, n)", node.outputs[1].type.dtype)]
    call = ["numpy_finite(a)", "r0, r1 = eig(a)"]
    source = batched_source(node, outs, call, True)
    namespace = {"eig": eig_function(dtype), "numpy_finite": _numpy_finite}
    return compile_source(source, "kernel", namespace)


# -- symmetric (Hermitian) matrices: ?syevd / ?heevd ---------------------------------------------


def _evd_call(dtype: str) -> tuple[Callable, type]:
    """NumPy's ``?syevd`` or ``?heevd`` behind one signature (the real one has no ``rwork``),
    and the integer type of its library."""
    if is_complex(dtype):
        return numpy_routine(PREFIX[dtype] + "heevd", 2)
    syevd, it = numpy_routine(PREFIX[dtype] + "syevd", 2)

    @_jit
    def call(jz, lo, nn, f, ld, w, work, lw, rwork, lr, iwork, li, info):
        syevd(jz, lo, nn, f, ld, w, work, lw, iwork, li, info)

    return call, it


@cache
def eigh_function(dtype: str, vectors: bool) -> Callable:
    """``(w, v)`` of one Hermitian matrix of ``dtype`` from its ``uplo`` triangle (the code
    of ``L`` or ``U``), as ``numpy.linalg.eigh``; without ``vectors``, ``v`` is garbage."""
    (evd, it), job = _evd_call(dtype), V if vectors else N
    kind, real = np.dtype(dtype).type, np.dtype(REAL_OF[dtype]).type

    @_jit
    def eigh(a, uplo):
        n = a.shape[0]
        f, ld, nn, w = fortran(a, kind), integer(max(1, n), it), integer(n, it), np.empty(n, real)
        jz, lo, info = flag(job), flag(uplo), integer(0, it)
        head = (jz.ctypes, lo.ctypes, nn.ctypes, f.ctypes, ld.ctypes, w.ctypes)
        with_workspaces(evd, head, info, kind, real, it)
        check_argument(info[0])
        if info[0] > 0:
            raise np.linalg.LinAlgError(_NO_CONVERGENCE)
        return w, np.ascontiguousarray(f)

    return eigh


@numba_funcify.register(Eigh)
def _eigh(op: Eigh, node: Apply) -> Callable:
    dtype = _numpy_dtype(node)
    uplo = L if op.uplo == "L" else U
    outs = [("(n,)", node.outputs[0].type.dtype)]
    if op.compute_v:
        outs.append(("(m, n)", node.outputs[1].type.dtype))
    call = [f"r0, r1 = eigh(a, {uplo})"]
    source = batched_source(node, outs, call, True)
    return compile_source(source, "kernel", {"eigh": eigh_function(dtype, op.compute_v)})


# -- the symmetric-definite pencil: ?sygvd / ?hegvd ----------------------------------------------


def _gvd_call(dtype: str) -> Callable:
    """``?sygvd`` or ``?hegvd`` behind one signature (the real driver has no ``rwork``)."""
    if is_complex(dtype):
        return lapack_for("hegvd", dtype)
    sygvd = lapack_for("sygvd", dtype)

    @_jit
    def call(it, jz, lo, nn, a, lda, b, ldb, w, work, lw, rwork, lr, iwork, li, info):
        sygvd(it, jz, lo, nn, a, lda, b, ldb, w, work, lw, iwork, li, info)

    return call


@cache
def eigh_pencil(dtype: str, vectors: bool) -> Callable:
    """``(w, v)`` of ``a v = w b v`` (``b`` positive definite), from the ``uplo`` triangles,
    as ``scipy.linalg.eigh(a, b)`` (``itype=1``): ``V^H b V = I``."""
    gvd, job = _gvd_call(dtype), V if vectors else N
    kind, real = np.dtype(dtype).type, np.dtype(REAL_OF[dtype]).type

    @_jit
    def eigh(a, b, uplo):
        n = a.shape[0]
        fa, fb, ld, nn, w = fortran(a, kind), fortran(b, kind), lead(n), ints(n), np.empty(n, real)
        it, jz, lo, info = ints(1), flag(job), flag(uplo), ints(0)
        head = (it.ctypes, jz.ctypes, lo.ctypes, nn.ctypes, fa.ctypes, ld.ctypes, fb.ctypes)
        with_workspaces(gvd, head + (ld.ctypes, w.ctypes), info, kind, real, np.int32)
        _pencil_errors(info[0], n)
        return w, np.ascontiguousarray(fa)

    return eigh


@_jit
def _pencil_errors(info, n):
    """SciPy's ``eigh`` errors: ``info <= n``, no convergence; ``info > n``, the leading
    minor of order ``info - n`` of ``b`` is not positive definite."""
    check_argument(info)
    if 0 < info <= n:
        raise np.linalg.LinAlgError("The algorithm failed to converge")
    if info > n:
        raise np.linalg.LinAlgError(
            "The leading minor of b is not positive definite. The factorization of b could "
            "not be completed and no eigenvalues or eigenvectors were computed."
        )


@_jit
def _pencil_inputs(a, b):
    """``perform``'s checks: square matrices of one size, finite entries (SciPy's)."""
    if a.shape[0] != a.shape[1] or b.shape[0] != b.shape[1] or a.shape != b.shape:
        raise ValueError("Eigvalsh: a and b must be square matrices of one size")
    check_finite(a)
    check_finite(b)


@_jit
def symmetric(x, lower):
    """The Hermitian matrix whose ``lower`` (or upper) triangle ``x`` holds."""
    part = np.tril(x) if lower else np.triu(x)
    rest = np.tril(part, -1) if lower else np.triu(part, 1)
    return part + np.conj(rest).T


@_jit
def fold(g, lower):
    """``g`` folded onto the triangle that is read (the adjoint of ``symmetric``)."""
    if lower:
        return np.tril(g) + np.conj(np.triu(g, 1)).T
    return np.triu(g) + np.conj(np.tril(g, -1)).T


def _uplo(op: Eigvalsh | EigvalshGrad | EigvalshTangent) -> int:
    return L if op.lower else U


@numba_funcify.register(Eigvalsh)
def _eigvalsh(op: Eigvalsh, node: Apply) -> Callable:
    dtype = lapack_dtype(*(x.type.dtype for x in node.inputs))
    out = node.outputs[0].type.dtype
    if len(node.inputs) == 1:
        source = (
            "def kernel(a):\n"
            "    if a.shape[0] != a.shape[1]:\n"
            "        raise np.linalg.LinAlgError('Eigvalsh needs square matrices')\n"
            "    check_finite(a)\n"
            f"    return eigh(a, {_uplo(op)})[0].astype(np.{out})\n"
        )
        namespace = {"eigh": eigh_function(dtype, False), "check_finite": check_finite}
        return compile_source(source, "kernel", namespace)
    source = (
        "def kernel(a, b):\n"
        "    pencil_inputs(a, b)\n"
        f"    return eigh(a, b, {_uplo(op)})[0].astype(np.{out})\n"
    )
    namespace = {"eigh": eigh_pencil(dtype, False), "pencil_inputs": _pencil_inputs}
    return compile_source(source, "kernel", namespace)


@_jit
def _quadratic_form(v, x):
    """``V^H X V`` (``V`` and ``X`` of one dtype, C-contiguous for BLAS)."""
    vh = np.ascontiguousarray(np.conj(v).T)
    return np.dot(vh, np.dot(np.ascontiguousarray(x), v))


@numba_funcify.register(EigvalshGrad)
def _eigvalsh_grad(op: EigvalshGrad, node: Apply) -> Callable:
    dtype = lapack_dtype(*(x.type.dtype for x in node.inputs[:2]))
    ga, gb = (out.type.dtype for out in node.outputs)
    # ga = V diag(gw) V^H and gb = -V diag(gw w) V^H, each folded onto the triangle read
    source = (
        "def kernel(a, b, gw):\n"
        "    pencil_inputs(a, b)\n"
        f"    w, v = eigh(a, b, {_uplo(op)})\n"
        "    vh = np.ascontiguousarray(np.conj(v).T)\n"
        f"    ga = np.dot(np.ascontiguousarray(v * gw.astype(v.dtype)), vh)\n"
        f"    gb = -np.dot(np.ascontiguousarray(v * (gw * w).astype(v.dtype)), vh)\n"
        f"    return fold(ga, {op.lower}).astype(np.{ga}), fold(gb, {op.lower}).astype(np.{gb})\n"
    )
    namespace = {"eigh": eigh_pencil(dtype, True), "pencil_inputs": _pencil_inputs, "fold": fold}
    return compile_source(source, "kernel", namespace)


@numba_funcify.register(EigvalshTangent)
def _eigvalsh_tangent(op: EigvalshTangent, node: Apply) -> Callable:
    dtype = lapack_dtype(*(x.type.dtype for x in node.inputs[:2]))
    out = node.outputs[0].type.dtype
    # dw = diag(V^H dA V) - w diag(V^H dB V), dA and dB read from one triangle
    source = (
        "def kernel(a, b, da, db):\n"
        "    pencil_inputs(a, b)\n"
        f"    w, v = eigh(a, b, {_uplo(op)})\n"
        f"    sa = symmetric(da, {op.lower}).astype(v.dtype)\n"
        f"    sb = symmetric(db, {op.lower}).astype(v.dtype)\n"
        "    dw = np.diag(quadratic_form(v, sa)) - w * np.diag(quadratic_form(v, sb))\n"
        f"    return np.real(dw).astype(np.{out})\n"
    )
    namespace = {
        "eigh": eigh_pencil(dtype, True),
        "pencil_inputs": _pencil_inputs,
        "symmetric": symmetric,
        "quadratic_form": _quadratic_form,
    }
    return compile_source(source, "kernel", namespace)
