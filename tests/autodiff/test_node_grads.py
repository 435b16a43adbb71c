"""The Op contract's gradient rules, and every integer example of the seed documents."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.gradient import (
    DisconnectedInputError,
    DisconnectedType,
    NullType,
    NullTypeGradError,
    disconnected_type,
    grad,
    grad_undefined,
)
from arignote.graph.basic import Apply
from arignote.graph.op import Op
from arignote.testing import verify_grad


def _eval(outputs, inputs, values):
    return arignote.function(inputs, outputs, on_unused_input="ignore")(*values)


# -- 1) dot of integers ---------------------------------------------------------------------


def test_dot_of_integers_has_zero_gradients(rng):
    x, y = pt.lvector("x"), pt.lvector("y")
    gx, gy = grad(pt.dot(x, y), [x, y])  # the cost itself is integer-valued
    assert gx.type.dtype.startswith("float") and gy.type.dtype.startswith("float")
    xv, yv = rng.integers(-5, 5, size=4), rng.integers(-5, 5, size=4)
    for g in _eval([gx, gy], [x, y], [xv, yv]):
        np.testing.assert_array_equal(g, np.zeros(4))


def test_integer_dot_inside_a_float_cost_still_has_zero_gradients(rng):
    x, y = pt.lmatrix("x"), pt.lmatrix("y")
    cost = (pt.dot(x, y).astype("float64") ** 2).sum()
    gx, gy = grad(cost, [x, y])
    xv, yv = rng.integers(-3, 3, size=(2, 3)), rng.integers(-3, 3, size=(3, 4))
    got_x, got_y = _eval([gx, gy], [x, y], [xv, yv])
    np.testing.assert_array_equal(got_x, np.zeros((2, 3)))
    np.testing.assert_array_equal(got_y, np.zeros((3, 4)))


# -- 2) mixed float / integer dot ---------------------------------------------------------


def test_mixed_dot_has_the_gradient_of_the_float_dot(rng):
    x, yi, yf = pt.dmatrix("x"), pt.lmatrix("yi"), pt.dmatrix("yf")
    gx_i, gy_i = grad((pt.dot(x, yi) ** 2).sum(), [x, yi])
    gx_f, gy_f = grad((pt.dot(x, yf) ** 2).sum(), [x, yf])
    xv, yv = rng.normal(size=(2, 3)), rng.integers(-3, 4, size=(3, 4))
    got = _eval([gx_i, gy_i], [x, yi], [xv, yv])
    expected = _eval([gx_f, gy_f], [x, yf], [xv, yv.astype("float64")])
    np.testing.assert_allclose(got[0], expected[0])
    np.testing.assert_allclose(got[1], expected[1])
    assert np.abs(got[1]).sum() > 0
    assert gy_i.type.dtype.startswith("float")


def test_integer_operand_of_a_float_elementwise_op_is_differentiated(rng):
    x, i = pt.dvector("x"), pt.lvector("i")
    gi = grad((x / i + x * i - i).sum(), i)
    xv, iv = rng.normal(size=3), np.array([1, 2, 3])
    np.testing.assert_allclose(_eval(gi, [x, i], [xv, iv]), -xv / iv**2 + xv - 1)


# -- 3) argmax -------------------------------------------------------------------------------


class ArgmaxAlong(Op):
    """``argmax(x, axis)`` with the axis an integer *input*, as in the seed example."""

    __props__ = ()

    def make_node(self, x, axis):
        x, axis = pt.as_tensor_variable(x), pt.as_tensor_variable(axis)
        if x.type.ndim != 2 or axis.type.ndim != 0 or not axis.type.dtype.startswith("int"):
            raise TypeError(f"ArgmaxAlong takes a matrix and an integer axis, got {x}, {axis}")
        return Apply(self, [x, axis], [pt.lvector()])

    def perform(self, node, inputs, output_storage):
        x, axis = inputs
        output_storage[0][0] = np.argmax(x, axis=int(axis)).astype("int64")

    def grad(self, inputs, output_grads):
        x, axis = inputs
        return [
            x.zeros_like(dtype="float64"),  # the position of the max is locally constant in x
            grad_undefined(self, 1, axis, "An argmax along a fractional axis is meaningless."),
        ]


def test_argmax_has_zero_gradient_wrt_x(rng):
    x = pt.dmatrix("x")
    gx = grad(pt.argmax(x, axis=1).astype("float64").sum(), x)
    np.testing.assert_array_equal(_eval(gx, [x], [rng.normal(size=(3, 4))]), np.zeros((3, 4)))


def test_argmax_with_an_axis_input_zero_wrt_x_undefined_wrt_axis(rng):
    x, axis = pt.dmatrix("x"), pt.lscalar("axis")
    cost = ArgmaxAlong()(x, axis).astype("float64").sum()
    gx = grad(cost, x)
    np.testing.assert_array_equal(
        _eval(gx, [x, axis], [rng.normal(size=(3, 4)), 1]), np.zeros((3, 4))
    )
    with pytest.raises(NullTypeGradError) as info:
        grad(cost, axis)
    message = str(info.value)
    assert "ArgmaxAlong" in message and "input 1" in message and "fractional axis" in message
    assert isinstance(grad(cost, axis, null_gradients="return").type, NullType)


# -- 4) a vector of y copies of x ---------------------------------------------------------


class Copies(Op):
    """A vector of ``y`` elements, each equal to the scalar ``x``."""

    __props__ = ("declare_pattern",)

    def __init__(self, declare_pattern=True):
        self.declare_pattern = declare_pattern

    def make_node(self, x, y):
        x, y = pt.as_tensor_variable(x), pt.as_tensor_variable(y)
        return Apply(self, [x, y], [pt.tensor(dtype=x.type.dtype, shape=(None,))])

    def perform(self, node, inputs, output_storage):
        x, y = inputs
        output_storage[0][0] = np.full(int(y), x, dtype=node.outputs[0].type.dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        return [(node.inputs[1],)]

    def __getattr__(self, name):
        if name == "connection_pattern" and self.__dict__.get("declare_pattern"):
            return lambda node: [[True], [False]]  # y only sets the length
        raise AttributeError(name)

    def grad(self, inputs, output_grads):
        (gz,) = output_grads
        return [gz.sum(), disconnected_type()]


def test_copies_gradient_wrt_x_and_disconnected_wrt_y():
    x, y = pt.dscalar("x"), pt.lscalar("y")
    cost = (Copies()(x, y) * pt.as_tensor_variable(np.arange(1.0, 6.0))).sum()
    assert _eval(grad(cost, x), [x, y], [2.0, 5]) == pytest.approx(15.0)
    with pytest.raises(DisconnectedInputError):
        grad(cost, y)
    gy = grad(cost, y, disconnected_inputs="ignore", return_disconnected="disconnected")
    assert isinstance(gy.type, DisconnectedType)


def test_copies_without_connection_pattern_warns():
    x, y = pt.dscalar("x"), pt.lscalar("y")
    cost = Copies(declare_pattern=False)(x, y).sum()
    with pytest.warns(UserWarning, match="connection_pattern") as record:
        gx, _ = grad(cost, [x, y], disconnected_inputs="ignore")
    assert any("connection_pattern" in str(w.message) for w in record)
    assert gx is not None


class DisconnectedAgainstPattern(Op):
    """Declares both inputs connected, then returns DisconnectedType for one: a bug."""

    __props__ = ()

    def make_node(self, x, y):
        x, y = pt.as_tensor_variable(x), pt.as_tensor_variable(y)
        return Apply(self, [x, y], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] + inputs[1]

    def connection_pattern(self, node):
        return [[True], [True]]

    def grad(self, inputs, output_grads):
        return [output_grads[0], disconnected_type()]


def test_disconnected_gradient_against_the_connection_pattern_is_an_error():
    x, y = pt.dscalar("x"), pt.dscalar("y")
    with pytest.raises(TypeError, match="connection_pattern"):
        grad(DisconnectedAgainstPattern()(x, y), [x, y])


# -- 5) C = 0.5 * g(f(x)) with f = int(.), g = float(.) -----------------------------------


def test_int_float_casts():
    x = pt.dscalar("x")
    y = pt.cast(x, "int64")  # f(x) = int(x)
    cost = 0.5 * pt.cast(y, "float64")  # C = 0.5 g(y)
    gy, gx = grad(cost, [y, x])
    assert gy.type.dtype.startswith("float") and gx.type.dtype == "float64"
    got_y, got_x = _eval([gy, gx], [x], [2.7])
    assert got_y == pytest.approx(0.5)
    assert got_x == 0.0


# -- the integer-output rule enforced by grad ---------------------------------------------


class RoundToInt(Op):
    """int(x) whose grad (wrongly) passes the cotangent on, or returns a constant."""

    __props__ = ("mode",)

    def __init__(self, mode):
        self.mode = mode

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [pt.tensor(dtype="int64", shape=x.type.shape)])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = np.round(inputs[0]).astype("int64")

    def grad(self, inputs, output_grads):
        (x,), (gz,) = inputs, output_grads
        if self.mode == "passes":
            return [gz.astype(x.type.dtype)]
        return [pt.as_tensor_variable(np.ones((), dtype=x.type.dtype)).dimshuffle(["x"] * x.ndim)]


def test_gradient_through_an_integer_valued_output_is_zero(rng):
    x = pt.dvector("x")
    gx = grad((RoundToInt("passes")(x).astype("float64") * 3.0).sum(), x)
    np.testing.assert_array_equal(_eval(gx, [x], [rng.normal(size=4)]), np.zeros(4))


def test_known_nonzero_gradient_through_an_integer_output_is_an_error():
    x = pt.dvector("x")
    with pytest.raises(ValueError, match="integer-valued outputs"):
        grad(RoundToInt("constant")(x).astype("float64").sum(), x)


# -- second derivatives ---------------------------------------------------------------------

SMOOTH = {
    "exp_sin": lambda x: (pt.exp(x) * pt.sin(x)).sum(),
    "log_pow": lambda x: (pt.log(x * x + 1.0) * x**3).sum(),
    "tanh_div": lambda x: (pt.tanh(x) / (x * x + 2.0)).sum(),
    "dot_sigmoid": lambda x: pt.sigmoid(pt.dot(x.reshape((2, 3)), x.reshape((3, 2)))).sum(),
}


@pytest.mark.parametrize("name", sorted(SMOOTH))
def test_grad_of_grad_matches_finite_differences(name, rng):
    f = SMOOTH[name]

    def gradient(x):
        return grad(f(x), x)

    verify_grad(gradient, [rng.uniform(0.2, 1.5, size=6)], rng=rng)
