"""The Rop/Lop checkers: the seed's "Testing the Rop" example and checks that can fail."""

from __future__ import annotations

import numpy as np
import pytest

import arignote.tensor as pt
from arignote.graph.basic import Apply
from arignote.graph.op import Op
from arignote.testing import (
    BreakRop,
    InferShapeTester,
    RopLopChecker,
    break_op,
    check_nondiff_rop,
    check_rop_lop,
)


class DoubleRop(Op):
    """The seed's ``DoubleOp`` with an ``R_op``; ``wrong`` breaks one of its derivatives."""

    __props__ = ("wrong",)

    def __init__(self, wrong=None):
        self.wrong = wrong

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] * 2

    def infer_shape(self, fgraph, node, input_shapes):
        return input_shapes

    def grad(self, inputs, output_grads):
        factor = 3 if self.wrong == "grad" else 2
        return [output_grads[0] * factor]

    def R_op(self, inputs, eval_points):
        # R_op can receive None as eval_points: no differentiable path through that input
        if eval_points[0] is None:
            return eval_points
        factor = 3 if self.wrong == "rop" else 2
        return [eval_points[0] * factor]


class TestDoubleRop(RopLopChecker):
    """The seed example, with names adapted (pytest calls ``setup_method``)."""

    def setUp(self):
        super().setUp()

    def test_double_rop(self):
        self.check_rop_lop(DoubleRop()(self.x), self.in_shape)

    def test_double_mat_rop(self):
        self.check_mat_rop_lop(DoubleRop()(self.mx), self.mat_in_shape)

    def test_reduction_of_a_matrix(self):
        self.check_mat_rop_lop(pt.exp(self.mx).sum(axis=1), (self.mat_in_shape[0],))


def test_seed_example_runs_as_documented():
    t = TestDoubleRop()
    t.setUp()
    t.test_double_rop()
    assert t.mat_in_shape[0] != t.mat_in_shape[1]


@pytest.mark.parametrize(("wrong", "match"), [("rop", "finite differences"), ("grad", "Adjoint")])
def test_checker_catches_a_wrong_derivative(wrong, match):
    t = RopLopChecker()
    t.setup_method()
    with pytest.raises(AssertionError, match=match):
        t.check_rop_lop(DoubleRop(wrong)(t.x), t.in_shape)


def test_checker_checks_the_output_shape():
    t = RopLopChecker()
    t.setup_method()
    with pytest.raises(AssertionError, match="shape"):
        t.check_rop_lop(DoubleRop()(t.x), (t.in_shape[0] + 1,))


def test_check_rop_lop_function(rng):
    check_rop_lop(lambda x, y: [pt.sin(x) * y, pt.dot(x, y.T)], [rng.normal(size=(2, 3))] * 2)
    with pytest.raises(AssertionError, match="finite differences"):
        check_rop_lop(DoubleRop("rop"), [rng.normal(size=(2, 3))])


def test_check_nondiff_rop():
    x, v = pt.dvector("x"), pt.dvector("v")
    check_nondiff_rop(break_op(x) * 2, x, v)
    with pytest.raises(AssertionError, match="should have raised"):
        check_nondiff_rop(x * 2, x, v)


def test_break_op_contract(rng):
    x = pt.dmatrix("x")
    tester = InferShapeTester()
    tester.setup_method()
    tester._compile_and_check([x], [break_op(x) * 1.0], [rng.normal(size=(2, 3))], BreakRop)
    assert np.all(break_op(x).eval({x: np.ones((2, 3))}) == 1)


class NanRop(DoubleRop):
    __props__ = ()

    def R_op(self, inputs, eval_points):
        return [eval_points[0] * np.nan]


def test_check_rop_lop_catches_a_nan_tangent(rng):
    with pytest.raises(AssertionError, match="finite differences"):
        check_rop_lop(NanRop(), [rng.normal(size=(2, 3))], rng=rng)
