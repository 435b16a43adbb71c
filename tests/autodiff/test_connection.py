"""Connection patterns: per node (validated) and for whole graphs."""

from __future__ import annotations

import pytest

import arignote.tensor as pt
from arignote.autodiff.connection import (
    checked_connection_pattern,
    connected_descendants,
    graph_connection_pattern,
)
from arignote.graph.basic import Apply, io_toposort
from arignote.graph.op import Op


class BadPattern(Op):
    __props__ = ()

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0]

    def connection_pattern(self, node):
        return [[True, False]]  # two columns for one output


def test_checked_connection_pattern():
    x = pt.dvector("x")
    assert checked_connection_pattern((x * 2).owner) == [[True], [True]]
    assert checked_connection_pattern(pt.shape(x).owner) == [[False]]
    with pytest.raises(ValueError, match="BadPattern"):
        checked_connection_pattern(BadPattern()(x).owner)


def test_graph_connection_pattern_follows_elements_not_shapes():
    x, y, n = pt.dvector("x"), pt.dvector("y"), pt.lscalar("n")
    a = x * 2.0 + pt.shape(y).sum().astype("float64")  # y only through its shape
    b = pt.alloc(y.sum(), n)  # n only sets the length
    assert graph_connection_pattern([x, y, n], [a, b]) == [
        [True, False],
        [False, True],
        [False, False],
    ]


def test_connected_descendants():
    x, y = pt.dvector("x"), pt.dvector("y")
    h = pt.exp(x)
    out = h + pt.shape(y).sum().astype("float64")
    reached = connected_descendants(io_toposort([x, y], [out]), [y])
    assert y in reached and out not in reached and h not in reached
    assert out in connected_descendants(io_toposort([x, y], [out]), [x])
