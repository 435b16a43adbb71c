"""Every example of the seed documents, with ``aesara`` replaced by ``arignote``."""

from __future__ import annotations

import io

import numpy as np
import pytest

import arignote
import arignote as aesara
import arignote.tensor as at
from arignote.compile.ops import as_op
from arignote.gradient import GradientError
from arignote.graph.basic import Apply
from arignote.graph.op import Op
from arignote.tensor import Constant, TensorType, Variable, add, mul
from arignote.testing import InferShapeTester, assert_allclose, fetch_seed, verify_grad


class DoubleOp1(Op):
    __props__ = ()

    def make_node(self, x):
        x = aesara.tensor.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        x = inputs[0]
        z = output_storage[0]
        z[0] = x * 2

    def infer_shape(self, fgraph, node, i0_shapes):
        return i0_shapes

    def grad(self, inputs, output_grads):
        return [output_grads[0] * 2]

    def R_op(self, inputs, eval_points):
        if eval_points[0] is None:
            return eval_points
        return self.grad(inputs, eval_points)


class DoubleOp2(Op):
    __props__ = ()

    itypes = [aesara.tensor.dmatrix]
    otypes = [aesara.tensor.dmatrix]

    def perform(self, node, inputs, output_storage):
        x = inputs[0]
        z = output_storage[0]
        z[0] = x * 2

    def infer_shape(self, fgraph, node, i0_shapes):
        return i0_shapes

    def grad(self, inputs, output_grads):
        return [output_grads[0] * 2]


class AXPBOp(Op):
    """This creates an Op that takes x to a*x+b."""

    __props__ = ("a", "b")

    def __init__(self, a, b):
        self.a = a
        self.b = b
        super().__init__()

    def make_node(self, x):
        x = aesara.tensor.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        x = inputs[0]
        z = output_storage[0]
        z[0] = self.a * x + self.b

    def infer_shape(self, fgraph, node, i0_shapes):
        return i0_shapes

    def grad(self, inputs, output_grads):
        return [self.a * output_grads[0]]


@pytest.mark.parametrize("op", [DoubleOp1(), DoubleOp2()])
def test_double_ops_double(op):
    x = aesara.tensor.matrix()
    f = aesara.function([x], op(x))
    inp = np.random.default_rng(0).random((5, 4))
    out = f(inp)
    assert np.allclose(inp * 2, out)


def test_axpb_props_equality_and_results():
    mult4plus5op = AXPBOp(4, 5)
    another_mult4plus5op = AXPBOp(4, 5)
    mult2plus3op = AXPBOp(2, 3)
    assert mult4plus5op == another_mult4plus5op
    assert mult4plus5op != mult2plus3op
    assert hash(mult4plus5op) == hash(another_mult4plus5op)
    assert str(mult4plus5op) == "AXPBOp{a=4, b=5}"
    x = aesara.tensor.matrix()
    f = aesara.function([x], mult4plus5op(x))
    g = aesara.function([x], mult2plus3op(x))
    inp = np.random.default_rng(1).random((5, 4)).astype(np.float32)
    assert np.allclose(4 * inp + 5, f(inp))
    assert np.allclose(2 * inp + 3, g(inp))


class TestDouble(InferShapeTester):
    def setup_method(self):
        super().setup_method()
        self.op_class = DoubleOp1
        self.op = DoubleOp1()

    def test_basic(self):
        rng = np.random.default_rng(fetch_seed())
        x = aesara.tensor.matrix()
        f = aesara.function([x], self.op(x))
        inp = np.asarray(rng.random((5, 4)), dtype=aesara.config.floatX)
        out = f(inp)
        assert_allclose(inp * 2, out)

    def test_infer_shape(self):
        rng = np.random.default_rng(fetch_seed())
        x = aesara.tensor.matrix()
        self._compile_and_check(
            [x],
            [self.op(x)],
            [np.asarray(rng.random((5, 4)), dtype=aesara.config.floatX)],
            self.op_class,
        )

    def test_infer_shape_detects_a_missing_infer_shape(self):
        class NoShape(DoubleOp1):
            infer_shape = None

        x = aesara.tensor.matrix()
        with pytest.raises(AssertionError, match="shape graph still computes"):
            self._compile_and_check([x], [NoShape()(x)], [np.ones((5, 4))], NoShape)

    def test_infer_shape_warns_on_square_inputs(self):
        x = aesara.tensor.matrix()
        with pytest.warns(UserWarning, match="same length"):
            self._compile_and_check([x], [self.op(x)], [np.ones((4, 4))], self.op_class)

    def test_grad(self):
        rng = np.random.default_rng(fetch_seed())
        verify_grad(self.op, [rng.random((5, 7, 2))])

    def test_wrong_grad_is_caught(self):
        class Wrong(DoubleOp1):
            def grad(self, inputs, output_grads):
                return [output_grads[0]]  # the multiplication by 2 removed

        rng = np.random.default_rng(fetch_seed())
        with pytest.raises(GradientError, match="abs. error"):
            verify_grad(Wrong(), [rng.random((5, 7, 2))])


def infer_shape_numpy_dot(fgraph, node, input_shapes):
    ashp, bshp = input_shapes
    return [ashp[:-1] + bshp[-1:]]


@as_op(itypes=[at.matrix, at.matrix], otypes=[at.matrix], infer_shape=infer_shape_numpy_dot)
def numpy_dot(a, b):
    return np.dot(a, b)


def test_as_op_numpy_dot():
    x = at.matrix()
    y = at.matrix()
    f = arignote.function([x, y], numpy_dot(x, y))
    inp1 = np.random.default_rng(2).random((5, 4))
    inp2 = np.random.default_rng(3).random((4, 7))
    out = f(inp1, inp2)
    assert np.allclose(out, inp1 @ inp2)
    shape_fn = arignote.function([x, y], numpy_dot(x, y).shape)
    assert list(shape_fn(inp1, inp2)) == [5, 7]
    assert not any(n.op is numpy_dot for n in shape_fn.maker.fgraph.toposort())


def test_graph_structures_short_example():
    x = at.matrix("x")
    y = at.matrix("y")
    z = at.matrix("z")
    e = x + y * z
    assert e.owner.op == add and e.owner.inputs[0] is x
    assert e.owner.inputs[1].owner.op == mul
    assert e.owner.inputs[1].owner.inputs == [y, z]


def test_graph_structures_long_example():
    float64_matrix = TensorType(dtype="float64", broadcastable=(False, False))
    x = Variable(type=float64_matrix, name="x")
    y = Variable(type=float64_matrix, name="y")
    z = Variable(type=float64_matrix, name="z")
    mul_variable = Variable(type=float64_matrix)
    assert mul_variable.owner is None
    node_mul = Apply(op=mul, inputs=[y, z], outputs=[mul_variable])
    assert mul_variable.owner is node_mul
    assert mul_variable.index == 0
    add_variable = Variable(type=float64_matrix)
    assert add_variable.owner is None
    node_add = Apply(op=add, inputs=[x, mul_variable], outputs=[add_variable])
    assert add_variable.owner is node_add
    assert add_variable.index == 0
    e = add_variable
    assert e.owner.inputs[0] is x
    assert e.owner.inputs[1] is mul_variable
    assert e.owner.inputs[1].owner.inputs[0] is y
    assert e.owner.inputs[1].owner.inputs[1] is z
    f = arignote.function([x, y, z], e)
    a, b, c = (np.full((2, 3), v) for v in (1.0, 2.0, 3.0))
    assert np.array_equal(f(a, b, c), a + b * c)


def test_automatic_wrapping_of_a_python_number():
    e = at.dscalar("x") + 1
    node = e.owner
    assert node.op == add
    assert isinstance(node.inputs[1], Constant) and node.inputs[1].data == 1
    assert node.inputs[0].name == "x"


def test_types_and_variables_of_the_graph_page():
    assert repr(at.irow()) == "<TensorType(int32, (1, ?))>"
    x = aesara.tensor.ivector()
    y = -x
    assert x.type == y.type == at.ivector
    assert y.owner is not None and y.owner.inputs == [x]


def test_times_two_wraps_the_constant_through_dimshuffle():
    x = aesara.tensor.dmatrix("x")
    y = x * 2.0
    assert type(y.owner) is Apply
    assert y.owner.op.name == "Elemwise{mul,no_inplace}"
    assert len(y.owner.inputs) == 2
    assert y.owner.inputs[0] is x
    assert repr(y.owner.inputs[1]) == "InplaceDimShuffle{x,x}.0"
    assert isinstance(y.owner.inputs[1], at.TensorVariable)
    assert isinstance(y.owner.inputs[1].owner, Apply)
    assert isinstance(y.owner.inputs[1].owner.op, at.DimShuffle)
    assert str(y.owner.inputs[1].owner.inputs) == "[TensorConstant{2.0}]"
    text = aesara.dprint(y, file="str")
    assert text == (
        "Elemwise{mul,no_inplace} [id A] ''\n"
        " |x [id B]\n"
        " |InplaceDimShuffle{x,x} [id C] ''\n"
        "   |TensorConstant{2.0} [id D]"
    )


def test_clients_of_a_compiled_graph():
    v = at.vector()
    f = arignote.function([v], (v + 1).sum())
    buffer = io.StringIO()
    arignote.printing.debugprint(f, file=buffer)
    assert buffer.getvalue().splitlines()[0] == "Sum{acc_dtype=float64} [id A] ''   1"
    topo = f.maker.fgraph.toposort()
    assert (
        str(topo[0].outputs[0].clients)
        == "[(Sum{acc_dtype=float64}(Elemwise{add,no_inplace}.0), 0)]"
    )
    assert topo[1].outputs[0].clients == [("output", 0)]
    var = topo[0].outputs[0]
    client = var.clients[0]
    assert type(client[0]) is Apply
    assert client[0].inputs[client[1]] is var
    var = topo[1].outputs[0]
    client = var.clients[0]
    assert client == ("output", 0)
    assert f.maker.fgraph.outputs[client[1]] is var


def test_a_plus_a_to_the_tenth():
    a = aesara.tensor.vector("a")
    b = a + a**10
    f = aesara.function([a], b)
    assert np.array_equal(f([0, 1, 2]), [0.0, 2.0, 1026.0])


def test_graph_is_cloned_before_compilation():
    x = at.vector("x")
    y = (x + 0) * 1
    before = aesara.dprint(y, file="str")
    aesara.function([x], y)
    assert aesara.dprint(y, file="str") == before


def test_constant_as_function_input_raises():
    c = at.constant(1.0)
    with pytest.raises(TypeError, match="Constant"):
        arignote.function([c], c * 2)
