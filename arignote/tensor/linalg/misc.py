"""Structured matrices and matrix functions: ``kron``, ``expm`` and ``block_diag``."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg

from arignote.graph.basic import Apply, Variable
from arignote.graph.grad_types import disconnected, grad_not_implemented, is_disconnected
from arignote.graph.op import Op
from arignote.scalar.basic import grad_dtype, upcast
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.elemwise import DimShuffle
from arignote.tensor.linalg.basic import (
    SquareMatrixFunction,
    as_matrices,
    mH,
    square_input,
    square_shape,
)
from arignote.tensor.math import mul
from arignote.tensor.reshape import reshape
from arignote.tensor.shape import shape_i
from arignote.tensor.type import tensor_type

# -- kron ---------------------------------------------------------------------------------------


def _length(x: Variable, d: int) -> Any:
    static = x.type.shape[d]
    return static if static is not None else shape_i(x, d)


def kron(a: Any, b: Any) -> Variable:
    """Kronecker product, like ``np.kron``: blocks ``a[i, j] * b``, for any number of dims.

    The operand with fewer dimensions is padded with leading length-1 dimensions; the result
    has length ``a.shape[d] * b.shape[d]`` in each dimension ``d``.
    """
    a, b = as_tensor_variable(a), as_tensor_variable(b)
    ndim = max(a.type.ndim, b.type.ndim)
    if ndim == 0:
        return mul(a, b)
    a = DimShuffle(a.type.ndim, ["x"] * (ndim - a.type.ndim) + list(range(a.type.ndim)))(a)
    b = DimShuffle(b.type.ndim, ["x"] * (ndim - b.type.ndim) + list(range(b.type.ndim)))(b)
    # out[i0, k0, i1, k1, ...] = a[i0, i1, ...] * b[k0, k1, ...], then merge each (i, k) pair
    a_order = [d for i in range(ndim) for d in (i, "x")]
    b_order = [d for i in range(ndim) for d in ("x", i)]
    interleaved = mul(DimShuffle(ndim, a_order)(a), DimShuffle(ndim, b_order)(b))
    lengths = []
    for d in range(ndim):
        la, lb = _length(a, d), _length(b, d)
        lengths.append(la * lb)
    return reshape(interleaved, lengths, ndim=ndim)


# -- matrix exponential -------------------------------------------------------------------------


def _frechet_by_blocks(a: np.ndarray, e: np.ndarray) -> np.ndarray:
    """The Frechet derivative ``L(A, E)`` of expm at ``A`` along ``E``.

    expm([[A, E], [0, A]]) = [[expm(A), L(A, E)], [0, expm(A)]] (Mathias, 1996).
    """
    n = a.shape[-1]
    batch = np.broadcast_shapes(a.shape[:-2], e.shape[:-2])
    dtype = np.result_type(a, e)
    block = np.zeros((*batch, 2 * n, 2 * n), dtype=dtype)
    block[..., :n, :n] = a
    block[..., n:, n:] = a
    block[..., :n, n:] = e
    return scipy.linalg.expm(block)[..., :n, n:]


class Expm(SquareMatrixFunction):
    """The matrix exponential of square matrices (``scipy.linalg.expm``)."""

    __props__ = ()

    def compute(self, x):
        return scipy.linalg.expm(x)

    def L_op(self, inputs, outputs, output_grads):
        (x,), (g,) = inputs, output_grads
        # Re<G, L(A, E)> = Re<L(A^H, G), E> for the Frechet derivative L of expm
        return [ExpmFrechet()(mH(x), g)]

    def R_op(self, inputs, eval_points):
        (x,), (ev,) = inputs, eval_points
        return [None if ev is None else ExpmFrechet()(x, ev)]


class ExpmFrechet(Op):
    """``L(A, E)``: the derivative of ``expm`` at ``A`` in the direction ``E``.

    Computed with the block-triangular identity
    ``expm([[A, E], [0, A]]) = [[expm(A), L(A, E)], [0, expm(A)]]``.
    """

    __props__ = ()

    def make_node(self, a, e):
        a, e = square_input(self, a), square_input(self, e)
        if a.type.ndim != e.type.ndim:
            raise TypeError(f"{self} takes A and E of the same ndim, got {a.type} and {e.type}")
        dtype = upcast(a.type.dtype, e.type.dtype)
        return Apply(self, [a, e], [tensor_type(dtype, square_shape(e))()])

    def perform(self, node, inputs, output_storage):
        a, e = inputs
        if a.shape != e.shape:
            raise ValueError(f"{self}: A {a.shape} and E {e.shape} must have the same shape")
        result = _frechet_by_blocks(a, e)
        output_storage[0][0] = np.asarray(result, dtype=node.outputs[0].type.dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        return [input_shapes[1]]

    def L_op(self, inputs, outputs, output_grads):
        a, (g,) = inputs[0], output_grads
        reason = "The second derivative of the matrix exponential is not implemented."
        # linear in E: the adjoint is the derivative at A^H
        return [grad_not_implemented(self, 0, a, reason), self(mH(a), g)]

    def R_op(self, inputs, eval_points):
        (a, _), (ea, ee) = inputs, eval_points
        if ea is not None:
            reason = "The second derivative of the matrix exponential is not implemented."
            return [grad_not_implemented(self, 0, a, reason)]
        return [None if ee is None else self(a, ee)]


_expm = Expm()


def expm(A: Any) -> Variable:
    """The matrix exponential of each square matrix of ``A`` (``scipy.linalg.expm``).

    Its gradient and tangent are Frechet derivatives, computed through the block-matrix
    identity ``expm([[A, E], [0, A]])``.
    """
    return _expm(as_matrices(A, "expm", square=True))


# -- block_diag ---------------------------------------------------------------------------------


class BaseBlockDiagonal(Op):
    """What every block-diagonal op shares (PyTensor's base of dense and sparse versions): the
    number of blocks, the shape (the blocks' rows and columns added up) and the derivatives,
    linear in the blocks. Subclasses build the node and compute it (:class:`BlockDiagonal`)."""

    __props__ = ("n_blocks",)

    def __init__(self, n_blocks: int) -> None:
        if int(n_blocks) < 1:
            raise ValueError(f"{type(self).__name__} needs at least one block, got {n_blocks}")
        self.n_blocks = int(n_blocks)

    def infer_shape(self, fgraph, node, input_shapes):
        rows = _symbolic_total([s[0] for s in input_shapes])
        cols = _symbolic_total([s[1] for s in input_shapes])
        return [(rows, cols)]

    def L_op(self, inputs, outputs, output_grads):
        (g,) = output_grads
        grads = DiagonalBlocks(self.n_blocks)(g, *inputs, return_list=True)
        return [gb.astype(grad_dtype(b)) for gb, b in zip(grads, inputs)]

    def R_op(self, inputs, eval_points):
        if all(ev is None for ev in eval_points):
            return [None]
        evs = [b.zeros_like() if ev is None else ev for b, ev in zip(inputs, eval_points)]
        return [self(*evs)]  # linear


class BlockDiagonal(BaseBlockDiagonal):
    """Matrices placed on the diagonal of a larger zero matrix (``scipy.linalg.block_diag``)."""

    def make_node(self, *blocks):
        blocks = [as_tensor_variable(b) for b in blocks]
        if len(blocks) != self.n_blocks:
            raise TypeError(f"{self} takes {self.n_blocks} matrices, got {len(blocks)}")
        for b in blocks:
            if b.type.ndim != 2:
                raise TypeError(f"{self} takes matrices, got {b.type}")
        rows = _static_total([b.type.shape[0] for b in blocks])
        cols = _static_total([b.type.shape[1] for b in blocks])
        dtype = upcast(*[b.type.dtype for b in blocks])
        return Apply(self, blocks, [tensor_type(dtype, (rows, cols))()])

    def perform(self, node, inputs, output_storage):
        result = scipy.linalg.block_diag(*inputs)
        output_storage[0][0] = np.asarray(result, dtype=node.outputs[0].type.dtype)


def _static_total(lengths: list) -> int | None:
    return None if any(s is None for s in lengths) else sum(lengths)


def _symbolic_total(lengths: list) -> Any:
    total = lengths[0]
    for length in lengths[1:]:
        total = total + length
    return total


class DiagonalBlocks(Op):
    """The diagonal blocks of a matrix, shaped like given matrices: the adjoint of
    :class:`BlockDiagonal` (``DiagonalBlocks(n)(M, *blocks)`` reads only the shapes of
    ``blocks``)."""

    __props__ = ("n_blocks",)

    def __init__(self, n_blocks: int) -> None:
        self.n_blocks = int(n_blocks)

    def make_node(self, matrix, *blocks):
        matrix = as_tensor_variable(matrix)
        blocks = [as_tensor_variable(b) for b in blocks]
        if matrix.type.ndim != 2 or len(blocks) != self.n_blocks:
            raise TypeError(f"{self} takes a matrix and {self.n_blocks} shape templates")
        outputs = [tensor_type(matrix.type.dtype, b.type.shape)() for b in blocks]
        return Apply(self, [matrix, *blocks], outputs)

    def perform(self, node, inputs, output_storage):
        matrix, *blocks = inputs
        row, col = 0, 0
        for cell, block in zip(output_storage, blocks):
            rows, cols = block.shape
            cell[0] = matrix[row : row + rows, col : col + cols].copy()
            row, col = row + rows, col + cols
        if (row, col) != matrix.shape:
            raise ValueError(f"{self}: blocks of total shape {(row, col)} in a {matrix.shape}")

    def infer_shape(self, fgraph, node, input_shapes):
        return [tuple(s) for s in input_shapes[1:]]

    def connection_pattern(self, node):
        return [[True] * self.n_blocks] + [[False] * self.n_blocks for _ in range(self.n_blocks)]

    def L_op(self, inputs, outputs, output_grads):
        _, *blocks = inputs
        pieces = [
            block.zeros_like(dtype=g_out.type.dtype) if is_disconnected(g) else g
            for g, block, g_out in zip(output_grads, blocks, outputs)
        ]
        return [BlockDiagonal(self.n_blocks)(*pieces)] + [disconnected() for _ in blocks]

    def R_op(self, inputs, eval_points):
        if eval_points[0] is None:
            return [None] * self.n_blocks
        return self(eval_points[0], *inputs[1:], return_list=True)  # linear in the matrix


def _as_block(x: Any) -> Variable:
    """A block as SciPy reads it: 0-d -> (1, 1), 1-d -> one row, 2-d as is."""
    x = as_tensor_variable(x)
    if x.type.ndim > 2:
        raise ValueError(f"block_diag takes arrays of at most 2 dimensions, got {x.type}")
    if x.type.ndim == 2:
        return x
    return DimShuffle(x.type.ndim, ["x"] * (2 - x.type.ndim) + list(range(x.type.ndim)))(x)


def block_diag(*arrays: Any) -> Variable:
    """A block-diagonal matrix from the given arrays (``scipy.linalg.block_diag``).

    0-d arrays are 1x1 blocks and 1-d arrays one-row blocks. The dtype is the common dtype of
    the arrays.
    """
    if not arrays:
        raise ValueError("block_diag needs at least one array")
    return BlockDiagonal(len(arrays))(*[_as_block(a) for a in arrays])


__all__ = [
    "BaseBlockDiagonal",
    "BlockDiagonal",
    "DiagonalBlocks",
    "Expm",
    "ExpmFrechet",
    "block_diag",
    "expm",
    "kron",
]
