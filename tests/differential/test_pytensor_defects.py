"""Where PyTensor 3.0.7 is wrong, arignote is right: each test states the right value.

Found by the differential harness or reported in issue 17; listed on
``docs/migration-differences.md``. (PyTensor's wrong values are in the comments, checked with
PyTensor 3.0.7; these tests do not need PyTensor.)
"""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.compile.mode import Mode
from arignote.gradient import grad

MODES = [Mode(linker="vm", optimizer=None), "FAST_COMPILE", "FAST_RUN"]
IDS = ["no_rewrites", "FAST_COMPILE", "FAST_RUN"]


def _run(inputs, outputs, values, mode):
    return arignote.function(inputs, outputs, mode=mode, on_unused_input="ignore")(*values)


@pytest.mark.parametrize("mode", MODES, ids=IDS)
def test_simplified_ratio_keeps_the_broadcast_shape(mode):
    # FAST_RUN cancels x/x (tag "cancel", as PyTensor does); the cancelled factor's lengths are
    # still checked against the rest (second(y, rest)), so the run-time broadcast stays refused.
    # PyTensor: x[-1:] * (|x|+1) / (|x|+1) has shape (1,) (the ratio is simplified away, and
    # the broadcast with it). NumPy: (3,). Neither library broadcasts a runtime length 1, so the
    # graph must raise, or give (3,) once the length 1 is declared.
    x = pt.dvector("x")
    ratio = (abs(x) + 1) / (abs(x) + 1)
    value = np.array([1.0, -2.0, 3.0])
    with pytest.raises(ValueError, match="Runtime broadcasting is not allowed"):
        _run([x], [x[-1:] * ratio], [value], mode)
    (result,) = _run([x], [pt.specify_broadcastable(x[-1:], 0) * ratio], [value], mode)
    np.testing.assert_allclose(result, [3.0, 3.0, 3.0])


@pytest.mark.parametrize("mode", MODES, ids=IDS)
def test_cumprod_gradient_at_an_exact_zero_is_finite(mode):
    # PyTensor: [1, nan, 0]. d/dx_i sum_k prod_{j<=k} x_j at x = (2, 0, 3): (1, 2 + 6, 0)
    x = pt.dvector("x")
    (result,) = _run([x], [grad(pt.cumprod(x).sum(), x)], [np.array([2.0, 0.0, 3.0])], mode)
    np.testing.assert_allclose(result, [1.0, 8.0, 0.0])


@pytest.mark.parametrize("mode", MODES, ids=IDS)
def test_sqrt_relu_gradient_is_zero_where_relu_is_zero(mode):
    # PyTensor: [nan, 0.25]; sqrt(relu(x)) is constant (0) for x < 0
    x = pt.dvector("x")
    out = pt.sqrt(pt.maximum(x, 0)).sum()
    (result,) = _run([x], [grad(out, x)], [np.array([-1.0, 4.0])], mode)
    np.testing.assert_allclose(result, [0.0, 0.25])


@pytest.mark.parametrize("mode", MODES, ids=IDS)
def test_std_gradient_over_one_element_is_zero(mode):
    # PyTensor: nan everywhere; std over an axis of length 1 is identically 0
    m = pt.dmatrix("m")
    (result,) = _run([m], [grad(pt.std(m, axis=0).sum(), m)], [np.ones((1, 4))], mode)
    np.testing.assert_array_equal(result, np.zeros((1, 4)))


@pytest.mark.parametrize("shape", [(1, 4), (1, None), (None, 4), (None, None)])
def test_trace_and_switch_gradients_have_the_input_shape(shape):
    # issue 17 reports a gradient of the wrong shape through trace and switch for an input of
    # shape (1, 4); the right gradient has the input's shape, whatever is known statically
    m = pt.tensor("m", dtype="float64", shape=shape)
    value = np.arange(1.0, 5.0).reshape(1, 4)
    costs = [
        pt.trace(m),
        pt.switch(m > 2, m, 0).sum(),
        pt.trace(pt.switch(m > 2, m, 3 * m)),
        pt.switch(m > 2, pt.trace(m), m).sum(),
    ]
    expected = [[1, 0, 0, 0], [0, 0, 1, 1], [3, 0, 0, 0], [3, 1, 0, 0]]
    for cost, right in zip(costs, expected):
        (result,) = _run([m], [grad(cost, m)], [value], "FAST_RUN")
        np.testing.assert_array_equal(result, np.array([right], dtype="float64"))


@pytest.mark.parametrize("mode", MODES, ids=IDS)
def test_runtime_length_1_value_of_set_subtensor_is_refused_not_misdifferentiated(mode):
    # PyTensor broadcasts y of runtime length 1 into a slice of length 3, and the gradient
    # with respect to y then has shape (3,) for a y of shape (1,). arignote refuses the runtime
    # broadcasting (and broadcasts a static length 1, with a gradient of y's shape).
    a, b = pt.dvector("a"), pt.dvector("b")
    with pytest.raises(ValueError, match="runtime broadcasting is not allowed"):
        _run([a, b], [pt.set_subtensor(a[0:3], b)], [np.zeros(3), np.ones(1)], mode)
    c = pt.tensor("c", dtype="float64", shape=(1,))
    out = pt.set_subtensor(a[0:3], c)
    cost = (out**2 * np.array([1.0, 2.0, 3.0])).sum()
    value, g = _run([a, c], [out, grad(cost, c)], [np.zeros(3), np.ones(1)], mode)
    np.testing.assert_array_equal(value, [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(g, [12.0])  # sum of 2 * c * (1, 2, 3), shape (1,)


@pytest.mark.parametrize("mode", MODES, ids=IDS)
def test_alloc_of_a_runtime_length_1_is_refused_not_left_unbroadcast(mode):
    # PyTensor (FAST_RUN): alloc(a, 3) for an a of runtime length 1 returns shape (1,)
    a, b = pt.dvector("a"), pt.dvector("b")
    with pytest.raises(ValueError, match="broadcast"):
        _run([a, b], [pt.alloc(a, b.shape[0])], [np.ones(1), np.zeros(3)], mode)


def test_logsumexp_of_integers_compiles():
    # PyTensor's FAST_RUN rewrites of logsumexp over an integer matrix do not finish (> 60 s)
    x = pt.lmatrix("x")
    fn = arignote.function([x], pt.logsumexp(x, axis=0), mode="FAST_RUN")
    value = np.array([[1, 2], [3, 4]])
    np.testing.assert_allclose(fn(value), np.log(np.exp(value).sum(axis=0)))


@pytest.mark.parametrize("mode", MODES, ids=IDS)
def test_bincount_of_an_empty_vector_is_empty(mode):
    # PyTensor: "negative dimensions not allowed" (FAST_RUN), "zero-size array to reduction
    # operation maximum which has no identity" (FAST_COMPILE)
    x = pt.lvector("x")
    (result,) = _run([x], [pt.bincount(x)], [np.zeros(0, dtype="int64")], mode)
    assert result.shape == (0,) and result.dtype == np.bincount(np.zeros(0, int)).dtype


def test_cancelling_keeps_nothing_extra_where_shapes_are_known():
    # (x * y) / y -> x: no shape check where the static shapes already agree
    x, y = pt.tensor("x", shape=(3,)), pt.tensor("y", shape=(3,))
    fn = arignote.function([x, y], (x * y) / y, mode="FAST_RUN")
    ops = [type(node.op).__name__ for node in fn.maker.fgraph.toposort()]
    assert ops == ["DeepCopyOp"], ops  # the output is x itself, copied
    np.testing.assert_allclose(fn(np.array([1.0, 2, 3]), np.array([0.5, 4, 8])), [1.0, 2, 3])


@pytest.mark.parametrize("mode", MODES, ids=IDS)
def test_cancelled_factor_of_another_length_still_broadcasts(mode):
    # (x * y) / y with x of static length 1 and y of length 3: NumPy gives x broadcast, (3,)
    x, y = pt.tensor("x", shape=(1,)), pt.dvector("y")
    (result,) = _run([x, y], [(x * y) / y], [np.array([2.0]), np.array([1.0, 4, 8])], mode)
    np.testing.assert_allclose(result, [2.0, 2.0, 2.0])
    with pytest.raises(ValueError, match="[Rr]untime broadcasting is not allowed"):
        _run([y, pt.dvector("z")], [(y * y[:1]) / y[:1]], [np.ones(3), np.ones(1)], mode)
