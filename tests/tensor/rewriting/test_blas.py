"""Rewrites to gemm/gemv/ger (specialize) and their in-place versions."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.graph.basic import io_toposort
from arignote.tensor.blas import Gemm, Gemv, Ger, gemm, gemv, ger
from arignote.tensor.elemwise import DimShuffle
from tests.tensor.rewriting.utils import assert_not_fired, assert_rewrites_to, rewrite

SPECIAL = ("canonicalize", "specialize")
x, y, z = pt.dmatrices("x y z")
u, v = pt.dvectors("u v")
a, b = pt.dscalars("a b")
r = pt.drow("r")
i, j, k = pt.lmatrices("i j k")
VALUES = {
    r: np.ones((1, 5)),
    i: np.ones((3, 5), dtype="int64"),
    j: np.ones((3, 4), dtype="int64"),
    k: np.ones((4, 5), dtype="int64"),
    x: np.arange(12.0).reshape(3, 4) / 7,
    y: np.arange(20.0).reshape(4, 5) / 9,
    z: np.ones((3, 5)),
    u: np.arange(3.0),
    v: np.arange(4.0) - 1,
}


def c(value):
    return pt.constant(np.float64(value))


@pytest.mark.parametrize(
    ("build", "expected"),
    [
        (lambda: z + pt.dot(x, y), lambda: gemm(z, c(1), x, y, c(1))),
        (lambda: z - pt.dot(x, y), lambda: gemm(z, c(-1), x, y, c(1))),
        (lambda: pt.dot(x, y) - z, lambda: gemm(z, c(1), x, y, c(-1))),
        (lambda: z + a * pt.dot(x, y), lambda: gemm(z, a, x, y, c(1))),
        (lambda: b * z + pt.dot(x, y) * 2, lambda: gemm(z, c(2), x, y, b)),
        (lambda: u + pt.dot(x, v), lambda: gemv(u, c(1), x, v, c(1))),
        (lambda: v + pt.dot(u, x), lambda: gemv(v, c(1), DimShuffle(2, (1, 0))(x), u, c(1))),
        (lambda: x + a * pt.outer(u, v), lambda: ger(x, a, u, v)),
        (lambda: x + pt.outer(u, v), lambda: ger(x, c(1), u, v)),
    ],
)
def test_products_with_additions_become_blas_calls(build, expected):
    assert_rewrites_to(build(), expected(), include=SPECIAL, values=VALUES)


def test_remaining_terms_are_added_afterwards():
    new = rewrite(z + pt.dot(x, y) + pt.exp(z), include=SPECIAL, values=VALUES)
    assert any(isinstance(i.owner.op, Gemm) for i in new.owner.inputs if i.owner)


@pytest.mark.parametrize(
    ("name", "build"),
    [
        ("local_add_to_gemm_gemv", lambda: pt.dot(x, y) + pt.dot(x, y).sum()),  # z broadcasts
        ("local_add_to_gemm_gemv", lambda: r + pt.dot(x, y)),
        ("local_add_to_gemm_gemv", lambda: i + pt.dot(j, k)),
        ("local_add_outer_to_ger", lambda: x + pt.outer(u, v) * pt.outer(u, v)),
    ],
)
def test_no_blas_call_when_the_form_does_not_fit(name, build):
    assert_not_fired(build(), name, include=SPECIAL, values=VALUES)


def test_shared_products_are_not_absorbed():
    product = pt.dot(x, y)
    outs = rewrite([z + product, product * 3], include=SPECIAL, values=VALUES)
    assert not any(isinstance(n.op, Gemm) for n in _nodes(outs))


def _nodes(outputs):
    return io_toposort([], outputs)


def test_blas_calls_are_made_inplace_on_intermediates(rng):
    fn = arignote.function([x, y, z], pt.exp(z) + pt.dot(x, y))
    gemms = [n for n in fn.maker.fgraph.apply_nodes if isinstance(n.op, Gemm)]
    assert len(gemms) == 1 and gemms[0].op.inplace
    values = [rng.normal(size=(3, 4)), rng.normal(size=(4, 5)), rng.normal(size=(3, 5))]
    copies = [v_.copy() for v_ in values]
    np.testing.assert_allclose(fn(*values), np.exp(values[2]) + values[0] @ values[1])
    for value, copy in zip(values, copies):
        np.testing.assert_array_equal(value, copy)


def test_blas_calls_do_not_overwrite_inputs(rng):
    fn = arignote.function([x, y, z], z + pt.dot(x, y))
    (node,) = fn.maker.fgraph.apply_nodes
    assert isinstance(node.op, Gemm) and not node.op.inplace
    fn_v = arignote.function([x, u, v], u + pt.dot(x, v) - 0 * u)
    assert any(isinstance(n.op, Gemv) for n in fn_v.maker.fgraph.apply_nodes)
    fn_g = arignote.function([x, u, v], x + 2 * pt.outer(u, v))
    assert any(isinstance(n.op, Ger) for n in fn_g.maker.fgraph.apply_nodes)
    m = rng.normal(size=(3, 4))
    np.testing.assert_allclose(fn_g(m, np.ones(3), np.ones(4)), m + 2)
