"""``verify_grad`` and ``numeric_grad``: the seed's DoubleOp, right and wrong."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.gradient import GradientError
from arignote.graph.basic import Apply
from arignote.graph.op import Op
from arignote.testing import fetch_seed, numeric_grad, verify_grad


class DoubleOp(Op):
    """The seed documents' example op: ``2 * x``."""

    __props__ = ("broken",)

    def __init__(self, broken=False):
        self.broken = broken

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] * 2

    def infer_shape(self, fgraph, node, input_shapes):
        return input_shapes

    def grad(self, inputs, output_grads):
        if self.broken:  # "remove the multiplication by 2"
            return [output_grads[0]]
        return [output_grads[0] * 2]


def test_verify_grad_passes_the_right_gradient(rng):
    verify_grad(DoubleOp(), [rng.random((5, 7, 2))])


def test_verify_grad_catches_the_missing_multiplication_by_two(rng):
    point = rng.random((5, 7, 2))
    with pytest.raises(GradientError) as info:
        verify_grad(DoubleOp(broken=True), [point], rng=rng)
    error = info.value
    assert error.arg == 0
    assert error.shape == (5, 7, 2)
    assert isinstance(error.err_pos, tuple) and len(error.err_pos) == 3
    assert all(type(i) is int for i in error.err_pos)
    # symbolic = numeric / 2 everywhere: |a - b| / (|a| + |b|) = 1/3
    assert error.rel_err == pytest.approx(1 / 3, rel=1e-4)
    assert error.val1 == pytest.approx(2 * error.val2, rel=1e-4)
    message = str(error)
    assert "max abs. error" in message and "max rel. error" in message
    assert str(error.err_pos) in message


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dtype_aware_defaults(dtype, rng):
    point = rng.uniform(0.5, 2.0, size=(3, 4)).astype(dtype)
    verify_grad(lambda x: pt.log(x) * pt.tanh(x), [point], rng=rng)
    with pytest.raises(GradientError):
        verify_grad(lambda x: DoubleOp(broken=True)(pt.log(x)), [point], rng=rng)


def test_several_arguments_and_where_the_error_is(rng):
    a, b = rng.normal(size=(2, 3)), rng.normal(size=(3,))

    def fun(x, y):
        return x * DoubleOp(broken=True)(y)

    with pytest.raises(GradientError) as info:
        verify_grad(fun, [a, b], rng=rng)
    assert info.value.arg == 1
    verify_grad(lambda x, y: x * DoubleOp()(y), [a, b], rng=rng)


def test_bad_arguments():
    with pytest.raises(TypeError, match="floating-point"):
        verify_grad(DoubleOp(), [np.arange(3)])
    with pytest.raises(TypeError, match="list or tuple"):
        verify_grad(DoubleOp(), np.ones(3))
    with pytest.raises(TypeError, match="one output"):
        verify_grad(lambda x: [x, x], [np.ones(3)])


def test_cast_to_output_type(rng):
    point = rng.random((3, 2)).astype("float32")
    verify_grad(pt.exp, [point], rng=rng, cast_to_output_type=True)


def test_numeric_grad_is_a_central_difference(rng):
    x = pt.dvector("x")
    f = arignote.function([x], (x**3).sum())
    point = rng.normal(size=4)
    numeric = numeric_grad(f, [point])
    np.testing.assert_allclose(numeric.gf[0], 3 * point**2, rtol=1e-8)
    np.testing.assert_array_equal(point, point.copy())  # the caller's array is not moved


def test_numeric_grad_max_err_reports_plain_ints():
    numeric = numeric_grad(lambda x: float(np.sum(x)), [np.zeros((2, 3))])
    arg, position, abs_err, rel_err = numeric.max_err([np.ones((2, 3)) * 2], 1e-4, 1e-4)
    assert arg == 0 and all(type(i) is int for i in position)
    assert abs_err == pytest.approx(1.0) and rel_err == pytest.approx(1 / 3)


def test_fetch_seed(monkeypatch):
    assert fetch_seed(7) == 7
    monkeypatch.setenv("ARIGNOTE_TEST_SEED", "11")
    assert fetch_seed() == 11
    with pytest.raises(ValueError, match="integer"):
        fetch_seed("abc")


class SquareWithBadGrad(Op):
    """x ** 2 whose gradient is NaN, or off by 0.1 % plus a bump on element 0."""

    __props__ = ("bad",)

    def __init__(self, bad):
        self.bad = bad

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] ** 2

    def grad(self, inputs, output_grads):
        (x,), (gz,) = inputs, output_grads
        if self.bad == "nan":
            return [gz * 2 * x * np.nan]
        bump = pt.as_tensor_variable(np.array([0.5, 0.0, 0.0]))
        return [gz * (2 * x * 1.001 + bump)]


def test_verify_grad_catches_a_nan_gradient(rng):
    with pytest.raises(GradientError, match="nan"):
        verify_grad(SquareWithBadGrad("nan"), [rng.normal(size=3)], rng=rng)


def test_error_reports_the_largest_errors_over_all_elements(rng):
    """The worst element (both tolerances exceeded most) is the bump at 0; the largest
    absolute error is at the large element 2 (a small relative error of a large value)."""
    point = np.array([1e-3, 1.0, 3000.0])
    with pytest.raises(GradientError) as info:
        verify_grad(SquareWithBadGrad("offset"), [point], rng=rng)
    error = info.value
    assert error.err_pos == (0,)
    assert error.max_abs_err > 2.0 > error.abs_err
    assert error.max_rel_err == pytest.approx(error.rel_err)
    message = str(error)
    assert f"max abs. error = {error.max_abs_err:.6g}" in message
    assert f"abs. error = {error.abs_err:.6g}" in message
