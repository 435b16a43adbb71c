"""Rewrites for the reductions of ``arignote.tensor.reduction`` (sums, max, min)."""

from __future__ import annotations

import numpy as np

from arignote.graph.basic import Variable
from arignote.graph.rewriting.basic import copy_stack_trace, node_rewriter
from arignote.graph.rewriting.db import register_rewrite
from arignote.tensor.elemwise import CAReduce, DimShuffle
from arignote.tensor.math import abs, cast, exp, log, lt, sub, switch
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
    out = node.outputs[0]
    new = _with_axes(node.op, rest)(squeezed) if rest else squeezed
    new = cast(new, out.type.dtype)
    if not out.type.is_super(new.type):
        return None
    copy_stack_trace(out, new)
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


def _already_shifted(x: Variable) -> bool:
    """Whether ``x`` is ``y - max(y)`` (the form this rewrite produces): no second shift."""
    node = x.owner
    if node is None or node.op != sub:
        return False
    y, shift = node.inputs
    stack, depth = [shift], 0
    while stack and depth < 8:
        var = stack.pop()
        depth += 1
        owner = var.owner
        if owner is None:
            continue
        if isinstance(owner.op, Max) and owner.inputs[0] is y:
            return True
        stack.extend(owner.inputs)
    return False


def _keep_axes(var: Variable, axes: tuple[int, ...], ndim: int) -> Variable:
    """``var`` with the reduced ``axes`` re-inserted as length-1 dimensions."""
    kept = iter(range(var.type.ndim))
    return DimShuffle(var.type.ndim, ["x" if d in axes else next(kept) for d in range(ndim)])(var)


@register_rewrite("stabilize", "reductions")
@node_rewriter([log])
def local_log_sum_exp(fgraph, node):
    """log(sum(exp(x), axes)) -> m + log(sum(exp(x - m), axes)) with m = max(x, axes) (0 where
    m is infinite): the exponentials can no longer overflow or all underflow."""
    total = node.inputs[0].owner
    if total is None or not isinstance(total.op, Sum):
        return None
    exps = total.inputs[0].owner
    if exps is None or exps.op != exp or not single_client(fgraph, total.inputs[0]):
        return None
    (x,) = exps.inputs
    if not x.type.dtype.startswith("float") or _already_shifted(x):
        return None
    axes = _axes(total.op, x.type.ndim)
    m = Max(total.op.axis)(x)
    m = switch(lt(abs(m), np.inf), m, 0)
    shifted = total.op(exp(x - _keep_axes(m, axes, x.type.ndim)))
    out = node.outputs[0]
    new = cast(m + log(shifted), out.type.dtype)
    if not out.type.is_super(new.type):
        return None
    copy_stack_trace(out, new)
    return [new]
