"""Shapes computed from ``infer_shape``, never from values; shape-graph simplifications."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.graph.basic import Apply, explicit_graph_inputs
from arignote.graph.op import Op
from arignote.tensor.shape import Shape, Shape_i, SpecifyShape
from tests.tensor.rewriting.utils import assert_not_fired, assert_rewrites_to, rewrite


class CountingTranspose(Op):
    """A matrix transpose that counts how often it runs (with or without infer_shape)."""

    __props__ = ("with_infer_shape",)

    def __init__(self, with_infer_shape: bool = True) -> None:
        self.with_infer_shape = with_infer_shape
        self.calls = 0

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [pt.matrix(dtype=x.type.dtype)])

    def perform(self, node, inputs, output_storage):
        self.calls += 1
        output_storage[0][0] = inputs[0].T.copy()

    def infer_shape(self, fgraph, node, input_shapes):
        if not self.with_infer_shape:
            raise NotImplementedError("this variant computes its output to know its shape")
        rows, cols = input_shapes[0]
        return [(cols, rows)]

    def grad(self, inputs, output_grads):
        return [output_grads[0].T]


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE"])
def test_shape_of_an_op_output_never_runs_the_op(mode, rng):
    op = CountingTranspose()
    x = pt.dmatrix("x")
    fn = arignote.function([x], op(pt.exp(x)).shape, mode=mode)
    value = rng.normal(size=(3, 5))
    np.testing.assert_array_equal(fn(value), [5, 3])
    np.testing.assert_array_equal(fn(value[:2]), [5, 2])
    assert op.calls == 0
    assert not any(isinstance(n.op, CountingTranspose) for n in fn.maker.fgraph.apply_nodes)
    assert not any(n.op == pt.exp for n in fn.maker.fgraph.apply_nodes)


def test_without_infer_shape_the_op_runs(rng):
    op = CountingTranspose(with_infer_shape=False)
    x = pt.dmatrix("x")
    fn = arignote.function([x], op(x).shape)
    np.testing.assert_array_equal(fn(rng.normal(size=(3, 5))), [5, 3])
    assert op.calls == 1


def _ops_in_shape_graph(out):
    inputs = explicit_graph_inputs([out])
    fn = arignote.function(inputs, out.shape, on_unused_input="ignore")
    return fn, {type(n.op).__name__ for n in fn.maker.fgraph.apply_nodes}


def test_shape_of_reshape_alloc_like_and_broadcast_results(rng):
    x, y = pt.dmatrix("x"), pt.drow("y")
    reshaped = (x + y).reshape((-1, 2))
    fn, ops = _ops_in_shape_graph(reshaped)
    assert "Reshape" not in ops  # only arithmetic on the lengths of x remains
    assert fn(rng.normal(size=(3, 4)), rng.normal(size=(1, 4))).tolist() == [6, 2]
    broadcast = x * y
    fn, ops = _ops_in_shape_graph(broadcast)
    assert ops <= {"Shape_i", "MakeVector"}
    assert fn(rng.normal(size=(3, 4)), rng.normal(size=(1, 4))).tolist() == [3, 4]


def test_shape_of_reduction_and_dot(rng):
    x, w = pt.dmatrix("x"), pt.dmatrix("w")
    out = pt.dot(x, w).sum(axis=0)
    fn, ops = _ops_in_shape_graph(out)
    assert ops <= {"Shape_i", "MakeVector"}
    assert fn(rng.normal(size=(3, 4)), rng.normal(size=(4, 2))).tolist() == [2]


def test_shape_of_static_shapes_is_a_constant():
    x = pt.tensor("x", dtype="float64", shape=(3, 4))
    fn = arignote.function([x], pt.exp(x).shape, on_unused_input="ignore")
    assert fn.maker.fgraph.apply_nodes == set() or all(
        isinstance(n.op, arignote.compile.DeepCopyOp) for n in fn.maker.fgraph.apply_nodes
    )
    assert fn(np.zeros((3, 4))).tolist() == [3, 4]


def test_shape_to_shape_i_rewrite():
    x = pt.dmatrix("x")
    new = rewrite(pt.exp(x).shape, include=("canonicalize",))
    assert isinstance(new.owner.op, pt.basic.MakeVector)
    assert all(isinstance(e.owner.op, Shape_i) for e in new.owner.inputs)
    assert all(e.owner.inputs[0] is x for e in new.owner.inputs)


def test_shape_i_of_constant():
    c = pt.constant(np.zeros((2, 7)))
    out = Shape_i(1)(c)
    new = rewrite(out, include=("canonicalize",))
    assert new.data == 7
    assert_not_fired(Shape_i(1)(pt.dmatrix("m")), "local_shape_i_of_constant")


def test_useless_specify_shape():
    x = pt.tensor("x", dtype="float64", shape=(3, None))
    assert_rewrites_to(SpecifyShape((True, False))(x, 3), x)
    m = pt.dmatrix("m")
    assert_rewrites_to(pt.specify_shape(m, (Shape_i(0)(m), None)), m)
    kept = assert_not_fired(pt.specify_shape(m, (3, None)), "local_useless_specify_shape")
    assert isinstance(kept.owner.op, SpecifyShape)


def test_shape_graph_of_the_shape_op_itself():
    x = pt.dvector("x")
    fn = arignote.function([x], Shape()(x))
    assert fn(np.zeros(4)).tolist() == [4]
