"""PyTensor 3's spellings beside the Aesara ones: pullback/pushforward (functions and Op
methods), wrap_py, rng()/shared_rng() and draw methods, graph.rewrite_graph,
hessian_vector_product."""

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
import arignote.tensor.random as ptr
from arignote.compile.ops import wrap_py
from arignote.gradient import (
    DisconnectedType,
    Lop,
    Rop,
    disconnected_type,
    grad,
    hessian,
    hessian_vector_product,
    pullback,
    pushforward,
    pushforward_through_pullback,
)
from arignote.graph import rewrite_graph
from arignote.graph.basic import Apply
from arignote.graph.op import Op


class CubeNew(Op):
    """x**3 written with PyTensor 3's method names only."""

    __props__ = ()

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] ** 3

    def pullback(self, inputs, outputs, cotangents):
        (x,), (g,) = inputs, cotangents
        return [3 * x**2 * g]

    def pushforward(self, inputs, outputs, tangents):
        (x,), (t,) = inputs, tangents
        if isinstance(t.type, DisconnectedType):
            return [disconnected_type()]
        return [3 * x**2 * t]


class CubeOld(CubeNew):
    """The same with the Aesara names (L_op/R_op) only."""

    pullback = Op.pullback
    pushforward = Op.pushforward

    def L_op(self, inputs, outputs, output_grads):
        return [3 * inputs[0] ** 2 * output_grads[0]]

    def R_op(self, inputs, eval_points):
        return [None if eval_points[0] is None else 3 * inputs[0] ** 2 * eval_points[0]]


@pytest.mark.parametrize("op", [CubeNew(), CubeOld()], ids=["pullback", "L_op"])
def test_op_works_through_both_apis(op, rng):
    x, v = pt.dvector("x"), pt.dvector("v")
    xv, vv = rng.normal(size=4), rng.normal(size=4)
    want = 3 * xv**2 * vv
    y = op(x)
    results = [
        grad((y * v).sum(), x),
        Lop(y, x, v),
        pullback(y, x, v),
        Rop(y, x, v),
        pushforward(y, x, v),
        pushforward(y, x, v, use_op_pushforward=True),
        op.L_op([x], [y], [v])[0],
        op.pullback([x], [y], [v])[0],
        op.R_op([x], [v])[0],
        op.pushforward([x], [y], [v])[0],
    ]
    f = arignote.function([x, v], results)
    for got in f(xv, vv):
        np.testing.assert_allclose(got, want)


def test_pushforward_disconnected_tangent_is_none_for_r_op():
    x = pt.dvector("x")
    assert CubeNew().R_op([x], [None]) == [None]
    (out,) = CubeOld().pushforward([x], [x], [disconnected_type()])
    assert isinstance(out.type, DisconnectedType)


def test_op_without_pushforward_still_says_so():
    class NoRop(CubeNew):
        pushforward = Op.pushforward

    with pytest.raises(NotImplementedError):
        NoRop().R_op([pt.dvector()], [pt.dvector()])


def test_pullback_return_disconnected():
    x, y = pt.dvector("x"), pt.dvector("y")
    out = pullback(x * 2, [x, y], x, disconnected_inputs="ignore", return_disconnected="none")
    assert out[1] is None
    out = pullback(x * 2, [x, y], x, disconnected_inputs="ignore")
    np.testing.assert_array_equal(out[1].eval({y: [1.0, 2.0]}), [0.0, 0.0])


def test_pushforward_through_pullback_matches_jvp(rng):
    x, v = pt.dvector("x"), pt.dvector("v")
    xv, vv = rng.normal(size=3), rng.normal(size=3)
    (out,) = pushforward_through_pullback([pt.sin(x)], [x], [v])
    np.testing.assert_allclose(out.eval({x: xv, v: vv}), np.cos(xv) * vv)


def test_hessian_vector_product_matches_hessian(rng):
    x, p = pt.dvector("x"), pt.dvector("p")
    cost = (pt.exp(x) * x[::-1]).sum() + (x**3).prod()
    xv, pv = rng.normal(size=3), rng.normal(size=3)
    f = arignote.function([x, p], [hessian_vector_product(cost, x, p), hessian(cost, x)])
    hvp, h = f(xv, pv)
    np.testing.assert_allclose(hvp, h @ pv)


def test_hessian_vector_product_lists(rng):
    x, y, p, q = pt.dvectors("x", "y", "p", "q")
    cost = (x * y**2).sum()
    hx, hy = hessian_vector_product(cost, [x, y], [p, q])
    xv, yv, pv, qv = rng.normal(size=(4, 2))
    # H = [[0, diag(2y)], [diag(2y), diag(2x)]]
    np.testing.assert_allclose(hx.eval({x: xv, y: yv, p: pv, q: qv}), 2 * yv * qv)
    np.testing.assert_allclose(hy.eval({x: xv, y: yv, p: pv, q: qv}), 2 * yv * pv + 2 * xv * qv)


def test_wrap_py_is_as_op():
    @wrap_py(itypes=[pt.dmatrix, pt.dmatrix], otypes=[pt.dmatrix])
    def numpy_dot(a, b):
        return np.dot(a, b)

    a, b = pt.dmatrices("a", "b")
    av, bv = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4)
    np.testing.assert_allclose(arignote.function([a, b], numpy_dot(a, b))(av, bv), av @ bv)
    assert arignote.wrap_py is wrap_py


def test_rng_input_draws_numpy_exactly():
    rng = ptr.rng("rng")
    next_rng, x = rng.normal(0, 1, size=(2, 3))
    f = arignote.function([arignote.In(rng, mutable=True)], [next_rng, x])
    reference = np.random.default_rng(153)
    state = np.random.default_rng(153)
    for _ in range(2):
        state, draw = f(state)
        np.testing.assert_array_equal(draw, reference.normal(0, 1, size=(2, 3)))


@pytest.mark.parametrize(
    "method, args, kwargs",
    [
        ("uniform", (1.0, 2.0), {"size": 4}),
        ("integers", (0, 10), {"size": 5}),
        ("poisson", (3.0,), {"size": 3}),
        ("multivariate_normal", (np.zeros(2), np.eye(2)), {"size": 3}),
        ("choice", (5,), {"size": 2}),
    ],
)
def test_draw_methods_match_generator_methods(method, args, kwargs):
    rng = ptr.rng()
    next_rng, x = getattr(rng, method)(*args, **kwargs)
    f = arignote.function([rng], [next_rng, x])
    state, draw = f(np.random.default_rng(7))
    want = getattr(np.random.default_rng(7), method)(*args, **kwargs)
    np.testing.assert_array_equal(draw, want)
    # the next state continues NumPy's sequence
    reference = np.random.default_rng(7)
    getattr(reference, method)(*args, **kwargs)
    assert state.bit_generator.state == reference.bit_generator.state


def test_shared_rng_with_explicit_updates():
    rng = ptr.shared_rng(np.random.default_rng(153), name="rng")
    next_rng, x = rng.normal()
    f = arignote.function([], x, updates=[(rng, next_rng)])
    reference = np.random.default_rng(153)
    assert [f(), f()] == [reference.normal(), reference.normal()]
    rng.set_value(np.random.default_rng(153))
    assert f() == np.random.default_rng(153).normal()


def test_shared_rng_from_seed_and_errors():
    rng = ptr.shared_rng(seed=3)
    assert rng.get_value().normal() == np.random.default_rng(3).normal()
    with pytest.raises(ValueError):
        ptr.shared_rng()
    with pytest.raises(ValueError):
        ptr.shared_rng(np.random.default_rng(1), seed=1)
    with pytest.raises(TypeError):
        ptr.shared_rng(np.random.RandomState(1))


def test_draw_functions_take_rng_and_return_next_rng():
    rng = ptr.rng("r")
    next_rng, x = ptr.normal(2.0, 3.0, size=(2,), rng=rng, return_next_rng=True)
    assert next_rng.type == rng.type
    draw = arignote.function([rng], x)(np.random.default_rng(1))
    np.testing.assert_array_equal(draw, np.random.default_rng(1).normal(2.0, 3.0, size=2))


def test_rewrite_graph_in_graph_namespace():
    x = pt.dvector("x")
    y = rewrite_graph((x * 1).sum(), include=("canonicalize",))
    assert not any(
        isinstance(n.op, pt.Elemwise) for n in arignote.graph.basic.io_toposort([x], [y])
    )


def test_values_eq_approx_family():
    from arignote.tensor import type as tt

    a = np.array([1.0, np.nan, np.inf, 2.0])
    assert tt.values_eq_approx(a, a + 1e-9)
    assert not tt.values_eq_approx(a, a + 1e-3)
    assert not tt.values_eq_approx(a, a.astype("float32"))  # dtypes differ
    b = np.array([1.0, 5.0, np.inf, 2.0])
    assert not tt.values_eq_approx(a, b) and tt.values_eq_approx_remove_nan(a, b)
    c = np.array([1.0, np.nan, 3.0, 2.0])
    assert not tt.values_eq_approx(a, c) and tt.values_eq_approx_remove_inf(a, c)
    assert tt.values_eq_approx_remove_inf_nan(a, np.array([1.0, 0.0, 0.0, 2.0]))
    assert tt.values_eq_approx(np.array([1, 2]), np.array([1, 2]))
    assert not tt.values_eq_approx(np.array([1, 2]), np.array([1, 3]))
    assert tt.values_eq_approx_always_true(a, np.zeros(7))


def test_pytensor_paths_serve_the_same_objects_without_shadowing_builtins():
    import builtins

    import arignote.graph.utils as gu
    import arignote.tensor.math as tm
    from arignote.graph.features import InconsistencyError
    from arignote.graph.fg import MissingInputError

    assert gu.InconsistencyError is InconsistencyError
    assert gu.MissingInputError is MissingInputError
    from arignote.tensor.math import any as pt_any
    from arignote.tensor.math import sum as pt_sum

    assert pt_sum is pt.sum and pt_any is pt.any
    assert "sum" not in vars(tm) and "any" not in vars(tm)  # tensor.math still sees builtins
    assert builtins.sum([1, 2]) == 3
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        tm.not_a_name  # noqa: B018
