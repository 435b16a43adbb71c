"""op_db entries: products (dot, matmul, tensordot, outer, vdot, einsum, matrix_transpose)."""

from __future__ import annotations

import numpy as np

import arignote.tensor as pt
from tests.op_db.core import FLOAT_DTYPES, OpInfo, Sample, register

PRODUCT_OPS = (pt.Dot, pt.MatMul, pt.Einsum)


def _dot_samples(rng):
    n = rng.normal
    return [
        Sample((n(size=(3, 4)), n(size=(4, 5))), name="matrix-matrix"),
        Sample((n(size=(4,)), n(size=(4, 5))), name="vector-matrix"),
        Sample((n(size=(3, 4)), n(size=(4,))), name="matrix-vector"),
        Sample((n(size=(4,)), n(size=(4,))), name="vector-vector"),
        Sample((n(size=(2, 3, 4)), n(size=(5, 4, 6))), name="tensor3-tensor3"),
        Sample((n(size=(2, 3, 4)), n(size=(4,))), name="tensor3-vector"),
        Sample((np.asarray(n()), n(size=(3, 4))), name="scalar-matrix"),
    ]


def _matmul_samples(rng):
    n = rng.normal
    return [
        Sample((n(size=(3, 4)), n(size=(4, 5))), name="matrix"),
        Sample((n(size=(2, 3, 4)), n(size=(2, 4, 5))), name="batched"),
        Sample((n(size=(1, 3, 4)), n(size=(2, 4, 5))), name="broadcast-batch"),
        Sample((n(size=(2, 1, 3, 4)), n(size=(5, 4, 6))), name="broadcast-ndim"),
        Sample((n(size=(4,)), n(size=(2, 4, 5))), name="vector-tensor3"),
        Sample((n(size=(2, 3, 4)), n(size=(4,))), name="tensor3-vector"),
        Sample((n(size=(4,)), n(size=(4,))), name="vector-vector"),
    ]


def _tensordot_samples(rng):
    n = rng.normal
    return [
        Sample((n(size=(2, 3, 4)), n(size=(3, 4, 5))), {"axes": 2}, name="int2"),
        Sample((n(size=(2, 3)), n(size=(3, 4))), {"axes": 1}, name="int1"),
        Sample((n(size=(2, 3)), n(size=(4,))), {"axes": 0}, name="outer"),
        Sample((n(size=(2, 3, 4)), n(size=(4, 5, 2))), {"axes": ([0, 2], [2, 0])}, name="pairs"),
        Sample((n(size=(3, 4)), n(size=(3, 5))), {"axes": (0, 0)}, name="int-pair"),
    ]


def _outer_samples(rng):
    n = rng.normal
    return [
        Sample((n(size=(3,)), n(size=(4,))), name="vectors"),
        Sample((n(size=(2, 3)), n(size=(5,))), name="flattened"),
    ]


def _vdot_samples(rng):
    n = rng.normal
    return [
        Sample((n(size=(5,)), n(size=(5,))), name="vectors"),
        Sample((n(size=(2, 3)), n(size=(2, 3))), name="matrices"),
        Sample((n(size=(2, 3)), n(size=(6,))), name="reshaped"),
    ]


EINSUM_CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk", [(3, 4), (4, 5)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),
    ("ij->ji", [(3, 4)]),
    ("ij->", [(3, 4)]),
    ("i,j->ij", [(3,), (4,)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]),
    ("i...->...", [(3, 4, 5)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("iij->j", [(3, 3, 4)]),
    ("ij,ij->i", [(3, 4), (1, 4)]),
]


def _einsum_samples(rng):
    return [
        Sample((subscripts, *[rng.normal(size=s) for s in shapes]), name=subscripts)
        for subscripts, shapes in EINSUM_CASES
    ]


def _transpose_samples(rng):
    return [
        Sample((rng.normal(size=(3, 4)),), name="matrix"),
        Sample((rng.normal(size=(2, 3, 4)),), name="batched"),
    ]


register(
    OpInfo("dot", pt.dot, np.dot, _dot_samples, FLOAT_DTYPES, op_class=PRODUCT_OPS),
    OpInfo("matmul", pt.matmul, np.matmul, _matmul_samples, FLOAT_DTYPES, op_class=PRODUCT_OPS),
    OpInfo(
        "tensordot",
        pt.tensordot,
        np.tensordot,
        _tensordot_samples,
        FLOAT_DTYPES,
        op_class=PRODUCT_OPS,
    ),
    OpInfo("outer", pt.outer, np.outer, _outer_samples, FLOAT_DTYPES, op_class=pt.Reshape),
    OpInfo("vdot", pt.vdot, np.vdot, _vdot_samples, FLOAT_DTYPES, op_class=PRODUCT_OPS),
    OpInfo("einsum", pt.einsum, np.einsum, _einsum_samples, FLOAT_DTYPES, op_class=pt.Einsum),
    OpInfo(
        "matrix_transpose",
        pt.matrix_transpose,
        np.matrix_transpose,
        _transpose_samples,
        FLOAT_DTYPES,
        op_class=pt.DimShuffle,
    ),
)
