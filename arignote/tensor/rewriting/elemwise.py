"""Rewrites for ``DimShuffle`` (``arignote.tensor.elemwise``): merging and removing shuffles."""

from __future__ import annotations

from arignote.graph.rewriting.basic import copy_stack_trace, node_rewriter
from arignote.graph.rewriting.db import register_rewrite
from arignote.tensor.elemwise import DimShuffle, Elemwise
from arignote.tensor.rewriting.basic import single_client


def compose_orders(inner: tuple, outer: tuple) -> tuple:
    """The order of ``DimShuffle(outer)`` applied after ``DimShuffle(inner)``."""
    return tuple("x" if d == "x" else inner[d] for d in outer)


@register_rewrite("canonicalize", "stabilize", "specialize", "shape_ops")
@node_rewriter([DimShuffle])
def local_useless_dimshuffle(fgraph, node):
    """dimshuffle(x, (0, 1, ..., n-1)) -> x."""
    if node.op.new_order != tuple(range(node.op.input_ndim)):
        return None
    return [node.inputs[0]]


@register_rewrite("canonicalize", "shape_ops")
@node_rewriter([DimShuffle])
def local_dimshuffle_dimshuffle(fgraph, node):
    """dimshuffle(dimshuffle(x, o1), o2) -> dimshuffle(x, o1 composed with o2)."""
    inner = node.inputs[0].owner
    if inner is None or not isinstance(inner.op, DimShuffle):
        return None
    (x,) = inner.inputs
    order = compose_orders(inner.op.new_order, node.op.new_order)
    new = x if order == tuple(range(x.type.ndim)) else DimShuffle(x.type.ndim, order)(x)
    copy_stack_trace(node.outputs[0], new)
    return [new]


@register_rewrite("canonicalize", "shape_ops")
@node_rewriter([DimShuffle])
def local_dimshuffle_lift(fgraph, node):
    """dimshuffle(f(a, b)) -> f(dimshuffle(a), dimshuffle(b)) for a single-use elementwise f.

    Moving shuffles towards the inputs lets them cancel (``(x.T + y.T).T``) and leaves
    elementwise chains unbroken for fusion.
    """
    inner = node.inputs[0].owner
    if inner is None or not isinstance(inner.op, Elemwise) or len(inner.outputs) != 1:
        return None
    if inner.op.inplace_pattern or not single_client(fgraph, node.inputs[0]):
        return None
    shuffled = [DimShuffle(i.type.ndim, node.op.new_order)(i) for i in inner.inputs]
    new = inner.op(*shuffled)
    if new.type != node.outputs[0].type:
        return None
    copy_stack_trace(node.outputs[0], new)
    return [new]


__all__ = ["compose_orders"]
