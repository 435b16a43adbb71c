"""Rewrites for ``Reshape`` (``arignote.tensor.reshape``): useless and repeated reshapes."""

from __future__ import annotations

from arignote.graph.basic import Constant
from arignote.graph.rewriting.basic import copy_stack_trace, node_rewriter
from arignote.graph.rewriting.db import register_rewrite
from arignote.tensor.basic import MakeVector
from arignote.tensor.reshape import Reshape
from arignote.tensor.rewriting.basic import scalar_constant
from arignote.tensor.shape import Shape, Shape_i


def _entry_is_length(entry, x, dim: int) -> bool:
    """Whether shape entry ``entry`` is known to equal ``x.shape[dim]``."""
    static = x.type.shape[dim]
    value = scalar_constant(entry)
    if value is not None:
        return static is not None and int(value) == static
    owner = entry.owner
    return (
        owner is not None
        and isinstance(owner.op, Shape_i)
        and owner.op.i == dim
        and owner.inputs[0] is x
    )


def _shape_is_own(shape, x) -> bool:
    """Whether the shape vector ``shape`` is known to be ``x.shape``."""
    owner = shape.owner
    if owner is not None and isinstance(owner.op, Shape):
        return owner.inputs[0] is x
    if isinstance(shape, Constant):
        return tuple(int(s) for s in shape.data) == x.type.shape
    if owner is not None and isinstance(owner.op, MakeVector):
        entries = owner.inputs
        return len(entries) == x.type.ndim and all(
            _entry_is_length(e, x, d) for d, e in enumerate(entries)
        )
    return False


@register_rewrite("canonicalize", "stabilize", "specialize", "shape_ops")
@node_rewriter([Reshape])
def local_useless_reshape(fgraph, node):
    """reshape(x, x.shape) -> x."""
    x, shape = node.inputs
    if node.op.ndim != x.type.ndim or node.outputs[0].type != x.type:
        return None
    if not _shape_is_own(shape, x):
        return None
    return [x]


@register_rewrite("canonicalize", "shape_ops")
@node_rewriter([Reshape])
def local_reshape_reshape(fgraph, node):
    """reshape(reshape(x, s1), s2) -> reshape(x, s2): C-order reshapes compose."""
    inner = node.inputs[0].owner
    if inner is None or not isinstance(inner.op, Reshape):
        return None
    new = node.op(inner.inputs[0], node.inputs[1])
    if not node.outputs[0].type.is_super(new.type):
        return None
    copy_stack_trace(node.outputs[0], new)
    return [new]


__all__: list[str] = []
