"""QR decomposition with column pivoting (``scipy.linalg.qr(..., pivoting=True)``).

``A[:, p] = Q R`` with the columns of ``A`` reordered so that ``|R[k, k]|`` does not increase
(LAPACK's ``?geqp3``): the rank-revealing factorisation. The permutation ``p`` is locally
constant, so the derivatives are those of the plain QR of ``B = A[:, p]``, whose gradient is
put back in ``A``'s column order.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg

from arignote.graph.basic import Apply
from arignote.graph.grad_types import grad_not_implemented, is_disconnected
from arignote.graph.op import Op
from arignote.tensor.indexing_ops import take_along_axis
from arignote.tensor.linalg.basic import as_matrices, batch_of, is_complex, matrix_input
from arignote.tensor.linalg.decompositions import (
    _REAL_ONLY,
    QR,
    _symbolic_min,
    min_length,
    qr_factor_shapes,
)
from arignote.tensor.shape import expand_dims
from arignote.tensor.sort import argsort
from arignote.tensor.type import tensor_type

#: arignote's (NumPy's) mode names and SciPy's for the same factors.
_SCIPY_MODE = {"reduced": "economic", "complete": "full", "r": "economic"}


class PivotedQR(Op):
    """``Q, R, P`` (``mode="reduced"`` or ``"complete"``) or ``R, P`` (``mode="r"``) with
    ``A[..., :, P] = Q R``; ``P`` holds int32 column indices, as SciPy returns them."""

    __props__ = ("mode",)

    def __init__(self, mode: str = "reduced") -> None:
        if mode not in _SCIPY_MODE:
            raise ValueError(f"PivotedQR: mode must be one of {tuple(_SCIPY_MODE)}, got {mode!r}")
        self.mode = mode

    def make_node(self, x):
        x = matrix_input(self, x)
        batch, (m, n) = batch_of(x), x.type.shape[-2:]
        shapes = qr_factor_shapes(self.mode, batch, m, n, min_length(m, n))
        outputs = [tensor_type(x.type.dtype, s)() for s in shapes]
        return Apply(self, [x], [*outputs, tensor_type("int32", (*batch, n))()])

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        stack = x.reshape(int(np.prod(x.shape[:-2])), *x.shape[-2:])
        factors = [self._factor(matrix) for matrix in stack] or [self._empty(x)]
        for j, (cell, out) in enumerate(zip(output_storage, node.outputs)):
            value = np.stack([f[j] for f in factors])[: len(stack)]
            shape = (*x.shape[:-2], *value.shape[1:])
            cell[0] = np.asarray(value.reshape(shape), dtype=out.type.dtype)

    def _factor(self, matrix: np.ndarray) -> tuple:
        q, r, p = scipy.linalg.qr(matrix, mode=_SCIPY_MODE[self.mode], pivoting=True)
        return (r, p) if self.mode == "r" else (q, r, p)

    def _empty(self, x: np.ndarray) -> tuple:
        # an empty stack: one stand-in matrix gives the factors' shapes (and is dropped)
        return self._factor(np.zeros(x.shape[-2:]) if x.size else np.eye(*x.shape[-2:]))

    def infer_shape(self, fgraph, node, input_shapes):
        (shape,) = input_shapes
        batch, m, n = tuple(shape[:-2]), shape[-2], shape[-1]
        k = _symbolic_min(node.inputs[0], m, n)
        return [*qr_factor_shapes(self.mode, batch, m, n, k), (*batch, n)]

    def L_op(self, inputs, outputs, output_grads):
        (x,) = inputs
        if is_complex(x):
            return [grad_not_implemented(self, 0, x, _REAL_ONLY)]
        plain = QR(self.mode)
        reason = plain._no_grad_reason(x)
        if reason:
            return [grad_not_implemented(self, 0, x, reason)]
        grads = list(output_grads[:-1])
        if all(is_disconnected(g) for g in grads):
            return [x.zeros_like()]
        permutation = outputs[-1]
        # Q R is the plain QR of B = A[..., :, P]: its gradient, in A's column order
        columns = expand_dims(permutation, -2).astype("int64")
        b = take_along_axis(x, columns, axis=-1)
        (g_b,) = plain.L_op([b], plain(b, return_list=True), grads)
        inverse = expand_dims(argsort(permutation, axis=-1), -2)
        return [take_along_axis(g_b, inverse, axis=-1)]


def qr(
    a: Any,
    mode: str = "full",
    overwrite_a: bool = False,
    pivoting: bool = False,
    lwork: int | None = None,
) -> Any:
    """QR decomposition of each matrix of ``a``, like ``scipy.linalg.qr`` (PyTensor 3's
    ``pytensor.tensor.linalg.qr``).

    ``mode``: ``"full"`` (default, ``Q`` square; NumPy's name ``"complete"``), ``"economic"``
    (``Q`` of ``min(M, N)`` columns; ``"reduced"``), ``"r"`` (``R`` alone, ``min(M, N)`` rows)
    or ``"raw"`` (LAPACK's Householder form, as ``numpy.linalg.qr``; without pivoting).
    ``pivoting=True`` also returns the column permutation ``P`` (int32) with
    ``a[..., :, P] = Q R`` and ``|R[k, k]|`` non-increasing. ``overwrite_a`` and ``lwork`` are
    SciPy's keywords, accepted: ``a`` is never overwritten. Gradients are available for
    ``"economic"`` and ``"r"`` (any shape) and for ``"full"`` when the matrices have at most as
    many rows as columns (else its extra columns of ``Q`` are not unique).
    """
    mode = _NUMPY_MODE.get(mode, mode)
    x = as_matrices(a, "qr")
    if not pivoting:
        outputs = QR(mode)(x, return_list=True)
    elif mode == "raw":
        raise ValueError("qr: mode='raw' does not take pivoting=True")
    else:
        outputs = PivotedQR(mode)(x, return_list=True)
    return outputs[0] if len(outputs) == 1 else tuple(outputs)


#: SciPy's mode names and arignote's (NumPy's) for the same factors.
_NUMPY_MODE = {"economic": "reduced", "full": "complete"}

__all__ = ["PivotedQR", "qr"]
