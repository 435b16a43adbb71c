"""Tests of arignote.tensor.linalg.basic: dtypes, triangles, identities, and the namespace."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
import scipy.linalg

import arignote
import arignote.tensor as pt
import arignote.tensor.linalg as linalg_module
from arignote.tensor.linalg.basic import (
    diag_embed,
    diagonal,
    fold_to_triangle,
    identity_like,
    linalg_dtype,
    symmetric_from_triangle,
    trace,
)
from arignote.testing import InferShapeTester, verify_grad

PUBLIC_LINALG = [
    "block_diag",
    "cho_solve",
    "cholesky",
    "det",
    "eig",
    "eigh",
    "eigvalsh",
    "expm",
    "inv",
    "kron",
    "lstsq",
    "matrix_power",
    "norm",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "solve_triangular",
    "svd",
]


def test_every_linalg_name_exists():
    assert pt.linalg is linalg_module
    for name in PUBLIC_LINALG:
        assert callable(getattr(pt.linalg, name)), name
    for name in ("dot", "matmul", "tensordot", "outer", "vdot", "einsum"):
        assert callable(getattr(pt, name)), name


@pytest.mark.parametrize(
    ("dtypes", "expected"),
    [
        (("float64",), "float64"),
        (("float32",), "float32"),
        (("int32",), "float64"),
        (("bool",), "float64"),
        (("float32", "int8"), "float64"),
        (("float32", "float32"), "float32"),
        (("complex64",), "complex64"),
        (("float64", "complex64"), "complex128"),
    ],
)
def test_linalg_dtype_follows_numpy(dtypes, expected):
    assert linalg_dtype(*dtypes) == expected
    arrays = [np.eye(2, dtype=d) for d in dtypes]
    assert np.linalg.solve(arrays[0], arrays[-1]).dtype == expected


def test_linalg_dtype_refuses_float16():
    with pytest.raises(TypeError, match="float16"):
        linalg_dtype("float16")
    with pytest.raises(TypeError, match="float16"):
        pt.linalg.inv(pt.matrix(dtype="float16"))


def test_symmetric_from_triangle_and_its_adjoint(rng):
    value = rng.normal(size=(4, 4))
    x = pt.matrix()
    sym = arignote.function([x], symmetric_from_triangle(x, lower=True))(value)
    np.testing.assert_array_equal(sym, np.tril(value) + np.tril(value, -1).T)
    g = rng.normal(size=(4, 4))
    folded = arignote.function([x], fold_to_triangle(x, lower=True))(g)
    other = rng.normal(size=(4, 4))
    # <g, sym(v)> == <fold(g), v>
    sym_other = np.tril(other) + np.tril(other, -1).T
    assert np.sum(g * sym_other) == pytest.approx(np.sum(folded * other))


def test_diagonal_trace_identity(rng):
    value = rng.normal(size=(2, 3, 3))
    x = pt.tensor3()
    fn = arignote.function([x], [diagonal(x), trace(x), identity_like(x), diag_embed(diagonal(x))])
    diag, tr, eye, embedded = fn(value)
    np.testing.assert_array_equal(diag, np.diagonal(value, axis1=-2, axis2=-1))
    np.testing.assert_allclose(tr, np.trace(value, axis1=-2, axis2=-1))
    np.testing.assert_array_equal(eye, np.broadcast_to(np.eye(3), (2, 3, 3)))
    np.testing.assert_array_equal(embedded, value * np.eye(3))


# Ops that the op database only meets inside gradient graphs get the contract checks here.
GRADIENT_OPS = [
    (pt.linalg.ExpmFrechet(), [(3, 3), (3, 3)]),
    (pt.linalg.DiagonalBlocks(2), [(5, 7), (2, 3), (3, 4)]),
    (pt.Einsum("i->ii"), [(3,)]),
]


@pytest.mark.parametrize(("op", "shapes"), GRADIENT_OPS, ids=lambda v: str(v))
def test_gradient_ops_contract(rng, op, shapes):
    twin = copy.copy(op)
    restored = pickle.loads(pickle.dumps(op))
    assert twin == op == restored and hash(twin) == hash(op) == hash(restored)
    symbols = [pt.tensor(shape=(None,) * len(s)) for s in shapes]
    values = [rng.normal(size=s) / 2 for s in shapes]
    outputs = op(*symbols, return_list=True)
    remade = op.make_node(*outputs[0].owner.inputs)
    assert [o.type for o in remade.outputs] == [o.type for o in outputs]
    tester = InferShapeTester()
    tester.setup_method()
    tester._compile_and_check(symbols, outputs, values, type(op), warn=False)


def test_DiagonalBlocks_is_the_adjoint_of_BlockDiagonal(rng):
    blocks = [rng.normal(size=(2, 3)), rng.normal(size=(3, 1))]
    matrix = rng.normal(size=(5, 4))
    m, b1, b2 = pt.matrix(), pt.matrix(), pt.matrix()
    pieces = arignote.function([m, b1, b2], pt.linalg.DiagonalBlocks(2)(m, b1, b2))(matrix, *blocks)
    placed = arignote.function([b1, b2], pt.linalg.block_diag(b1, b2))(*blocks)
    # <M, block_diag(B)> == sum_k <blocks_k(M), B_k>
    left = np.sum(matrix * placed)
    right = sum(np.sum(p * b) for p, b in zip(pieces, blocks))
    assert left == pytest.approx(right)
    with pytest.raises(ValueError, match="blocks of total shape"):
        arignote.function([m, b1, b2], pt.linalg.DiagonalBlocks(2)(m, b1, b2))(
            rng.normal(size=(6, 4)), *blocks
        )


# -- several random well-conditioned stacks of matrices -------------------------------------------
# The op database tries one matrix per sample; here each function sees several seeds, on a
# batch of matrices (every function of the namespace works on stacks, as numpy.linalg does).


def _general(rng, batch, n):
    return rng.normal(size=(*batch, n, n)) + n * np.eye(n)


def _spd(rng, batch, n):
    a = rng.normal(size=(*batch, n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def _separated(rng, batch, n, m=None):
    """An m x n matrix with singular values min(m, n) + 1, ..., 2 (well separated)."""
    m = n if m is None else m
    u, _ = np.linalg.qr(rng.normal(size=(*batch, m, m)))
    v, _ = np.linalg.qr(rng.normal(size=(*batch, n, n)))
    s = np.zeros((*batch, m, n))
    k = min(m, n)
    s[..., np.arange(k), np.arange(k)] = np.arange(k + 1.0, 1.0, -1)
    return u @ s @ v


def _symmetric(rng, batch, n):
    q, _ = np.linalg.qr(rng.normal(size=(*batch, n, n)))
    return q @ (np.arange(1.0, n + 1)[:, None] * np.swapaxes(q, -1, -2))


la = pt.linalg
# name: (arignote function, NumPy/SciPy reference, inputs from (rng, batch))
SEVERAL_SEEDS = {
    "inv": (la.inv, np.linalg.inv, lambda r, b: [_general(r, b, 3)]),
    "det": (la.det, np.linalg.det, lambda r, b: [_general(r, b, 3)]),
    "slogdet": (
        lambda a: la.slogdet(a)[1],
        lambda a: np.linalg.slogdet(a)[1],
        lambda r, b: [_general(r, b, 3)],
    ),
    "solve": (
        la.solve,
        np.linalg.solve,
        lambda r, b: [_general(r, b, 3), r.normal(size=(*b, 3, 2))],
    ),
    "solve_triangular": (
        lambda a, y: la.solve_triangular(a, y, lower=True),
        lambda a, y: scipy.linalg.solve_triangular(a, y, lower=True),
        lambda r, b: [np.tril(_general(r, b, 3)), r.normal(size=(*b, 3, 2))],
    ),
    "cholesky": (la.cholesky, np.linalg.cholesky, lambda r, b: [_spd(r, b, 3)]),
    "cho_solve": (
        lambda c, y: la.cho_solve((c, True), y),
        lambda c, y: scipy.linalg.cho_solve((c, True), y),
        lambda r, b: [np.linalg.cholesky(_spd(r, b, 3)), r.normal(size=(*b, 3, 2))],
    ),
    "eigvalsh": (la.eigvalsh, np.linalg.eigvalsh, lambda r, b: [_symmetric(r, b, 3)]),
    # eigenvectors and singular vectors up to their sign
    "eigh": (
        lambda a: la.eigh(a)[1] ** 2,
        lambda a: np.linalg.eigh(a)[1] ** 2,
        lambda r, b: [_symmetric(r, b, 3)],
    ),
    "svd": (
        lambda a: la.svd(a, full_matrices=False)[0] ** 2,
        lambda a: np.linalg.svd(a, full_matrices=False)[0] ** 2,
        lambda r, b: [_separated(r, b, 3, 5)],
    ),
    "svd[values]": (
        lambda a: la.svd(a, compute_uv=False),
        lambda a: np.linalg.svd(a, compute_uv=False),
        lambda r, b: [_separated(r, b, 3, 5)],
    ),
    "qr": (
        lambda a: la.qr(a, mode="economic")[0] ** 2,
        lambda a: np.linalg.qr(a)[0] ** 2,
        lambda r, b: [_separated(r, b, 3, 4)],
    ),
    "pinv": (la.pinv, np.linalg.pinv, lambda r, b: [_separated(r, b, 3, 5)]),
    "norm[2]": (
        lambda a: la.norm(a, 2, axis=(-2, -1)),
        lambda a: np.linalg.norm(a, 2, axis=(-2, -1)),
        lambda r, b: [_separated(r, b, 3, 4)],
    ),
    "norm[nuc]": (
        lambda a: la.norm(a, "nuc", axis=(-2, -1)),
        lambda a: np.linalg.norm(a, "nuc", axis=(-2, -1)),
        lambda r, b: [_separated(r, b, 3, 4)],
    ),
    "matrix_power": (
        lambda a: la.matrix_power(a, -2),
        lambda a: np.linalg.matrix_power(a, -2),
        lambda r, b: [_general(r, b, 3) / 3],
    ),
    "expm": (la.expm, scipy.linalg.expm, lambda r, b: [r.normal(size=(*b, 3, 3)) / 2]),
}


@pytest.mark.parametrize("name", list(SEVERAL_SEEDS))
def test_values_and_gradients_on_several_batched_matrices(name):
    build, reference, make = SEVERAL_SEEDS[name]
    for seed in range(4):
        rng = np.random.default_rng(seed)
        values = make(rng, (2,))
        symbols = [pt.tensor(dtype="float64", shape=(None,) * v.ndim) for v in values]
        got = arignote.function(symbols, build(*symbols))(*values)
        np.testing.assert_allclose(got, reference(*values), rtol=1e-7, atol=1e-10)
        if seed < 2:
            verify_grad(build, values, rng=rng)
