"""grad, L_op and R_op of every op of the foundation, against finite differences.

Each case is checked three ways: ``verify_grad`` (reverse mode), ``check_rop_lop`` (forward mode
against finite differences, and the adjoint identity with ``Lop``), and, for smooth cases, the
gradient of the gradient.
"""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.scalar as ps
import arignote.tensor as pt
from arignote.compile.ops import deep_copy_op, view_op
from arignote.gradient import Rop, grad
from arignote.tensor.basic import scalar_from_tensor, tensor_from_scalar
from arignote.testing import check_rop_lop, verify_grad


def _pos(rng, shape):
    return rng.uniform(0.5, 2.0, size=shape)


def _any(rng, shape):
    return rng.uniform(-1.5, 1.5, size=shape)


def _apart(rng, shape, offset=0.0123):
    """Distinct values, away from 0 and from multiples of 1/2: no ties, no kinks or jumps of
    abs, max, floor, int casts..."""
    size = int(np.prod(shape))
    values = np.linspace(-2.0, 2.0, 2 * size + 2) + offset
    return rng.permutation(values)[:size].reshape(shape)


def _apart_too(rng, shape):
    """Like ``_apart``, and never equal to a value drawn by it."""
    return _apart(rng, shape, offset=0.0611)


UNARY = {
    "neg": (pt.neg, _any),
    "abs": (pt.abs, _apart),
    "exp": (pt.exp, _any),
    "exp2": (pt.exp2, _any),
    "expm1": (pt.expm1, _any),
    "log": (pt.log, _pos),
    "log2": (pt.log2, _pos),
    "log10": (pt.log10, _pos),
    "log1p": (pt.log1p, _pos),
    "sqrt": (pt.sqrt, _pos),
    "sqr": (pt.sqr, _any),
    "sin": (pt.sin, _any),
    "cos": (pt.cos, _any),
    "tan": (pt.tan, _any),
    "tanh": (pt.tanh, _any),
    "sinh": (pt.sinh, _any),
    "cosh": (pt.cosh, _any),
    "sigmoid": (pt.sigmoid, _any),
    "softplus": (pt.softplus, _any),
    "identity": (pt.identity, _any),
}

BINARY = {
    "add": (pt.add, _any, _any),
    "sub": (pt.sub, _any, _any),
    "mul": (pt.mul, _any, _any),
    "true_div": (pt.true_div, _any, _pos),
    "mod": (pt.mod, _pos, _pos),
    "pow": (pt.pow, _pos, _any),
    "maximum": (pt.maximum, _apart, _apart_too),
    "minimum": (pt.minimum, _apart, _apart_too),
    "second": (pt.second, _any, _any),
    "switch_": (lambda a, b: pt.switch(pt.gt(a, 0), a * b, b), _apart, _any),
    "mul3": (lambda a, b: pt.mul(a, b, a), _any, _any),
}

PIECEWISE_CONSTANT = {
    "sign": (pt.sign, _apart),
    "floor": (pt.floor, _apart),
    "int_div": (lambda x: pt.int_div(x, 0.7), _apart),
    "lt": (lambda x: pt.lt(x, 0.3), _apart),
    "cast_to_int": (lambda x: pt.cast(x * 3, "int64"), _apart),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_elemwise_unary(name, rng):
    fn, draw = UNARY[name]
    point = draw(rng, (3, 4))
    verify_grad(fn, [point], rng=rng)
    check_rop_lop(fn, [point], rng=rng)


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("shapes", [((3, 4), (3, 4)), ((3, 4), (4,)), ((1, 4), (3, 1))])
def test_elemwise_binary_with_broadcasting(name, shapes, rng):
    fn, draw_a, draw_b = BINARY[name]
    points = [draw_a(rng, shapes[0]), draw_b(rng, shapes[1])]
    verify_grad(fn, points, rng=rng)
    check_rop_lop(fn, points, rng=rng)


@pytest.mark.parametrize("name", sorted(PIECEWISE_CONSTANT))
def test_piecewise_constant_ops_have_zero_gradient(name, rng):
    fn, draw = PIECEWISE_CONSTANT[name]
    x, v = pt.dmatrix("x"), pt.dmatrix("v")
    point = draw(rng, (3, 4))
    g = grad(fn(x).astype("float64").sum(), x)
    np.testing.assert_array_equal(arignote.function([x], g)(point), np.zeros((3, 4)))
    verify_grad(fn, [point], rng=rng)
    out = fn(x)
    if out.type.dtype.startswith("float"):  # a zero tangent, not a disconnected output
        jvp = Rop(out, x, v)
        got = arignote.function([x, v], jvp, on_unused_input="ignore")(point, point)
        np.testing.assert_array_equal(got, np.zeros((3, 4)))
    else:  # integer-valued: no tangent at all
        assert Rop(out, x, v, disconnected_outputs="ignore", return_disconnected="none") is None


@pytest.mark.parametrize("name", ["add", "mul", "sub", "true_div", "maximum", "pow"])
def test_scalar_ops_on_scalars(name, rng):
    """The scalar ops themselves (not lifted), with the generic ScalarOp.R_op."""
    scalar_op = getattr(ps, name)

    def fn(a, b):
        return tensor_from_scalar(scalar_op(scalar_from_tensor(a), scalar_from_tensor(b)))

    points = [np.asarray(_apart(rng, ()) + 3.0), np.asarray(_apart(rng, ()))]
    verify_grad(fn, points, rng=rng)
    check_rop_lop(fn, points, rng=rng)


def test_scalar_r_op_none_and_integer_outputs():
    a, b = ps.scalar("a"), ps.scalar("b")
    assert ps.add.R_op([a, b], [None, None]) == [None]
    i = ps.scalar("i", dtype="int64")
    assert ps.add.R_op([i, i], [i, i]) == [None]  # an integer-valued output has no tangent


SHAPE_OPS = {
    "transpose": lambda x: x.T * 1.0,
    "dimshuffle_expand": lambda x: x.dimshuffle("x", 1, "x", 0),
    "dimshuffle_drop": lambda x: x.reshape((1, 3, 4)).dimshuffle(1, 2),
    "reshape": lambda x: x.reshape((2, 6)),
    "flatten": lambda x: x.flatten(),
    "specify_shape": lambda x: pt.specify_shape(x, (3, 4)),
    "deep_copy": lambda x: deep_copy_op(x),
    "view": lambda x: view_op(x),
}


def test_casts_between_floats(rng):
    def fn(x):
        return pt.cast(pt.cast(x, "float32"), "float64")

    point = _any(rng, (3, 4))
    verify_grad(fn, [point], rng=rng, eps=1e-2)  # float32 rounding: a large step
    check_rop_lop(fn, [point], rng=rng, eps=1e-2, abs_tol=1e-3, rel_tol=1e-3)


@pytest.mark.parametrize("name", sorted(SHAPE_OPS))
def test_shape_ops(name, rng):
    point = _any(rng, (3, 4))
    verify_grad(SHAPE_OPS[name], [point], rng=rng)
    check_rop_lop(SHAPE_OPS[name], [point], rng=rng)


REDUCTIONS = {
    "sum_all": lambda x: x.sum(),
    "sum_axis0": lambda x: x.sum(axis=0),
    "sum_keepdims": lambda x: x.sum(axis=1, keepdims=True),
    "sum_float32_acc": lambda x: x.astype("float32").sum(axis=1, dtype="float64"),
    "mean": lambda x: x.mean(axis=0),
    "max_axis1": lambda x: x.max(axis=1),
    "min_all": lambda x: x.min(),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
def test_reductions(name, rng):
    point = _apart(rng, (3, 4))
    verify_grad(REDUCTIONS[name], [point], rng=rng, eps=1e-2 if "float32" in name else None)
    if "float32" not in name:
        check_rop_lop(REDUCTIONS[name], [point], rng=rng)


def test_max_at_ties_is_consistent_between_lop_and_rop(rng):
    """At a tie both extremes get the cotangent, and Rop adds both tangents (its transpose)."""
    x, u, v = pt.dvector("x"), pt.dscalar("u"), pt.dvector("v")
    out = x.max()
    vjp = grad(out * u, x)
    jvp = Rop(out, x, v)
    xv, vv = np.array([1.0, 3.0, 3.0, 2.0]), rng.normal(size=4)
    got_vjp, got_jvp = arignote.function([x, u, v], [vjp, jvp])(xv, 1.5, vv)
    np.testing.assert_allclose(got_vjp, [0, 1.5, 1.5, 0])
    assert float(got_jvp) * 1.5 == pytest.approx(float(np.dot(got_vjp, vv)))


def test_integer_reductions_and_sum_to_float():
    i = pt.lmatrix("i")
    g_int = grad(i.sum().astype("float64"), i)  # an integer sum is a step function
    g_float = grad(i.sum(dtype="float64"), i)  # summed as floats: as if i were float
    value = np.arange(6).reshape(2, 3)
    got_int, got_float = arignote.function([i], [g_int, g_float])(value)
    np.testing.assert_array_equal(got_int, np.zeros((2, 3)))
    np.testing.assert_array_equal(got_float, np.ones((2, 3)))


@pytest.mark.parametrize("shapes", [((3, 4), (4, 2)), ((4,), (4, 2)), ((3, 4), (4,)), ((4,), (4,))])
def test_dot(shapes, rng):
    points = [_any(rng, shapes[0]), _any(rng, shapes[1])]
    verify_grad(pt.dot, points, rng=rng)
    check_rop_lop(pt.dot, points, rng=rng)


def test_argmax_has_no_tangent_and_zero_gradient(rng):
    x, v = pt.dmatrix("x"), pt.dmatrix("v")
    g = grad(pt.argmax(x, axis=0).astype("float64").sum(), x)
    np.testing.assert_array_equal(arignote.function([x], g)(rng.normal(size=(3, 4))), 0)
    assert (
        Rop(pt.argmax(x, axis=0), x, v, disconnected_outputs="ignore", return_disconnected="none")
        is None
    )


def test_shape_ops_are_disconnected():
    x = pt.dmatrix("x")
    for size in (pt.shape(x), pt.shape_i(x, 0)):
        assert size.owner.op.connection_pattern(size.owner) == [[False]]
        cost = size.sum().astype("float64")
        assert grad(cost, x, disconnected_inputs="ignore", return_disconnected="none") is None


def test_tensor_scalar_conversions(rng):
    def fn(x):
        s = scalar_from_tensor(x)
        return tensor_from_scalar(s * s)

    point = np.asarray(rng.normal())
    verify_grad(fn, [point], rng=rng)
    check_rop_lop(fn, [point], rng=rng)


def test_make_vector_of_integers_has_zero_gradient():
    a, b = pt.lscalar("a"), pt.lscalar("b")
    vec = pt.make_vector(a, b, dtype="int64")
    g = grad(vec.astype("float64").sum(), [a, b])
    assert [float(v) for v in arignote.function([a, b], g)(2, 3)] == [0.0, 0.0]


def test_make_vector_of_floats(rng):
    def fn(a, b):
        return pt.make_vector(a * b, pt.exp(a), b)

    points = [np.asarray(rng.normal()), np.asarray(rng.normal())]
    verify_grad(fn, points, rng=rng)
    check_rop_lop(fn, points, rng=rng)


def test_make_vector_r_op(rng):
    a, b = pt.dscalar("a"), pt.dscalar("b")
    va, vb = pt.dscalar("va"), pt.dscalar("vb")
    jvp = Rop(pt.make_vector(a * a, b), [a, b], [va, vb])
    got = arignote.function([a, b, va, vb], jvp, on_unused_input="ignore")(2.0, 5.0, 0.5, 3.0)
    np.testing.assert_allclose(got, [2.0, 3.0])


SECOND_ORDER = {
    "elemwise": lambda x: (pt.exp(x) * pt.tanh(x) / (x * x + 1.0)).sum(),
    "dot": lambda x: (pt.dot(x, x.T) ** 2).sum(),
    "reductions": lambda x: (x.max(axis=0) * x.sum(axis=1).sum() + x.mean()).sum(),
    "shapes": lambda x: (x.reshape((4, 3)).T.sum(axis=0) ** 3).sum(),
}


@pytest.mark.parametrize("name", sorted(SECOND_ORDER))
def test_second_order(name, rng):
    cost = SECOND_ORDER[name]
    verify_grad(lambda x: grad(cost(x), x), [_apart(rng, (3, 4)) / 2], rng=rng)
