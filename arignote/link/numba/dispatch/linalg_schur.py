"""Native kernels of the Schur decompositions: ``Schur`` (``scipy.linalg.schur``, LAPACK's
``?gees``) and ``QZ`` (``scipy.linalg.qz``: ``?gges``; ``ordqz``: ``?gges`` then ``?tgsen``),
with SciPy's sort options, through the routines SciPy calls (:mod:`.lapack`).

Schur vectors are defined up to unit factors and the eigenvalue order is a choice: only the
same driver with the same options gives ``perform``'s arrays, so each SciPy call is reproduced
step by step. ``schur(sort=...)`` passes a selector to ``?gees``, which reorders the Schur
form itself (``?trsen``) and checks that the selected eigenvalues still lead; here the
selector is a numba ``cfunc`` with SciPy's predicate, evaluated in double precision as
SciPy's Python callback is: "lhp" ``Re < 0``, "rhp" ``Re >= 0``, "iuc" ``|z| <= 1``, "ouc"
``|z| > 1``. ``ordqz`` computes its selection from ``alpha / beta`` (strict inequalities,
``beta = 0`` selected by "ouc" only, for a nonzero ``alpha``) and reorders with ``?tgsen``
(``ijob = 0``). Errors and warnings as SciPy's: ``ValueError`` for infinite or NaN entries,
``LinAlgError`` when an algorithm fails, ``LinAlgWarning`` when the QZ iteration does not
converge.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from functools import cache

import numpy as np
import scipy.linalg

import numba
from arignote.graph.basic import Apply
from arignote.link.numba.dispatch.basic import compile_source, numba_funcify
from arignote.link.numba.dispatch.lapack import (
    NO_SELECT,
    REAL_OF,
    N,
    S,
    V,
    _jit,
    adapted,
    call_with_workspace,
    check_argument,
    check_finite,
    flag,
    fortran,
    fortran_empty,
    ints,
    is_complex,
    lapack_for,
    lead,
    query_workspace,
    with_workspace,
)
from arignote.tensor.linalg.schur import QZ, Schur

#: The codes of the sort options inside native code.
SORTS = {None: 0, "lhp": 1, "rhp": 2, "iuc": 3, "ouc": 4}


# -- schur: ?gees ---------------------------------------------------------------------------------


@_jit
def schur_predicate(re, im, sort):
    """SciPy's ``schur`` sort predicates on the eigenvalue ``re + i im``."""
    if sort == 1:
        return re < 0.0
    if sort == 2:
        return re >= 0.0
    if sort == 3:
        return np.hypot(re, im) <= 1.0
    return np.hypot(re, im) > 1.0


@cache
def schur_selector(sort: str, dtype: str) -> int:
    """The address of a C selector for ``?gees`` of ``dtype`` (two real pointers for real
    matrices, one complex pointer otherwise), returning SciPy's predicate as an int."""
    code, item = SORTS[sort], numba.from_dtype(np.dtype(dtype))
    if is_complex(dtype):

        @numba.cfunc(numba.types.int32(numba.types.CPointer(item)))
        def select(z):
            return schur_predicate(np.float64(z[0].real), np.float64(z[0].imag), code)

    else:

        @numba.cfunc(numba.types.int32(numba.types.CPointer(item), numba.types.CPointer(item)))
        def select(wr, wi):
            return schur_predicate(np.float64(wr[0]), np.float64(wi[0]), code)

    _KEEP.append(select)  # the machine code lives as long as the object
    return select.address


_KEEP: list = []


@_jit
def _schur_errors(info, n):
    check_argument(info)
    if info == n + 1:
        raise np.linalg.LinAlgError("Eigenvalues could not be separated for reordering.")
    if info == n + 2:
        raise np.linalg.LinAlgError("Leading eigenvalues do not satisfy sort condition.")
    if info > 0:
        raise np.linalg.LinAlgError("Schur form not found. Possibly ill-conditioned.")


def _gees_call(dtype: str) -> Callable:
    """``?gees`` behind one signature: ``w`` holds the eigenvalues (real matrices: ``wr``
    then ``wi``, length ``2 n``), ``rwork`` is unused for real matrices."""
    real = not is_complex(dtype)
    return adapted(lapack_for("gees", dtype), 15, 7, real, 12 if real else -1)


@cache
def schur_function(dtype: str) -> Callable:
    """``(T, Z)`` of one square matrix in ``dtype``, as ``scipy.linalg.schur``, sorted by
    the selector at address ``select`` (``NO_SELECT``: not sorted)."""
    gees, kind = _gees_call(dtype), np.dtype(dtype).type
    real = np.dtype(REAL_OF[dtype]).type
    complex_matrix = is_complex(dtype)

    @_jit
    def schur(a, select):
        sorting = N if select == NO_SELECT else S
        n = a.shape[0]
        if a.shape[1] != n:
            raise ValueError("expected square matrix")
        check_finite(a)
        t, vs, ld, nn = fortran(a, kind), fortran_empty(n, n, kind), lead(n), ints(n)
        w = np.empty(n if complex_matrix else 2 * n, kind)
        rwork, bwork = np.empty(max(1, n), real), np.empty(n, np.int32)
        sdim, info, jv = ints(0), ints(0), flag(V)
        tail, matrix = (rwork.ctypes, bwork.ctypes), (nn.ctypes, t.ctypes, ld.ctypes, sdim.ctypes)
        rest = matrix + (w, vs.ctypes, ld.ctypes)
        # SciPy's workspace query does not sort; the call does
        query = (jv.ctypes, flag(N).ctypes, NO_SELECT) + rest
        work = query_workspace(gees, query, tail, info, kind, np.int32)
        head = (jv.ctypes, flag(sorting).ctypes, select) + rest
        call_with_workspace(gees, head, tail, info, work, np.int32)
        _schur_errors(info[0], n)
        return np.ascontiguousarray(t), np.ascontiguousarray(vs)

    return schur


@numba_funcify.register(Schur)
def _schur(op: Schur, node: Apply) -> Callable:
    dtype = node.outputs[0].type.dtype  # the input's, or its complex type (output="complex")
    select = NO_SELECT if op.sort is None else schur_selector(op.sort, dtype)
    source = f"def kernel(a):\n    return schur(a, {select})\n"
    return compile_source(source, "kernel", {"schur": schur_function(dtype)})


# -- qz: ?gges, and ?tgsen for ordqz ------------------------------------------------------------


def warn_qz_failed(info: int) -> None:
    """SciPy's warning when the QZ iteration did not converge (called in object mode)."""
    warnings.warn(
        "The QZ iteration failed. (a,b) are not in Schur form, but ALPHAR(j), ALPHAI(j), and "
        f"BETA(j) should be correct for J={info - 1},...,N",
        scipy.linalg.LinAlgWarning,
        stacklevel=3,
    )


@_jit
def _gges_errors(info, n):
    check_argument(info)
    if 0 < info <= n:
        with numba.objmode():
            warn_qz_failed(info)
    elif info == n + 1:
        raise np.linalg.LinAlgError("Something other than QZ iteration failed")
    elif info > n + 1:
        raise np.linalg.LinAlgError("Reordering failed in <s,d,c,z>tgsen")


def _gges_call(dtype: str) -> Callable:
    """``?gges`` behind one signature: ``alpha`` holds ``alphar`` then ``alphai`` (length
    ``2 n``) for real matrices, ``rwork`` is unused there."""
    real = not is_complex(dtype)
    return adapted(lapack_for("gges", dtype), 21, 10, real, 18 if real else -1)


@cache
def qz_function(dtype: str) -> Callable:
    """``(AA, BB, alpha, beta, Q, Z)`` of ``scipy.linalg.qz`` in ``dtype`` (real matrices:
    ``alpha`` holds ``alphar`` then ``alphai``)."""
    gges, kind = _gges_call(dtype), np.dtype(dtype).type
    real = np.dtype(REAL_OF[dtype]).type
    complex_matrix = is_complex(dtype)

    @_jit
    def qz(a, b):
        n = a.shape[0]
        if a.shape[1] != n or b.shape[0] != n or b.shape[1] != n:
            raise ValueError("Array dimensions must be square and agree")
        check_finite(a)
        check_finite(b)
        aa, bb, ld, nn = fortran(a, kind), fortran(b, kind), lead(n), ints(n)
        q, z = fortran_empty(n, n, kind), fortran_empty(n, n, kind)
        alpha, beta = np.empty(n if complex_matrix else 2 * n, kind), np.empty(n, kind)
        rwork, bwork = np.empty(max(1, 8 * n), real), ints(0)
        sdim, info, jv, sort = ints(0), ints(0), flag(V), flag(N)
        head = (jv.ctypes, jv.ctypes, sort.ctypes, NO_SELECT, nn.ctypes, aa.ctypes, ld.ctypes)
        pair = (bb.ctypes, ld.ctypes, sdim.ctypes, alpha, beta.ctypes)
        vectors = (q.ctypes, ld.ctypes, z.ctypes, ld.ctypes)
        tail = (rwork.ctypes, bwork.ctypes)
        with_workspace(gges, head + pair + vectors, tail, info, kind, np.int32)
        _gges_errors(info[0], n)
        return aa, bb, alpha, beta, q, z

    return qz


@_jit
def ordqz_select(alpha, beta, sort):
    """SciPy's ``ordqz`` selection of the eigenvalues ``alpha / beta`` (see the module)."""
    n = beta.shape[0]
    out = np.zeros(n, np.int32)
    for i in range(n):
        x, y = alpha[i], beta[i]
        if sort == 0 or y == 0:
            out[i] = sort == 4 and x != 0
            continue
        ratio = x / y
        if sort == 1:
            out[i] = ratio.real < 0.0
        elif sort == 2:
            out[i] = ratio.real > 0.0
        elif sort == 3:
            out[i] = abs(ratio) < 1.0
        else:
            out[i] = abs(ratio) > 1.0
    return out


def _tgsen_call(dtype: str) -> Callable:
    """``?tgsen`` behind one signature (``alpha`` as in ``_gges_call``)."""
    return adapted(lapack_for("tgsen", dtype), 24, 9, not is_complex(dtype))


@cache
def ordqz_function(dtype: str) -> Callable:
    """``(AA, BB, alpha, beta, Q, Z)`` of ``scipy.linalg.ordqz`` in ``dtype``, real
    ``alpha`` split as in ``qz_function``; ``sort`` is a code of ``SORTS``."""
    qz, tgsen, kind = qz_function(dtype), _tgsen_call(dtype), np.dtype(dtype).type
    real = np.dtype(REAL_OF[dtype]).type
    complex_matrix, pair = is_complex(dtype), paired_function(dtype)

    @_jit
    def ordqz(a, b, sort):
        aa, bb, alpha, beta, q, z = qz(a, b)
        n = aa.shape[0]
        select = ordqz_select(pair(alpha, n), beta, sort)
        # SciPy's workspace: 4 n + 16 for real matrices (the minimum of ijob = 0), else 1
        work = np.empty(1 if complex_matrix else 4 * n + 16, kind)
        m, pl, pr, dif, iwork, info = (
            ints(0),
            np.empty(1, real),
            np.empty(1, real),
            np.empty(2, real),
            ints(0),
            ints(0),
        )
        ld, one = lead(n), ints(1)
        tgsen(
            ints(0).ctypes,
            one.ctypes,
            one.ctypes,
            select.ctypes,
            ints(n).ctypes,
            aa.ctypes,
            ld.ctypes,
            bb.ctypes,
            ld.ctypes,
            alpha,
            beta.ctypes,
            q.ctypes,
            ld.ctypes,
            z.ctypes,
            ld.ctypes,
            m.ctypes,
            pl.ctypes,
            pr.ctypes,
            dif.ctypes,
            work.ctypes,
            ints(work.size).ctypes,
            iwork.ctypes,
            one.ctypes,
            info.ctypes,
        )
        check_argument(info[0])
        if info[0] == 1:
            raise ValueError(
                "Reordering of (A, B) failed because the transformed matrix pair (A, B) would "
                "be too far from generalized Schur form; the problem is very ill-conditioned. "
                "(A, B) may have been partially reordered."
            )
        return aa, bb, alpha, beta, q, z

    return ordqz


@_jit
def _joined(alpha, n):
    """The complex ``alpha`` from ``alphar`` and ``alphai`` (real matrices)."""
    return alpha[:n] + 1j * alpha[n:]


@_jit
def _as_is(alpha, n):
    return alpha


def paired_function(dtype: str) -> Callable:
    """``alpha`` as complex numbers from the ``alpha`` of ``qz_function`` in ``dtype``."""
    return _as_is if is_complex(dtype) else _joined


@numba_funcify.register(QZ)
def _qz(op: QZ, node: Apply) -> Callable:
    dtype = node.outputs[0].type.dtype
    out = [v.type.dtype for v in node.outputs]
    cast = "np.ascontiguousarray({0})"
    if op.return_eigenvalues or op.sort is not None:
        call, namespace = f"ordqz(a, b, {SORTS[op.sort]})", {"ordqz": ordqz_function(dtype)}
    else:
        call, namespace = "qz(a, b)", {"qz": qz_function(dtype)}
    lines = ["def kernel(a, b):", f"    aa, bb, alpha, beta, q, z = {call}"]
    results = [cast.format("aa"), cast.format("bb"), cast.format("q"), cast.format("z")]
    if op.return_eigenvalues:
        alpha = f"paired(alpha, beta.shape[0]).astype(np.{out[2]})"
        results[2:2] = [alpha, f"beta.astype(np.{out[3]})"]
        namespace["paired"] = paired_function(dtype)
    lines.append(f"    return {', '.join(results)}")
    return compile_source("\n".join(lines) + "\n", "kernel", namespace)
