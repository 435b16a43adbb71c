"""Rewrites that compute shapes from ``infer_shape`` instead of from the values."""

from __future__ import annotations

import numpy as np

from arignote.graph.basic import Constant
from arignote.graph.rewriting.basic import node_rewriter
from arignote.graph.rewriting.db import register_rewrite
from arignote.tensor.basic import MakeVector, as_tensor_variable, make_vector
from arignote.tensor.index_spec import INT
from arignote.tensor.math import cast
from arignote.tensor.rewriting.basic import scalar_constant
from arignote.tensor.shape import Shape, Shape_i, SpecifyShape
from arignote.tensor.shape_feature import ShapeFeature
from arignote.tensor.subtensor import Subtensor


def require_shape_feature(fgraph) -> None:
    fgraph.attach_feature(ShapeFeature())


@register_rewrite("canonicalize", "shape", "fast_compile")
@node_rewriter([Shape], requirements=[require_shape_feature])
def local_shape_to_shape_i(fgraph, node):
    """shape(x) -> make_vector(shape_i(x, 0), ...), using the inferred shape of x."""
    (x,) = node.inputs
    entries = fgraph.shape_feature.shape_tuple(x)
    if entries is None:
        return None
    return [make_vector(*entries, dtype="int64")]


@register_rewrite("canonicalize", "shape", "fast_compile")
@node_rewriter([Shape_i], requirements=[require_shape_feature])
def local_shape_i_lift(fgraph, node):
    """shape_i(op(...), i) -> the i-th entry of op's inferred output shape."""
    (x,) = node.inputs
    if x.owner is None:
        return None
    entries = fgraph.shape_feature.shape_tuple(x)
    if entries is None:
        return None
    inferred = entries[node.op.i]
    if inferred is node.outputs[0] or (
        inferred.owner is not None
        and inferred.owner.op == node.op
        and inferred.owner.inputs[0] is x
    ):
        return None
    return [inferred]


@register_rewrite("canonicalize", "shape", "fast_compile")
@node_rewriter([Shape_i])
def local_shape_i_of_constant(fgraph, node):
    """shape_i(c, i) -> the length of dimension i of constant c."""
    (x,) = node.inputs
    if not isinstance(x, Constant):
        return None
    return [as_tensor_variable(np.int64(np.shape(x.data)[node.op.i]))]


def _is_length_of(entry, x, dim: int) -> bool:
    """Whether ``entry`` is known to equal ``x.shape[dim]``."""
    static = x.type.shape[dim]
    if static is not None:
        value = scalar_constant(entry)
        return value is not None and int(value) == static
    owner = entry.owner
    return (
        owner is not None
        and isinstance(owner.op, Shape_i)
        and owner.op.i == dim
        and (owner.inputs[0] is x)
    )


@register_rewrite("canonicalize", "stabilize", "specialize", "shape", "fast_compile")
@node_rewriter([SpecifyShape])
def local_useless_specify_shape(fgraph, node):
    """specify_shape(x, s) -> x when x's type already guarantees the lengths s."""
    x, *lengths = node.inputs
    if node.outputs[0].type != x.type:
        return None
    dims = [d for d, declared in enumerate(node.op.specified) if declared]
    if not all(_is_length_of(length, x, d) for length, d in zip(lengths, dims)):
        return None
    return [x]


@register_rewrite("canonicalize", "stabilize", "specialize", "shape", "fast_compile")
@node_rewriter([Subtensor])
def local_make_vector_element(fgraph, node):
    """make_vector(a, b, ...)[i] -> the i-th element, i a constant (x.shape[i] -> shape_i(x, i))."""
    if node.op.idx_list != (INT,):
        return None
    vector, position = node.inputs
    owner = vector.owner
    if owner is None or not isinstance(owner.op, MakeVector):
        return None
    index = scalar_constant(position)
    if index is None or not -len(owner.inputs) <= int(index) < len(owner.inputs):
        return None
    element = cast(owner.inputs[int(index)], node.outputs[0].type.dtype)
    return [element]
