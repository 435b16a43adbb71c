"""Blockwise (``jax.vmap`` of the core op), the flat-index ops and ``BroadcastLength`` in JAX
mode against the Python VM."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("jax", reason="the JAX backend needs jax (pip install arignote[jax])")

import arignote
import arignote.tensor as pt
from arignote.tensor.alloc import BroadcastLength
from arignote.tensor.blockwise import Blockwise
from arignote.tensor.linalg.inverse import SlogDet
from arignote.tensor.products import Dot
from arignote.tensor.ravel import ravel_multi_index, unravel_index
from tests.link.jax.compare import assert_jax_matches_vm


def _jax_ops(inputs, outputs):
    fn = arignote.function(inputs, outputs, mode="JAX")
    return {type(node.op) for node in fn.maker.fgraph.toposort()}


def test_blockwise_broadcasts_batch_dimensions_and_differentiates():
    rng = np.random.default_rng(1)
    a = pt.tensor(name="a", shape=(2, 1, 3, 4))
    v = pt.tensor("v", shape=(5, 4))
    out = Blockwise(Dot(), "(m,k),(k)->(m)")(a, v)
    assert out.type.shape == (2, 5, 3)
    grads = arignote.grad((out * pt.arange(3)).sum(), [a, v])
    assert Blockwise in _jax_ops([a, v], [out])
    values = [rng.normal(size=(2, 1, 3, 4)), rng.normal(size=(5, 4))]
    assert_jax_matches_vm([a, v], [out, *grads], values)


def test_blockwise_of_a_core_op_with_two_outputs():
    rng = np.random.default_rng(2)
    x = pt.tensor("x", shape=(None, None, 3, 3))
    sign, logdet = Blockwise(SlogDet(), "(m,m)->(),()")(x)
    values = [rng.normal(size=(2, 4, 3, 3))]
    assert_jax_matches_vm([x], [sign, logdet], values)


def test_unravel_and_ravel_with_dims_known_only_at_run_time():
    rng = np.random.default_rng(3)
    flat = pt.lmatrix("flat")
    dims = pt.tensor("dims", dtype="int64", shape=(3,))
    for order in ("C", "F"):
        parts = unravel_index(flat, dims, order=order)
        back = ravel_multi_index(parts, dims, order=order)
        values = [rng.integers(0, 60, size=(3, 5)), np.array([3, 5, 4])]
        result = assert_jax_matches_vm([flat, dims], [*parts, back], values)
        np.testing.assert_array_equal(result[-1], values[0])


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_ravel_multi_index_modes(mode):
    rng = np.random.default_rng(4)
    rows = pt.tensor(name="rows", dtype="int64", shape=(1, None))
    cols = pt.lmatrix("cols")
    spread = 0 if mode == "raise" else 4
    values = [
        rng.integers(-spread, 4 + spread, size=(1, 5)),
        rng.integers(-spread, 6 + spread, (2, 5)),
    ]
    for order in ("C", "F"):
        flat = ravel_multi_index([rows, cols], (4, 6), mode=mode, order=order)
        assert_jax_matches_vm([rows, cols], [flat], values)


def test_broadcast_length():
    n, m = pt.lscalar("n"), pt.lscalar("m")
    # lengths known only at run time: the common length, unchecked (XLA cannot raise)
    assert_jax_matches_vm([n, m], [BroadcastLength()(n, m)], [np.int64(4), np.int64(4)])
    # lengths from shapes are static: perform checks them while the function is traced
    x, y = pt.dvector("x"), pt.dvector("y")
    fn = arignote.function([x, y], BroadcastLength()(x.shape[0], y.shape[0]), mode="JAX")
    assert int(fn(np.ones(3), np.ones(3))) == 3
    with pytest.raises(ValueError, match="runtime broadcasting is not allowed"):
        fn(np.ones(3), np.ones(2))
