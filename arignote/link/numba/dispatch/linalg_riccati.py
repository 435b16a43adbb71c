"""Native kernel of ``SolveDiscreteARE``: ``scipy.linalg.solve_discrete_are``'s algorithm
(van Dooren's generalized eigenvalue method) step by step, on native QZ (:mod:`.linalg_schur`).

With ``A (m, m)``, ``B (m, n)``, ``Q``, ``R`` (real, computed in double precision as SciPy
does), the extended symplectic pencil ``H - lambda J``::

    H = [[ A, 0, B], [-Q, I, 0], [0, 0, R]]      J = [[I, 0, 0], [0, A^T, 0], [0, -B^T, 0]]

is balanced (``?gebal`` scaling of ``|H| + |J|`` off the diagonal, made symplectic:
``diag(D, D^-1, .)`` with ``D`` the rounded square root of the ratios of the two halves'
scales), deflated by the ``R`` columns (``H, J <- Q2^T H[:, :2m], Q2^T J[:, :2m]``, ``Q2`` the
last ``2m`` columns of the complete QR factor of ``H[:, 2m:]``), and reordered by ``ordqz``
with the stable eigenvalues (inside the unit circle) first: the first ``m`` columns of ``Z``,
``U = [U00; U10]``, span the stable deflating subspace and ``X = U10 U00^-1`` (undone
balancing: ``X_ij * s_i * s_j``). As SciPy: ``LinAlgError`` when ``U00``'s triangular LU
factor has a reciprocal condition number below the machine epsilon, or when ``U00^T U10`` is
far from symmetric (eigenvalues near the unit circle); ``ValueError`` for infinite or NaN
entries, inconsistent shapes or non-symmetric ``Q`` or ``R``. The result is ``(X + X^T) / 2``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from arignote.graph.basic import Apply
from arignote.link.numba.dispatch import linalg_kernels as lk
from arignote.link.numba.dispatch.basic import compile_source, numba_funcify
from arignote.link.numba.dispatch.lapack import (
    S,
    _jit,
    check_argument,
    check_finite,
    flag,
    fortran,
    ints,
    lapack_for,
    lead,
)
from arignote.link.numba.dispatch.linalg_schur import SORTS, ordqz_function
from arignote.tensor.linalg.riccati import SolveDiscreteARE

_gebal = lapack_for("gebal", "float64")
_ordqz = ordqz_function("float64")
_INSIDE_UNIT_CIRCLE = SORTS["iuc"]
_SPACING_1000 = float(np.spacing(1000.0))
_EPS = float(np.spacing(1.0))


@_jit
def balance_scale(a):
    """The scaling factors of ``?gebal`` (job "S": scaling only, no permutation) of ``a``."""
    n = a.shape[0]
    f, scale, lo, hi, info = fortran(a, np.float64), np.empty(n), ints(0), ints(0), ints(0)
    _gebal(
        flag(S).ctypes,
        ints(n).ctypes,
        f.ctypes,
        lead(n).ctypes,
        lo.ctypes,
        hi.ctypes,
        scale.ctypes,
        info.ctypes,
    )
    check_argument(info[0])
    return scale


@_jit
def _check_shapes(a, b, q, r):
    """SciPy's checks, in its order: finite entries, square ``a, q, r``, fitting shapes."""
    # one call each: a tuple of differently laid-out arrays cannot be iterated in numba
    check_finite(a)
    check_finite(b)
    check_finite(q)
    check_finite(r)
    if a.shape[0] != a.shape[1]:
        raise ValueError("Matrix a should be square.")
    if q.shape[0] != q.shape[1]:
        raise ValueError("Matrix q should be square.")
    if r.shape[0] != r.shape[1]:
        raise ValueError("Matrix r should be square.")
    if b.shape[0] != a.shape[0]:
        raise ValueError("Matrix a and b should have the same number of rows.")
    if b.shape[0] != q.shape[0]:
        raise ValueError("Matrix a and q should have the same shape.")
    if b.shape[1] != r.shape[0]:
        raise ValueError("Matrix b and r should have the same number of cols.")


@_jit
def asymmetric(x):
    """SciPy's test of ``Q`` and ``R``: ``||X - X^T||_1 > 100 spacing(||X||_1)``, in the
    input's precision."""
    size = np.abs(x).sum(axis=0).max()  # the 1-norm, summed in x's dtype
    return np.abs(x - x.T).sum(axis=0).max() > np.spacing(size) * 100


@_jit
def pencil(a, b, q, r):
    """The extended symplectic pencil ``(H, J)`` of the module docstring."""
    m, n = b.shape
    h, j = np.zeros((2 * m + n, 2 * m + n)), np.zeros((2 * m + n, 2 * m + n))
    h[:m, :m], h[:m, 2 * m :], h[m : 2 * m, :m] = a, b, -q
    h[2 * m :, 2 * m :] = r
    j[m : 2 * m, m : 2 * m], j[2 * m :, m : 2 * m] = a.T, -b.T
    for i in range(m):
        h[m + i, m + i] = 1.0
        j[i, i] = 1.0
    return h, j


@_jit
def symplectic_balance(h, j, m):
    """Balance ``(H, J)`` in place; returns the scaling (ones when none is needed)."""
    magnitude = np.abs(h) + np.abs(j)
    for i in range(h.shape[0]):
        magnitude[i, i] = 0.0
    scale = balance_scale(magnitude)
    if np.all(np.abs(scale - 1.0) <= 1e-8 + 1e-5):  # np.allclose(scale, 1)
        return np.ones_like(scale)
    logs = np.log2(scale)
    half = np.rint((logs[m : 2 * m] - logs[:m]) / 2)  # NumPy's round: half to even
    exponents = np.concatenate((half, -half, logs[2 * m :]))
    scale = 2.0**exponents
    ratio = np.outer(scale, 1.0 / scale)
    h *= ratio
    j *= ratio
    return scale


@_jit
def complement_basis(c):
    """The last ``rows - cols`` columns of the complete QR factor of ``c`` (``rows >= cols``):
    an orthonormal basis of the complement of ``c``'s columns (zero columns padded up to a
    square matrix give identity reflectors, so the reduced factor is the complete one)."""
    rows, cols = c.shape
    padded = np.zeros((rows, rows))
    padded[:, :cols] = c
    q = np.linalg.qr(padded)[0]
    return np.ascontiguousarray(q[:, cols:])


@_jit
def solve_dare(a, b, q, r):
    """``scipy.linalg.solve_discrete_are(a, b, q, r)`` in double precision."""
    _check_shapes(a, b, q, r)
    if asymmetric(q):
        raise ValueError("Matrix q should be symmetric/hermitian.")
    if asymmetric(r):
        raise ValueError("Matrix r should be symmetric/hermitian.")
    m = b.shape[0]
    h, j = pencil(
        a.astype(np.float64), b.astype(np.float64), q.astype(np.float64), r.astype(np.float64)
    )
    scale = symplectic_balance(h, j, m)
    basis = np.ascontiguousarray(complement_basis(h[:, 2 * m :]).T)
    h2 = np.dot(basis, np.ascontiguousarray(h[:, : 2 * m]))
    j2 = np.dot(basis, np.ascontiguousarray(j[:, : 2 * m]))
    u = _ordqz(h2, j2, _INSIDE_UNIT_CIRCLE)[5]
    u00, u10 = np.ascontiguousarray(u[:m, :m]), np.ascontiguousarray(u[m:, :m])
    return _stable_solution(u00, u10, scale[:m])


@_jit
def _stable_solution(u00, u10, scale):
    """``X = U10 U00^-1`` (unbalanced, symmetrised), with SciPy's two failure tests."""
    m = u00.shape[0]
    factors, piv = u00.copy(), np.empty(m, np.int32)
    lk.lu_inplace(factors, piv)
    upper = np.triu(factors)
    singular = np.linalg.svd(upper)[1]  # cond(U) in the 2-norm: s_max / s_min
    if singular[0] == 0 or singular[-1] / singular[0] < _EPS:
        raise np.linalg.LinAlgError("Failed to find a finite solution.")
    xt = np.ascontiguousarray(u10.T)
    lk.lu_solve_inplace(factors, piv, xt, 1)  # U00^T X^T = U10^T
    x = xt.T * np.outer(scale, scale)
    u_sym = np.dot(np.ascontiguousarray(u00.T), u10)
    threshold = max(_SPACING_1000, 0.1 * lk.norm1(u_sym))
    if lk.norm1(u_sym - u_sym.T) > threshold:
        raise np.linalg.LinAlgError(
            "The associated symplectic pencil has eigenvalues too close to the unit circle"
        )
    return (x + x.T) / 2


@numba_funcify.register(SolveDiscreteARE)
def _solve_discrete_are(op: SolveDiscreteARE, node: Apply) -> Callable:
    dtype = node.outputs[0].type.dtype
    source = f"def kernel(a, b, q, r):\n    return solve_dare(a, b, q, r).astype(np.{dtype})\n"
    return compile_source(source, "kernel", {"solve_dare": solve_dare})
