"""Schur and generalized Schur (QZ) decompositions, like ``scipy.linalg.schur``/``qz``/``ordqz``.

``A = Z T Z^H`` with ``Z`` unitary and ``T`` upper triangular (quasi-triangular, with 2x2
blocks for complex-conjugate pairs, in the real form); ``(A, B) = (Q AA Z^H, Q BB Z^H)``.

Neither decomposition is unique (each Schur vector can be rescaled by a unit phase, and the
order of the eigenvalues is a choice), so their derivatives are not defined without fixing a
gauge; as in PyTensor, they are declared not implemented.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg

from arignote.graph.basic import Apply
from arignote.graph.grad_types import grad_not_implemented
from arignote.graph.op import Op
from arignote.scalar.basic import upcast
from arignote.tensor.linalg.basic import as_matrices, linalg_dtype
from arignote.tensor.linalg.lu import _batched, _square_matrix, _square_static
from arignote.tensor.type import tensor_type

_SORTS = (None, "lhp", "rhp", "iuc", "ouc")
_NOT_UNIQUE = (
    "the Schur vectors are defined up to unit phases and an eigenvalue order, so the "
    "decomposition has no derivative without a gauge choice"
)


def _check_sort(sort: Any) -> Any:
    if sort not in _SORTS:
        raise ValueError(f"sort must be None or one of ('lhp', 'rhp', 'iuc', 'ouc'), got {sort!r}")
    return sort


def _check_output(output: str) -> str:
    if output not in ("real", "complex"):
        raise ValueError(f"output must be 'real' or 'complex', got {output!r}")
    return output


def _result_dtype(dtype: str, output: str) -> str:
    """SciPy's result dtype: complex when asked for, or when the input is complex."""
    return upcast(dtype, "complex64") if output == "complex" else dtype


def _no_derivative(op: Op, inputs) -> list:
    return [grad_not_implemented(op, i, x, _NOT_UNIQUE) for i, x in enumerate(inputs)]


class Schur(Op):
    """``T, Z`` with ``A = Z T Z^H``, like ``scipy.linalg.schur`` (without ``sdim``).

    ``output``: "real" (quasi-triangular ``T`` for a real matrix) or "complex". ``sort``:
    None, or which eigenvalues to move to the top left ("lhp": real part < 0, "rhp": > 0,
    "iuc": inside the unit circle, "ouc": outside).
    """

    __props__ = ("output", "sort")
    gufunc_signature = "(m,m)->(m,m),(m,m)"

    def __init__(self, output: str = "real", sort: Any = None) -> None:
        self.output = _check_output(output)
        self.sort = _check_sort(sort)

    def make_node(self, a):
        a = _square_matrix(self, a)
        dtype, shape = _result_dtype(a.type.dtype, self.output), _square_static(a)
        return Apply(self, [a], [tensor_type(dtype, shape)(), tensor_type(dtype, shape)()])

    def perform(self, node, inputs, output_storage):
        result = scipy.linalg.schur(inputs[0], output=self.output, sort=self.sort)
        for cell, value, out in zip(output_storage, result[:2], node.outputs, strict=True):
            cell[0] = np.asarray(value, dtype=out.type.dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        return [input_shapes[0], input_shapes[0]]

    def L_op(self, inputs, outputs, output_grads):
        return _no_derivative(self, inputs)


def schur(A: Any, output: str = "real", sort: Any = None) -> tuple:
    """The Schur decomposition ``A = Z T Z^H`` of square matrices ``(..., M, M)``.

    Parameters
    ----------
    A
        Square matrices.
    output
        "real" (quasi-upper-triangular ``T`` for a real ``A``) or "complex".
    sort
        None, "lhp", "rhp", "iuc" or "ouc": which eigenvalues lead the diagonal of ``T``.

    Returns
    -------
    tuple of Variable
        ``(T, Z)``.
    """
    A = as_matrices(A, "schur", square=True)
    return tuple(_batched(Schur(output, sort), A))


def _sort_function(sort: Any):
    """SciPy's ``ordqz`` sort argument; "no sorting" selects nothing (keeps the QZ order)."""
    return sort if sort is not None else (lambda alpha, beta: np.zeros(alpha.shape, dtype=bool))


class QZ(Op):
    """``AA, BB, Q, Z`` (and the generalized eigenvalues ``alpha, beta``) of a matrix pair.

    ``(A, B) = (Q AA Z^H, Q BB Z^H)`` like ``scipy.linalg.qz``; with ``return_eigenvalues``
    the outputs are ``AA, BB, alpha, beta, Q, Z`` as ``scipy.linalg.ordqz`` returns them.
    """

    __props__ = ("complex_output", "sort", "return_eigenvalues")

    def __init__(self, complex_output: bool = False, sort: Any = None, return_eigenvalues=False):
        self.complex_output = bool(complex_output)
        self.sort = _check_sort(sort)
        self.return_eigenvalues = bool(return_eigenvalues)
        extra = "(m),(m)," if self.return_eigenvalues else ""
        self.gufunc_signature = f"(m,m),(m,m)->(m,m),(m,m),{extra}(m,m),(m,m)"

    @property
    def output(self) -> str:
        return "complex" if self.complex_output else "real"

    def make_node(self, a, b):
        a, b = _square_matrix(self, a), _square_matrix(self, b)
        dtype = _result_dtype(upcast(a.type.dtype, b.type.dtype), self.output)
        shape = _square_static(a)
        matrices = [tensor_type(dtype, shape)() for _ in range(4)]
        if not self.return_eigenvalues:
            return Apply(self, [a, b], matrices)
        alpha = tensor_type(upcast(dtype, "complex64"), shape[:1])()
        beta = tensor_type(dtype, shape[:1])()
        return Apply(self, [a, b], [*matrices[:2], alpha, beta, *matrices[2:]])

    def perform(self, node, inputs, output_storage):
        a, b = inputs
        if self.return_eigenvalues or self.sort is not None:
            result = scipy.linalg.ordqz(a, b, sort=_sort_function(self.sort), output=self.output)
            if not self.return_eigenvalues:
                result = (*result[:2], *result[4:])
        else:
            result = scipy.linalg.qz(a, b, output=self.output)
        for cell, value, out in zip(output_storage, result, node.outputs, strict=True):
            cell[0] = np.asarray(value, dtype=out.type.dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        (n, _), _ = input_shapes
        return [(n,) if out.type.ndim == 1 else (n, n) for out in node.outputs]

    def L_op(self, inputs, outputs, output_grads):
        return _no_derivative(self, inputs)


def _pair(A: Any, B: Any, what: str) -> tuple:
    A, B = as_matrices(A, what, square=True), as_matrices(B, what, square=True)
    dtype = linalg_dtype(A.type.dtype, B.type.dtype, what=what)
    return as_matrices(A, what, dtype=dtype), as_matrices(B, what, dtype=dtype)


def qz(
    A: Any, B: Any, output: str = "real", sort: Any = None, return_eigenvalues: bool = False
) -> tuple:
    """The generalized Schur (QZ) decomposition of a pair of square matrices.

    Parameters
    ----------
    A, B
        Square matrices ``(..., M, M)``.
    output
        "real" or "complex".
    sort
        None, "lhp", "rhp", "iuc" or "ouc": which generalized eigenvalues ``alpha/beta`` lead.
    return_eigenvalues
        Also return ``alpha`` and ``beta`` (between ``BB`` and ``Q``).

    Returns
    -------
    tuple of Variable
        ``(AA, BB, Q, Z)`` or ``(AA, BB, alpha, beta, Q, Z)``.
    """
    A, B = _pair(A, B, "qz")
    op = QZ(_check_output(output) == "complex", sort, return_eigenvalues)
    return tuple(_batched(op, A, B))


def ordqz(A: Any, B: Any, sort: Any = None, output: str = "real") -> tuple:
    """``qz`` with eigenvalues, like ``scipy.linalg.ordqz``: ``(AA, BB, alpha, beta, Q, Z)``."""
    return qz(A, B, output=output, sort=sort, return_eigenvalues=True)


__all__ = ["QZ", "Schur", "ordqz", "qz", "schur"]
