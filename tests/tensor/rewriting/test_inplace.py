"""In-place rewrites: which ops overwrite what, and that callers never see it."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.graph.destroyhandler import DestroyHandler
from arignote.graph.features import InconsistencyError
from arignote.graph.fg import FunctionGraph
from arignote.tensor.elemwise import Elemwise
from arignote.tensor.rewriting.inplace import elemwise_inplace_candidate
from tests.tensor.rewriting.utils import rewrite

x, y = pt.dvectors("x y")
m, w = pt.dmatrices("m w")
NO_FUSION = arignote.Mode(optimizer="fast_run").excluding("fusion")


def inplace_nodes(fn):
    return [n for n in fn.maker.fgraph.apply_nodes if n.op.destroy_map]


def test_elementwise_op_overwrites_an_intermediate():
    new = rewrite(pt.exp(x) + pt.log(y), include=("inplace",))
    assert new.owner.op.inplace_pattern == {0: 0}
    assert new.owner.inputs[0].owner.op == pt.exp  # the exp result is overwritten, not x


def test_graph_inputs_are_not_overwritten():
    new = rewrite(pt.exp(x), include=("inplace",))
    assert not new.owner.op.inplace_pattern


def test_value_still_needed_is_not_overwritten():
    e = pt.exp(x)
    first, second = rewrite([e + 1, e * y], include=("inplace",))
    patterns = [first.owner.op.inplace_pattern, second.owner.op.inplace_pattern]
    assert sum(bool(p) for p in patterns) <= 1  # at most one of the two readers may write


@pytest.mark.parametrize("mode", ["FAST_RUN", NO_FUSION])
def test_inputs_are_unchanged_after_calls_that_ran_inplace_ops(rng, mode):
    hidden = pt.tanh(pt.dot(m, w))  # dot's result may be overwritten by the elementwise ops
    out = [pt.exp(hidden) * 2 + pt.sin(x).sum(), (hidden - 1).sum(axis=0)]
    fn = arignote.function([m, w, x], out, mode=mode)
    assert inplace_nodes(fn)
    values = [rng.normal(size=(3, 4)), rng.normal(size=(4, 2)), rng.normal(size=5)]
    copies = [v.copy() for v in values]
    first = fn(*values)
    second = fn(*values)
    for v, c in zip(values, copies):
        np.testing.assert_array_equal(v, c)
    h = np.tanh(copies[0] @ copies[1])
    np.testing.assert_allclose(first[0], np.exp(h) * 2 + np.sin(copies[2]).sum())
    np.testing.assert_allclose(first[1], (h - 1).sum(axis=0))
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
        assert not np.shares_memory(a, b)


def test_outputs_do_not_alias_each_other_or_inputs(rng):
    e = pt.exp(pt.dot(m, w))
    fn = arignote.function([m, w], [e + 1, e + 1, m], mode=NO_FUSION)
    a, b = rng.normal(size=(2, 3)), rng.normal(size=(3, 2))
    first, second, third = fn(a, b)
    assert not np.shares_memory(first, second)
    assert not np.shares_memory(third, a)
    np.testing.assert_array_equal(first, second)


def test_mutable_inputs_may_be_overwritten(rng):
    fn = arignote.function([arignote.In(x, mutable=True)], pt.exp(x) * 2)
    assert inplace_nodes(fn)
    value = rng.normal(size=4)
    expected = np.exp(value) * 2
    out = fn(value)
    np.testing.assert_allclose(out, expected)
    assert not np.shares_memory(out, value)  # the result is still a fresh array


def test_shared_variables_are_not_overwritten(rng):
    initial = rng.normal(size=3)
    s = arignote.shared(initial.copy(), name="s")
    fn = arignote.function([], pt.exp(s) + 1)
    fn()
    np.testing.assert_array_equal(s.get_value(), initial)


def test_user_inplace_ops_overwrite_only_mutable_inputs(rng):
    inplace_exp = Elemwise(pt.exp.scalar_op, {0: 0})
    with pytest.raises(TypeError, match="accept_inplace"):
        arignote.function([x], inplace_exp(x))
    value = rng.normal(size=3)
    kept = value.copy()
    fn = arignote.function([x], inplace_exp(x), accept_inplace=True)  # overwrites a copy
    np.testing.assert_allclose(fn(value), np.exp(kept))
    np.testing.assert_array_equal(value, kept)
    fn = arignote.function([arignote.In(x, mutable=True)], inplace_exp(x), accept_inplace=True)
    np.testing.assert_allclose(fn(value), np.exp(kept))


def test_unsafe_user_inplace_graphs_are_refused():
    inplace_exp = Elemwise(pt.exp.scalar_op, {0: 0})
    e = pt.exp(x)
    late = inplace_exp(e) + e  # e is read after it was overwritten
    with pytest.raises(InconsistencyError, match="unsafe"):
        arignote.function([x], late, accept_inplace=True)


def test_fused_nodes_are_made_inplace(rng):
    hidden = pt.dot(m, w)
    fn = arignote.function([m, w], pt.exp(hidden) * 3 + 1)
    (node,) = [n for n in fn.maker.fgraph.apply_nodes if isinstance(n.op, Elemwise)]
    assert node.op.inplace_pattern == {0: 0}
    a, b = rng.normal(size=(2, 3)), rng.normal(size=(3, 4))
    np.testing.assert_allclose(fn(a, b), np.exp(a @ b) * 3 + 1)


def test_results_survive_later_calls_without_garbage_collection(rng):
    """A linker that keeps intermediate buffers must not reuse those an output aliases."""
    mode = arignote.Mode(linker="vm_nogc")
    for out in [pt.alloc(x, 2, 3).T, pt.exp(pt.alloc(x, 2, 3)) + 1]:
        fn = arignote.function([x], out, mode=mode)
        first = fn(np.ones(3))
        kept = first.copy()
        second = fn(np.zeros(3))
        np.testing.assert_array_equal(first, kept)
        assert not np.shares_memory(first, second)


def test_a_failing_inplace_candidate_leaves_no_unvalidated_change(monkeypatch):
    """Outside tests a rewrite error is only warned about: the pass must undo what it did."""
    import arignote.tensor.rewriting.inplace as inplace_module
    from arignote.config import config
    from arignote.graph.rewriting.basic import RewriteWarning
    from arignote.graph.rewriting.db import rewrites

    def candidate(fgraph, node):
        if node.op == pt.mul:  # after exp(e) was made to overwrite e
            raise RuntimeError("candidate failed")
        return inplace_module.elemwise_inplace_candidate(fgraph, node)

    monkeypatch.setattr(rewrites["inplace_elemwise"], "candidate", candidate)
    e = pt.exp(x)
    with config.change_flags(on_rewrite_error="warn"), pytest.warns(RewriteWarning):
        fn = arignote.function([x], [pt.exp(e) * 3, pt.log(e)], mode=NO_FUSION)
    assert not inplace_nodes(fn)
    value = np.linspace(0.1, 1, 4)
    got = fn(value)
    np.testing.assert_allclose(got[0], np.exp(np.exp(value)) * 3)
    np.testing.assert_allclose(got[1], value)


def test_candidate_follows_inputs_refined_by_earlier_rewrites():
    """A rewrite gave the divisor a static shape (1, 4) while the division's output still says
    (1, ?): only the input of the output's current type, the divisor, can be overwritten (the
    (1, ?) numerator used to make the in-place node raise a TypeError)."""
    a = pt.tensor(dtype="float64", shape=(1, None), name="a")
    b = pt.tensor(dtype="float64", shape=(1, None), name="b")
    c = pt.tensor(dtype="float64", shape=(1, 4), name="c")
    fgraph = FunctionGraph([a, b, c], [pt.exp(a) / pt.exp(b)], features=[DestroyHandler()])
    division = fgraph.outputs[0].owner
    fgraph.replace(division.inputs[1], pt.exp(fgraph.inputs[2]), reason="test")
    (new,) = elemwise_inplace_candidate(fgraph, fgraph.outputs[0].owner)
    assert new.owner.op.inplace_pattern == {0: 1}
    assert new.type.shape == (1, 4)
