"""Graph rewriting: node and graph rewriters, walkers, merging, databases."""

from arignote.graph.rewriting.basic import (
    EquilibriumGraphRewriter,
    GraphRewriter,
    MergeOptimizer,
    NodeRewriter,
    SequentialGraphRewriter,
    WalkingGraphRewriter,
    in2out,
    node_rewriter,
    out2in,
)
from arignote.graph.rewriting.db import register_rewrite, rewrites
from arignote.graph.rewriting.utils import rewrite_graph

__all__ = [
    "EquilibriumGraphRewriter",
    "GraphRewriter",
    "MergeOptimizer",
    "NodeRewriter",
    "SequentialGraphRewriter",
    "WalkingGraphRewriter",
    "in2out",
    "node_rewriter",
    "out2in",
    "register_rewrite",
    "rewrite_graph",
    "rewrites",
]
