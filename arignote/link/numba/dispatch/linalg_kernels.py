"""Native building blocks of the linear solvers (``numba.njit`` functions on one matrix).

LAPACK's algorithms written as loops, so that they run on every dtype numba types (real and
complex) and raise where SciPy raises: the LU factorisation with partial pivoting of
``?getrf`` (the first largest pivot in ``|re| + |im|``, whole rows swapped, the factorisation
carried on past a zero pivot), the triangular solves of ``?trtrs`` (a zero diagonal entry is a
``LinAlgError``), the Cholesky solves of ``?potrs`` (never checked, as in LAPACK) and Hager's
estimate of the 1-norm of an inverse (``?lacn2``'s first steps), which gives the reciprocal
condition number SciPy's ``solve`` warns about. Rounding differs from the blocked LAPACK
routines by a few ulps only.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg

import numba

_jit = numba.njit(cache=False)


@_jit
def mag1(x):
    """``|re| + |im|``: the magnitude LAPACK's ``i?amax`` compares."""
    return abs(x.real) + abs(x.imag)


@_jit
def safe_div(x, d):
    """``x / d`` with IEEE results for ``d == 0`` (numba's scalar division raises there)."""
    if d != 0:
        return x / d
    return x * np.inf


@_jit
def lu_inplace(a, piv):
    """Factor ``a`` in place as ``?getrf``: ``piv[j]`` is the row swapped with row ``j``;
    returns LAPACK's ``info`` (1 + the first zero pivot, 0 when there is none)."""
    m, n = a.shape
    info = 0
    for j in range(min(m, n)):
        p = j
        for i in range(j + 1, m):
            if mag1(a[i, j]) > mag1(a[p, j]):
                p = i
        piv[j] = p
        if a[p, j] != 0:
            if p != j:
                for c in range(n):
                    a[j, c], a[p, c] = a[p, c], a[j, c]
            for i in range(j + 1, m):
                a[i, j] = a[i, j] / a[j, j]
        elif info == 0:
            info = j + 1
        for i in range(j + 1, m):
            f = a[i, j]
            for c in range(j + 1, n):
                a[i, c] -= f * a[j, c]
    return info


@_jit
def tri_entry(t, i, j, trans):
    """Entry ``(i, j)`` of ``op(T)``: ``T``, ``T^T`` or ``T^H`` for ``trans`` 0, 1, 2."""
    if trans == 0:
        return t[i, j]
    if trans == 1:
        return t[j, i]
    return np.conj(t[j, i])


@_jit
def tri_solve(t, x, lower, trans, unit, check):
    """Overwrite ``x`` (n, k) with ``op(T)^-1 x``, reading one triangle of ``T`` only.

    ``op(T)`` is lower triangular when ``lower`` and ``trans == 0`` or upper and transposed.
    ``check``: a zero diagonal entry raises as ``?trtrs`` does; otherwise it gives IEEE
    infinities (``?potrs``).
    """
    n, k = x.shape
    low = lower != (trans != 0)
    for c in range(k):
        for s in range(n):
            i = s if low else n - 1 - s
            acc = x[i, c]
            for r in range(s):
                j = r if low else n - 1 - r
                acc -= tri_entry(t, i, j, trans) * x[j, c]
            if not unit:
                d = tri_entry(t, i, i, trans)
                if check and d == 0:
                    raise np.linalg.LinAlgError("singular matrix: resolution failed at diagonal")
                acc = safe_div(acc, d)
            x[i, c] = acc


@_jit
def lu_solve_inplace(lu, piv, x, trans):
    """Overwrite ``x`` with ``op(A)^-1 x`` from ``A``'s packed factors (``?getrs``)."""
    n = x.shape[0]
    if trans == 0:
        for j in range(n):  # the row swaps, in order: P^T x
            p = piv[j]
            if p != j:
                for c in range(x.shape[1]):
                    x[j, c], x[p, c] = x[p, c], x[j, c]
        tri_solve(lu, x, True, 0, True, False)
        tri_solve(lu, x, False, 0, False, False)
        return
    tri_solve(lu, x, False, trans, False, False)  # op(U)^-1 then op(L)^-1, then P x
    tri_solve(lu, x, True, trans, True, False)
    for j in range(n - 1, -1, -1):
        p = piv[j]
        if p != j:
            for c in range(x.shape[1]):
                x[j, c], x[p, c] = x[p, c], x[j, c]


@_jit
def cho_solve_inplace(c, x, lower):
    """Overwrite ``x`` with ``(C C^H)^-1 x`` (``lower``) or ``(C^H C)^-1 x`` (``?potrs``)."""
    if lower:
        tri_solve(c, x, True, 0, False, False)
        tri_solve(c, x, True, 2, False, False)
    else:
        tri_solve(c, x, False, 2, False, False)
        tri_solve(c, x, False, 0, False, False)


@_jit
def norm1(a):
    """The 1-norm of a matrix: its largest absolute column sum."""
    best = 0.0
    for c in range(a.shape[1]):
        total = 0.0
        for r in range(a.shape[0]):
            total += abs(a[r, c])
        best = max(best, total)
    return best


@_jit
def inverse_norm1(factors, piv, kind, lower):
    """Hager's estimate of ``||A^-1||_1`` from ``A``'s factors (kind 0: LU, 1: Cholesky):
    the largest ``||A^-1 e_j||_1`` reached by a gradient ascent over the unit 1-ball."""
    n = factors.shape[0]
    x = np.full((n, 1), 1.0 / n, dtype=factors.dtype)
    estimate = 0.0
    for _ in range(5):
        y = x.copy()
        _apply_inverse(factors, piv, kind, lower, y, 0)
        estimate = np.abs(y).sum()
        z = np.empty_like(y)
        for i in range(n):
            z[i, 0] = y[i, 0] / abs(y[i, 0]) if y[i, 0] != 0 else 1.0
        _apply_inverse(factors, piv, kind, lower, z, 2)
        j = np.argmax(np.abs(z[:, 0]))
        if abs(z[j, 0]) <= (z[:, 0].conj() * x[:, 0]).sum().real:
            break
        x[:] = 0
        x[j, 0] = 1
    return estimate


@_jit
def _apply_inverse(factors, piv, kind, lower, x, trans):
    if kind == 0:
        lu_solve_inplace(factors, piv, x, trans)
    else:
        cho_solve_inplace(factors, x, lower)


@_jit
def ill_conditioned(a, factors, piv, kind, lower):
    """SciPy's test before its ``LinAlgWarning``: the reciprocal condition number in the
    1-norm below the dtype's machine epsilon (0 for a singular matrix is an error, not this)."""
    inverse = inverse_norm1(factors, piv, kind, lower)
    rcond = 1.0 / (norm1(a) * inverse) if inverse != 0 and norm1(a) != 0 else 0.0
    return rcond < np.finfo(a.dtype).eps, rcond


def warn_ill_conditioned(rcond: float) -> None:
    """SciPy's warning for an ill-conditioned system (called from native code in object mode)."""
    warnings.warn(
        f"An ill-conditioned matrix detected: rcond = {rcond}.",
        scipy.linalg.LinAlgWarning,
        stacklevel=3,
    )


def warn_zero_pivot(info: int) -> None:
    """``scipy.linalg.lu_factor``'s warning for an exactly singular matrix."""
    warnings.warn(
        f"Diagonal number {info} is exactly zero. Singular matrix.",
        scipy.linalg.LinAlgWarning,
        stacklevel=3,
    )


@_jit
def householder_qr(a):
    """``?geqr2`` on a copy of real ``a``: ``(h^T, tau)`` as ``np.linalg.qr(mode="raw")``.

    Column ``j``: the reflector ``H = I - tau v v^T`` (``v[0] = 1``, stored below the
    diagonal) maps ``x = a[j:, j]`` to ``beta e_1`` with ``beta = -sign(x_0) ||x||``, so
    ``tau = (beta - x_0) / beta`` and ``v = x / (x_0 - beta)``; ``tau = 0`` when the column
    below the diagonal is already zero. Then ``H`` is applied to the remaining columns.
    """
    h = a.copy()
    m, n = h.shape
    k = min(m, n)
    tau = np.zeros(k, dtype=h.dtype)
    for j in range(k):
        alpha = h[j, j]
        xnorm = np.sqrt((h[j + 1 :, j] ** 2).sum())
        if xnorm == 0:
            continue
        beta = -np.copysign(np.hypot(alpha, xnorm), alpha)
        tau[j] = (beta - alpha) / beta
        h[j + 1 :, j] /= alpha - beta
        h[j, j] = beta
        for c in range(j + 1, n):  # a_c -= tau v (v^T a_c)
            dot = h[j, c]
            for i in range(j + 1, m):
                dot += h[i, j] * h[i, c]
            dot *= tau[j]
            h[j, c] -= dot
            for i in range(j + 1, m):
                h[i, c] -= dot * h[i, j]
    return np.ascontiguousarray(h.T), tau


#: Coefficients of the [13/13] Pade approximant of exp (Higham 2005, table 10.4 of
#: "Functions of Matrices"), and the 1-norm up to which it is accurate to double precision.
_PADE13 = np.array(
    [
        64764752532480000.0,
        32382376266240000.0,
        7771770303897600.0,
        1187353796428800.0,
        129060195264000.0,
        10559470521600.0,
        670442572800.0,
        33522128640.0,
        1323241920.0,
        40840800.0,
        960960.0,
        16380.0,
        182.0,
        1.0,
    ]
)
_THETA13 = 5.371920351148152


@_jit
def expm(a):
    """The matrix exponential by scaling and squaring (Higham 2005): ``A / 2^s`` has a 1-norm
    below theta_13, where the [13/13] Pade approximant ``(V - U)^-1 (V + U)`` (``U`` the odd
    part, ``V`` the even part) is exact to double precision; then ``s`` squarings."""
    n = a.shape[0]
    x = np.empty((n, n))  # a C-contiguous float64 copy (BLAS takes no other layout)
    x[:, :] = a
    if not np.isfinite(x).all():
        # SciPy's expm gives NaN everywhere then (its scaling meets inf / inf)
        return np.full((n, n), np.nan)
    norm = norm1(x)
    s = 0
    if norm > _THETA13:
        s = int(np.ceil(np.log2(norm / _THETA13)))
        x /= 2.0**s
    b = _PADE13
    eye = np.eye(n)
    x2 = np.dot(x, x)
    x4 = np.dot(x2, x2)
    x6 = np.dot(x4, x2)
    odd = np.dot(x6, b[13] * x6 + b[11] * x4 + b[9] * x2)
    u = np.dot(x, odd + b[7] * x6 + b[5] * x4 + b[3] * x2 + b[1] * eye)
    v = np.dot(x6, b[12] * x6 + b[10] * x4 + b[8] * x2) + b[6] * x6 + b[4] * x4 + b[2] * x2
    v = v + b[0] * eye
    r = np.ascontiguousarray(np.linalg.solve(v - u, v + u))  # numba's solve is Fortran-ordered
    for _ in range(s):
        r = np.dot(r, r)
    return r
