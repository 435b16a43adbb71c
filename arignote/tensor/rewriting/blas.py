"""Rewrites introducing the BLAS ops of ``arignote.tensor.blas``, and their in-place versions.

"specialize": a sum containing a (scaled) product and another term of the product's shape
becomes one BLAS call, the scalings becoming ``alpha``/``beta``:

    z + dot(x, y)          -> gemm(z, 1, x, y, 1)
    b * z - a * dot(x, y)  -> gemm(z, -a, x, y, b)
    y + dot(A, x)          -> gemv(y, 1, A, x, 1)      (also dot(x, A) = dot(A.T, x))
    A + a * outer(x, y)    -> ger(A, a, x, y)

"inplace": a BLAS op overwrites its accumulator when nothing else needs it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arignote.graph.basic import Apply, Constant, Variable
from arignote.graph.destroyhandler import can_destroy
from arignote.graph.rewriting.basic import copy_stack_trace, node_rewriter
from arignote.graph.rewriting.db import register_rewrite
from arignote.tensor.basic import constant
from arignote.tensor.blas import BLAS_DTYPES, Gemm, Gemv, Ger, gemm, gemv, ger
from arignote.tensor.elemwise import DimShuffle
from arignote.tensor.math import add, cast, mul, neg, sub
from arignote.tensor.products import Dot
from arignote.tensor.rewriting.basic import broadcast_like, single_client
from arignote.tensor.rewriting.inplace import InplaceRewriter

__all__: list[str] = []


def _scalar_of(var: Variable) -> Variable | None:
    """``var`` (all of whose dimensions are broadcastable) as a 0-d tensor, or None."""
    if not all(var.type.broadcastable):
        return None
    if isinstance(var, Constant):
        return constant(np.asarray(var.data).reshape(()), dtype=var.type.dtype)
    if var.type.ndim == 0:
        return var
    node = var.owner
    if node is not None and isinstance(node.op, DimShuffle) and node.inputs[0].type.ndim == 0:
        return node.inputs[0]
    return None


def _scaled(fgraph, var: Variable) -> tuple[Variable, Any]:
    """``var`` as ``(term, scale)``: ``scale * term`` with scale a 0-d tensor or 1.

    Only single-use multiplications and negations are looked through (others must stay).
    """
    node = var.owner
    if node is None or not single_client(fgraph, var):
        return var, 1
    if node.op == neg:
        term, scale = _scaled(fgraph, node.inputs[0])
        return term, -1 if scale == 1 else neg(scale)
    if node.op == mul and len(node.inputs) == 2:
        for k in (0, 1):
            scale = _scalar_of(node.inputs[k])
            if scale is not None:
                return node.inputs[1 - k], scale
    return var, 1


def _as_factor(scale: Any, dtype: str) -> Variable:
    if isinstance(scale, Variable):
        return cast(scale, dtype)
    return constant(scale, dtype=dtype)


def _product(fgraph, var: Variable, ndims: tuple[int, int]) -> Apply | None:
    """The ``Dot`` node computing ``var`` when its operands have ``ndims`` dimensions and
    nothing else uses it."""
    node = var.owner
    if node is None or not isinstance(node.op, Dot) or not single_client(fgraph, var):
        return None
    x, y = node.inputs
    return node if (x.type.ndim, y.type.ndim) == ndims else None


def _blas_call(product: Apply, out: Variable, z: Variable, alpha, beta) -> Variable | None:
    """gemm or gemv for ``beta * z + alpha * product`` (None when the kinds do not fit)."""
    x, y = product.inputs
    dtype = out.type.dtype
    alpha, beta = _as_factor(alpha, dtype), _as_factor(beta, dtype)
    if x.type.ndim == 2 and y.type.ndim == 2:
        return gemm(z, alpha, x, y, beta)
    if x.type.ndim == 2:
        return gemv(z, alpha, x, y, beta)
    return gemv(z, alpha, DimShuffle(2, (1, 0))(y), x, beta)  # x.A == A.T x


def _fits(var: Variable, out: Variable) -> bool:
    """``var`` has the dtype and the broadcast pattern of ``out`` (BLAS writes all of it)."""
    return var.type.dtype == out.type.dtype and var.type.broadcastable == out.type.broadcastable


def _accumulate(fgraph, node: Apply, signs: list[int]) -> list[Variable] | None:
    """Rewrite ``sum(sign_k * term_k)`` with one BLAS call for a product and another term."""
    out = node.outputs[0]
    if out.type.dtype not in BLAS_DTYPES or out.type.ndim not in (1, 2):
        return None
    terms = [(*_scaled(fgraph, t), s) for t, s in zip(node.inputs, signs)]
    kinds = [(2, 2), (2, 1), (1, 2)] if out.type.ndim == 2 else [(2, 1), (1, 2)]
    for p, (term, alpha, sign) in enumerate(terms):
        product = next((d for k in kinds if (d := _product(fgraph, term, k)) is not None), None)
        if product is None or not _fits(product.outputs[0], out):
            continue
        if any(v.type.dtype != out.type.dtype for v in product.inputs):
            continue  # a mixed-dtype product (an integer vector): BLAS needs one dtype
        for q, (z, beta, z_sign) in enumerate(terms):
            if q == p or not _fits(z, out):
                continue
            call = _blas_call(product, out, z, _signed(alpha, sign), _signed(beta, z_sign))
            rest = [
                _signed_term(t, s)
                for k, (t, s) in enumerate(zip(node.inputs, signs))
                if k not in (p, q)
            ]
            return [add(call, *rest) if rest else call]
    return None


def _signed(scale: Any, sign: int) -> Any:
    if sign == 1:
        return scale
    return -scale if not isinstance(scale, Variable) else neg(scale)


def _signed_term(term: Variable, sign: int) -> Variable:
    return term if sign == 1 else neg(term)


def _finish(node: Apply, new: list[Variable] | None) -> list[Variable] | None:
    if new is None:
        return None
    out = node.outputs[0]
    fitted = broadcast_like(cast(new[0], out.type.dtype), out, node.inputs)
    if fitted is None or not out.type.is_super(fitted.type):
        return None
    copy_stack_trace(out, fitted)
    return [fitted]


@register_rewrite("specialize", "blas")
@node_rewriter([add])
def local_add_to_gemm_gemv(fgraph, node):
    """z + a*dot(x, y) -> gemm(z, a, x, y, 1) (gemv for a matrix-vector product)."""
    return _finish(node, _accumulate(fgraph, node, [1] * len(node.inputs)))


@register_rewrite("specialize", "blas")
@node_rewriter([sub])
def local_sub_to_gemm_gemv(fgraph, node):
    """z - a*dot(x, y) -> gemm(z, -a, x, y, 1); dot(x, y) - z -> gemm(z, 1, x, y, -1)."""
    return _finish(node, _accumulate(fgraph, node, [1, -1]))


def _outer_factors(fgraph, var: Variable) -> tuple[Variable, Variable, Any] | None:
    """``var`` as ``alpha * outer(x, y)``: (x, y, alpha), or None."""
    node = var.owner
    if node is None or node.op != mul or not single_client(fgraph, var):
        return None
    column = row = None
    scales = []
    for factor in node.inputs:
        owner = factor.owner
        order = owner.op.new_order if owner is not None and isinstance(owner.op, DimShuffle) else ()
        if order and owner.inputs[0].type.ndim != 1:
            order = ()  # (0, "x") of a (n, 1) matrix also drops its broadcastable axis
        if order == (0, "x") and column is None:
            column = owner.inputs[0]
        elif order == ("x", 0) and row is None:
            row = owner.inputs[0]
        elif (scale := _scalar_of(factor)) is not None:
            scales.append(scale)
        else:
            return None
    if column is None or row is None or len(scales) > 1:
        return None
    return column, row, scales[0] if scales else 1


@register_rewrite("specialize", "blas")
@node_rewriter([add])
def local_add_outer_to_ger(fgraph, node):
    """A + a * outer(x, y) -> ger(A, a, x, y)."""
    out = node.outputs[0]
    if len(node.inputs) != 2 or out.type.ndim != 2 or out.type.dtype not in BLAS_DTYPES:
        return None
    for k in (0, 1):
        a, term = node.inputs[k], node.inputs[1 - k]
        factors = _outer_factors(fgraph, term)
        if factors is None or not _fits(a, out):
            continue
        x, y, alpha = factors
        if x.type.dtype != out.type.dtype or y.type.dtype != out.type.dtype:
            continue
        return _finish(node, [ger(a, _as_factor(alpha, out.type.dtype), x, y)])
    return None


def blas_inplace_candidate(fgraph, node: Apply) -> list[Variable] | None:
    """gemm/gemv/ger writing into their accumulator (input 0) when it may be overwritten."""
    op = node.op
    if not isinstance(op, (Gemm, Gemv, Ger)) or op.inplace:
        return None
    if node.inputs[0].type != node.outputs[0].type or not can_destroy(fgraph, node, 0):
        return None
    new = type(op)(inplace=True)(*node.inputs)
    copy_stack_trace(node.outputs[0], new)
    return [new]


register_rewrite("inplace", "inplace_blas", name="inplace_blas")(
    InplaceRewriter(blas_inplace_candidate, "inplace_blas")
)
