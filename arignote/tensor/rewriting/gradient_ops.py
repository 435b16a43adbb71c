"""Rewrites for the ops of ``arignote.tensor.gradient_ops``."""

from __future__ import annotations

from arignote.graph.rewriting.basic import node_rewriter
from arignote.graph.rewriting.db import register_rewrite
from arignote.tensor.gradient_ops import GradientViewOp


@register_rewrite("canonicalize", "fast_compile")
@node_rewriter([GradientViewOp])
def local_remove_gradient_view_op(fgraph, node):
    """zero_grad(x), grad_clip(x, a, b), ... -> x: only gradients see them, not values."""
    return [node.inputs[0]]
