"""The declarative tier: pattern matching, building, naming, tables and the indexed matcher."""

from __future__ import annotations

import pytest

from arignote.graph.basic import equal_computations
from arignote.graph.fg import FunctionGraph
from arignote.graph.rewriting.basic import EquilibriumGraphRewriter, in2out
from arignote.graph.rewriting.db import RewriteDatabase, register_patterns
from arignote.graph.rewriting.pattern import (
    PatternMatcher,
    PatternNodeRewriter,
    PatternVar,
    describe,
    match,
    pattern_vars,
)
from arignote.graph.rewriting.trace import RewriteTrace
from tests.graph.rewriting.toy import (
    ToyOp,
    add,
    const,
    exp,
    log,
    mul,
    neg,
    sub,
    to_other,
    variables,
)

x, y, z = pattern_vars("x y z")


def rewrite(rules, *outputs):
    fg = FunctionGraph(outputs=list(outputs), clone=False)
    trace = RewriteTrace()
    fg.attach_feature(trace)
    EquilibriumGraphRewriter(rules).rewrite(fg)
    return fg, trace


def test_pattern_vars_parse_names():
    a, b = pattern_vars("a, b")
    assert (a.name, b.name) == ("a", "b")
    assert isinstance(a, PatternVar)


def test_match_binds_variables():
    u, v = variables("u v")
    bindings = match((add, (neg, x), y), add(neg(u), v))
    assert bindings["x"] is u and bindings["y"] is v


def test_match_requires_the_same_variable_for_a_repeated_name():
    u, v = variables("u v")
    assert match((sub, x, x), sub(u, u)) == {"x": u}
    assert match((sub, x, x), sub(u, v)) is None


def test_match_literals_against_constants():
    (u,) = variables("u")
    assert match((mul, x, 1), mul(u, const(1.0))) is not None
    assert match((mul, x, 1), mul(u, const(2.0))) is None
    assert match((mul, x, 1), mul(u, u)) is None


def test_match_commutative_ops_in_any_order():
    (u,) = variables("u")
    assert match((add, 1, x), add(u, const(1.0)))["x"] is u
    assert match((sub, 1, x), sub(u, const(1.0))) is None  # sub is not commutative


def test_match_with_constraints():
    u, v = variables("u v")
    positive = PatternVar("p", constraint=lambda var: var.owner is not None and var.owner.op == exp)
    assert match((add, positive, y), add(u, exp(v)))["p"].owner.op == exp
    assert match((add, positive, y), add(u, v)) is None
    is_neg = {"pattern": x, "constraint": lambda var: var.owner is not None}
    assert match((log, is_neg), log(neg(u))) is not None
    assert match((log, is_neg), log(u)) is None


def test_match_op_classes():
    u, v = variables("u v")
    assert match((ToyOp, x, y), add(u, v)) is not None
    assert match((ToyOp, x), add(u, v)) is None  # arity differs


def test_rewriter_builds_the_replacement():
    (u,) = variables("u")
    rule = PatternNodeRewriter((neg, (neg, x)), x)
    fg, _ = rewrite([rule], neg(neg(u)))
    assert fg.outputs[0] is u


def test_rewriter_accepts_strings_as_pattern_variables():
    # Aesara/PyTensor spell pattern variables as strings; a repeated name binds one variable.
    u, v = variables("u v")
    rule = PatternNodeRewriter((sub, (log, (exp, "a")), "a"), (neg, "a"))
    fg, _ = rewrite([rule], sub(log(exp(u)), u))
    assert fg.outputs[0].owner.op == neg and fg.outputs[0].owner.inputs[0] is u
    fg, _ = rewrite([rule], sub(log(exp(u)), v))
    assert fg.outputs[0].owner.op == sub


def test_rewriter_literal_and_nested_replacements():
    u, v = variables("u v")
    rules = [
        PatternNodeRewriter((sub, x, x), 0.0),
        PatternNodeRewriter((log, (mul, x, y)), (add, (log, x), (log, y))),
    ]
    fg, _ = rewrite(rules, add(sub(u, u), log(mul(u, v))))
    zero = fg.outputs[0].owner.inputs[0]
    assert zero.data == 0.0
    assert equal_computations([fg.outputs[0].owner.inputs[1]], [add(log(u), log(v))])


def test_rewriter_callable_replacement_gets_bindings():
    u, v = variables("u v")
    rule = PatternNodeRewriter((sub, x, y), lambda x, y: add(x, neg(y)))
    fg, _ = rewrite([rule], sub(u, v))
    assert equal_computations(fg.outputs, [add(u, neg(v))])


def test_rule_constraint_vetoes_a_match():
    (u,) = variables("u")
    rule = PatternNodeRewriter((sub, x, y), (add, x, (neg, y)), constraint=lambda x, y: x is not y)
    fg, _ = rewrite([rule], sub(u, u))
    assert fg.outputs[0].owner.op == sub


def test_rewriter_skips_incompatible_replacements():
    (u,) = variables("u")
    rule = PatternNodeRewriter((neg, x), (to_other, x))  # another type: the match is skipped
    fg, _ = rewrite([rule], neg(u))
    assert fg.outputs[0].owner.op == neg


def test_rewriter_needs_an_op_at_the_root():
    with pytest.raises(TypeError, match="start with an Op"):
        PatternNodeRewriter(("neg", x), x)
    with pytest.raises(TypeError, match="must be a tuple"):
        PatternNodeRewriter(x, x)


def test_early_rejection_skips_matching():
    (u,) = variables("u")
    calls = []

    def spy(var):
        calls.append(var)
        return True

    rule = PatternNodeRewriter((add, (neg, PatternVar("a", spy)), y), y)
    assert rule.transform(None, add(u, exp(u)).owner) is None
    assert calls == []  # no neg among the inputs: rejected before any matching
    assert rule.transform(None, add(exp(u), neg(u)).owner) is not None
    assert calls


def test_descriptions_and_generated_names_are_stable():
    assert describe((log, (add, 1, x))) == "log(add(1, x))"
    db = RewriteDatabase()
    matcher = register_patterns(
        ("canonicalize", "toy"),
        [((neg, (neg, x)), x), ((log, (exp, x)), x), ((neg, (neg, x)), x)],
        db=db,
    )
    assert db.names() == [
        "canonicalize:neg(neg(x))",
        "canonicalize:log(exp(x))",
        "canonicalize:neg(neg(x))#2",
    ]
    assert "toy" in db.tags_of("canonicalize:log(exp(x))")
    assert isinstance(matcher, PatternMatcher)


def test_table_entries_take_options():
    db = RewriteDatabase()
    register_patterns(
        "phase",
        [((neg, x), x, {"name": "drop_neg", "constraint": lambda x: False})],
        db=db,
    )
    rule = db["drop_neg"]
    assert rule.constraint is not None
    with pytest.raises(TypeError, match="table entry"):
        register_patterns("phase", [((neg, x),)], db=db)


def test_matcher_indexes_rules_by_root_op():
    rules = [
        PatternNodeRewriter((neg, (neg, x)), x, name="nn"),
        PatternNodeRewriter((log, (exp, x)), x, name="le"),
        PatternNodeRewriter((ToyOp, (neg, x)), x, name="any_of_neg"),
    ]
    matcher = PatternMatcher(rules)
    assert [r.name for r in matcher.candidates(neg)] == ["nn", "any_of_neg"]
    assert [r.name for r in matcher.candidates(log)] == ["le", "any_of_neg"]
    assert [r.name for r in matcher.candidates(add)] == ["any_of_neg"]


def test_matcher_in_a_walker_traces_rule_names():
    (u,) = variables("u")
    rules = [
        PatternNodeRewriter((neg, (neg, x)), x, name="nn"),
        PatternNodeRewriter((log, (exp, x)), x, name="le"),
    ]
    fg = FunctionGraph(outputs=[log(exp(neg(neg(u))))], clone=False)
    trace = RewriteTrace()
    fg.attach_feature(trace)
    in2out(PatternMatcher(rules)).rewrite(fg)
    assert fg.outputs[0] is u
    assert trace.fired == ["nn", "le"]
