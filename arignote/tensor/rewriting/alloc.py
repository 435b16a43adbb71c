"""Rewrites for the creation ops of ``arignote.tensor.alloc``."""

from __future__ import annotations

from arignote.graph.rewriting.basic import copy_stack_trace, node_rewriter
from arignote.graph.rewriting.db import register_rewrite
from arignote.tensor.alloc import Alloc
from arignote.tensor.math import second
from arignote.tensor.rewriting.reshape import _entry_is_length

__all__: list[str] = []


@register_rewrite("canonicalize", "stabilize", "specialize", "alloc")
@node_rewriter([Alloc])
def local_useless_alloc(fgraph, node):
    """alloc(x, *x.shape) -> x: the value already has the requested shape."""
    x, *shape = node.inputs
    out = node.outputs[0]
    if x.type.ndim != len(shape) or not out.type.is_super(x.type):
        return None
    if not all(_entry_is_length(length, x, d) for d, length in enumerate(shape)):
        return None
    copy_stack_trace(out, x)
    return [x]


@register_rewrite("canonicalize", "stabilize", "specialize", "alloc")
@node_rewriter([second])
def local_useless_fill(fgraph, node):
    """fill(s, v) -> v when every dimension of ``s`` has static length 1 (a scalar, padded by
    the elementwise op): broadcasting ``v`` against it changes nothing.

    Gradients start from ``fill(cost, 1)`` (as in PyTensor, so that they remain functions of
    the cost's inputs); this removes that seed once the graph is compiled.
    """
    shape_source, value = node.inputs
    out = node.outputs[0]
    if any(length != 1 for length in shape_source.type.shape) or value.type != out.type:
        return None
    copy_stack_trace(out, value)
    return [value]
