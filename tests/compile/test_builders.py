"""``OpFromGraph``: values, shared inputs, overrides, shapes, inlining, nesting, pickling."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.compile.builders import OpFromGraph
from arignote.compile.debugmode import DebugMode
from arignote.graph.fg import MissingInputError
from arignote.graph.grad_types import disconnected
from arignote.graph.null_type import NullType
from arignote.testing import verify_grad


def _inner_functions(f):
    runner = getattr(f.runner, "vm", f.runner)  # (DebugMode wraps the VM's runner)
    kernels = [step.kernel for step in runner.steps]
    return [k.inner_function for k in kernels if hasattr(k, "inner_function")]


def _ofg_nodes(f):
    return [n for n in f.maker.fgraph.apply_nodes if isinstance(n.op, OpFromGraph)]


# -- the documented examples ----------------------------------------------------------------


def test_basic_example():
    x, y, z = pt.dscalars("xyz")
    e = x + y * z
    op = OpFromGraph([x, y, z], [e])
    e2 = op(x, y, z) + op(z, y, x)
    fn = arignote.function([x, y, z], [e2])
    assert float(fn(1.0, 2.0, 3.0)[0]) == (1 + 2 * 3) + (3 + 2 * 1)


def test_shared_variables_become_implicit_inputs():
    x, y, z = pt.dscalars("xyz")
    s = arignote.shared(np.random.default_rng(0).random((2, 2)))
    op = OpFromGraph([x, y, z], [x + y * z + s])
    assert op.shared_inputs == [s]
    e2 = op(x, y, z) + op(z, y, x)
    fn = arignote.function([x, y, z], [e2])
    np.testing.assert_allclose(fn(1.0, 2.0, 3.0)[0], 12.0 + 2 * s.get_value())
    s.set_value(np.zeros((2, 2)))
    np.testing.assert_allclose(fn(1.0, 2.0, 3.0)[0], np.full((2, 2), 12.0))
    with pytest.raises(ValueError, match="strict"):
        OpFromGraph([x, y, z], [x + s], strict=True)


def test_per_input_lop_override_example():
    x, y, z = pt.dscalars("xyz")
    e = x + y * z

    def rescale_dy(inps, outputs, out_grads):
        x, y, z = inps
        (g,) = out_grads
        return z * 2

    op = OpFromGraph([x, y, z], [e], lop_overrides=[None, rescale_dy, None])
    dx, dy, dz = arignote.grad(op(x, y, z), [x, y, z])
    fn = arignote.function([x, y, z], [dx, dy, dz])
    np.testing.assert_allclose(fn(2.0, 3.0, 4.0), [1.0, 8.0, 3.0])


# -- gradients and tangents ---------------------------------------------------------------------


def test_gradient_from_the_inner_graph(rng):
    x, w = pt.dmatrix("x"), pt.dvector("w")
    op = OpFromGraph([x, w], [pt.tanh(pt.dot(x, w)), (x**2).sum(axis=1)])

    def fun(x, w):
        a, b = op(x, w)
        return a * 2 + b

    verify_grad(fun, [rng.normal(size=(3, 4)), rng.normal(size=4)], rng=rng)


def test_gradient_of_one_output_leaves_the_other_disconnected():
    x, y = pt.dvectors("x", "y")
    op = OpFromGraph([x, y], [x * 2, y * 3])
    first, _ = op(x, y)
    gx, gy = arignote.grad(first.sum(), [x, y], disconnected_inputs="ignore")
    values = {x: np.ones(2), y: np.ones(2)}
    np.testing.assert_allclose(gx.eval(values), [2.0, 2.0])
    np.testing.assert_allclose(gy.eval({y: np.ones(2)}), [0.0, 0.0])


def test_callable_lop_override_receives_inputs_outputs_and_gradients():
    x = pt.dvector("x")

    def lop(inputs, outputs, grads):
        return [grads[0] * outputs[0]]  # d exp(x) = exp(x) dx, written with the output

    op = OpFromGraph([x], [pt.exp(x)], lop_overrides=lop)
    g = arignote.grad(op(x).sum(), x)
    xv = np.array([0.0, 1.0])
    np.testing.assert_allclose(g.eval({x: xv}), np.exp(xv))


def test_opfromgraph_lop_override():
    x, y, g = pt.dvectors("x", "y", "g")
    lop = OpFromGraph([x, y, g], [g * 10])  # inputs + outputs + output gradients
    op = OpFromGraph([x], [x * 2], lop_overrides=lop)
    gx = arignote.grad(op(x).sum(), x)
    np.testing.assert_allclose(gx.eval({x: np.ones(3)}), np.full(3, 10.0))


def test_override_lists_take_disconnected_and_null_entries():
    x, y = pt.dvectors("x", "y")
    op = OpFromGraph(
        [x, y], [x * y], lop_overrides=[disconnected(), NullType("no gradient for y")()]
    )
    out = op(x, y).sum()
    gx = arignote.grad(out, x, disconnected_inputs="ignore")
    np.testing.assert_allclose(gx.eval({x: np.ones(2)}), [0.0, 0.0])
    with pytest.raises(Exception, match="no gradient for y"):
        arignote.grad(out, y)
    with pytest.raises(ValueError, match="DisconnectedType or NullType"):
        arignote.grad(OpFromGraph([x, y], [x * y], lop_overrides=[None, x])(x, y).sum(), x)


def test_r_op_from_the_inner_graph_and_from_overrides():
    x, v = pt.dvectors("x", "v")
    xv, vv = np.array([0.3, -0.4]), np.array([1.0, 2.0])
    plain = OpFromGraph([x], [pt.sin(x)])
    jvp = arignote.Rop(plain(x), x, v)
    np.testing.assert_allclose(jvp.eval({x: xv, v: vv}), np.cos(xv) * vv)
    doubled = OpFromGraph([x], [pt.sin(x)], rop_overrides=lambda inps, evs: [evs[0] * 2])
    np.testing.assert_allclose(arignote.Rop(doubled(x), x, v).eval({x: xv, v: vv}), 2 * vv)
    listed = OpFromGraph([x], [pt.sin(x), x * 3], rop_overrides=[None, lambda i, e: e[0]])
    first, second = arignote.Rop(listed(x), x, v)
    np.testing.assert_allclose(first.eval({x: xv, v: vv}), np.cos(xv) * vv)
    np.testing.assert_allclose(second.eval({x: xv, v: vv}), vv)
    e = pt.dvector("e")
    by_op = OpFromGraph([x], [pt.sin(x)], rop_overrides=OpFromGraph([x, e], [e * 5]))
    np.testing.assert_allclose(arignote.Rop(by_op(x), x, v).eval({x: xv, v: vv}), 5 * vv)


def test_second_derivative_through_nested_ops(rng):
    x = pt.dvector("x")
    inner = OpFromGraph([x], [pt.sin(x) * x])
    outer = OpFromGraph([x], [inner(x) ** 2])

    def fun(x):
        return arignote.grad(outer(x).sum(), x)

    verify_grad(fun, [rng.normal(size=3)], rng=rng)


def test_connection_pattern_is_computed_or_given():
    x, y = pt.dvectors("x", "y")
    op = OpFromGraph([x, y], [x * 2, x + y])
    node = op(x, y)[0].owner
    assert op.connection_pattern(node) == [[True, True], [False, True]]
    given = OpFromGraph([x, y], [x * 2], connection_pattern=[[True], [False]])
    assert given.connection_pattern(given(x, y).owner) == [[True], [False]]


# -- shapes, inlining, nesting -----------------------------------------------------------------


def test_shape_is_inferred_from_the_inner_graph():
    m = pt.dmatrix("m")
    op = OpFromGraph([m], [pt.exp(m).sum(axis=0), m.T])
    a, b = op(m)
    f = arignote.function([m], [a.shape, b.shape])
    assert _ofg_nodes(f) == []
    got = f(np.ones((3, 4)))
    assert tuple(got[0]) == (4,) and tuple(got[1]) == (4, 3)


def test_inline_replaces_the_op_by_its_graph():
    x, y = pt.dvectors("x", "y")
    op = OpFromGraph([x, y], [x * y + 1], inline=True)
    f = arignote.function([x, y], op(x, y) * 2)
    assert _ofg_nodes(f) == []
    np.testing.assert_allclose(f(np.array([1.0, 2.0]), np.array([3.0, 4.0])), [8.0, 18.0])
    kept = arignote.function([x, y], OpFromGraph([x, y], [x * y + 1])(x, y) * 2)
    assert len(_ofg_nodes(kept)) == 1


def test_nested_ops_compute_and_print_their_inner_graphs():
    x, y = pt.dvectors("x", "y")
    inner = OpFromGraph([x], [pt.exp(x) * 2], name="double_exp")
    outer = OpFromGraph([x, y], [inner(x) + y])
    f = arignote.function([x, y], outer(y, x))
    np.testing.assert_allclose(f(np.zeros(2), np.ones(2)), 2 * np.e + np.zeros(2))
    text = arignote.dprint(outer(y, x), file="str")
    assert "Inner graphs:" in text
    assert "double_exp{inline=False}" in text and " >Elemwise{add" in text


def test_equal_graphs_give_equal_ops_and_are_merged():
    x, y = pt.dvectors("x", "y")
    a = OpFromGraph([x], [pt.exp(x) + 1])
    b = OpFromGraph([y], [pt.exp(y) + 1])
    c = OpFromGraph([y], [pt.exp(y) + 2])
    assert a == b and hash(a) == hash(b) and a != c
    f = arignote.function([x], a(x) + b(x))
    assert len(_ofg_nodes(f)) == 1


# -- compilation -----------------------------------------------------------------------------------


def test_inner_function_is_compiled_once_per_outer_function_with_its_mode():
    x = pt.dvector("x")
    op = OpFromGraph([x], [pt.exp(x)])
    f = arignote.function([x], op(x))
    (inner,) = _inner_functions(f)
    f(np.ones(2))
    f(np.ones(2))
    assert _inner_functions(f) == [inner]
    g = arignote.function([x], op(x))
    assert _inner_functions(g)[0] is not inner
    debug = arignote.function([x], op(x) * 2, mode=DebugMode())
    (checked,) = _inner_functions(debug)
    assert isinstance(checked.maker.mode, DebugMode)
    np.testing.assert_allclose(debug(np.zeros(2)), [2.0, 2.0])


def test_pickling_the_op_and_a_compiled_function():
    x = pt.dvector("x")
    op = OpFromGraph([x], [pt.exp(x) * 3], name="thrice_exp")
    restored = pickle.loads(pickle.dumps(op))
    assert restored == op and str(restored) == "thrice_exp{inline=False}"
    f = arignote.function([x], op(x) + 1)
    g = pickle.loads(pickle.dumps(f))
    np.testing.assert_allclose(g(np.zeros(2)), [4.0, 4.0])


def test_eval_without_compiling_uses_perform():
    x = pt.dvector("x")
    op = OpFromGraph([x], [pt.exp(x) * 3])
    node = op(x).owner
    cells = [[None]]
    op.perform(node, [np.zeros(2)], cells)
    np.testing.assert_allclose(cells[0][0], [3.0, 3.0])


# -- errors --------------------------------------------------------------------------------------


def test_bad_arguments_are_refused():
    x, y = pt.dvectors("x", "y")
    with pytest.raises(TypeError, match="lists"):
        OpFromGraph(x, [x * 2])
    with pytest.raises(ValueError, match="more than once"):
        OpFromGraph([x, x], [x * 2])
    with pytest.raises(MissingInputError, match="not among its inputs"):
        OpFromGraph([x], [x + y])
    op = OpFromGraph([x], [x * 2])
    with pytest.raises(ValueError, match="expects 1 inputs"):
        op(x, y)
    with pytest.raises(TypeError):
        op(pt.dmatrix("m"))


def test_results_of_earlier_calls_are_not_overwritten():
    x = pt.dvector("x")
    op = OpFromGraph([x], [pt.exp(x) * 2])
    f = arignote.function([x], [op(x), op(x) + 1])
    first = f(np.zeros(3))
    f(np.ones(3))
    np.testing.assert_allclose(first[0], [2.0, 2.0, 2.0])
    np.testing.assert_allclose(first[1], [3.0, 3.0, 3.0])
