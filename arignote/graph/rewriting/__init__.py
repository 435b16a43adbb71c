"""Graph rewriting: node and graph rewriters, patterns, walkers, merging, databases."""

from arignote.graph.rewriting.basic import (
    EquilibriumGraphRewriter,
    GraphRewriter,
    MergeOptimizer,
    NodeRewriter,
    SequentialGraphRewriter,
    WalkingGraphRewriter,
    graph_rewriter,
    in2out,
    node_rewriter,
    out2in,
)
from arignote.graph.rewriting.db import (
    RewriteDatabaseQuery,
    register_patterns,
    register_rewrite,
    rewrites,
)
from arignote.graph.rewriting.pattern import (
    PatternMatcher,
    PatternNodeRewriter,
    PatternVar,
    pattern_vars,
)
from arignote.graph.rewriting.trace import RewriteTrace
from arignote.graph.rewriting.utils import rewrite_graph

__all__ = [
    "EquilibriumGraphRewriter",
    "GraphRewriter",
    "MergeOptimizer",
    "NodeRewriter",
    "PatternMatcher",
    "PatternNodeRewriter",
    "PatternVar",
    "RewriteDatabaseQuery",
    "RewriteTrace",
    "SequentialGraphRewriter",
    "WalkingGraphRewriter",
    "graph_rewriter",
    "in2out",
    "node_rewriter",
    "out2in",
    "pattern_vars",
    "register_patterns",
    "register_rewrite",
    "rewrite_graph",
    "rewrites",
]
