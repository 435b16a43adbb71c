"""Pickling and copying compiled functions, graphs and shared variables."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import arignote
import arignote.scalar as ps
import arignote.tensor as pt
import arignote.tensor.random as ptr
from arignote import In, function
from arignote.graph.basic import equal_computations
from arignote.graph.destroyhandler import DestroyHandler
from arignote.graph.fg import FunctionGraph
from arignote.tensor.elemwise import Elemwise


def _accumulator():
    state = arignote.shared(np.zeros(2), name="state")
    inc = pt.dvector("inc")
    acc = function([inc], state * 2, updates=[(state, state + inc)], name="acc")
    return acc, state


def test_pickled_function_matches_the_original(rng):
    x, y = pt.dmatrices("x", "y")
    z = pt.dscalar("z")
    f = function(
        [x, In(y, value=np.ones((2, 3))), In(z, value=2.0, name="scale")],
        {"total": (pt.exp(x) * y).sum() * z, "first": x.sum(axis=0)},
        name="f",
    )
    g = pickle.loads(pickle.dumps(f))
    xv = rng.normal(size=(2, 3))
    expected, got = f(xv), g(xv)
    assert got.keys() == expected.keys()
    for key in expected:
        np.testing.assert_allclose(got[key], expected[key])
    np.testing.assert_allclose(g(xv, scale=3.0)["total"], f(xv, scale=3.0)["total"])
    assert g.name == "f" and str(g) == str(f)


def test_unpickled_function_keeps_its_shared_state():
    acc, state = _accumulator()
    acc(np.ones(2))
    restored = pickle.loads(pickle.dumps(acc))
    np.testing.assert_array_equal(restored(np.ones(2)), [2.0, 2.0])  # state was [1, 1]
    np.testing.assert_array_equal(restored(np.ones(2)), [4.0, 4.0])
    # PyTensor's semantics: the unpickled function has its own copy of the shared state; the
    # original shared variable is not touched by it.
    np.testing.assert_array_equal(state.get_value(), [1.0, 1.0])


def test_pickling_a_function_with_its_shared_variable_keeps_them_linked():
    acc, state = _accumulator()
    restored_acc, restored_state = pickle.loads(pickle.dumps((acc, state)))
    restored_acc(np.full(2, 5.0))
    np.testing.assert_array_equal(restored_state.get_value(), [5.0, 5.0])
    restored_state.set_value(np.zeros(2))
    np.testing.assert_array_equal(restored_acc(np.zeros(2)), [0.0, 0.0])
    np.testing.assert_array_equal(state.get_value(), [0.0, 0.0])


def test_pickling_keeps_trust_input_and_mode():
    x = pt.dvector("x")
    f = function([x], x + 1, mode="FAST_COMPILE", trust_input=True)
    g = pickle.loads(pickle.dumps(f))
    assert g.trust_input
    assert g.maker.mode.optimizer_spec == "fast_compile"
    np.testing.assert_array_equal(g(np.zeros(2)), [1.0, 1.0])


def test_deepcopy_of_function_is_independent():
    acc, state = _accumulator()
    twin = copy.deepcopy(acc)
    twin(np.ones(2))
    np.testing.assert_array_equal(state.get_value(), [0.0, 0.0])
    np.testing.assert_array_equal(twin(np.ones(2)), [2.0, 2.0])


def test_graphs_and_shared_variables_pickle_and_deepcopy(rng):
    x = pt.dmatrix("x")
    w = arignote.shared(rng.normal(size=(3, 2)), name="w")
    out = pt.tanh(pt.dot(x, w)).sum()
    fgraph = FunctionGraph([x, w], [out], clone=True)
    for copied in (pickle.loads(pickle.dumps(fgraph)), copy.deepcopy(fgraph)):
        copied.check_integrity()
        assert len(copied.apply_nodes) == len(fgraph.apply_nodes)
        assert not equal_computations(copied.outputs, fgraph.outputs)  # new variables
        assert equal_computations(copied.outputs, fgraph.outputs, copied.inputs, fgraph.inputs)
        xv = rng.normal(size=(4, 3))
        f_copy = function(copied.inputs[:1], copied.outputs[0])
        np.testing.assert_allclose(f_copy(xv), np.tanh(xv @ w.get_value()).sum())
    w2 = pickle.loads(pickle.dumps(w))
    np.testing.assert_array_equal(w2.get_value(), w.get_value())
    assert w2.type == w.type and w2.name == "w"
    var = pickle.loads(pickle.dumps(out))
    assert str(var.owner.op) == str(out.owner.op)


def test_pickling_a_deep_graph():
    x = pt.dscalar("x")
    out = x
    for _ in range(300):
        out = out * 1.001 + 0.5
    f = function([x], out, mode="FAST_COMPILE")
    g = pickle.loads(pickle.dumps(f))
    assert g(1.0) == pytest.approx(f(1.0))


def test_pickled_function_with_generator_updates_defaults_and_state():
    rng = arignote.shared(np.random.default_rng(11), name="rng")
    total = arignote.shared(np.float64(0.0), name="total")
    x = pt.dvector("x")
    scale = pt.dscalar("scale")
    count = pt.lscalar("count")
    draw = ptr.normal(0.0, 1.0, size=(3,), rng=rng)  # the generator advances (default update)
    f = function(
        [x, In(scale, value=2.0), In(count, value=0, update=count + 1)],
        [draw * scale + x, count],
        updates=[(total, total + scale)],
    )
    f(np.zeros(3))
    g = pickle.loads(pickle.dumps(f))
    for kwargs in ({}, {"scale": 5.0}, {}):
        expected, got = f(np.ones(3), **kwargs), g(np.ones(3), **kwargs)
        np.testing.assert_allclose(got[0], expected[0])  # same generator state, same draws
        assert got[1] == expected[1]  # the In(update=...) state came along
    assert f["count"] == g["count"] == 4
    assert f["scale"] == g["scale"] == 2.0  # the default is back after scale=5.0
    assert total.get_value() == 2.0 + 2.0 + 5.0 + 2.0
    (g_total,) = [v for v in g.get_shared() if v.name == "total"]
    assert g_total.get_value() == total.get_value() and g_total is not total


@pytest.mark.parametrize("mode", ["DebugMode", "NanGuardMode"])
def test_functions_of_checking_modes_pickle(mode):
    s = arignote.shared(np.zeros(2), name="s")
    x = pt.dvector("x")
    f = function([x], (x + s).sum(), updates=[(s, s + x)], mode=mode)
    f(np.ones(2))
    g = pickle.loads(pickle.dumps(f))
    assert type(g.maker.mode) is type(f.maker.mode)
    assert g(np.ones(2)) == f(np.ones(2)) == 4.0


def _functions_with_in_place_ops():
    """Graphs where an in-place op overwrites a value another node still reads."""
    x, a = pt.dvector("x"), pt.dmatrix("a")
    y = pt.exp(x)
    add_inplace = Elemwise(ps.add, inplace_pattern={0: 0})
    user = function(
        [x, a],
        [add_inplace(y, pt.constant(np.float64(1.0))), y * 2],
        accept_inplace=True,
        on_unused_input="ignore",
    )
    # the default pipeline makes ``* 3`` overwrite the reversed view of y, which Dot reads
    rewritten = function([x, a], [y[::-1] * 3, pt.dot(a, y), y + 1])
    return [user, rewritten]


COPIES = {
    "pickle": lambda f: pickle.loads(pickle.dumps(f)),
    "deepcopy": copy.deepcopy,
    "copy": lambda f: f.copy(),
    "copy-share-memory": lambda f: f.copy(share_memory=True),
    "copy-delete-updates": lambda f: f.copy(delete_updates=True),
}


@pytest.mark.parametrize("how", list(COPIES))
def test_copies_keep_readers_before_in_place_ops(how, rng):
    xv, av = rng.normal(size=3), rng.normal(size=(2, 3))
    for f in _functions_with_in_place_ops():
        assert any(n.op.destroy_map for n in f.maker.fgraph.apply_nodes)
        g = COPIES[how](f)
        for expected, got in zip(f(xv, av), g(xv, av)):
            np.testing.assert_allclose(got, expected)


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_deep_function_graph_pickles_and_deep_copies(how, rng):
    x = pt.dvector("x")
    gen = arignote.shared(np.random.default_rng(5), name="gen")
    noise = ptr.normal(0.0, 1.0, size=(3,), rng=gen)
    out = x + noise
    for _ in range(400):  # far past the depth at which linked pickling recursed too deep
        out = pt.sin(out) * 1.001
    next_gen = noise.owner.outputs[0]  # the generator's next state, a variable of the graph
    gen.default_update = next_gen
    fgraph = FunctionGraph([x, gen], [out, next_gen], clone=False)
    fgraph.attach_feature(DestroyHandler())
    copied = pickle.loads(pickle.dumps(fgraph)) if how == "pickle" else copy.deepcopy(fgraph)
    copied.check_integrity()
    assert len(copied.apply_nodes) == len(fgraph.apply_nodes)
    assert (
        copied.destroy_handler is not None and copied.destroy_handler is not fgraph.destroy_handler
    )
    assert equal_computations(copied.outputs, fgraph.outputs, copied.inputs, fgraph.inputs)
    copied_gen = copied.inputs[1]
    assert copied_gen is not gen and copied_gen.default_update is copied.outputs[1]
    xv = rng.normal(size=3)
    expected = function([x], out)(xv)  # the original generator, from the same state
    got = function([copied.inputs[0]], copied.outputs[0])(xv)
    np.testing.assert_allclose(got, expected)
