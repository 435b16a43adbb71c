"""Node rewriters, walkers, equilibrium, merging and error handling, on toy graphs."""

from __future__ import annotations

import warnings

import pytest

from arignote.config import config
from arignote.graph.basic import equal_computations
from arignote.graph.fg import FunctionGraph
from arignote.graph.rewriting.basic import (
    EquilibriumGraphRewriter,
    GraphRewriter,
    MergeOptimizer,
    RewriteError,
    RewriteWarning,
    SequentialGraphRewriter,
    SequentialNodeRewriter,
    WalkingGraphRewriter,
    copy_stack_trace,
    dfs_rewriter,
    in2out,
    node_rewriter,
    out2in,
)
from tests.graph.rewriting.toy import (
    add,
    const,
    exp,
    inplace_incr,
    log,
    mul,
    neg,
    num,
    sub,
    to_other,
    variables,
)


@node_rewriter([neg])
def local_neg_neg(fgraph, node):
    """--x -> x"""
    inner = node.inputs[0].owner
    if inner is None or inner.op != neg:
        return None
    return [inner.inputs[0]]


@node_rewriter([log])
def local_log_exp(fgraph, node):
    """log(exp(x)) -> x"""
    inner = node.inputs[0].owner
    if inner is None or inner.op != exp:
        return None
    return {node.outputs[0]: inner.inputs[0]}


def fgraph_of(*outputs):
    return FunctionGraph(outputs=list(outputs), clone=False)


def test_node_rewriter_decorator_tracks_and_names():
    assert local_neg_neg.tracks() == [neg]
    assert local_neg_neg.name == "local_neg_neg"
    assert local_neg_neg.__doc__ == "--x -> x"


def test_node_rewriter_rejects_non_ops():
    with pytest.raises(TypeError, match="tracks Op classes or instances"):
        node_rewriter(["neg"])


@pytest.mark.parametrize("walker", [in2out, out2in, dfs_rewriter])
def test_walkers_apply_list_and_dict_replacements(walker):
    (x,) = variables("x")
    fg = fgraph_of(add(neg(neg(x)), log(exp(x))))
    assert walker(local_neg_neg, local_log_exp).rewrite(fg)
    assert equal_computations(fg.outputs, [add(x, x)])


def test_walker_reports_no_change():
    (x,) = variables("x")
    fg = fgraph_of(neg(x))
    assert not in2out(local_neg_neg).rewrite(fg)
    assert fg.outputs[0].owner.op == neg


def test_walker_visits_in_requested_order():
    (x,) = variables("x")
    out = exp(neg(log(x)))
    seen = []

    @node_rewriter(None)
    def record(fgraph, node):
        seen.append(node.op.name)

    in2out(record).rewrite(fgraph_of(out))
    assert seen == ["log", "neg", "exp"]
    seen.clear()
    out2in(record).rewrite(fgraph_of(out))
    assert seen == ["exp", "neg", "log"]
    seen.clear()
    # PyTensor 3's dfs_rewriter: depth-first from the outputs, a node before its inputs' nodes
    dfs_rewriter(record).rewrite(fgraph_of(add(exp(x), neg(x))))
    assert seen == ["add", "neg", "exp"]


def test_walker_visits_new_nodes_unless_ignore_newtrees():
    (x,) = variables("x")

    @node_rewriter([exp])
    def exp_to_neg_neg(fgraph, node):
        return [neg(neg(node.inputs[0]))]

    fg = fgraph_of(exp(x))
    WalkingGraphRewriter(SequentialNodeRewriter(exp_to_neg_neg, local_neg_neg)).rewrite(fg)
    assert fg.outputs[0] is x
    fg = fgraph_of(exp(x))
    WalkingGraphRewriter(
        SequentialNodeRewriter(exp_to_neg_neg, local_neg_neg), ignore_newtrees=True
    ).rewrite(fg)
    assert fg.outputs[0].owner.op == neg


def test_walker_order_is_validated():
    with pytest.raises(ValueError, match="in_to_out"):
        WalkingGraphRewriter(local_neg_neg, order="sideways")


def test_equilibrium_reaches_fixed_point_across_rewrites():
    (x,) = variables("x")
    # log(exp(--x)) needs the inner rewrite before the outer one applies, and vice versa.
    fg = fgraph_of(neg(neg(log(exp(neg(neg(x)))))))
    EquilibriumGraphRewriter([local_log_exp, local_neg_neg]).rewrite(fg)
    assert fg.outputs[0] is x


def test_equilibrium_revisits_parents_of_changed_nodes():
    (x,) = variables("x")

    # log(exp(y)) where y = neg(neg(exp(x))): only after --(.) vanishes does log see exp
    @node_rewriter([log])
    def log_of_exp_of_exp(fgraph, node):
        inner = node.inputs[0].owner
        if inner is None or inner.op != exp or inner.inputs[0].owner is None:
            return None
        if inner.inputs[0].owner.op != exp:
            return None
        return [exp(inner.inputs[0].owner.inputs[0])]

    fg = fgraph_of(log(exp(neg(neg(exp(x))))))
    EquilibriumGraphRewriter([log_of_exp_of_exp, local_neg_neg]).rewrite(fg)
    assert equal_computations(fg.outputs, [exp(x)])


@node_rewriter([exp])
def exp_to_neg(fgraph, node):
    return [neg(node.inputs[0])]


@node_rewriter([neg])
def neg_to_exp(fgraph, node):
    return [exp(node.inputs[0])]


def test_equilibrium_guard_stops_rewrite_cycles():
    (x,) = variables("x")
    fg = fgraph_of(exp(x))
    with pytest.raises(RewriteError, match=r"fired .* times"):
        EquilibriumGraphRewriter([exp_to_neg, neg_to_exp], max_use_ratio=1).rewrite(fg)


def test_equilibrium_guard_warns_outside_tests():
    (x,) = variables("x")
    fg = fgraph_of(exp(x))
    rewriter = SequentialGraphRewriter(
        EquilibriumGraphRewriter([exp_to_neg, neg_to_exp], max_use_ratio=1)
    )
    with config.change_flags(on_rewrite_error="warn"), pytest.warns(RewriteWarning):
        rewriter.rewrite(fg)
    fg.check_integrity()


def test_equilibrium_runs_graph_rewriters_until_stable():
    (x,) = variables("x")
    calls = []

    class CountingMerge(GraphRewriter):
        def apply(self, fgraph):
            calls.append(1)
            return MergeOptimizer().apply(fgraph)

    fg = fgraph_of(add(neg(neg(exp(x))), exp(x)))
    EquilibriumGraphRewriter([CountingMerge(), local_neg_neg]).rewrite(fg)
    shared_exp = exp(x)  # merged after the neg pair vanished: one exp used twice
    assert equal_computations(fg.outputs, [add(shared_exp, shared_exp)])
    assert len(calls) >= 2


def test_sequential_rewriter_runs_in_order_and_times():
    (x,) = variables("x")
    fg = fgraph_of(log(exp(neg(neg(x)))))
    seq = SequentialGraphRewriter(in2out(local_neg_neg), in2out(local_log_exp))
    assert seq.rewrite(fg)
    assert fg.outputs[0] is x
    assert [name for name, _ in seq.timings] == [str(r) for r in seq.rewriters]


# -- validation and errors -------------------------------------------------------------------


def test_incompatible_replacement_type_is_rejected_clearly():
    (x,) = variables("x")

    @node_rewriter([neg])
    def bad(fgraph, node):
        return [to_other(node.inputs[0])]

    fg = fgraph_of(neg(x))
    with pytest.raises(TypeError, match=r"incompatible replacement .* expected type Toy\(num\)"):
        in2out(bad).rewrite(fg)


def test_wrong_number_of_replacements_is_an_error():
    (x,) = variables("x")

    @node_rewriter([neg])
    def bad(fgraph, node):
        return [x, x]

    with pytest.raises(RewriteError, match="returned 2 replacements"):
        in2out(bad).rewrite(fgraph_of(neg(x)))


@node_rewriter([neg])
def broken(fgraph, node):
    raise ZeroDivisionError("boom")


def test_rewrite_exception_raises_in_tests():
    (x,) = variables("x")
    assert config.on_rewrite_error == "raise"  # set by tests/conftest.py
    with pytest.raises(ZeroDivisionError, match="boom"):
        in2out(broken).rewrite(fgraph_of(neg(x)))


def test_rewrite_exception_is_warned_and_skipped_otherwise():
    (x,) = variables("x")
    fg = fgraph_of(neg(neg(x)))
    with config.change_flags(on_rewrite_error="warn"), pytest.warns(RewriteWarning, match="boom"):
        changed = in2out(broken, local_neg_neg).rewrite(fg)
    assert changed and fg.outputs[0] is x  # the failing rule was skipped, the next one ran


def test_rewrite_exception_ignored_when_asked():
    (x,) = variables("x")
    fg = fgraph_of(neg(x))
    with config.change_flags(on_rewrite_error="ignore"), warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not in2out(broken).rewrite(fg)
    assert fg.outputs[0].owner.op == neg


def test_check_integrity_runs_after_each_rewrite(monkeypatch):
    (x,) = variables("x")
    checks = []
    fg = fgraph_of(neg(neg(x)))
    monkeypatch.setattr(fg, "check_integrity", lambda: checks.append(1))
    with config.change_flags(check_integrity=True):
        in2out(local_neg_neg).rewrite(fg)
    assert checks == [1]


# -- merging ---------------------------------------------------------------------------------


def test_merge_identical_applications_and_constants():
    (x,) = variables("x")
    out = add(mul(x, const(2.0)), mul(x, const(2.0)))
    fg = fgraph_of(out)
    assert MergeOptimizer().rewrite(fg)
    a, b = fg.outputs[0].owner.inputs
    assert a is b
    assert len(fg.apply_nodes) == 2


def test_merge_uses_op_equality_not_identity():
    (x,) = variables("x")
    from tests.graph.rewriting.toy import ToyOp

    twin = ToyOp("neg", 1, lambda a: -a)  # equal to neg by its props
    fg = fgraph_of(add(neg(x), twin(x)))
    MergeOptimizer().rewrite(fg)
    a, b = fg.outputs[0].owner.inputs
    assert a is b


def test_merge_keeps_different_computations():
    x, y = variables("x y")
    fg = fgraph_of(add(neg(x), neg(y)), add(exp(x), const(1.0)), add(exp(x), const(2.0)))
    assert MergeOptimizer().rewrite(fg)  # the exp(x) pair merges
    assert len(fg.apply_nodes) == 6
    assert fg.outputs[1].owner.inputs[1] is not fg.outputs[2].owner.inputs[1]


def test_merge_never_merges_destroyers():
    (x,) = variables("x")
    fg = fgraph_of(inplace_incr(exp(x)), inplace_incr(exp(x)))
    MergeOptimizer().rewrite(fg)
    destroyers = [n for n in fg.apply_nodes if n.op == inplace_incr]
    assert len(destroyers) == 2


def test_merge_cascades_in_one_pass():
    (x,) = variables("x")
    fg = fgraph_of(neg(exp(neg(x))), neg(exp(neg(x))))
    MergeOptimizer().rewrite(fg)
    assert fg.outputs[0] is fg.outputs[1]
    assert len(fg.apply_nodes) == 3


def test_copy_stack_trace():
    (x,) = variables("x")
    old, new = neg(x), exp(x)
    old.tag.trace = [("user.py", 3, "f")]
    copy_stack_trace(old, new)
    assert new.tag.trace == [("user.py", 3, "f")]


def test_toy_type_check():
    assert num.filter(3) == 3.0


def test_equilibrium_revisits_what_the_merge_touched():
    """--x -> x makes two exp(x) identical; the merge joins them; only then x - x -> 0 fires."""
    (x,) = variables("x")

    @node_rewriter([sub])
    def sub_self(fgraph, node):
        a, b = node.inputs
        return [const(0.0)] if a is b else None

    fg = fgraph_of(sub(exp(neg(neg(x))), exp(x)))
    EquilibriumGraphRewriter([MergeOptimizer(), local_neg_neg, sub_self]).rewrite(fg)
    assert fg.outputs[0].data == 0.0


def test_equilibrium_visits_a_wide_node_once_for_many_input_changes():
    """A node whose inputs are all rewritten waits in the queue once, not once per change
    (which made the fixed-point loop quadratic in the width of a sum of thousands of terms)."""
    from tests.graph.rewriting.toy import ToyOp

    width = 40
    wide = ToyOp("sum_all", width, lambda *a: sum(a))
    xs = variables(" ".join(f"x{k}" for k in range(width)))
    visits = []

    @node_rewriter([wide])
    def count_visits(fgraph, node):
        visits.append(node)

    fg = fgraph_of(wide(*[neg(neg(x)) for x in xs]))
    EquilibriumGraphRewriter([local_neg_neg, count_visits]).rewrite(fg)
    assert fg.outputs[0].owner.inputs == xs
    assert len(visits) <= 2
