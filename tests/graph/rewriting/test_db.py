"""Rewrite databases: registration, tags, queries (include / require / exclude), phases."""

from __future__ import annotations

import pytest

from arignote.graph.fg import FunctionGraph
from arignote.graph.rewriting.basic import (
    EquilibriumGraphRewriter,
    MergeOptimizer,
    SequentialGraphRewriter,
    SequentialNodeRewriter,
    node_rewriter,
)
from arignote.graph.rewriting.db import (
    EquilibriumDB,
    LocalGroupDB,
    RewriteDatabase,
    RewriteDatabaseQuery,
    SequenceDB,
    phase_rewriter,
    register_rewrite,
)
from tests.graph.rewriting.toy import exp, log, neg, variables


def _rewriter(name):
    @node_rewriter([neg])
    def fn(fgraph, node):
        return None

    fn.name = name
    return fn


@pytest.fixture
def db():
    db = RewriteDatabase()
    db.register("a", _rewriter("a"), "canonicalize", "fast")
    db.register("b", _rewriter("b"), "canonicalize", "unsafe")
    db.register("c", _rewriter("c"), "specialize", "fast")
    return db


def names(chosen):
    return [r.name for r in chosen]


def test_include_any_tag(db):
    assert names(db.query(include=["canonicalize"])) == ["a", "b"]
    assert names(db.query(include=["canonicalize", "specialize"])) == ["a", "b", "c"]


def test_exclude_by_tag_or_name(db):
    assert names(db.query(include=["canonicalize"], exclude=["unsafe"])) == ["a"]
    assert names(db.query(include=["canonicalize"], exclude=["a"])) == ["b"]


def test_require_all_tags(db):
    query = RewriteDatabaseQuery(include=["canonicalize", "specialize"], require=["fast"])
    assert names(db.query(query)) == ["a", "c"]


def test_query_builders_accumulate(db):
    query = RewriteDatabaseQuery("canonicalize").including("specialize").excluding("b")
    assert names(db.query(query.requiring("fast"))) == ["a", "c"]
    assert query.include == frozenset({"canonicalize", "specialize"})


def test_registration_checks(db):
    with pytest.raises(ValueError, match="already registered"):
        db.register("a", _rewriter("a2"))
    with pytest.raises(TypeError, match="not a rewriter"):
        db.register("d", "not a rewriter")
    assert "a" in db and db["a"].name == "a"
    db.remove("a")
    assert "a" not in db


def test_registration_names_unnamed_rewriters(db):
    rewriter = MergeOptimizer()
    rewriter.name = None
    db.register("my_merge", rewriter, "cleanup")
    assert str(db["my_merge"]) == "my_merge"


def test_nested_databases_are_queried_too(db):
    inner = RewriteDatabase()
    inner.register("d", _rewriter("d"), "canonicalize")
    db.register("inner", inner, "canonicalize")
    chosen = db.query(include=["canonicalize"])
    assert names(chosen[:2]) == ["a", "b"]
    assert names(chosen[2]) == ["d"]


def test_database_kinds_build_their_rewriters():
    eq = EquilibriumDB()
    eq.register("a", _rewriter("a"), "t")
    assert isinstance(eq.query(include=["t"]), EquilibriumGraphRewriter)
    seq = SequenceDB()
    seq.register("m", MergeOptimizer(), "t")
    assert isinstance(seq.query(include=["t"]), SequentialGraphRewriter)
    group = LocalGroupDB()
    group.register("a", _rewriter("a"), "t")
    assert isinstance(group.query(include=["t"]), SequentialNodeRewriter)


def test_register_rewrite_decorator():
    db = RewriteDatabase()

    @register_rewrite("canonicalize", "topic", db=db)
    @node_rewriter([log])
    def local_log_exp(fgraph, node):
        inner = node.inputs[0].owner
        return [inner.inputs[0]] if inner is not None and inner.op == exp else None

    assert db.names() == ["local_log_exp"]
    assert {"canonicalize", "topic", "local_log_exp"} == db.tags_of("local_log_exp")


def test_phase_rewriter_runs_tagged_rewrites_to_a_fixed_point():
    db = RewriteDatabase()

    @node_rewriter([neg])
    def local_neg_neg(fgraph, node):
        inner = node.inputs[0].owner
        return [inner.inputs[0]] if inner is not None and inner.op == neg else None

    db.register("local_neg_neg", local_neg_neg, "canonicalize")
    db.register("merge", MergeOptimizer(), "canonicalize")
    (x,) = variables("x")
    fg = FunctionGraph(outputs=[neg(neg(neg(neg(x))))], clone=False)
    phase_rewriter("canonicalize", db=db).rewrite(fg)
    assert fg.outputs[0] is x
    fg = FunctionGraph(outputs=[neg(neg(x))], clone=False)
    phase_rewriter("canonicalize", exclude=["local_neg_neg"], db=db).rewrite(fg)
    assert fg.outputs[0].owner.op == neg
