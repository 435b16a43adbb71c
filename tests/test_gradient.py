"""The public facade: ``jacobian`` and ``hessian`` against NumPy finite differences."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote import gradient
from arignote.gradient import DisconnectedInputError, hessian, jacobian
from arignote.scan import IndexMap


def _eval(outputs, inputs, values):
    return arignote.function(inputs, outputs, on_unused_input="ignore")(*values)


def _numeric_jacobian(f, x, eps=1e-6):
    """d f(x)[idx] / d x[jdx] by central differences, shape f(x).shape + x.shape."""
    x = np.asarray(x, dtype="float64")
    out_shape = np.shape(f(x))
    columns = []
    for j in range(x.size):
        step = np.zeros(x.size)
        step[j] = eps
        step = step.reshape(x.shape)
        columns.append((np.asarray(f(x + step)) - np.asarray(f(x - step))).ravel() / (2 * eps))
    return np.stack(columns, axis=1).reshape(out_shape + x.shape)


def _vector_function(x):
    return pt.exp(x) * x.sum() + pt.sin(x) ** 2


def _vector_function_np(x):
    return np.exp(x) * x.sum() + np.sin(x) ** 2


@pytest.mark.parametrize("vectorize", [False, True])
def test_jacobian_of_a_vector_function(vectorize, rng):
    x = pt.dvector("x")
    J = jacobian(_vector_function(x), x, vectorize=vectorize)
    xv = rng.normal(size=5)
    np.testing.assert_allclose(
        _eval(J, [x], [xv]), _numeric_jacobian(_vector_function_np, xv), rtol=1e-6, atol=1e-8
    )


def test_jacobian_with_symbolic_length_uses_a_run_time_loop(rng):
    x = pt.dvector("x")
    J = jacobian(_vector_function(x), x)
    assert any(isinstance(n.op, IndexMap) for n in arignote.graph.basic.io_toposort([x], [J]))
    fn = arignote.function([x], J)
    for size in (1, 3, 6):  # one graph, any length
        xv = rng.normal(size=size)
        np.testing.assert_allclose(
            fn(xv), _numeric_jacobian(_vector_function_np, xv), rtol=1e-6, atol=1e-8
        )


def test_jacobian_static_length_vectorized_has_no_loop(rng):
    x = pt.tensor(dtype="float64", shape=(4,), name="x")
    J = jacobian(pt.tanh(x) * 2.0, x, vectorize=True)
    assert not any(isinstance(n.op, IndexMap) for n in arignote.graph.basic.io_toposort([x], [J]))
    xv = rng.normal(size=4)
    np.testing.assert_allclose(_eval(J, [x], [xv]), np.diag(2 / np.cosh(xv) ** 2))


def test_vectorized_and_looped_jacobians_agree_on_static_shapes(rng):
    a = pt.tensor(dtype="float64", shape=(2, 3), name="a")
    b = pt.tensor(dtype="float64", shape=(3,), name="b")
    out = pt.exp(pt.dot(a, b)) * a.sum()
    looped = jacobian(out, [a, b])
    unrolled = jacobian(out, [a, b], vectorize=True)
    hess = hessian(out.sum(), b, vectorize=True)
    av, bv = rng.normal(size=(2, 3)), rng.normal(size=3)
    got = _eval(looped + unrolled + [hess], [a, b], [av, bv])
    np.testing.assert_allclose(got[0], got[2], rtol=1e-12)
    np.testing.assert_allclose(got[1], got[3], rtol=1e-12)
    np_hess = _numeric_hessian(lambda t: np.sum(np.exp(av @ t) * av.sum()), bv)
    np.testing.assert_allclose(got[4], np_hess, rtol=1e-4, atol=1e-4)


def test_jacobian_of_a_matrix_expression_wrt_several_variables(rng):
    a, b = pt.dmatrix("a"), pt.dvector("b")
    out = pt.tanh(pt.dot(a, b.dimshuffle(0, "x")) * a)
    ja, jb = jacobian(out, [a, b])
    av, bv = rng.normal(size=(2, 3)), rng.normal(size=3)
    got_a, got_b = _eval([ja, jb], [a, b], [av, bv])
    assert got_a.shape == (2, 3, 2, 3) and got_b.shape == (2, 3, 3)

    def np_out(a_, b_):
        return np.tanh(np.dot(a_, b_[:, None]) * a_)

    np.testing.assert_allclose(got_a, _numeric_jacobian(lambda t: np_out(t, bv), av), atol=1e-7)
    np.testing.assert_allclose(got_b, _numeric_jacobian(lambda t: np_out(av, t), bv), atol=1e-7)


def test_jacobian_structure_and_scalar_expression(rng):
    x, y = pt.dvector("x"), pt.dvector("y")
    out = x * y
    assert isinstance(jacobian(out, (x, y)), tuple)
    assert isinstance(jacobian(out, [x]), list)
    assert not isinstance(jacobian(out, x), (list, tuple))
    g = jacobian((x**2).sum(), x)  # a 0-d expression: the gradient
    xv = rng.normal(size=3)
    np.testing.assert_allclose(_eval(g, [x], [xv]), 2 * xv)


def test_jacobian_disconnected_inputs(rng):
    x, y = pt.dvector("x"), pt.dvector("y")
    with pytest.raises(DisconnectedInputError):
        jacobian(x * 2.0, [x, y])
    _, jy = jacobian(x * 2.0, [x, y], disconnected_inputs="ignore")
    got = _eval(jy, [x, y], [np.ones(3), np.ones(4)])
    np.testing.assert_array_equal(got, np.zeros((3, 4)))


def _cost(x):
    return (pt.exp(x) * pt.sin(x)).sum() * (x**2).sum()


def _cost_np(x):
    return np.sum(np.exp(x) * np.sin(x)) * np.sum(x**2)


def _numeric_hessian(f, x, eps=1e-4):
    def gradient_np(t):
        return _numeric_jacobian(f, t, eps)

    return _numeric_jacobian(gradient_np, x, eps)


@pytest.mark.parametrize("vectorize", [False, True])
def test_hessian_of_a_vector_input(vectorize, rng):
    x = pt.dvector("x")
    H = hessian(_cost(x), x, vectorize=vectorize)
    xv = rng.uniform(-1, 1, size=4)
    got = _eval(H, [x], [xv])
    np.testing.assert_allclose(got, got.T, rtol=1e-10)
    np.testing.assert_allclose(got, _numeric_hessian(_cost_np, xv), rtol=1e-4, atol=1e-4)


def test_hessian_of_a_matrix_input_and_a_list(rng):
    m, v = pt.dmatrix("m"), pt.dvector("v")
    cost = (pt.tanh(m) ** 2).sum() + (v**3).sum()
    hm, hv = hessian(cost, [m, v])
    mv, vv = rng.normal(size=(2, 3)), rng.normal(size=3)
    got_m, got_v = _eval([hm, hv], [m, v], [mv, vv])
    assert got_m.shape == (2, 3, 2, 3)
    np.testing.assert_allclose(
        got_m, _numeric_hessian(lambda t: np.sum(np.tanh(t) ** 2), mv), rtol=1e-4, atol=1e-4
    )
    np.testing.assert_allclose(got_v, np.diag(6 * vv), rtol=1e-10)


def test_hessian_of_a_linear_cost_is_zero_and_scalar_cost_required(rng):
    x = pt.dvector("x")
    H = hessian((x * 3.0).sum(), x)
    np.testing.assert_array_equal(_eval(H, [x], [np.ones(3)]), np.zeros((3, 3)))
    with pytest.raises(ValueError, match="scalar"):  # PyTensor's class (grad: TypeError)
        hessian(x * 2, x)


def test_tensor_namespace_has_grad_jacobian_hessian():
    assert pt.grad is gradient.grad
    assert pt.jacobian is jacobian and pt.hessian is hessian
    assert arignote.grad is gradient.grad


@pytest.mark.parametrize("vectorize", [False, True])
def test_jacobian_of_an_empty_expression(vectorize):
    x = pt.tensor(dtype="float64", shape=(0,), name="x")
    m = pt.dmatrix("m")
    jx, jm = jacobian(x * 2.0, [x, m], disconnected_inputs="ignore", vectorize=vectorize)
    got_x, got_m = _eval([jx, jm], [x, m], [np.zeros(0), np.ones((2, 3))])
    assert got_x.shape == (0, 0) and got_m.shape == (0, 2, 3)
    with pytest.raises(DisconnectedInputError):
        jacobian(x * 2.0, [x, m], vectorize=vectorize)
