"""zero_grad, disconnected_grad, undefined_grad, consider_constant, grad_clip, grad_scale."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.gradient import (
    ConsiderConstant,
    DisconnectedGrad,
    DisconnectedInputError,
    GradClip,
    GradScale,
    NullTypeGradError,
    Rop,
    UndefinedGrad,
    ZeroGrad,
    consider_constant,
    disconnected_grad,
    grad,
    grad_clip,
    grad_scale,
    undefined_grad,
    zero_grad,
)
from arignote.tensor.gradient_ops import GradientViewOp
from arignote.testing import InferShapeTester

HELPERS = {
    "zero_grad": zero_grad,
    "disconnected_grad": disconnected_grad,
    "undefined_grad": undefined_grad,
    "consider_constant": consider_constant,
    "grad_clip": lambda x: grad_clip(x, -1.0, 1.0),
    "grad_scale": lambda x: grad_scale(x, 3.0),
}


def _eval(outputs, inputs, values):
    return arignote.function(inputs, outputs, on_unused_input="ignore")(*values)


@pytest.mark.parametrize("name", sorted(HELPERS))
def test_forward_value_is_the_input_and_the_op_is_compiled_away(name, rng):
    x = pt.dmatrix("x")
    y = HELPERS[name](x) * 2.0
    fn = arignote.function([x], y)
    xv = rng.normal(size=(3, 4))
    np.testing.assert_allclose(fn(xv), 2 * xv)
    assert not any(isinstance(n.op, GradientViewOp) for n in fn.maker.fgraph.toposort())


@pytest.mark.parametrize("name", sorted(HELPERS))
def test_props_and_shape(name, rng):
    x = pt.dmatrix("x")
    y = HELPERS[name](x)
    op = y.owner.op
    assert copy.copy(op) == op and pickle.loads(pickle.dumps(op)) == op
    assert hash(pickle.loads(pickle.dumps(op))) == hash(op)
    tester = InferShapeTester()
    tester.setup_method()
    tester._compile_and_check([x], [y], [rng.normal(size=(3, 4))], type(op))


def test_zero_grad_gives_zero_and_stays_connected(rng):
    x = pt.dvector("x")
    cost = (zero_grad(x) * x).sum()
    xv = rng.normal(size=4)
    np.testing.assert_allclose(_eval(grad(cost, x), [x], [xv]), xv)  # only the direct use
    only = grad(zero_grad(x).sum(), x)  # connected: no DisconnectedInputError
    np.testing.assert_array_equal(_eval(only, [x], [xv]), np.zeros(4))


def test_consider_constant_is_zero_grad():
    x = pt.dscalar("x")
    assert _eval(grad(consider_constant(x) * x, x), [x], [3.0]) == 3.0
    assert ConsiderConstant() != ZeroGrad()


def test_disconnected_grad_disconnects(rng):
    x = pt.dvector("x")
    with pytest.raises(DisconnectedInputError):
        grad(disconnected_grad(x).sum(), x)
    cost = (disconnected_grad(x) * x).sum()
    xv = rng.normal(size=4)
    np.testing.assert_allclose(_eval(grad(cost, x), [x], [xv]), xv)


def test_undefined_grad_raises():
    x = pt.dvector("x")
    with pytest.raises(NullTypeGradError, match="UndefinedGrad"):
        grad(undefined_grad(x).sum(), x)
    with pytest.raises(NullTypeGradError, match="UndefinedGrad"):
        Rop(undefined_grad(x), x, pt.dvector())


def test_grad_clip_documented_example():
    x = pt.dscalar("x")
    clipped = grad(grad_clip(x, -1, 1) ** 2, x)
    plain = grad(x**2, x)
    assert [float(v) for v in _eval([clipped, plain], [x], [2.0])] == [1.0, 4.0]
    with pytest.raises(ValueError, match="lower <= upper"):
        grad_clip(x, 1, -1)
    assert GradClip(-1, 1) != GradClip(-2, 1)


def test_grad_scale_documented_example():
    x = pt.fscalar("x")
    fx = pt.sin(x)
    reversed_grad = grad(grad_scale(fx, -1.0), x)
    assert reversed_grad.type.dtype == "float32"
    assert float(_eval(reversed_grad, [x], [np.float32(2.0)])) == pytest.approx(-np.cos(2.0), 1e-6)
    assert GradScale(2.0) != GradScale(3.0)


def test_r_op_of_the_helpers(rng):
    x, v = pt.dvector("x"), pt.dvector("v")
    xv, vv = rng.normal(size=3), rng.normal(size=3)
    np.testing.assert_array_equal(_eval(Rop(zero_grad(x), x, v), [x, v], [xv, vv]), np.zeros(3))
    for helper in (lambda t: grad_clip(t, -0.1, 0.1), lambda t: grad_scale(t, 5.0)):
        np.testing.assert_allclose(_eval(Rop(helper(x), x, v), [x, v], [xv, vv]), vv)
    with pytest.raises(DisconnectedInputError):
        Rop(disconnected_grad(x), x, v)


def test_helper_ops_are_distinct_classes():
    ops = {ZeroGrad(), DisconnectedGrad(), UndefinedGrad(), ConsiderConstant()}
    assert len(ops) == 4
