"""``arignote.ifelse``: lazy evaluation, types, derivatives, shapes and the module's forms."""

from __future__ import annotations

import importlib
import pickle
import time

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.compile.debugmode import DebugMode
from arignote.graph.basic import Apply, io_toposort
from arignote.graph.fg import FunctionGraph
from arignote.graph.lazy import ALWAYS, lazy_regions
from arignote.graph.op import Op
from arignote.ifelse import IfElse, ifelse
from arignote.testing import verify_grad

MODES = ["FAST_RUN", "FAST_COMPILE", arignote.Mode(linker="vm", optimizer=None)]


class Counted(Op):
    """``x + 0`` that counts its ``perform`` calls (per ``label``): an observable node."""

    __props__ = ("label",)
    calls: dict[str, int] = {}

    def __init__(self, label: str) -> None:
        self.label = label

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        Counted.calls[self.label] = Counted.calls.get(self.label, 0) + 1
        output_storage[0][0] = inputs[0].copy()

    def infer_shape(self, fgraph, node, input_shapes):
        return input_shapes

    def grad(self, inputs, output_grads):
        return output_grads


@pytest.fixture(autouse=True)
def _reset_counts():
    Counted.calls.clear()


# -- the conditions tutorial ----------------------------------------------------------------------


def test_conditions_tutorial_ifelse_vs_switch():
    """The PyTensor/Theano "Conditions" example, with the import lines changed (and
    ``time.perf_counter`` for Python 2's ``time.clock``, smaller matrices)."""
    import numpy

    import arignote as theano
    from arignote import tensor as T
    from arignote.ifelse import ifelse

    a, b = T.scalars("a", "b")
    x, y = T.matrices("x", "y")

    z_switch = T.switch(T.lt(a, b), T.mean(x), T.mean(y))
    z_lazy = ifelse(T.lt(a, b), T.mean(x), T.mean(y))

    f_switch = theano.function([a, b, x, y], z_switch, mode=theano.Mode(linker="vm"))
    f_lazyifelse = theano.function([a, b, x, y], z_lazy, mode=theano.Mode(linker="vm"))

    val1 = 0.0
    val2 = 1.0
    big_mat1 = numpy.ones((1000, 100))
    big_mat2 = numpy.ones((1000, 100))

    n_times = 10

    tic = time.perf_counter()
    for _ in range(n_times):
        f_switch(val1, val2, big_mat1, big_mat2)
    print("time spent evaluating both values %f sec" % (time.perf_counter() - tic))

    tic = time.perf_counter()
    for _ in range(n_times):
        f_lazyifelse(val1, val2, big_mat1, big_mat2)
    print("time spent evaluating one value %f sec" % (time.perf_counter() - tic))

    # The laziness check: switch computes both means, ifelse only the one it returns.
    means = [n for n in f_switch.maker.fgraph.toposort() if "Sum" in str(n.op)]
    assert len(means) == 2
    # A profiled copy of the lazy function counts the nodes that ran in one call.
    profiled = theano.function([a, b, x, y], z_lazy, mode=theano.Mode(linker="vm"), profile=True)
    profiled(val1, val2, big_mat1, big_mat2 * 3)
    ran = [node for node, calls in profiled.profile.apply_callcount.items() if calls]
    assert sum("Sum" in str(n.op) for n in ran) == 1
    assert float(f_lazyifelse(val1, val2, big_mat1, big_mat2 * 3)) == 1.0
    assert float(f_lazyifelse(val2, val1, big_mat1, big_mat2 * 3)) == 3.0
    assert float(f_switch(val2, val1, big_mat1, big_mat2 * 3)) == 3.0


# -- laziness ----------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES, ids=["FAST_RUN", "FAST_COMPILE", "no_rewrites"])
def test_the_branch_not_taken_never_runs(mode):
    c = pt.lscalar("c")
    x, y = pt.dvectors("x", "y")
    out = ifelse(pt.gt(c, 0), pt.exp(Counted("then")(x)), pt.sqrt(Counted("else")(y)) * 2)
    f = arignote.function([c, x, y], out, mode=mode)
    xv, yv = np.array([0.5, 1.0, 2.0]), np.array([4.0, 9.0])
    np.testing.assert_allclose(f(1, xv, yv), np.exp(xv))
    assert Counted.calls == {"then": 1}
    np.testing.assert_allclose(f(0, xv, yv), 2 * np.sqrt(yv))
    assert Counted.calls == {"then": 1, "else": 1}
    f(5, xv, yv)
    f(7, xv, yv)
    assert Counted.calls == {"then": 3, "else": 1}


def test_nested_ifelse_runs_only_the_chosen_leaf():
    c1, c2 = pt.bscalars("c1", "c2")
    x = pt.dvector("x")
    inner = ifelse(c2, Counted("a")(x), Counted("b")(x) + 1)
    out = ifelse(c1, inner, Counted("c")(x) * 3)
    f = arignote.function([c1, c2, x], out)
    xv = np.arange(3.0)
    np.testing.assert_allclose(f(1, 0, xv), xv + 1)
    assert Counted.calls == {"b": 1}
    np.testing.assert_allclose(f(0, 1, xv), 3 * xv)
    assert Counted.calls == {"b": 1, "c": 1}


def test_a_value_used_by_both_the_condition_side_and_a_branch_is_computed_once():
    x = pt.dvector("x")
    shared_work = Counted("s")(x)
    out = ifelse(pt.gt(shared_work.sum(), 0), shared_work * 2, -shared_work)
    f = arignote.function([x], out)
    np.testing.assert_allclose(f(np.array([1.0, 2.0])), [2.0, 4.0])
    assert Counted.calls == {"s": 1}


def test_the_untaken_branch_may_hold_invalid_values_even_in_debug_mode():
    a = pt.dscalar("a")
    out = ifelse(pt.gt(a, 0), pt.log(a), pt.constant(0.0))
    f = arignote.function([a], out, mode=DebugMode())
    assert float(f(-1.0)) == 0.0
    assert float(f(np.e)) == pytest.approx(1.0)


def test_several_outputs_are_chosen_together():
    c = pt.bscalar("c")
    x, y = pt.dvector("x"), pt.dmatrix("y")
    outs = ifelse(c, [x, y], [x * 2, y.T])
    assert isinstance(outs, list) and len(outs) == 2
    tup = ifelse(c, (x, y), (x * 2, y.T))
    assert isinstance(tup, tuple)
    f = arignote.function([c, x, y], outs)
    xv, yv = np.arange(3.0), np.arange(4.0).reshape(2, 2)
    got = f(0, xv, yv)
    np.testing.assert_allclose(got[0], 2 * xv)
    np.testing.assert_allclose(got[1], yv.T)
    got = f(1, xv, yv)
    np.testing.assert_allclose(got[1], yv)


def test_outputs_do_not_alias_the_branch_values():
    c = pt.bscalar("c")
    x = pt.dvector("x")
    f = arignote.function([c, x], ifelse(c, x, x * 2))
    xv = np.arange(3.0)
    out = f(1, xv)
    out[0] = 99.0
    assert xv[0] == 0.0


# -- types and errors -----------------------------------------------------------------------------


def test_output_types_keep_the_static_lengths_both_branches_agree_on():
    a = pt.tensor("a", dtype="float64", shape=(3, 4))
    b = pt.tensor("b", dtype="float64", shape=(3, None))
    out = ifelse(pt.bscalar("c"), a, b)
    assert out.type.shape == (3, None)
    assert ifelse(pt.bscalar("c"), a, a).type.shape == (3, 4)


def test_python_numbers_take_the_dtype_of_the_other_branch():
    x = pt.fscalar("x")
    out = ifelse(pt.bscalar("c"), x, 0.0)
    assert out.type.dtype == "float32"


@pytest.mark.parametrize(
    ("then", "other", "error", "match"),
    [
        (pt.dvector(), pt.fvector(), TypeError, "same dtype"),
        (pt.dvector(), pt.dmatrix(), TypeError, "number of dimensions"),
        ([pt.dvector()], [pt.dvector(), pt.dvector()], ValueError, "must match"),
    ],
)
def test_incompatible_branches_are_refused(then, other, error, match):
    with pytest.raises(error, match=match):
        ifelse(pt.bscalar("c"), then, other)


def test_the_condition_must_be_a_scalar():
    with pytest.raises(TypeError, match="scalar"):
        ifelse(pt.bvector("c"), pt.dvector(), pt.dvector())


def test_op_props_and_printing():
    assert IfElse(2) == IfElse(2, name="other") and IfElse(2) != IfElse(3)
    assert IfElse(1) != IfElse(1, as_view=True)
    assert str(IfElse(1, name="pick")) == "if{pick}"
    assert pickle.loads(pickle.dumps(IfElse(2, name="n"))) == IfElse(2)
    out = ifelse(pt.bscalar("c"), pt.dvector("x"), pt.dvector("y"), name="choose")
    text = arignote.dprint(out, file="str")
    assert "if{choose}" in text


def test_the_module_is_callable_like_pytensors_and_holds_the_function():
    module = importlib.import_module("arignote.ifelse")
    assert arignote.ifelse is module
    assert module.ifelse is ifelse and module.IfElse is IfElse
    c, x = pt.bscalar("c"), pt.dvector("x")
    out = arignote.ifelse(c, x, -x)
    assert isinstance(out.owner.op, IfElse)
    np.testing.assert_allclose(out.eval({c: 0, x: np.array([1.0])}), [-1.0])


# -- derivatives and shapes ----------------------------------------------------------------------


def test_gradient_flows_through_the_chosen_branch_only():
    c = pt.bscalar("c")
    x, y = pt.dvectors("x", "y")
    cost = ifelse(c, (x**2).sum(), (y**3).sum())
    gx, gy = arignote.grad(cost, [x, y])
    f = arignote.function([c, x, y], [gx, gy])
    xv, yv = np.array([1.0, 2.0]), np.array([3.0, -1.0])
    got = f(1, xv, yv)
    np.testing.assert_allclose(got[0], 2 * xv)
    np.testing.assert_allclose(got[1], 0 * yv)
    got = f(0, xv, yv)
    np.testing.assert_allclose(got[0], 0 * xv)
    np.testing.assert_allclose(got[1], 3 * yv**2)


@pytest.mark.parametrize("taken", [0, 1])
def test_verify_grad_of_a_two_output_ifelse(rng, taken):
    def fun(x, y):
        a, b = ifelse(np.int8(taken), [pt.sin(x), x * y], [y.sum() * x, pt.exp(y)])
        return (a * 2).sum() + (b * 3).sum()

    verify_grad(fun, [rng.normal(size=(2, 3)), rng.normal(size=(2, 3))], rng=rng)


def test_second_derivative_through_ifelse(rng):
    def fun(x):
        return arignote.grad(ifelse(pt.gt(x.sum(), 0), (x**3).sum(), (x**2).sum()), x)

    verify_grad(fun, [np.abs(rng.normal(size=3)) + 0.5], rng=rng)


def test_rop_picks_the_tangent_of_the_chosen_branch():
    c = pt.bscalar("c")
    x, v = pt.dvectors("x", "v")
    out = ifelse(c, pt.sin(x), x * 3)
    jvp = arignote.Rop(out, x, v)
    f = arignote.function([c, x, v], jvp)
    xv, vv = np.array([0.1, 0.7]), np.array([1.0, -2.0])
    np.testing.assert_allclose(f(1, xv, vv), np.cos(xv) * vv)
    np.testing.assert_allclose(f(0, xv, vv), 3 * vv)


def test_shape_of_ifelse_is_computed_without_either_branch():
    c = pt.bscalar("c")
    x, y = pt.dmatrix("x"), pt.dmatrix("y")
    out = ifelse(c, Counted("t")(x), Counted("e")(y))
    f = arignote.function([c, x, y], out.shape)
    assert not any(isinstance(n.op, (IfElse, Counted)) for n in f.maker.fgraph.apply_nodes)
    assert tuple(f(1, np.ones((2, 3)), np.ones((4, 5)))) == (2, 3)
    assert tuple(f(0, np.ones((2, 3)), np.ones((4, 5)))) == (4, 5)
    assert Counted.calls == {}


def test_shape_depending_on_branch_values_stays_lazy():
    c = pt.bscalar("c")
    x = pt.dvector("x")
    # nonzero's length needs the values: the shape is chosen by a lazy IfElse
    out = ifelse(c, pt.nonzero(Counted("t")(x))[0], pt.arange(Counted("e")(x).shape[0]))
    f = arignote.function([c, x], out.shape)
    assert any(isinstance(n.op, IfElse) for n in f.maker.fgraph.apply_nodes)
    assert tuple(f(1, np.array([0.0, 1.0, 2.0]))) == (2,)
    assert Counted.calls == {"t": 1}


def test_constant_condition_is_resolved_when_compiling():
    x, y = pt.dvectors("x", "y")
    f = arignote.function([x, y], ifelse(pt.constant(0), pt.exp(x), y * 2))
    assert not any(
        isinstance(n.op, IfElse) for n in io_toposort(f.maker.fgraph.inputs, f.maker.fgraph.outputs)
    )
    np.testing.assert_allclose(f(np.ones(2), np.ones(2)), [2.0, 2.0])


def test_elementwise_branches_stay_lazy_after_fusion():
    c = pt.bscalar("c")
    x = pt.dvector("x")
    shared_part = pt.exp(x)  # needed by both branches: computed before the choice
    out = ifelse(c, shared_part * 2 + 1, pt.log(x) * shared_part - 1)
    f = arignote.function([c, x], out, mode="FAST_RUN")
    fused = [n for n in f.maker.fgraph.apply_nodes if "Composite" in str(n.op)]
    assert fused  # fusion did run, inside each branch
    with np.errstate(all="raise"):  # log(-1) would raise if the else branch ran
        np.testing.assert_allclose(f(1, -np.ones(3)), 2 * np.exp(-np.ones(3)) + 1)


def test_lazy_regions_label_branch_only_nodes():
    c = pt.bscalar("c")
    x = pt.dvector("x")
    both, then_only, else_only = pt.exp(x), pt.sin(x), pt.cos(x)
    out = ifelse(c, then_only + both, else_only * both)
    fgraph = FunctionGraph([c, x], [out], clone=False)
    regions = lazy_regions(fgraph)
    assert regions[both.owner] == ALWAYS and regions[out.owner] == ALWAYS
    assert regions[then_only.owner] == (out.owner, "then")
    assert regions[else_only.owner] == (out.owner, "else")
    assert lazy_regions(FunctionGraph([x], [both], clone=False)) == {}


def test_values_read_elsewhere_are_not_overwritten_in_lazy_graphs():
    # The lazy VM computes on demand: an in-place node in a branch could run before another
    # reader of its input, so such values are never overwritten when the graph is lazy.
    c = pt.bscalar("c")
    x = pt.dvector("x")
    a = pt.sin(pt.exp(x))
    f = arignote.function([c, x], [ifelse(c, pt.cos(a) + 1, x), pt.sum(a) * 2])
    got = f(1, np.zeros(3))
    np.testing.assert_allclose(got[0], np.cos(np.sin(np.ones(3))) + 1)
    np.testing.assert_allclose(got[1], 6 * np.sin(1.0))


def test_ifelses_needed_in_different_circumstances_are_not_merged():
    c, d = pt.bscalars("c", "d")
    x = pt.dvector("x")
    first = ifelse(c, Counted("a")(x), x)  # needed only when d holds
    second = ifelse(c, Counted("b")(x), x * 2)  # needed only when d does not
    f = arignote.function([c, d, x], ifelse(d, first, second))
    assert sum(isinstance(n.op, IfElse) for n in f.maker.fgraph.apply_nodes) == 3
    f(1, 1, np.ones(2))
    assert Counted.calls == {"a": 1}
    merged = arignote.function([c, x], first + second)
    assert sum(isinstance(n.op, IfElse) for n in merged.maker.fgraph.apply_nodes) == 1


def test_fast_run_returns_the_then_value_as_a_view_without_corrupting_other_readers():
    c = pt.bscalar("c")
    x = pt.dvector("x")
    e = pt.exp(x)
    f = arignote.function([c, x], [ifelse(c, e, x) * 2, e.sum()])
    (node,) = [n for n in f.maker.fgraph.apply_nodes if isinstance(n.op, IfElse)]
    assert node.op.as_view and node.op.view_map == {0: [1]}
    xv = np.array([0.0, 1.0])
    doubled, total = f(1, xv)
    np.testing.assert_allclose(doubled, 2 * np.exp(xv))
    assert float(total) == pytest.approx(np.exp(xv).sum())
    doubled, _ = f(0, xv)
    np.testing.assert_allclose(doubled, 2 * xv)
    np.testing.assert_allclose(xv, [0.0, 1.0])  # the input is intact


def test_pickled_function_stays_lazy():
    c = pt.bscalar("c")
    x = pt.dvector("x")
    f = arignote.function([c, x], ifelse(c, Counted("t")(x), Counted("e")(x) * 2))
    g = pickle.loads(pickle.dumps(f))
    np.testing.assert_allclose(g(0, np.ones(2)), [2.0, 2.0])
    assert Counted.calls == {"e": 1}


def test_ifelse_inside_an_opfromgraph_is_lazy_too():
    c = pt.bscalar("c")
    x = pt.dvector("x")
    op = arignote.OpFromGraph([c, x], [ifelse(c, Counted("t")(x), Counted("e")(x) + 1)])
    f = arignote.function([c, x], op(c, x) * 3)
    np.testing.assert_allclose(f(1, np.ones(2)), [3.0, 3.0])
    assert Counted.calls == {"t": 1}
