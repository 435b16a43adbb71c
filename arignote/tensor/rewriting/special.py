"""Stabilizing rewrites for the ops of ``arignote.tensor.special`` (softmax and friends).

Naive spellings of these functions overflow or lose all precision for large inputs; the ops
subtract the maximum first. So ("stabilize"):

    log(softmax(x))              -> log_softmax(x)
    log(softmax(x)[idx])         -> log_softmax(x)[idx]   (cross-entropy with integer labels)
    exp(x) / sum(exp(x), axes)   -> softmax(x, axes)
    log(sum(exp(x), axes))       -> logsumexp(x, axes)

(``-sum(y * log(softmax(x)))``, the cross-entropy with one-hot or soft labels, becomes
``-sum(y * log_softmax(x))`` through the first rule.)
"""

from __future__ import annotations

from arignote.graph.basic import Variable
from arignote.graph.rewriting.basic import copy_stack_trace, node_rewriter
from arignote.graph.rewriting.db import register_rewrite
from arignote.tensor.advanced_subtensor import AdvancedSubtensor, AdvancedSubtensor1
from arignote.tensor.elemwise import DimShuffle
from arignote.tensor.math import cast, exp, log, true_div
from arignote.tensor.reduction import Sum
from arignote.tensor.rewriting.basic import single_client
from arignote.tensor.special import LogSoftmax, LogSumExp, Softmax
from arignote.tensor.subtensor import Subtensor

__all__: list[str] = []

_SELECTIONS = (Subtensor, AdvancedSubtensor1, AdvancedSubtensor)


def _finish(out: Variable, new: Variable) -> list[Variable] | None:
    new = cast(new, out.type.dtype)
    if not out.type.is_super(new.type):
        return None
    copy_stack_trace(out, new)
    return [new]


@register_rewrite("stabilize", "softmax")
@node_rewriter([log])
def local_log_softmax(fgraph, node):
    """log(softmax(x, axes)) -> log_softmax(x, axes)."""
    inner = node.inputs[0].owner
    if inner is None or not isinstance(inner.op, Softmax):
        return None
    return _finish(node.outputs[0], LogSoftmax(inner.op.axis)(inner.inputs[0]))


@register_rewrite("stabilize", "softmax")
@node_rewriter([log])
def local_log_of_selected_softmax(fgraph, node):
    """log(softmax(x)[idx]) -> log_softmax(x)[idx]: log acts elementwise, indexing selects."""
    selection = node.inputs[0].owner
    if selection is None or not isinstance(selection.op, _SELECTIONS):
        return None
    source = selection.inputs[0].owner
    if source is None or not isinstance(source.op, Softmax):
        return None
    logs = LogSoftmax(source.op.axis)(source.inputs[0])
    return _finish(node.outputs[0], selection.op(logs, *selection.inputs[1:]))


def _restores_axes(node, axes: tuple[int, ...], ndim: int) -> bool:
    """Whether ``node`` is the dimshuffle putting the reduced ``axes`` back (keepdims)."""
    if node is None or not isinstance(node.op, DimShuffle):
        return False
    kept = [d for d in range(ndim) if d not in axes]
    expected = tuple("x" if d in axes else kept.index(d) for d in range(ndim))
    return node.op.new_order == expected


@register_rewrite("stabilize", "softmax")
@node_rewriter([true_div])
def local_softmax_from_exp(fgraph, node):
    """exp(x) / sum(exp(x), axes, keepdims=True) -> softmax(x, axes)."""
    numerator, denominator = node.inputs
    if numerator.owner is None or numerator.owner.op != exp:
        return None
    (x,) = numerator.owner.inputs
    restore = denominator.owner
    total = restore.inputs[0].owner if restore is not None and restore.inputs else None
    if total is None or not isinstance(total.op, Sum) or total.inputs[0] is not numerator:
        return None
    axes = tuple(range(x.type.ndim)) if total.op.axis is None else total.op.axis
    if not _restores_axes(restore, axes, x.type.ndim):
        return None
    return _finish(node.outputs[0], Softmax(axes)(x))


@register_rewrite("stabilize", "reductions")
@node_rewriter([log])
def local_log_sum_exp(fgraph, node):
    """log(sum(exp(x), axes)) -> logsumexp(x, axes): no overflow, no underflow to log(0).

    With ``keepdims=True`` the sum is under a dimshuffle restoring the axes; log acts
    elementwise, so the dimshuffle moves outside: ``dimshuffle(logsumexp(x, axes))``.
    """
    total = node.inputs[0].owner
    restore = None
    shuffled = total is not None and isinstance(total.op, DimShuffle)
    if shuffled and single_client(fgraph, total.inputs[0]):
        restore, total = total.op, total.inputs[0].owner
    if total is None or not isinstance(total.op, Sum):
        return None
    exps = total.inputs[0].owner
    if exps is None or exps.op != exp or not single_client(fgraph, total.inputs[0]):
        return None
    (x,) = exps.inputs
    if not x.type.dtype.startswith("float"):
        return None
    axes = tuple(range(x.type.ndim)) if total.op.axis is None else total.op.axis
    new = LogSumExp(axes)(x)
    return _finish(node.outputs[0], new if restore is None else restore(new))
