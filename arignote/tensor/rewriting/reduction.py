"""Rewrites for the reductions of ``arignote.tensor.reduction`` (sums, max, min)."""

from __future__ import annotations

from arignote.graph.rewriting.basic import copy_stack_trace, node_rewriter
from arignote.graph.rewriting.db import register_rewrite
from arignote.tensor.elemwise import CAReduce, DimShuffle
from arignote.tensor.math import cast
from arignote.tensor.reduction import Max, Min, Sum
from arignote.tensor.rewriting.basic import single_client

_SIMPLE_REDUCTIONS = (Sum, Max, Min)


def _axes(op: CAReduce, ndim: int) -> tuple[int, ...]:
    return tuple(range(ndim)) if op.axis is None else op.axis


def _with_axes(op: CAReduce, axes: tuple[int, ...] | None) -> CAReduce:
    """A reduction like ``op`` over other axes."""
    if isinstance(op, Sum):
        return Sum(axes, op.dtype, op.acc_dtype)
    return type(op)(axes)


@register_rewrite("canonicalize", "specialize", "reductions")
@node_rewriter(list(_SIMPLE_REDUCTIONS))
def local_reduce_length_one_axes(fgraph, node):
    """reduce(x, axes) -> reduce(x without its length-1 axes, other axes): a length-1 axis
    reduces to its only element (a dimshuffle drops it)."""
    (x,) = node.inputs
    axes = _axes(node.op, x.type.ndim)
    ones = [a for a in axes if x.type.shape[a] == 1]
    if not ones:
        return None
    kept = [d for d in range(x.type.ndim) if d not in ones]
    squeezed = DimShuffle(x.type.ndim, kept)(x)
    # positions of the remaining reduced axes once the length-1 ones are gone
    rest = tuple(kept.index(a) for a in axes if a not in ones)
    if rest and len(rest) == len(kept):
        return None  # a reduction over every axis either way: the dimshuffle would only add
    out = node.outputs[0]
    new = _with_axes(node.op, rest)(squeezed) if rest else squeezed
    new = cast(new, out.type.dtype)
    if not out.type.is_super(new.type):
        return None
    copy_stack_trace(out, new)
    return [new]


@register_rewrite("canonicalize", "reductions")
@node_rewriter(list(_SIMPLE_REDUCTIONS))
def local_reduce_all_axes(fgraph, node):
    """reduce(x, axis=(0, ..., ndim-1)) -> reduce(x, axis=None): one spelling, so they merge."""
    (x,) = node.inputs
    if node.op.axis is None or node.op.axis != tuple(range(x.type.ndim)) or not x.type.ndim:
        return None
    new = _with_axes(node.op, None)(x)
    if new.type != node.outputs[0].type:
        return None
    copy_stack_trace(node.outputs[0], new)
    return [new]


def _same_sum_types(inner: Sum, outer: Sum) -> bool:
    return inner.dtype == outer.dtype and inner.acc_dtype == outer.acc_dtype


@register_rewrite("canonicalize", "reductions")
@node_rewriter([Sum, Max, Min])
def local_reduce_of_reduce(fgraph, node):
    """sum(sum(x, a1), a2) -> sum(x, a1 + a2) (same for max and min)."""
    inner_var = node.inputs[0]
    inner = inner_var.owner
    if inner is None or type(inner.op) is not type(node.op) or not single_client(fgraph, inner_var):
        return None
    if isinstance(node.op, Sum) and not _same_sum_types(inner.op, node.op):
        return None
    (x,) = inner.inputs
    inner_axes = _axes(inner.op, x.type.ndim)
    remaining = [d for d in range(x.type.ndim) if d not in inner_axes]
    outer_axes = [remaining[a] for a in _axes(node.op, inner_var.type.ndim)]
    axes = tuple(sorted(set(inner_axes) | set(outer_axes)))
    new = _with_axes(node.op, None if len(axes) == x.type.ndim else axes)(x)
    if not node.outputs[0].type.is_super(new.type):
        return None
    copy_stack_trace(node.outputs[0], new)
    return [new]


__all__: list[str] = []
