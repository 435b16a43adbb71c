"""Rewrites of creation ops: allocations that change nothing; shapes of allocations."""

from __future__ import annotations

import numpy as np

import arignote
import arignote.tensor as pt
from arignote.graph.basic import io_toposort
from arignote.tensor.alloc import Alloc
from tests.tensor.rewriting.utils import assert_not_fired, assert_rewrites_to, rewrite

m = pt.dmatrix("m")
n = pt.lscalar("n")


def test_alloc_of_its_own_shape():
    assert_rewrites_to(pt.alloc(m, m.shape[0], m.shape[1]), m)
    s = pt.tensor("s", dtype="float64", shape=(2, 3))
    assert_rewrites_to(pt.alloc(s, 2, 3), s)


def test_alloc_that_broadcasts_is_kept():
    new = assert_not_fired(pt.alloc(m, 2, m.shape[0], m.shape[1]), "local_useless_alloc")
    assert isinstance(new.owner.op, Alloc)
    row = pt.drow("row")
    assert_not_fired(pt.alloc(row, 3, row.shape[1]), "local_useless_alloc")


def test_shape_of_alloc_does_not_allocate():
    fn = arignote.function([m, n], pt.alloc(m, n, 3, 4).shape, on_unused_input="ignore")
    assert not any(isinstance(node.op, Alloc) for node in fn.maker.fgraph.apply_nodes)
    assert fn(np.zeros((3, 4)), 5).tolist() == [5, 3, 4]


def test_element_of_a_shape_vector():
    x = pt.dvector("x")
    new = rewrite(x.shape[0])  # make_vector(shape_i(x, 0))[0] -> shape_i(x, 0)
    assert {type(node.op).__name__ for node in io_toposort([x], [new])} == {"Shape_i"}
    vector = pt.make_vector(n, n + 1)
    assert_not_fired(vector[n], "local_make_vector_element", values={n: np.int64(1)})


def test_fill_seed_of_a_gradient_is_removed():
    # grad seeds with fill(cost, 1); compiled, the derivative of x - softplus(x) must be the
    # stable sigmoid(-x) (1 - sigmoid(x) would round to 0 at x = 40)
    x = pt.dscalar("x")
    fn = arignote.function([x], arignote.grad(x - pt.softplus(x), x))
    assert fn(40.0) > 0
    fn = arignote.function([m], arignote.grad((m**2).sum(), m))
    assert not any("second" in str(node.op) for node in fn.maker.fgraph.apply_nodes)
