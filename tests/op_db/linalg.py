"""op_db entries: arignote.tensor.linalg (NumPy/SciPy linear algebra)."""

from __future__ import annotations

import numpy as np
import scipy.linalg

import arignote.tensor as pt
from arignote.tensor import linalg as la
from tests.op_db.core import FLOAT_DTYPES, Directive, OpInfo, Sample, register

# -- well-conditioned matrices ------------------------------------------------------------------


def general(rng, n, batch=()):
    """A random matrix pushed away from singularity (its spectrum is near n)."""
    return rng.normal(size=(*batch, n, n)) + n * np.eye(n)


def spd(rng, n, batch=()):
    """A symmetric positive-definite matrix ``A A^T + n I``."""
    a = rng.normal(size=(*batch, n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def symmetric_with_gaps(rng, n, batch=()):
    """A symmetric matrix with eigenvalues 1, 2, ..., n (well separated, for eigh's vectors)."""
    q, _ = np.linalg.qr(rng.normal(size=(*batch, n, n)))
    return q @ (np.arange(1.0, n + 1)[:, None] * np.swapaxes(q, -1, -2))


def triangular(rng, n):
    """A triangular matrix with a dominant diagonal (the other triangle is noise, never read)."""
    a = rng.normal(size=(n, n))
    a[np.diag_indices(n)] = np.sign(a[np.diag_indices(n)]) * (2 + np.abs(np.diag(a)))
    return a


def _tall(rng, m, n, batch=()):
    """A full-rank matrix with well-separated singular values."""
    u, _ = np.linalg.qr(rng.normal(size=(*batch, m, m)))
    v, _ = np.linalg.qr(rng.normal(size=(*batch, n, n)))
    k = min(m, n)
    s = np.zeros((*batch, m, n))
    s[..., np.arange(k), np.arange(k)] = np.arange(k + 1.0, 1.0, -1)
    return u @ s @ v


# -- samples ------------------------------------------------------------------------------------


def _square_samples(rng):
    return [
        Sample((general(rng, 4),), name="matrix"),
        Sample((general(rng, 3, (2,)),), name="batched"),
    ]


def _det_samples(rng):
    negative = general(rng, 3)
    negative[[0, 1]] = negative[[1, 0]]  # a row swap flips the sign of the determinant
    return [*_square_samples(rng), Sample((negative,), name="negative")]


def _solve_samples(rng):
    n = rng.normal
    return [
        Sample((general(rng, 4), n(size=(4, 3))), name="matrix"),
        Sample((general(rng, 4), n(size=(4,))), name="vector"),
        Sample((general(rng, 3, (2,)), n(size=(2, 3, 5))), name="batched"),
        Sample((general(rng, 3, (1,)), n(size=(2, 3, 2))), name="broadcast"),
        Sample((general(rng, 3, (2,)), n(size=(3,))), name="batched-vector"),
        Sample((spd(rng, 4), n(size=(4, 2))), {"assume_a": "pos"}, name="pos"),
        Sample((spd(rng, 4), n(size=(4, 2))), {"assume_a": "sym", "lower": True}, name="sym"),
        Sample((general(rng, 4), n(size=(4, 2))), {"transposed": True}, name="transposed"),
    ]


def _solve_triangular_samples(rng):
    n = rng.normal
    return [
        Sample((triangular(rng, 4), n(size=(4, 3))), {"lower": True}, name="lower"),
        Sample((triangular(rng, 4), n(size=(4,))), {"lower": False}, name="upper-vector"),
        Sample((triangular(rng, 4), n(size=(4, 2))), {"lower": True, "trans": 1}, name="trans"),
        Sample(
            (triangular(rng, 4), n(size=(4, 2))),
            {"lower": False, "trans": "T", "unit_diagonal": True},
            name="unit-diagonal",
        ),
    ]


def _cholesky_samples(rng):
    return [
        Sample((spd(rng, 4),), {"lower": True}, name="lower"),
        Sample((spd(rng, 4),), {"lower": False}, name="upper"),
        Sample((spd(rng, 3, (2,)),), {"lower": True}, name="batched"),
    ]


def _cho_solve_samples(rng):
    a, b = spd(rng, 4), rng.normal(size=(4, 3))
    lower = np.linalg.cholesky(a)
    return [
        Sample((lower, b), {"lower": True}, name="lower"),
        Sample((lower.T.copy(), rng.normal(size=(4,))), {"lower": False}, name="upper-vector"),
    ]


def _eigh_samples(rng):
    return [
        Sample((symmetric_with_gaps(rng, 4),), {"UPLO": "L"}, name="lower"),
        Sample((symmetric_with_gaps(rng, 4),), {"UPLO": "U"}, name="upper"),
        Sample((symmetric_with_gaps(rng, 3, (2,)),), {"UPLO": "L"}, name="batched"),
    ]


def _svd_samples(rng):
    return [
        Sample((_tall(rng, 5, 3),), {"full_matrices": False}, name="tall-thin"),
        Sample((_tall(rng, 3, 5),), {"full_matrices": False}, name="wide-thin"),
        Sample((_tall(rng, 4, 4),), {"full_matrices": True}, name="square-full"),
        Sample((_tall(rng, 5, 3),), {"full_matrices": True}, name="tall-full"),
        Sample((_tall(rng, 4, 3, (2,)),), {"compute_uv": False}, name="values-batched"),
    ]


def _qr_samples(rng):
    return [
        Sample((_tall(rng, 5, 3),), {"mode": "reduced"}, name="reduced"),
        Sample((_tall(rng, 5, 3),), {"mode": "r"}, name="r"),
        Sample((_tall(rng, 4, 4),), {"mode": "complete"}, name="complete-square"),
        Sample((_tall(rng, 4, 3, (2,)),), {"mode": "reduced"}, name="batched"),
        Sample((_tall(rng, 5, 3),), {"mode": "raw"}, name="raw"),
    ]


def _pivoted_qr_samples(rng):
    return [
        Sample((_tall(rng, 5, 3),), {"mode": "economic"}, name="economic"),
        Sample((_tall(rng, 3, 5, (2,)),), {"mode": "r"}, name="r-wide-batched"),
        Sample((_tall(rng, 4, 4),), {"mode": "full"}, name="full-square"),
    ]


def _pivoted_qr(x, mode):
    return la.qr(x, mode=mode, pivoting=True)


def _pivoted_qr_ref(x, mode):
    """scipy.linalg.qr(pivoting=True) matrix by matrix; mode "r": the economic R."""
    stack = x.reshape(-1, *x.shape[-2:])
    scipy_mode = "economic" if mode == "r" else mode
    factors = [scipy.linalg.qr(m, mode=scipy_mode, pivoting=True) for m in stack]
    outputs = [np.stack(f).reshape(*x.shape[:-2], *f[0].shape) for f in zip(*factors)]
    return outputs[1:] if mode == "r" else outputs


def _pinv_samples(rng):
    return [
        Sample((_tall(rng, 5, 3),), name="tall"),
        Sample((_tall(rng, 3, 5, (2,)),), name="wide-batched"),
        Sample((symmetric_with_gaps(rng, 4),), {"hermitian": True}, name="hermitian"),
    ]


def _lstsq_samples(rng):
    return [
        Sample((_tall(rng, 5, 3), rng.normal(size=(5,))), name="vector"),
        Sample((_tall(rng, 5, 3), rng.normal(size=(5, 2))), name="matrix"),
        Sample((_tall(rng, 3, 5), rng.normal(size=(3, 2))), name="underdetermined"),
    ]


def _norm_samples(rng):
    n = rng.normal
    vector_orders = [None, 1, 2, np.inf, -np.inf, 0, 3.5, -1]
    matrix_orders = [None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf]
    # distinct magnitudes: the max/min norms have kinks where two magnitudes meet
    vector = rng.permutation([0.5, -1.1, 1.7, -2.3, 2.9]) + rng.uniform(-0.1, 0.1, 5)
    samples = [Sample((vector,), {"ord": o}, name=f"vector-{o}") for o in vector_orders]
    samples += [Sample((_tall(rng, 4, 3),), {"ord": o}, name=f"matrix-{o}") for o in matrix_orders]
    samples += [
        Sample((n(size=(2, 3, 4)),), name="tensor3-all"),
        Sample((n(size=(2, 3, 4)),), {"axis": 1, "keepdims": True}, name="axis-keepdims"),
        Sample((n(size=(3, 4, 5)),), {"ord": 1, "axis": (2, 0)}, name="matrix-axes"),
        Sample(
            (n(size=(3, 4, 5)),), {"ord": "nuc", "axis": (0, 2), "keepdims": True}, name="nuc-keep"
        ),
    ]
    return samples


def _matrix_power_samples(rng):
    return [
        Sample((general(rng, 3) / 3,), {"n": 3}, name="cube"),
        Sample((general(rng, 3) / 3,), {"n": 1}, name="one"),
        Sample((general(rng, 3, (2,)) / 3,), {"n": -2}, name="inverse-batched"),
        Sample((general(rng, 3),), {"n": 0}, name="zero"),
    ]


def _kron_samples(rng):
    n = rng.normal
    return [
        Sample((n(size=(2, 3)), n(size=(4, 5))), name="matrices"),
        Sample((n(size=(3,)), n(size=(2, 4))), name="vector-matrix"),
    ]


def _expm_samples(rng):
    return [
        Sample((rng.normal(size=(4, 4)) / 2,), name="matrix"),
        Sample((rng.normal(size=(2, 3, 3)) / 2,), name="batched"),
    ]


def _block_diag_samples(rng):
    n = rng.normal
    return [
        Sample((n(size=(2, 3)), n(size=(4, 1))), name="matrices"),
        Sample((n(size=(2, 3)), n(size=(4,)), np.asarray(n())), name="mixed-ndim"),
    ]


# -- builders and references with the keyword layout of the samples -------------------------------


def _cho_solve(c, b, lower):
    return la.cho_solve((c, lower), b)


def _cho_solve_ref(c, b, lower):
    return scipy.linalg.cho_solve((c, lower), b)


def _solve_ref(a, b, assume_a="gen", lower=False, transposed=False):
    if assume_a == "gen" and not transposed:
        return np.linalg.solve(a, b)
    return scipy.linalg.solve(a, b, assume_a=assume_a, lower=lower, transposed=transposed)


def _eig_ref(a):
    w, v = np.linalg.eig(a)
    return w.astype(np.result_type(w, np.complex64)), v.astype(np.result_type(v, np.complex64))


def _lstsq(a, b):
    x, _, _, s = la.lstsq(a, b)
    return x, s


def _lstsq_ref(a, b):
    x, _, _, s = np.linalg.lstsq(a, b)
    return x, s


def _svd(x, **kwargs):
    return la.svd(x, **kwargs)


def _qr(x, mode):
    return la.qr(x, mode=mode)


NOT_DIFFERENTIABLE = "the gradient is explicitly not implemented (grad_not_implemented)"

register(
    OpInfo("inv", la.inv, np.linalg.inv, _square_samples, FLOAT_DTYPES, op_class=la.MatrixInverse),
    OpInfo("det", la.det, np.linalg.det, _det_samples, FLOAT_DTYPES, op_class=la.Det),
    OpInfo(
        "slogdet", la.slogdet, np.linalg.slogdet, _det_samples, FLOAT_DTYPES, op_class=la.SlogDet
    ),
    OpInfo("solve", la.solve, _solve_ref, _solve_samples, FLOAT_DTYPES, op_class=la.Solve),
    OpInfo(
        "solve_triangular",
        la.solve_triangular,
        scipy.linalg.solve_triangular,
        _solve_triangular_samples,
        FLOAT_DTYPES,
        op_class=la.SolveTriangular,
    ),
    OpInfo(
        "cholesky",
        la.cholesky,
        scipy.linalg.cholesky,
        _cholesky_samples,
        FLOAT_DTYPES,
        op_class=la.Cholesky,
    ),
    OpInfo(
        "cho_solve",
        _cho_solve,
        _cho_solve_ref,
        _cho_solve_samples,
        FLOAT_DTYPES,
        op_class=la.ChoSolve,
    ),
    OpInfo("eigh", la.eigh, np.linalg.eigh, _eigh_samples, FLOAT_DTYPES, op_class=la.Eigh),
    OpInfo(
        "eigvalsh", la.eigvalsh, np.linalg.eigvalsh, _eigh_samples, FLOAT_DTYPES, op_class=la.Eigh
    ),
    OpInfo(
        "eig",
        la.eig,
        _eig_ref,
        lambda rng: (
            [Sample((rng.normal(size=(4, 4)),), name="matrix")]
            + [Sample((rng.normal(size=(2, 3, 3)),), name="batched")]
        ),
        FLOAT_DTYPES,
        op_class=la.Eig,
        grad=False,  # complex outputs: gradients are checked in tests/tensor/linalg/test_complex.py
        rtol=1e-5,
    ),
    OpInfo(
        "svd",
        _svd,
        np.linalg.svd,
        _svd_samples,
        FLOAT_DTYPES,
        op_class=la.SVD,
        directives=[
            Directive("grad", "U of a non-square full SVD is not unique", samples=["tall-full"]),
            Directive("rop", "U of a non-square full SVD is not unique", samples=["tall-full"]),
            Directive("adjoint", "U of a non-square full SVD is not unique", samples=["tall-full"]),
        ],
    ),
    OpInfo(
        "qr",
        _qr,
        np.linalg.qr,
        _qr_samples,
        FLOAT_DTYPES,
        op_class=la.QR,
        directives=[
            Directive("grad", NOT_DIFFERENTIABLE, samples=["raw"]),
            Directive("rop", NOT_DIFFERENTIABLE, samples=["raw"]),
            Directive("adjoint", NOT_DIFFERENTIABLE, samples=["raw"]),
        ],
    ),
    OpInfo(
        "qr[pivoting]",
        _pivoted_qr,
        _pivoted_qr_ref,
        _pivoted_qr_samples,
        FLOAT_DTYPES,
        op_class=la.PivotedQR,
    ),
    OpInfo("pinv", la.pinv, np.linalg.pinv, _pinv_samples, FLOAT_DTYPES, op_class=la.MatrixPinv),
    OpInfo("lstsq", _lstsq, _lstsq_ref, _lstsq_samples, FLOAT_DTYPES, op_class=la.Lstsq),
    OpInfo("norm", la.norm, np.linalg.norm, _norm_samples, FLOAT_DTYPES, op_class=la.SVD),
    OpInfo(
        "matrix_power",
        la.matrix_power,
        np.linalg.matrix_power,
        _matrix_power_samples,
        FLOAT_DTYPES,
        op_class=(pt.Dot, pt.MatMul, la.MatrixInverse),
    ),
    OpInfo("kron", la.kron, np.kron, _kron_samples, FLOAT_DTYPES, op_class=pt.Reshape),
    OpInfo("expm", la.expm, scipy.linalg.expm, _expm_samples, FLOAT_DTYPES, op_class=la.Expm),
    OpInfo(
        "block_diag",
        la.block_diag,
        scipy.linalg.block_diag,
        _block_diag_samples,
        FLOAT_DTYPES,
        op_class=la.BlockDiagonal,
    ),
)
