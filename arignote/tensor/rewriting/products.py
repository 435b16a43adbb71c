"""Rewrites for ``Dot`` (``arignote.tensor.products``) with statically known operands."""

from __future__ import annotations

import numpy as np

from arignote.graph.basic import Constant, Variable
from arignote.graph.rewriting.basic import copy_stack_trace, node_rewriter
from arignote.graph.rewriting.db import register_rewrite
from arignote.tensor.alloc import alloc
from arignote.tensor.math import cast
from arignote.tensor.products import Dot
from arignote.tensor.shape import shape_i, specify_shape

__all__: list[str] = []


def _is_zeros(var: Variable) -> bool:
    return isinstance(var, Constant) and var.data.size > 0 and not np.any(var.data)


def _is_identity(var: Variable) -> bool:
    if not isinstance(var, Constant) or var.type.ndim != 2:
        return False
    data = np.asarray(var.data)
    return data.shape[0] == data.shape[1] and np.array_equal(data, np.eye(data.shape[0]))


@register_rewrite("canonicalize", "products")
@node_rewriter([Dot])
def local_dot_identity(fgraph, node):
    """dot(x, I) -> x and dot(I, x) -> x, I a constant identity matrix.

    The length of x that the product would have checked is still checked (``specify_shape``).
    """
    x, y = node.inputs
    out = node.outputs[0]
    if _is_identity(y):
        kept, size = x, y.type.shape[0]
        lengths = [None] * (x.type.ndim - 1) + [size]
    elif _is_identity(x):
        kept, size = y, x.type.shape[0]
        lengths = [size] + [None] * (y.type.ndim - 1)
    else:
        return None
    new = cast(specify_shape(kept, lengths), out.type.dtype)
    if not out.type.is_super(new.type):
        return None
    copy_stack_trace(out, new)
    return [new]


@register_rewrite("canonicalize", "products")
@node_rewriter([Dot])
def local_dot_zeros(fgraph, node):
    """dot(x, 0) -> zeros and dot(0, x) -> zeros (0 a constant array of zeros), of the product's
    shape. (A nan or inf in x would have given nan: like NumPy's x * 0, this rule assumes x is
    finite, as PyTensor does.)"""
    x, y = node.inputs
    if not (_is_zeros(x) or _is_zeros(y)):
        return None
    out = node.outputs[0]
    lengths = [shape_i(x, 0)] if x.type.ndim == 2 else []
    lengths += [shape_i(y, 1)] if y.type.ndim == 2 else []
    new = alloc(np.zeros((), dtype=out.type.dtype), *lengths)
    if not out.type.is_super(new.type):
        return None
    copy_stack_trace(out, new)
    return [new]
