"""``grad`` and ``Lop``: keyword semantics, structure, dtypes, errors, graph size."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.gradient import (
    DisconnectedInputError,
    DisconnectedType,
    GradientNotDefinedError,
    Lop,
    NullType,
    NullTypeGradError,
    grad,
    grad_undefined,
    jacobian,
)
from arignote.graph.basic import Apply, io_toposort
from arignote.graph.op import Op
from arignote.testing import verify_grad


def _eval(outputs, inputs, values):
    return arignote.function(inputs, outputs, on_unused_input="ignore")(*values)


class NoGradOp(Op):
    """The identity, with no gradient method at all."""

    __props__ = ()

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0].copy()

    def infer_shape(self, fgraph, node, input_shapes):
        return input_shapes


class UndefinedGradOp(NoGradOp):
    __props__ = ()

    def grad(self, inputs, output_grads):
        return [grad_undefined(self, 0, inputs[0], "because the test says so")]


class BadGradOp(NoGradOp):
    """Returns whatever ``result`` says for its input's gradient."""

    __props__ = ("result",)

    def __init__(self, result):
        self.result = result

    def grad(self, inputs, output_grads):
        (gz,) = output_grads
        return {
            "none": [None],
            "int": [gz.astype("int64")],
            "number": [1.0],
            "too_many": [gz, gz],
            "ndim": [gz.sum()],
        }[self.result]


# -- values and structure ---------------------------------------------------------------------


def test_grad_with_respect_to_inputs_and_intermediate_results(rng):
    x = pt.dvector("x")
    y = pt.exp(x)
    cost = (y**2).sum()
    gx, gy = grad(cost, [x, y])
    xv = rng.normal(size=5)
    got_x, got_y = _eval([gx, gy], [x], [xv])
    np.testing.assert_allclose(got_y, 2 * np.exp(xv))
    np.testing.assert_allclose(got_x, 2 * np.exp(2 * xv))


def test_grad_keeps_the_structure_of_wrt():
    x, y = pt.dscalars("x", "y")
    cost = x * y
    assert not isinstance(grad(cost, x), (list, tuple))
    assert isinstance(grad(cost, [x, y]), list)
    result = grad(cost, (x, y))
    assert isinstance(result, tuple) and len(result) == 2


def test_grad_of_a_variable_used_several_times(rng):
    x = pt.dmatrix("x")
    cost = (pt.sin(x) * x + x.sum(axis=0) * pt.tanh(x)).sum()
    verify_grad(
        lambda v: (pt.sin(v) * v + v.sum(axis=0) * pt.tanh(v)).sum(), [rng.normal(size=(3, 4))]
    )
    assert grad(cost, x).type.shape == (None, None)


def test_grad_of_cost_with_respect_to_itself():
    x = pt.dscalar("x")
    cost = x * 3
    assert _eval(grad(cost, cost), [x], [2.0]) == 1.0


def test_cost_must_be_scalar_and_wrt_variables():
    x = pt.dvector("x")
    with pytest.raises(TypeError, match="scalar"):
        grad(x * 2, x)
    with pytest.raises(TypeError, match="Variables"):
        grad(x.sum(), [x, 3.0])
    with pytest.raises(ValueError, match="known_grads"):
        grad(None, x)


# -- dtypes -----------------------------------------------------------------------------------


def test_gradient_dtype_is_that_of_a_float_wrt():
    x = pt.fvector("x")
    cost = (x.astype("float64") ** 2).sum()
    g = grad(cost, x)
    assert g.type.dtype == "float32"
    np.testing.assert_allclose(_eval(g, [x], [np.array([1.0, 2.0], "float32")]), [2.0, 4.0])


def test_gradient_of_an_integer_variable_is_float():
    i = pt.lvector("i")
    x = pt.dvector("x")
    g = grad((x * i).sum(), i)
    assert g.type.dtype.startswith("float")
    np.testing.assert_allclose(
        _eval(g, [x, i], [np.array([1.5, 2.5]), np.array([1, 2])]), [1.5, 2.5]
    )


def test_integer_cost_gets_a_float_seed():
    i = pt.lvector("i")
    g = grad(i.sum(), i)  # an integer-valued output: zero gradient
    assert g.type.dtype.startswith("float")
    np.testing.assert_array_equal(_eval(g, [i], [np.array([1, 2, 3])]), [0.0, 0.0, 0.0])


# -- consider_constant, known_grads -----------------------------------------------------------


def test_consider_constant_stops_at_the_variable_but_gives_its_gradient(rng):
    x = pt.dvector("x")
    h = x**2
    cost = (h * x).sum()
    gx, gh = grad(cost, [x, h], consider_constant=[h])
    xv = rng.normal(size=4)
    got_x, got_h = _eval([gx, gh], [x], [xv])
    np.testing.assert_allclose(got_x, xv**2)  # only the direct use of x
    np.testing.assert_allclose(got_h, xv)


def test_consider_constant_must_be_a_list_of_variables():
    x = pt.dvector("x")
    with pytest.raises(TypeError, match="consider_constant"):
        grad(x.sum(), x, consider_constant=x)
    with pytest.raises(TypeError, match="consider_constant"):
        grad(x.sum(), x, consider_constant=[1.0])


def test_known_grads_without_cost(rng):
    x = pt.dvector("x")
    y = pt.exp(x)
    g_y = pt.dvector("g_y")
    gx = grad(None, x, known_grads={y: g_y})
    xv, gv = rng.normal(size=3), rng.normal(size=3)
    np.testing.assert_allclose(_eval(gx, [x, g_y], [xv, gv]), gv * np.exp(xv))


def test_known_grads_replace_what_the_cost_would_give(rng):
    x = pt.dvector("x")
    y = pt.exp(x)
    cost = y.sum() + x.sum()
    gx = grad(cost, x, known_grads={y: 2 * pt.ones_like(y)})
    xv = rng.normal(size=3)
    np.testing.assert_allclose(_eval(gx, [x], [xv]), 2 * np.exp(xv) + 1)


def test_known_grads_must_be_float_and_match_ndim():
    x = pt.dvector("x")
    with pytest.raises(TypeError, match="floating-point"):
        grad(None, x, known_grads={x: pt.lvector()})
    with pytest.raises(ValueError, match="dimensions"):
        grad(None, x, known_grads={x: pt.dmatrix()})


# -- disconnected inputs ----------------------------------------------------------------------


def test_disconnected_inputs_raise_warn_ignore():
    x, y = pt.dvector("x"), pt.dvector("y")
    cost = x.sum()
    with pytest.raises(DisconnectedInputError, match="y"):
        grad(cost, [x, y])
    with pytest.warns(UserWarning, match="not part of the computational graph"):
        grad(cost, [x, y], disconnected_inputs="warn")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gx, gy = grad(cost, [x, y], disconnected_inputs="ignore")
    np.testing.assert_array_equal(_eval(gy, [y], [np.ones(3)]), np.zeros(3))
    with pytest.raises(ValueError, match="disconnected_inputs"):
        grad(cost, [x, y], disconnected_inputs="maybe")


@pytest.mark.parametrize("size", [lambda x: pt.shape(x).sum(), lambda x: pt.shape_i(x, 1)])
def test_input_reaching_the_cost_only_through_its_shape_is_disconnected(size):
    x = pt.dmatrix("x")
    with pytest.raises(DisconnectedInputError):
        grad(size(x).astype("float64"), x)


@pytest.mark.parametrize(
    ("mode", "check"),
    [
        ("zero", lambda g: g.type.dtype == "float64" and g.owner is not None),
        ("none", lambda g: g is None),
        ("disconnected", lambda g: isinstance(g.type, DisconnectedType)),
    ],
)
def test_return_disconnected(mode, check):
    x, y = pt.dvector("x"), pt.lvector("y")
    _, gy = grad(x.sum(), [x, y], disconnected_inputs="ignore", return_disconnected=mode)
    assert check(gy)


def test_return_disconnected_zero_is_float_for_integers():
    x, i = pt.dvector("x"), pt.lvector("i")
    gi = grad(x.sum(), i, disconnected_inputs="ignore")
    assert gi.type.dtype.startswith("float")
    with pytest.raises(ValueError, match="return_disconnected"):
        grad(x.sum(), i, disconnected_inputs="ignore", return_disconnected="zeros")


# -- undefined and missing gradients ----------------------------------------------------------


def test_undefined_gradient_error_names_op_position_and_comment():
    x = pt.dvector("x")
    cost = UndefinedGradOp()(x).sum()
    with pytest.raises(NullTypeGradError) as info:
        grad(cost, x)
    message = str(info.value)
    assert "UndefinedGradOp" in message
    assert "input 0" in message
    assert "because the test says so" in message


def test_null_gradients_return():
    x = pt.dvector("x")
    g = grad(UndefinedGradOp()(x).sum(), x, null_gradients="return")
    assert isinstance(g.type, NullType)
    with pytest.raises(ValueError, match="null_gradients"):
        grad(UndefinedGradOp()(x).sum(), x, null_gradients="ignore")


def test_undefined_gradient_only_matters_where_it_is_used(rng):
    x, y = pt.dvector("x"), pt.dvector("y")
    cost = UndefinedGradOp()(x).sum() + (y**2).sum()
    gy = grad(cost, y)
    yv = rng.normal(size=3)
    # the gradient starts from fill(cost, 1), so it is a function of the cost's inputs
    np.testing.assert_allclose(_eval(gy, [x, y], [yv, yv]), 2 * yv)
    # a sum with an undefined term is undefined
    gx = grad(cost + (x**2).sum(), x, null_gradients="return")
    assert isinstance(gx.type, NullType)


def test_missing_gradient_names_the_op():
    x = pt.dvector("x")
    with pytest.raises(GradientNotDefinedError, match="NoGradOp"):
        grad(NoGradOp()(x).sum(), x)
    with pytest.raises(NotImplementedError):  # PyTensor's class for an op without gradient
        grad(NoGradOp()(x).sum(), x)


def test_missing_gradient_off_the_path_is_not_needed(rng):
    x, y = pt.dvector("x"), pt.dvector("y")
    cost = (NoGradOp()(y) * x).sum()
    yv = rng.normal(size=3)
    np.testing.assert_allclose(_eval(grad(cost, x), [x, y], [yv, yv]), yv)


@pytest.mark.parametrize(
    ("result", "error", "match"),
    [
        ("none", TypeError, "None"),
        ("int", TypeError, "integer-valued"),
        ("number", TypeError, "Variables"),
        ("too_many", ValueError, "one gradient per input"),
        ("ndim", ValueError, "dimensions"),
    ],
)
def test_invalid_op_gradients_are_reported(result, error, match):
    x = pt.dvector("x")
    with pytest.raises(error, match=match):
        grad(BadGradOp(result)(x).sum(), x)


# -- names, Lop, size -------------------------------------------------------------------------


def test_add_names():
    x = pt.dvector("x")
    cost = (x**2).sum()
    cost.name = "c"
    assert grad(cost, x).name == "(dc/dx)"
    assert grad(cost, x, add_names=False).name is None


def test_lop_is_the_vector_jacobian_product(rng):
    x = pt.dmatrix("x")
    w = pt.dmatrix("w")
    f = pt.tanh(pt.dot(x, w))
    u = pt.dmatrix("u")
    xv, wv, uv = rng.normal(size=(3, 4)), rng.normal(size=(4, 2)), rng.normal(size=(3, 2))
    gx, gw = Lop(f, [x, w], u)
    expected = grad((f * u).sum(), [x, w])
    got = _eval([gx, gw] + expected, [x, w, u], [xv, wv, uv])
    np.testing.assert_allclose(got[0], got[2])
    np.testing.assert_allclose(got[1], got[3])
    with pytest.raises(ValueError, match="eval points"):
        Lop([f, f], x, [u])


def _terms(x, n_terms):
    return [pt.sin(x * float(k + 1)) for k in range(n_terms)]


def _chain(terms, combine):
    total = terms[0]
    for term in terms[1:]:
        total = combine(total, term)
    return total


LONG_EXPRESSIONS = {
    "sum_chain": lambda terms: _chain(terms, lambda a, b: a + b),
    "sum_nary": lambda terms: pt.add(*terms),
    "product_chain": lambda terms: _chain(terms, lambda a, b: a * b),
    "product_nary": lambda terms: pt.mul(*terms),
    # each step uses the previous result twice: without one visit per node (a tree walk of the
    # graph) the gradient would double at every step
    "reused_chain": lambda terms: _chain(terms, lambda a, b: pt.sin(a) * a + b),
}


def _gradient_size(name, n_terms):
    """(nodes, edges) of the gradient graph of a sum or product of n terms."""
    x = pt.dvector("x")
    nodes = io_toposort([x], [grad(LONG_EXPRESSIONS[name](_terms(x, n_terms)).sum(), x)])
    return len(nodes), sum(len(node.inputs) for node in nodes)


@pytest.mark.parametrize("name", sorted(LONG_EXPRESSIONS))
def test_gradient_graph_of_a_long_sum_or_product_is_linear(name):
    """Doubling the number of terms about doubles the nodes and the edges (node inputs); a
    quadratic gradient (one product of the n - 1 other factors per factor) gives four times."""
    nodes50, edges50 = _gradient_size(name, 50)
    nodes100, edges100 = _gradient_size(name, 100)
    assert nodes100 < 2.2 * nodes50 and edges100 < 2.2 * edges50
    assert nodes100 < 20 * 100 and edges100 < 40 * 100


def test_gradient_of_an_nary_product(rng):
    points = [rng.normal(size=(2, 3)) for _ in range(4)]
    verify_grad(lambda *xs: pt.mul(*xs), points, rng=rng)
    verify_grad(lambda a, b, c: grad(pt.mul(a, b, c, a).sum(), b), points[:3], rng=rng)


def test_known_grads_in_another_float_dtype_give_a_gradient_of_the_wrt_dtype(rng):
    x = pt.fvector("x")
    g64 = pt.dvector("g64")
    g = grad(None, x, known_grads={x: g64})
    assert g.type.dtype == "float32"
    gv = rng.normal(size=3)
    got = _eval(g, [x, g64], [np.ones(3, "float32"), gv])
    np.testing.assert_allclose(got, gv.astype("float32"))


def test_known_grads_disconnected_value_means_no_gradient():
    x = pt.dvector("x")
    y = pt.exp(x)
    with pytest.raises(DisconnectedInputError):
        grad(None, x, known_grads={y: DisconnectedType()()})
    assert (
        grad(
            None,
            x,
            known_grads={y: DisconnectedType()()},
            disconnected_inputs="ignore",
            return_disconnected="none",
        )
        is None
    )


def test_lop_adds_the_cotangents_of_a_repeated_output(rng):
    x, u1, u2 = pt.dvector("x"), pt.dvector("u1"), pt.dvector("u2")
    y = pt.sin(x)
    g = Lop([y, y], x, [u1, u2])
    xv, v1, v2 = (rng.normal(size=4) for _ in range(3))
    np.testing.assert_allclose(_eval(g, [x, u1, u2], [xv, v1, v2]), np.cos(xv) * (v1 + v2))


@pytest.mark.parametrize("return_disconnected", ["zero", "none", "disconnected"])
def test_disconnected_raise_wins_over_every_return_disconnected(return_disconnected):
    x, y = pt.dvector("x"), pt.dvector("y")
    with pytest.raises(DisconnectedInputError):
        grad(x.sum(), [x, y], return_disconnected=return_disconnected)
    with pytest.warns(UserWarning, match="not part of the computational graph"):
        _, gy = grad(
            x.sum(), [x, y], disconnected_inputs="warn", return_disconnected=return_disconnected
        )
    assert (gy is None) == (return_disconnected == "none")


def test_wrt_an_intermediate_result_and_its_inputs_at_once(rng):
    """h is both a wrt entry and on the path from x: x's gradient still goes through h."""
    x, w = pt.dvector("x"), pt.dvector("w")
    h = pt.exp(x) * w
    cost = (h * h).sum() + (h * x).sum()
    gh, gx, gw = grad(cost, [h, x, w])
    xv, wv = rng.normal(size=3), rng.normal(size=3)
    got_h, got_x, got_w = _eval([gh, gx, gw], [x, w], [xv, wv])
    hv = np.exp(xv) * wv
    np.testing.assert_allclose(got_h, 2 * hv + xv)
    np.testing.assert_allclose(got_x, (2 * hv + xv) * hv + hv)
    np.testing.assert_allclose(got_w, (2 * hv + xv) * np.exp(xv))


def test_disconnected_warnings_point_at_the_caller():
    x, y = pt.dvector("x"), pt.dvector("y")
    with pytest.warns(UserWarning, match="not part of the computational graph") as records:
        grad(x.sum(), [x, y], disconnected_inputs="warn")
        jacobian(x * 2.0, [x, y], disconnected_inputs="warn")
    assert {record.filename for record in records} == {__file__}


def test_gradient_of_a_linear_cost_is_a_function_of_its_input():
    # PyTensor's tutorial pattern: the gradient of 2 * x is a constant, yet it is compiled as
    # a function of x; the seed fill(cost, 1) keeps x among the gradient graph's inputs
    x = pt.dscalar("x")
    assert float(arignote.function([x], grad(x * 2, x))(3.0)) == 2.0
    v = pt.dvector("v")
    np.testing.assert_array_equal(arignote.function([v], grad((v * 3).sum(), v))([1.0, 2]), [3, 3])
    n = pt.iscalar("n")
    g = grad(pt.cast(n, "float64") * 2.0, n)
    assert float(arignote.function([n], g)(4)) == 2.0
