"""op_db entries: LU factorisations, Schur/QZ decompositions and the discrete Riccati equation."""

from __future__ import annotations

import numpy as np
import scipy.linalg

from arignote.tensor import linalg as la
from tests.op_db.core import FLOAT_DTYPES, OpInfo, Sample, register
from tests.op_db.linalg import general

NOT_UNIQUE = "Schur vectors are not unique: no derivative (grad_not_implemented, as in PyTensor)"


def _lu_samples(rng):
    return [
        Sample((rng.normal(size=(4, 4)),), name="plain"),
        Sample((rng.normal(size=(4, 4)),), {"p_indices": True}, name="p_indices"),
        Sample((rng.normal(size=(3, 3)),), {"permute_l": True}, name="permute_l"),
        Sample((rng.normal(size=(2, 3, 3)),), name="batched"),
    ]


def _lu(a, **kwargs):
    return la.lu(a, **kwargs)[1:] if not kwargs.get("permute_l") else la.lu(a, **kwargs)


def _lu_ref(a, **kwargs):
    if a.ndim == 3:
        return tuple(np.stack(parts) for parts in zip(*[_lu_ref(m, **kwargs) for m in a]))
    result = scipy.linalg.lu(a, **kwargs)
    return result if kwargs.get("permute_l") else result[1:]


def _lu_factor_ref(a):
    packed, piv = scipy.linalg.lu_factor(a)
    return packed


def _lu_solve_samples(rng):
    return [
        Sample((general(rng, 4), rng.normal(size=(4, 3))), name="matrix"),
        Sample((general(rng, 4), rng.normal(size=(4,))), {"trans": 1}, name="transposed-vector"),
    ]


def _lu_solve(a, b, trans=0):
    return la.lu_solve(la.lu_factor(a), b, trans=trans)


def _lu_solve_ref(a, b, trans=0):
    return scipy.linalg.lu_solve(scipy.linalg.lu_factor(a), b, trans=trans)


def _tridiagonal(rng, n, batch=()):
    """A diagonally dominated tridiagonal matrix (zeros elsewhere)."""
    a = rng.normal(size=(*batch, n, n))
    a = np.triu(np.tril(a, 1), -1)
    return a + 3 * np.eye(n)


def _diagonals(a):
    return [np.ascontiguousarray(np.diagonal(a, k, -2, -1)) for k in (-1, 0, 1)]


def _gttrf_ref(a):
    if a.ndim == 3:
        return tuple(np.stack(parts) for parts in zip(*[_gttrf_ref(m) for m in a]))
    return scipy.linalg.get_lapack_funcs("gttrf", (a,))(*_diagonals(a))[:5]


def _tridiagonal_factor_samples(rng):
    return [
        Sample((_tridiagonal(rng, 5),), name="plain"),
        Sample((_tridiagonal(rng, 4) - 4 * np.eye(4),), name="pivoting"),
        Sample((_tridiagonal(rng, 3, (2,)),), name="batched"),
    ]


def _tridiagonal_solve_samples(rng):
    # the matrix is static: the packed factors have no derivative, b has one
    return [
        Sample((_tridiagonal(rng, 5), rng.normal(size=(5, 3))), {"b_ndim": 2}, "matrix", (0,)),
        Sample(
            (_tridiagonal(rng, 4) - 4 * np.eye(4), rng.normal(size=(4,))),
            {"b_ndim": 1, "transposed": True},
            "transposed-vector",
            (0,),
        ),
        Sample(
            (_tridiagonal(rng, 3, (2,)), rng.normal(size=(2, 3, 2))), {"b_ndim": 2}, "batched", (0,)
        ),
    ]


def _tridiagonal_solve(a, b, b_ndim, transposed=False):
    factors = la.tridiagonal_lu_factor(a)
    return la.tridiagonal_lu_solve(factors, b, b_ndim=b_ndim, transposed=transposed)


def _tridiagonal_solve_ref(a, b, b_ndim, transposed=False):
    return np.linalg.solve(np.swapaxes(a, -1, -2) if transposed else a, b)


def _eigvalsh_samples(rng):
    m, q = rng.normal(size=(4, 4)), rng.normal(size=(4, 4))
    a, b = m + m.T, q @ q.T + 4 * np.eye(4)
    return [
        Sample((a,), name="standard"),
        Sample((a, b), name="generalized"),
        Sample((a, b), {"lower": False}, name="generalized-upper"),
    ]


def _eigvalsh(a, b=None, lower=True):
    return la.Eigvalsh(lower)(a, b)


def _eigvalsh_ref(a, b=None, lower=True):
    return scipy.linalg.eigvalsh(a, b, lower=lower)


def _schur_samples(rng):
    return [
        Sample((rng.normal(size=(4, 4)),), name="real"),
        Sample((rng.normal(size=(3, 3)),), {"output": "complex"}, name="complex"),
        Sample((rng.normal(size=(4, 4)),), {"sort": "lhp"}, name="sorted"),
    ]


def _schur_ref(a, **kwargs):
    return scipy.linalg.schur(a, **kwargs)[:2]


def _qz_samples(rng):
    n = rng.normal
    return [
        Sample((n(size=(4, 4)), n(size=(4, 4))), name="real"),
        Sample((n(size=(3, 3)), n(size=(3, 3))), {"output": "complex"}, name="complex"),
    ]


def _ordqz_samples(rng):
    n = rng.normal
    return [Sample((n(size=(4, 4)), n(size=(4, 4))), {"sort": "iuc"}, name="iuc")]


def _dare_samples(rng):
    q = rng.normal(size=(3, 3))
    return [
        Sample(
            (rng.normal(size=(3, 3)) / 2, rng.normal(size=(3, 2)), q @ q.T + np.eye(3), np.eye(2)),
            name="3x2",
        )
    ]


register(
    OpInfo("lu", _lu, _lu_ref, _lu_samples, FLOAT_DTYPES, op_class=la.LU, rtol=1e-5),
    OpInfo(
        "lu_factor",
        lambda a: la.lu_factor(a)[0],
        _lu_factor_ref,
        lambda rng: [Sample((rng.normal(size=(4, 4)),), name="plain")],
        FLOAT_DTYPES,
        op_class=la.LUFactor,
        rtol=1e-5,
    ),
    OpInfo("lu_solve", _lu_solve, _lu_solve_ref, _lu_solve_samples, FLOAT_DTYPES, rtol=1e-4),
    OpInfo(
        "Eigvalsh",
        _eigvalsh,
        _eigvalsh_ref,
        _eigvalsh_samples,
        FLOAT_DTYPES,
        op_class=la.Eigvalsh,
        rtol=1e-4,
    ),
    OpInfo(
        "tridiagonal_lu_factor",
        la.tridiagonal_lu_factor,
        _gttrf_ref,
        _tridiagonal_factor_samples,
        FLOAT_DTYPES,
        op_class=la.LUFactorTridiagonal,
        grad=False,  # grad_not_implemented: the packed, pivoted factors (see the module)
        rop=False,
        rtol=1e-5,
    ),
    OpInfo(
        "tridiagonal_lu_solve",
        _tridiagonal_solve,
        _tridiagonal_solve_ref,
        _tridiagonal_solve_samples,
        FLOAT_DTYPES,
        op_class=la.SolveLUFactorTridiagonal,
        rtol=1e-4,
    ),
    OpInfo(
        "schur",
        la.schur,
        _schur_ref,
        _schur_samples,
        FLOAT_DTYPES,
        op_class=la.Schur,
        grad=False,
        rop=False,
        rtol=1e-4,
    ),
    OpInfo(
        "qz",
        la.qz,
        scipy.linalg.qz,
        _qz_samples,
        FLOAT_DTYPES,
        op_class=la.QZ,
        grad=False,
        rop=False,
        rtol=1e-4,
    ),
    OpInfo(
        "ordqz",
        la.ordqz,
        scipy.linalg.ordqz,
        _ordqz_samples,
        FLOAT_DTYPES,
        op_class=la.QZ,
        grad=False,
        rop=False,
        rtol=1e-4,
    ),
    OpInfo(
        "solve_discrete_are",
        la.solve_discrete_are,
        scipy.linalg.solve_discrete_are,
        _dare_samples,
        FLOAT_DTYPES,
        op_class=la.SolveDiscreteARE,
        rtol=1e-4,
    ),
)
