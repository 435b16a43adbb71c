"""``rewrite_graph``, ``is_same_graph`` and the ``RewriteTrace`` feature."""

from __future__ import annotations

import pytest

from arignote.graph.fg import FunctionGraph
from arignote.graph.rewriting.basic import in2out, node_rewriter
from arignote.graph.rewriting.db import register_rewrite, rewrites
from arignote.graph.rewriting.trace import RewriteTrace
from arignote.graph.rewriting.utils import is_same_graph, rewrite_graph
from tests.graph.rewriting.toy import add, exp, neg, variables


@node_rewriter([neg])
def toy_neg_neg(fgraph, node):
    """--x -> x"""
    inner = node.inputs[0].owner
    return [inner.inputs[0]] if inner is not None and inner.op == neg else None


def _with_registered(fn):
    register_rewrite("toy_phase", name="toy_neg_neg")(toy_neg_neg)
    try:
        fn()
    finally:
        rewrites.remove("toy_neg_neg")


def test_rewrite_graph_runs_the_included_phases():
    (x,) = variables("x")

    def check():
        assert rewrite_graph(neg(neg(x)), include=("toy_phase",)) is x
        out = neg(neg(x))
        assert rewrite_graph(out, include=("toy_phase",), exclude=("toy_neg_neg",)) is out

    _with_registered(check)


def test_rewrite_graph_accepts_lists_and_function_graphs():
    (x,) = variables("x")

    def check():
        a, b = rewrite_graph([neg(neg(x)), exp(x)], include=("toy_phase",))
        assert a is x and b.owner.op == exp
        fg = FunctionGraph(outputs=[neg(neg(x))], clone=False)
        assert rewrite_graph(fg, include=("toy_phase",)) is fg
        assert fg.outputs[0] is x

    _with_registered(check)


def test_rewrite_graph_clone_leaves_the_original_alone():
    (x,) = variables("x")
    out = neg(neg(x))

    def check():
        new = rewrite_graph(out, include=("toy_phase",), clone=True)
        assert new is x  # expressed in the caller's own inputs
        assert out.owner.inputs[0].owner.op == neg

    _with_registered(check)


def test_rewrite_graph_custom_rewrite_and_merge():
    (x,) = variables("x")
    out = add(exp(x), exp(x))
    new = rewrite_graph(out, include=(), custom_rewrite=in2out(toy_neg_neg))
    left, right = new.owner.inputs
    assert left is right  # the merge pass ran first


def test_is_same_graph():
    x, y = variables("x y")
    assert is_same_graph(add(exp(x), y), add(exp(x), y))
    assert not is_same_graph(add(exp(x), y), add(exp(y), x))


def test_trace_records_rewrites_in_order():
    (x,) = variables("x")
    fg = FunctionGraph(outputs=[exp(neg(neg(x)))], clone=False)
    trace = RewriteTrace()
    fg.attach_feature(trace)
    in2out(toy_neg_neg).rewrite(fg)
    assert trace.fired == ["toy_neg_neg"]
    (name, old, new) = trace.events[0]
    assert name == "toy_neg_neg" and new is x and old.owner.op == neg
    assert "toy_neg_neg" in str(trace)


def test_trace_ignores_reverts_and_unnamed_changes():
    (x,) = variables("x")
    fg = FunctionGraph(outputs=[neg(x)], clone=False)
    trace = RewriteTrace()
    fg.attach_feature(trace)
    fg.replace(fg.outputs[0], exp(x))
    fg.replace(fg.outputs[0], neg(x), reason="revert")
    assert trace.events == []


def test_trace_drops_replacements_that_were_undone():
    from arignote.graph.destroyhandler import DestroyHandler
    from arignote.graph.features import InconsistencyError, ReplaceValidate
    from tests.graph.rewriting.toy import inplace_incr

    (x,) = variables("x")
    e = exp(x)
    fg = FunctionGraph(outputs=[add(neg(e), e)], clone=False)
    fg.attach_feature(ReplaceValidate())
    fg.attach_feature(DestroyHandler())
    trace = RewriteTrace()
    fg.attach_feature(trace)
    # overwriting e while the add still reads it: vetoed, then reverted
    with pytest.raises(InconsistencyError):
        fg.replace_validate(fg.outputs[0].owner.inputs[0], inplace_incr(e), reason="unsafe")
    assert trace.fired == []
    fg.replace_validate(fg.outputs[0].owner.inputs[0], exp(e), reason="kept")
    assert trace.fired == ["kept"]
