"""Rewrites for ``Blockwise`` (``arignote.tensor.blockwise``): drop it where the batch is
trivial, and lift it off core ops that already batch."""

from __future__ import annotations

from arignote.graph.rewriting.basic import copy_stack_trace, node_rewriter
from arignote.graph.rewriting.db import register_rewrite
from arignote.tensor.blockwise import Blockwise
from arignote.tensor.elemwise import DimShuffle, Elemwise
from arignote.tensor.linalg.decompositions import QR, SVD, Cholesky, Eigh
from arignote.tensor.linalg.inverse import Det, MatrixInverse, SlogDet
from arignote.tensor.linalg.least_squares import MatrixPinv
from arignote.tensor.linalg.misc import Expm
from arignote.tensor.products import MatMul

#: Core ops that take stacks natively (leading dimensions are batch dimensions), so that a
#: Blockwise of them is the op itself: elementwise ops and the stacked linear algebra.
BATCHING_OPS: tuple[type, ...] = (
    Elemwise,
    MatrixInverse,
    Det,
    SlogDet,
    Cholesky,
    Eigh,
    QR,
    SVD,
    MatrixPinv,
    Expm,
    MatMul,
)


def _drop_batch(x, batch_ndim: int):
    """``x`` without its (length-1) leading batch dimensions."""
    return DimShuffle(x.type.ndim, list(range(batch_ndim, x.type.ndim)))(x)


def _add_batch(y, batch_ndim: int):
    return DimShuffle(y.type.ndim, ["x"] * batch_ndim + list(range(y.type.ndim)))(y)


@register_rewrite("canonicalize", "stabilize", "specialize", "shape_ops")
@node_rewriter([Blockwise])
def local_useless_blockwise(fgraph, node):
    """Blockwise(op)(x) -> op(x) when there is no batch dimension, or only length-1 ones
    (dropped before the core op and put back after)."""
    op = node.op
    batch_ndim = op.batch_ndim(node)
    if any(x.type.shape[:batch_ndim] != (1,) * batch_ndim for x in node.inputs):
        return None
    inputs = [_drop_batch(x, batch_ndim) if batch_ndim else x for x in node.inputs]
    outputs = op.core_op.make_node(*inputs).outputs
    if batch_ndim:
        outputs = [_add_batch(y, batch_ndim) for y in outputs]
    copy_stack_trace(node.outputs, outputs)
    return outputs


@register_rewrite("canonicalize", "stabilize", "specialize")
@node_rewriter([Blockwise])
def local_blockwise_of_batching_op(fgraph, node):
    """Blockwise(op)(x) -> op(x) when ``op`` already batches over leading dimensions."""
    core = node.op.core_op
    if not isinstance(core, BATCHING_OPS):
        return None
    try:
        lifted = core.make_node(*node.inputs)
    except (TypeError, ValueError):
        return None
    same = all(
        new.type.ndim == old.type.ndim and new.type.dtype == old.type.dtype
        for new, old in zip(lifted.outputs, node.outputs, strict=True)
    )
    if not same:
        return None
    copy_stack_trace(node.outputs, lifted.outputs)
    return lifted.outputs
