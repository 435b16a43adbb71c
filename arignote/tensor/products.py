"""Products of tensors: ``dot`` and ``outer`` (``Dot`` op)."""

from __future__ import annotations

from typing import Any

import numpy as np

from arignote.graph.basic import Apply, Variable
from arignote.graph.op import Op
from arignote.scalar.basic import discrete_dtypes, grad_dtype, upcast
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.elemwise import DimShuffle
from arignote.tensor.math import mul
from arignote.tensor.type import tensor_type


class Dot(Op):
    """Dot product of vectors and matrices (``np.dot`` for 1-d and 2-d operands)."""

    __props__ = ()

    def make_node(self, x, y):
        x, y = as_tensor_variable(x), as_tensor_variable(y)
        if x.type.ndim not in (1, 2) or y.type.ndim not in (1, 2):
            raise TypeError(f"Dot takes 1-d or 2-d inputs, got {x.type} and {y.type}")
        xk, yk = x.type.shape[-1], y.type.shape[0]
        if xk is not None and yk is not None and xk != yk:
            raise ValueError(f"Dot: shapes {x.type.shape} and {y.type.shape} are not aligned")
        shape = x.type.shape[:-1] + y.type.shape[1:]
        return Apply(self, [x, y], [tensor_type(upcast(x.type.dtype, y.type.dtype), shape)()])

    def perform(self, node, inputs, output_storage):
        x, y = inputs
        if x.shape[-1] != y.shape[0]:
            raise ValueError(f"Dot: shapes {x.shape} and {y.shape} are not aligned")
        output_storage[0][0] = np.asarray(np.dot(x, y), dtype=node.outputs[0].type.dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        xs, ys = input_shapes
        return [tuple(xs[:-1]) + tuple(ys[1:])]

    def flops(self, inputs, outputs):
        x, y = inputs
        return 2 * int(np.prod(x, dtype=np.int64)) * int(np.prod(y[1:], dtype=np.int64))

    def grad(self, inputs, output_grads):
        (x, y), (gz,) = inputs, output_grads
        if x.type.dtype in discrete_dtypes and y.type.dtype in discrete_dtypes:
            # an integer-valued output is a step function: zero gradient almost everywhere
            return [x.zeros_like(dtype=grad_dtype(x)), y.zeros_like(dtype=grad_dtype(y))]
        gx, gy = _dot_grads(x, y, gz)
        return [_to_grad_dtype(gx, x), _to_grad_dtype(gy, y)]

    def R_op(self, inputs, eval_points):
        (x, y), (ex, ey) = inputs, eval_points
        terms = []
        if ex is not None:
            terms.append(self(ex, y))  # bilinear: d(x.y) = dx.y + x.dy
        if ey is not None:
            terms.append(self(x, ey))
        if not terms:
            return [None]
        return [terms[0] if len(terms) == 1 else terms[0] + terms[1]]


def _to_grad_dtype(g: Variable, wrt: Variable) -> Variable:
    return g.astype(grad_dtype(wrt))


def _dot_grads(x: Variable, y: Variable, gz: Variable) -> tuple[Variable, Variable]:
    """d(x.y): gx = gz.y^T, gy = x^T.gz, with outer products where a side is a vector."""
    if x.type.ndim == 2 and y.type.ndim == 2:
        return _dot(gz, y.T), _dot(x.T, gz)
    if x.type.ndim == 1 and y.type.ndim == 2:
        return _dot(y, gz), outer(x, gz)
    if x.type.ndim == 2 and y.type.ndim == 1:
        return outer(gz, y), _dot(x.T, gz)
    return gz * y, gz * x


_dot = Dot()


def outer(x: Any, y: Any) -> Variable:
    """Outer product of two vectors (other inputs are flattened, as in ``np.outer``)."""
    x, y = as_tensor_variable(x), as_tensor_variable(y)
    if x.type.ndim != 1:
        x = x.flatten()
    if y.type.ndim != 1:
        y = y.flatten()
    return mul(DimShuffle(1, (0, "x"))(x), DimShuffle(1, ("x", 0))(y))


def dot(x: Any, y: Any) -> Variable:
    """``np.dot`` for operands of up to two dimensions (a 0-d operand multiplies)."""
    x, y = as_tensor_variable(x), as_tensor_variable(y)
    if x.type.ndim == 0 or y.type.ndim == 0:
        return mul(x, y)
    if x.type.ndim > 2 or y.type.ndim > 2:
        if _tensordot_fallback is None:
            raise TypeError("dot of tensors with more than 2 dimensions needs tensordot")
        return _tensordot_fallback(x, y)
    return _dot(x, y)


# Installed by the module defining tensordot (np.dot semantics for ndim > 2).
_tensordot_fallback = None


def register_tensordot_fallback(fn) -> None:
    global _tensordot_fallback
    _tensordot_fallback = fn


__all__ = ["Dot", "dot", "outer"]
