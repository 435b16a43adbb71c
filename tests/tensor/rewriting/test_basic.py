"""Constant folding on tensors, the tensor pattern hooks, and the seed example."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.config import config
from arignote.graph.basic import Apply, Constant, io_toposort
from arignote.graph.fg import FunctionGraph
from arignote.graph.op import Op
from arignote.graph.rewriting.basic import in2out, node_rewriter
from arignote.graph.rewriting.pattern import match, pattern_vars
from arignote.tensor.rewriting.basic import broadcast_like
from tests.tensor.rewriting.utils import rewrite


class CountingNegate(Op):
    """``-x`` that counts its runs; ``foldable`` is what ``do_constant_folding`` answers."""

    __props__ = ("foldable",)

    def __init__(self, foldable: bool) -> None:
        self.foldable = foldable
        self.calls = 0

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        self.calls += 1
        output_storage[0][0] = -inputs[0]

    def infer_shape(self, fgraph, node, input_shapes):
        return input_shapes

    def grad(self, inputs, output_grads):
        return [-output_grads[0]]

    def do_constant_folding(self, fgraph, node):
        return self.foldable


def test_constant_nodes_are_folded_at_compile_time():
    op = CountingNegate(foldable=True)
    fn = arignote.function([], op(pt.constant(np.arange(3.0))))
    assert op.calls == 1  # once, while compiling
    np.testing.assert_array_equal(fn(), [0.0, -1.0, -2.0])
    fn()
    assert op.calls == 1
    assert not fn.maker.fgraph.apply_nodes - {
        n for n in fn.maker.fgraph.apply_nodes if isinstance(n.op, arignote.compile.DeepCopyOp)
    }


def test_do_constant_folding_false_runs_at_call_time():
    op = CountingNegate(foldable=False)
    fn = arignote.function([], op(pt.constant(np.arange(3.0))))
    assert op.calls == 0
    np.testing.assert_array_equal(fn(), [0.0, -1.0, -2.0])
    fn()
    assert op.calls == 2


def test_folding_skips_results_much_larger_than_their_inputs():
    column = pt.constant(np.ones((400, 1)))
    row = pt.constant(np.ones((1, 300)))
    fn = arignote.function([], column + row)  # 120000 elements from 700
    assert any(n.op == pt.add for n in fn.maker.fgraph.apply_nodes)
    assert fn().shape == (400, 300)
    small = arignote.function([], pt.constant(np.ones((4, 1))) + pt.constant(np.ones((1, 3))))
    assert not any(n.op == pt.add for n in small.maker.fgraph.apply_nodes)
    with config.change_flags(max_constant_fold_size=10**6):
        big = arignote.function([], column + row)
    assert not any(n.op == pt.add for n in big.maker.fgraph.apply_nodes)


def test_folding_keeps_large_results_of_large_inputs():
    big = pt.constant(np.ones(20000))
    new = rewrite(pt.exp(big), include=("canonicalize",))
    assert isinstance(new, Constant)


def test_tensor_hooks_see_constants_through_broadcasts():
    (x,) = pattern_vars("x")
    v = pt.dvector("v")
    assert match((pt.mul, x, 1), v * 1)["x"] is v  # 1 is DimShuffle(TensorConstant{1})
    assert match((pt.mul, x, 1), v * np.ones(3))["x"] is v
    assert match((pt.mul, x, 1), v * np.array([1.0, 2.0])) is None


def test_broadcast_like_restores_broadcast_dimensions():
    row = pt.drow("r")
    m = pt.dmatrix("m")
    out = row + m
    widened = broadcast_like(row, out, out.owner.inputs)
    assert widened.type.shape == (None, None)
    assert broadcast_like(m, pt.dvector("v"), []) is None  # more dimensions than the target


def test_seed_example_compiles_to_a_smaller_graph():
    a = pt.vector("a")
    b = a + a**10
    before = len(io_toposort([a], [b]))
    fn = arignote.function([a], b)
    after = len(fn.maker.fgraph.apply_nodes)
    assert after < before
    np.testing.assert_array_equal(fn([0, 1, 2]), [0.0, 2.0, 1026.0])


def test_replacement_of_another_tensor_type_is_rejected_clearly():
    @node_rewriter([pt.exp])
    def to_float32(fgraph, node):
        return [pt.cast(node.inputs[0], "float32")]

    x = pt.dvector("x")
    fg = FunctionGraph(outputs=[pt.exp(x) + 1], clone=False)
    with pytest.raises(TypeError, match=r"to_float32 produced an incompatible .* got TensorType\("):
        in2out(to_float32).rewrite(fg)
    assert fg.outputs[0].owner.inputs[0].owner.op == pt.exp  # nothing was replaced
