"""``Rop``: R_op per op, the double-L_op fallback, non-differentiable paths, options."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.autodiff.rop as rop_module
import arignote.scalar as ps
import arignote.tensor as pt
from arignote.gradient import (
    DisconnectedInputError,
    DisconnectedType,
    GradientNotDefinedError,
    Lop,
    NullTypeGradError,
    Rop,
    grad_undefined,
    undefined_grad,
)
from arignote.graph.basic import Apply
from arignote.graph.grad_types import grad_not_implemented
from arignote.graph.op import Op
from arignote.tensor import linalg as la
from arignote.testing import break_op, check_rop_lop


def _eval(outputs, inputs, values):
    return arignote.function(inputs, outputs, on_unused_input="ignore")(*values)


class CubeNoRop(Op):
    """x ** 3 with a gradient but no R_op: Rop must go through the double-L_op trick."""

    __props__ = ()

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] ** 3

    def infer_shape(self, fgraph, node, input_shapes):
        return input_shapes

    def grad(self, inputs, output_grads):
        return [output_grads[0] * 3 * inputs[0] ** 2]


class Opaque(CubeNoRop):
    """x ** 3 without any derivative."""

    __props__ = ()

    def grad(self, inputs, output_grads):
        return Op.grad(self, inputs, output_grads)


class UndefinedRop(CubeNoRop):
    __props__ = ()

    def R_op(self, inputs, eval_points):
        return [grad_undefined(self, 0, inputs[0], "no tangent here")]


GRAPHS = {
    "elemwise": lambda x, y: pt.exp(x) * pt.sin(y) + x / (y * y + 1.0),
    "dot": lambda x, y: pt.tanh(pt.dot(x, y.T)),
    "reductions": lambda x, y: x.sum(axis=0) * y.max(axis=0) + x.min(axis=0),
    "reshape_dimshuffle": lambda x, y: (x.reshape((4, 3)) * y.T.reshape((4, 3))).dimshuffle(1, 0),
    "no_rop_fallback": lambda x, y: CubeNoRop()(x) * y,
}


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_rop_matches_finite_differences_and_lop(name, rng):
    check_rop_lop(GRAPHS[name], [rng.normal(size=(3, 4)), rng.normal(size=(3, 4))], rng=rng)


@pytest.mark.parametrize("use_op", [True, False])
def test_rop_by_op_or_by_double_lop_agree(use_op, rng):
    x, v = pt.dvector("x"), pt.dvector("v")
    y = pt.exp(CubeNoRop()(x)) * x
    jvp = Rop(y, x, v, use_op_rop_implementation=use_op)
    xv, vv = rng.uniform(-1, 1, size=5), rng.normal(size=5)
    expected = (np.exp(xv**3) * (3 * xv**3 + 1)) * vv
    np.testing.assert_allclose(_eval(jvp, [x, v], [xv, vv]), expected)


def test_rop_structure_follows_f():
    x, v = pt.dvector("x"), pt.dvector("v")
    assert not isinstance(Rop(x * 2, x, v), (list, tuple))
    assert isinstance(Rop([x * 2], x, v), list)
    assert isinstance(Rop((x * 2, x * 3), [x], [v]), tuple)


def test_rop_of_a_wrt_variable_is_its_eval_point(rng):
    x, v = pt.dvector("x"), pt.dvector("v")
    vv = rng.normal(size=3)
    np.testing.assert_allclose(_eval(Rop(x, x, v), [x, v], [vv, vv]), vv)


def test_non_differentiable_path_is_disconnected(rng):
    x, v = pt.dvector("x"), pt.dvector("v")
    y = break_op(x) * 2.0
    with pytest.raises(DisconnectedInputError):
        Rop(y, x, v)
    with pytest.warns(UserWarning, match="does not depend"):
        Rop(y, x, v, disconnected_outputs="warn")
    zero = Rop(y, x, v, disconnected_outputs="ignore")
    np.testing.assert_array_equal(_eval(zero, [x, v], [np.ones(3), np.ones(3)]), np.zeros(3))
    assert Rop(y, x, v, disconnected_outputs="ignore", return_disconnected="none") is None
    marker = Rop(y, x, v, disconnected_outputs="ignore", return_disconnected="disconnected")
    assert isinstance(marker.type, DisconnectedType)


def test_integer_valued_output_has_no_tangent():
    x, v = pt.dmatrix("x"), pt.dmatrix("v")
    with pytest.raises(DisconnectedInputError):
        Rop(pt.argmax(x, axis=0), x, v)


def test_op_without_any_derivative_is_named():
    x, v = pt.dvector("x"), pt.dvector("v")
    with pytest.raises(GradientNotDefinedError, match="Opaque"):
        Rop(Opaque()(x), x, v)


def test_undefined_tangent_raises_with_its_reason():
    x, v = pt.dvector("x"), pt.dvector("v")
    with pytest.raises(NullTypeGradError, match="no tangent here"):
        Rop(pt.exp(UndefinedRop()(x)), x, v)


def test_partial_tangents_and_multiple_wrt(rng):
    x, y = pt.dvector("x"), pt.dvector("y")
    vx, vy = pt.dvector("vx"), pt.dvector("vy")
    out = x * y
    jx = Rop(out, x, vx)  # y held fixed
    jxy = Rop(out, [x, y], [vx, vy])
    xv, yv, a, b = (rng.normal(size=3) for _ in range(4))
    got_x, got_xy = _eval([jx, jxy], [x, y, vx, vy], [xv, yv, a, b])
    np.testing.assert_allclose(got_x, a * yv)
    np.testing.assert_allclose(got_xy, a * yv + xv * b)


def test_eval_points_must_match_wrt():
    x = pt.dvector("x")
    with pytest.raises(ValueError, match="eval point"):
        Rop(x * 2, x, pt.dmatrix())
    with pytest.raises(ValueError, match="eval points"):
        Rop(x * 2, [x], [pt.dvector(), pt.dvector()])
    with pytest.raises(ValueError, match="disconnected_outputs"):
        Rop(x * 2, x, pt.dvector(), disconnected_outputs="never")


class ProductNoRop(Op):
    """a * b with a gradient but no R_op, to be applied to one variable twice."""

    __props__ = ()

    def make_node(self, a, b):
        a, b = pt.as_tensor_variable(a), pt.as_tensor_variable(b)
        return Apply(self, [a, b], [a.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] * inputs[1]

    def infer_shape(self, fgraph, node, input_shapes):
        return [input_shapes[0]]

    def grad(self, inputs, output_grads):
        a, b = inputs
        return [output_grads[0] * b, output_grads[0] * a]


def test_fallback_counts_an_input_used_twice_once(rng):
    """x * x through the double-L_op trick: the VJP with respect to x already sums both
    positions, so pairing it with x's tangent once gives 2 x v (not 4 x v)."""
    x, v = pt.dvector("x"), pt.dvector("v")
    jvp = Rop(ProductNoRop()(x, x), x, v)
    xv, vv = rng.normal(size=4), rng.normal(size=4)
    np.testing.assert_allclose(_eval(jvp, [x, v], [xv, vv]), 2 * xv * vv)
    check_rop_lop(lambda a: ProductNoRop()(a, pt.exp(a)) + ProductNoRop()(a, a), [xv], rng=rng)


def test_fallback_with_different_tangents_for_one_variable(rng):
    x, v, w = pt.dvector("x"), pt.dvector("v"), pt.dvector("w")
    node = ProductNoRop()(x, x).owner
    xv, vv, wv = (rng.normal(size=3) for _ in range(3))
    (both,) = rop_module.rop_through_lop(node, [v, w])
    (second,) = rop_module.rop_through_lop(node, [None, w])
    got_both, got_second = _eval([both, second], [x, v, w], [xv, vv, wv])
    np.testing.assert_allclose(got_both, vv * xv + xv * wv)
    np.testing.assert_allclose(got_second, xv * wv)


class SquareAndCubeNoRop(Op):
    """(x ** 2, x ** 3) without R_op, whose gradient through the cube is not written."""

    __props__ = ()

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [x.type(), x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] ** 2
        output_storage[1][0] = inputs[0] ** 3

    def infer_shape(self, fgraph, node, input_shapes):
        return input_shapes * 2

    def L_op(self, inputs, outputs, output_grads):
        (x,), (g_square, g_cube) = inputs, output_grads
        if not isinstance(g_cube.type, DisconnectedType):
            return [grad_not_implemented(self, 0, x, "the cube's derivative is not written")]
        return [g_square * 2 * x]


def test_fallback_keeps_the_tangents_of_outputs_with_a_gradient(rng):
    x, v = pt.dvector("x"), pt.dvector("v")
    square, cube = SquareAndCubeNoRop()(x)
    xv, vv = rng.normal(size=3), rng.normal(size=3)
    np.testing.assert_allclose(_eval(Rop(square, x, v), [x, v], [xv, vv]), 2 * xv * vv)
    with pytest.raises(NullTypeGradError, match="cube's derivative"):
        Rop(cube, x, v)


class RoundWithWrongRop(CubeNoRop):
    """round(x) as an integer, whose R_op (wrongly) returns a tangent for it."""

    __props__ = ()

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [pt.tensor(dtype="int64", shape=x.type.shape)])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = np.round(inputs[0]).astype("int64")

    def R_op(self, inputs, eval_points):
        return [eval_points[0]]


def test_an_integer_valued_output_never_has_a_tangent():
    x, v = pt.dvector("x"), pt.dvector("v")
    out = RoundWithWrongRop()(x)
    assert Rop(out, x, v, disconnected_outputs="ignore", return_disconnected="none") is None
    with pytest.raises(DisconnectedInputError):
        Rop(out.astype("float64") * 2.0, x, v)


def _always_the_fallback(node, eval_points):
    tangents = rop_module.rop_through_lop(node, eval_points)
    return [None] * len(node.outputs) if tangents is None else list(tangents)


# Graphs whose every op goes through the double-L_op trick instead of its R_op: the trick
# checks that each op's L_op is linear and differentiable in its cotangent.
FALLBACK_GRAPHS = {
    "elemwise_repeated": lambda x, y: x * x * y + pt.exp(x) / (y * y + 1.0),
    "dot_of_itself": lambda x, y: pt.dot(x, x.T) + pt.dot(y, x.T),
    "matrix_power": lambda x, y: la.matrix_power(pt.dot(x, y.T), 3),
    "reductions": lambda x, y: x.prod(axis=0) * y.max(axis=0) + x.mean(),
    "indexing_join": lambda x, y: pt.concatenate([x[1:], y[:, ::-1]], axis=0) ** 2,
    "cumsum_reshape": lambda x, y: pt.cumsum(x * y, axis=1).reshape((4, 3)).T,
    "solve": lambda x, y: la.solve(pt.dot(x, x.T) + 3.0 * pt.eye(3), y),
    "lstsq_solution": lambda x, y: la.lstsq(x.T, y.T)[0],
    "eigh": lambda x, y: la.eigh(pt.dot(x, x.T) + pt.dot(y, y.T))[0],
}


@pytest.mark.parametrize("name", sorted(FALLBACK_GRAPHS))
def test_the_fallback_through_real_ops(name, rng, monkeypatch):
    monkeypatch.setattr(rop_module, "_call_r_op", _always_the_fallback)
    points = [rng.uniform(0.5, 1.5, size=(3, 4)), rng.uniform(0.5, 1.5, size=(3, 4))]
    check_rop_lop(FALLBACK_GRAPHS[name], points, rng=rng)


def _complex(rng, shape):
    return rng.normal(size=shape) + 1j * rng.normal(size=shape)


# f(z, w, x) with z, w complex and x real: holomorphic, non-holomorphic, mixed, real-valued.
COMPLEX_GRAPHS = {
    "holomorphic": (
        lambda z, w, x: pt.exp(z) * pt.sin(w) + z**3 / w,
        lambda z, w, x: np.exp(z) * np.sin(w) + z**3 / w,
    ),
    "conj_and_parts": (
        lambda z, w, x: pt.conj(z) * w + pt.real(z) * pt.imag(w),
        lambda z, w, x: np.conj(z) * w + z.real * w.imag,
    ),
    "real_valued": (
        lambda z, w, x: pt.abs(z) * x + pt.angle(w),
        lambda z, w, x: np.abs(z) * x + np.angle(w),
    ),
    "real_times_complex": (
        lambda z, w, x: x * z + pt.complex(x, x * x) * w,
        lambda z, w, x: x * z + (x + 1j * x * x) * w,
    ),
    "dot": (lambda z, w, x: pt.dot(z, w.T) * 2.0, lambda z, w, x: (z @ w.T) * 2.0),
}


@pytest.mark.parametrize("use_op", [True, False])
@pytest.mark.parametrize("name", sorted(COMPLEX_GRAPHS))
def test_rop_with_complex_numbers(name, use_op, rng):
    """J v against central differences, and Re<u, J v> == <Lop(u), v> (complex numbers as
    pairs of reals; gradients are dC/dRe + i dC/dIm)."""
    build, reference = COMPLEX_GRAPHS[name]
    z, w, x = pt.zmatrix("z"), pt.zmatrix("w"), pt.dmatrix("x")
    vz, vw, vx = pt.zmatrix("vz"), pt.zmatrix("vw"), pt.dmatrix("vx")
    out = build(z, w, x)
    u = out.type()
    jvp = Rop(out, [z, w, x], [vz, vw, vx], use_op_rop_implementation=use_op)
    vjp = Lop(out, [z, w, x], u, disconnected_inputs="ignore")
    values = [_complex(rng, (2, 3)), _complex(rng, (2, 3)), rng.normal(size=(2, 3))]
    tangents = [_complex(rng, (2, 3)), _complex(rng, (2, 3)), rng.normal(size=(2, 3))]
    eps = 1e-6
    above = reference(*[a + eps * t for a, t in zip(values, tangents)])
    below = reference(*[a - eps * t for a, t in zip(values, tangents)])
    u_value = rng.normal(size=np.shape(above)).astype(out.type.dtype)
    if out.type.dtype.startswith("complex"):
        u_value = u_value + 1j * rng.normal(size=np.shape(above))
    fn = arignote.function([z, w, x, vz, vw, vx, u], [jvp, *vjp], on_unused_input="ignore")
    got, *cotangents = fn(*values, *tangents, u_value)
    np.testing.assert_allclose(got, (above - below) / (2 * eps), rtol=1e-6, atol=1e-6)
    left = np.real(np.vdot(u_value, got))
    right = sum(np.real(np.vdot(c, t)) for c, t in zip(cotangents, tangents))
    assert left == pytest.approx(right, rel=1e-9, abs=1e-9)


def test_rop_of_complex_scalar_ops():
    z, vz = ps.scalar("z", dtype="complex128"), ps.scalar("vz", dtype="complex128")
    jvp = Rop(ps.exp(z) * ps.conj(z), z, vz)
    zv, vv = 0.3 + 0.2j, 1.0 - 0.5j
    expected = np.exp(zv) * np.conj(zv) * vv + np.exp(zv) * np.conj(vv)
    assert arignote.function([z, vz], jvp)(zv, vv) == pytest.approx(expected)


@pytest.mark.parametrize("use_op", [True, False])
def test_undefined_tangent_does_not_reach_a_shape(use_op, rng):
    """Only the shape of the undefined-gradient expression is used: as in grad, its elements'
    (undefined) derivative plays no part."""
    x, v = pt.dvector("x"), pt.dvector("v")
    y = pt.shape(undefined_grad(x))[0].astype("float64") * x
    jvp = Rop(y, x, v, use_op_rop_implementation=use_op)
    vv = rng.normal(size=3)
    np.testing.assert_allclose(_eval(jvp, [x, v], [np.ones(3), vv]), 3 * vv)
    with pytest.raises(NullTypeGradError):
        Rop(undefined_grad(x) * x, x, v, use_op_rop_implementation=use_op)


@pytest.mark.parametrize("use_op", [True, False])
def test_wrt_entries_are_independent(use_op, rng):
    """With h = exp(x) and x both in wrt, h moves only along its own tangent."""
    x, vx, vh = pt.dvector("x"), pt.dvector("vx"), pt.dvector("vh")
    h = pt.exp(x)
    jvp = Rop(h * x, [x, h], [vx, vh], use_op_rop_implementation=use_op)
    xv, a, b = (rng.normal(size=3) for _ in range(3))
    np.testing.assert_allclose(_eval(jvp, [x, vx, vh], [xv, a, b]), np.exp(xv) * a + xv * b)
