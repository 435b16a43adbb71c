"""Rewrites that compute shapes from ``infer_shape`` instead of from the values."""

from __future__ import annotations

from arignote.graph.rewriting.basic import node_rewriter
from arignote.graph.rewriting.db import register_rewrite
from arignote.tensor.basic import make_vector
from arignote.tensor.shape import Shape, Shape_i
from arignote.tensor.shape_feature import ShapeFeature


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
