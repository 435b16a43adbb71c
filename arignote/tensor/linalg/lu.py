"""LU factorisation with partial pivoting: ``lu``, ``lu_factor``, ``lu_solve``, pivots.

With row pivoting ``A = P L U`` (``L`` unit lower triangular, ``U`` upper triangular). The
permutation is piecewise constant in ``A``, so the derivative holds it fixed: from
``P^T dA = dL U + L dU``, ``F = L^-1 P^T dA U^-1`` splits into its strictly lower part
(``L^-1 dL``) and its upper part (``dU U^-1``). The adjoint is therefore
``gA = P L^-H (tril(L^H gL, -1) + triu(gU U^H)) U^-H``.

The ops take single matrices; the user functions apply them to stacks through ``Blockwise``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg

from arignote.graph.basic import Apply, Variable
from arignote.graph.grad_types import grad_undefined, is_disconnected
from arignote.graph.op import Op
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.blockwise import Blockwise, parse_signature
from arignote.tensor.extra_ops import tril, triu
from arignote.tensor.linalg.basic import (
    as_matrices,
    check_square,
    check_square_value,
    identity_like,
    linalg_dtype,
    mH,
)
from arignote.tensor.linalg.solve import SolveTriangular, _finish, _right_hand_sides
from arignote.tensor.math import cast
from arignote.tensor.products import matmul
from arignote.tensor.sort import argsort
from arignote.tensor.type import tensor_type

_INDEX_DTYPE = "int32"  # LAPACK's pivots and scipy's p_indices


def _square_matrix(op: Op, a: Any) -> Variable:
    a = as_tensor_variable(a)
    if a.type.ndim != 2:
        raise TypeError(f"{op} takes one matrix (use the user function for stacks), got {a.type}")
    if a.type.dtype not in ("float32", "float64", "complex64", "complex128"):
        raise TypeError(f"{op} takes float32/64 or complex matrices, got {a.type}")
    check_square(a, op)
    return a


def _square_static(a: Variable) -> tuple:
    rows, cols = a.type.shape
    n = rows if rows is not None else cols
    return (n, n)


def _unit_lower(lu: Variable) -> Variable:
    """The unit lower-triangular factor packed below the diagonal of ``lu``."""
    return tril(lu, -1) + identity_like(lu)


def _lu_adjoint(lower: Variable, upper: Variable, g_lower: Any, g_upper: Any) -> Variable:
    """``L^-H (tril(L^H gL, -1) + triu(gU U^H)) U^-H``: the gradient with respect to ``P^T A``."""
    g_f = 0
    if g_lower is not None:
        g_f = tril(matmul(mH(lower), g_lower), -1)
    if g_upper is not None:
        g_f = g_f + triu(matmul(g_upper, mH(upper)))
    left = SolveTriangular(lower=True, trans=2, unit_diagonal=True)(lower, g_f)
    # X U^-H = (U^-1 X^H)^H
    return mH(SolveTriangular(lower=False, trans=0)(upper, mH(left)))


def _present(g: Variable) -> Any:
    return None if g is None or is_disconnected(g) else g


# -- LU ----------------------------------------------------------------------------------------


class LU(Op):
    """``P, L, U`` with ``A = P L U`` for a square matrix, like ``scipy.linalg.lu``.

    ``permute_l``: two outputs ``P L`` and ``U``. ``p_indices``: ``P`` as row indices ``p``
    (``A = L[p] U``) instead of a permutation matrix. ``check_finite`` is passed to SciPy.
    """

    __props__ = ("permute_l", "p_indices", "check_finite")
    gufunc_signature = "(m,m)->(m,m),(m,m),(m,m)"

    def __init__(self, permute_l: bool = False, p_indices: bool = False, check_finite=True):
        if permute_l and p_indices:
            raise ValueError("LU: permute_l and p_indices cannot both be set")
        self.permute_l = bool(permute_l)
        self.p_indices = bool(p_indices)
        self.check_finite = bool(check_finite)
        if permute_l:
            self.gufunc_signature = "(m,m)->(m,m),(m,m)"
        elif p_indices:
            self.gufunc_signature = "(m,m)->(m),(m,m),(m,m)"

    def make_node(self, a):
        a = _square_matrix(self, a)
        shape, dtype = _square_static(a), a.type.dtype
        factors = [tensor_type(dtype, shape)(), tensor_type(dtype, shape)()]
        if self.permute_l:
            return Apply(self, [a], factors)
        p = (
            tensor_type(_INDEX_DTYPE, shape[:1])()
            if self.p_indices
            else tensor_type(dtype, shape)()
        )
        return Apply(self, [a], [p, *factors])

    def perform(self, node, inputs, output_storage):
        check_square_value(self, inputs[0])
        results = scipy.linalg.lu(
            inputs[0],
            permute_l=self.permute_l,
            p_indices=self.p_indices,
            check_finite=self.check_finite,
        )
        for cell, value, out in zip(output_storage, results, node.outputs, strict=True):
            cell[0] = np.asarray(value, dtype=out.type.dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        ((n, _),) = input_shapes
        shapes = [(n, n)] * len(node.outputs)
        if self.p_indices:
            shapes[0] = (n,)
        return shapes

    def connection_pattern(self, node):
        if self.permute_l:
            return [[True, True]]
        return [[False, True, True]]

    def L_op(self, inputs, outputs, output_grads):
        (a,) = inputs
        if self.permute_l:
            _pl, upper = outputs
            g_pl, g_upper = (_present(g) for g in output_grads)
            # the permutation is the row order of the pivoted L: recompute it apart
            p, lower, _ = LU(p_indices=True, check_finite=False)(a)
            g_lower = None if g_pl is None else _unpermute_rows(g_pl, p)
            return [_permute_rows(_lu_adjoint(lower, upper, g_lower, g_upper), p)]
        p, lower, upper = outputs
        g_lower, g_upper = (_present(g) for g in output_grads[1:])
        if g_lower is None and g_upper is None:
            return [a.zeros_like()]
        x = _lu_adjoint(lower, upper, g_lower, g_upper)
        return [_permute_rows(x, p) if self.p_indices else matmul(p, x)]


def _permute_rows(x: Variable, p: Variable) -> Variable:
    """``x[p]``: the rows of ``x`` in the order ``p``."""
    return x[p]


def _unpermute_rows(x: Variable, p: Variable) -> Variable:
    """The ``y`` with ``y[p] = x``."""
    return x[argsort(p)]


def lu(
    a: Any,
    permute_l: bool = False,
    check_finite: bool = True,
    p_indices: bool = False,
    overwrite_a: bool = False,
) -> tuple:
    """The LU factorisation with partial pivoting, like ``scipy.linalg.lu``.

    Parameters
    ----------
    a
        Square matrices ``(..., M, M)``.
    permute_l
        Return ``(P L, U)`` instead of ``(P, L, U)``.
    check_finite
        Let SciPy check that the input holds only finite numbers.
    p_indices
        Return the permutation as row indices ``p`` with ``A = L[p] U``.
    overwrite_a
        Accepted for SciPy compatibility; arignote never overwrites an input here.

    Returns
    -------
    tuple of Variable
        ``(P, L, U)``, ``(p, L, U)`` or ``(P L, U)``; ``L`` has a unit diagonal.
    """
    a = as_matrices(a, "lu", square=True)
    return tuple(_batched(LU(permute_l, p_indices, check_finite), a))


def _batched(op: Op, *inputs: Variable) -> Any:
    """``op`` applied to single matrices, or through Blockwise to stacks of them."""
    if all(x.type.ndim == n for x, n in zip(inputs, _core_ndims(op), strict=True)):
        return op(*inputs)
    return Blockwise(op, op.gufunc_signature)(*inputs)


def _core_ndims(op: Op) -> list[int]:
    return [len(dims) for dims in parse_signature(op.gufunc_signature)[0]]


# -- lu_factor -----------------------------------------------------------------------------------


class LUFactor(Op):
    """``(LU, piv)`` of a square matrix in LAPACK's packed form, like ``scipy.linalg.lu_factor``.

    ``LU`` holds ``U`` on and above the diagonal and the strictly lower part of ``L``; row
    ``i`` was swapped with row ``piv[i]`` during the elimination.
    """

    __props__ = ("check_finite",)
    gufunc_signature = "(m,m)->(m,m),(m)"

    def __init__(self, check_finite: bool = True) -> None:
        self.check_finite = bool(check_finite)

    def make_node(self, a):
        a = _square_matrix(self, a)
        shape = _square_static(a)
        packed = tensor_type(a.type.dtype, shape)()
        return Apply(self, [a], [packed, tensor_type(_INDEX_DTYPE, shape[:1])()])

    def perform(self, node, inputs, output_storage):
        check_square_value(self, inputs[0])
        packed, piv = scipy.linalg.lu_factor(inputs[0], check_finite=self.check_finite)
        output_storage[0][0] = np.asarray(packed, dtype=node.outputs[0].type.dtype)
        output_storage[1][0] = np.asarray(piv, dtype=_INDEX_DTYPE)

    def infer_shape(self, fgraph, node, input_shapes):
        ((n, _),) = input_shapes
        return [(n, n), (n,)]

    def connection_pattern(self, node):
        return [[True, False]]

    def L_op(self, inputs, outputs, output_grads):
        (a,), (packed, piv) = inputs, outputs
        g = _present(output_grads[0])
        if g is None:
            return [a.zeros_like()]
        lower, upper = _unit_lower(packed), triu(packed)
        x = _lu_adjoint(lower, upper, tril(g, -1), triu(g))
        return [_permute_rows(x, PivotToPermutations(inverse=False)(piv))]


def lu_factor(a: Any, *, check_finite: bool = True, overwrite_a: bool = False) -> tuple:
    """The packed LU factorisation ``(LU, piv)``, like ``scipy.linalg.lu_factor``.

    Parameters
    ----------
    a
        Square matrices ``(..., M, M)``.
    check_finite
        Let SciPy check that the input holds only finite numbers.
    overwrite_a
        Accepted for SciPy compatibility; arignote never overwrites an input here.

    Returns
    -------
    tuple of Variable
        ``LU`` (``U`` and the strict lower part of ``L``) and the int32 pivots.
    """
    a = as_matrices(a, "lu_factor", square=True)
    return tuple(_batched(LUFactor(check_finite), a))


# -- pivots --------------------------------------------------------------------------------------


def _swap_order(pivots: np.ndarray) -> np.ndarray:
    """The row order ``r`` after applying LAPACK's swaps: ``A[r] = L U``."""
    order = np.arange(len(pivots))
    for i, j in enumerate(pivots):
        order[i], order[j] = order[j], order[i]
    return order


class PivotToPermutations(Op):
    """LAPACK pivots to a permutation, like PyTensor's ``pivot_to_permutation``.

    ``inverse=False``: ``p`` with ``A = (L U)[p]``; ``inverse=True``: the row order ``r``
    with ``A[r] = L U`` (the inverse permutation).
    """

    __props__ = ("inverse",)
    gufunc_signature = "(m)->(m)"

    def __init__(self, inverse: bool = False) -> None:
        self.inverse = bool(inverse)

    def make_node(self, pivots):
        pivots = as_tensor_variable(pivots)
        if pivots.type.ndim != 1 or pivots.type.dtype[:3] not in ("int", "uin"):
            raise TypeError(f"{self} takes a vector of integer pivots, got {pivots.type}")
        return Apply(self, [pivots], [tensor_type(pivots.type.dtype, pivots.type.shape)()])

    def perform(self, node, inputs, output_storage):
        order = _swap_order(inputs[0])
        result = order if self.inverse else np.argsort(order)
        output_storage[0][0] = result.astype(node.outputs[0].type.dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        return [input_shapes[0]]

    def L_op(self, inputs, outputs, output_grads):
        return [grad_undefined(self, 0, inputs[0], "pivots are integers")]


def pivot_to_permutation(p: Any, inverse: bool = False) -> Variable:
    """The permutation made by LAPACK pivots ``p`` (from :func:`lu_factor`).

    Parameters
    ----------
    p
        Pivots: row ``i`` was swapped with row ``p[i]``.
    inverse
        False: ``perm`` with ``A = (L U)[perm]``; True: the row order ``r`` with
        ``A[r] = L U``.
    """
    return PivotToPermutations(inverse)(p)


# -- lu_solve ------------------------------------------------------------------------------------


def lu_solve(
    LU_and_pivots: tuple[Any, Any],
    b: Any,
    trans: Any = False,
    b_ndim: int | None = None,
    check_finite: bool = True,
    overwrite_b: bool = False,
) -> Variable:
    """Solve ``a x = b`` (or ``a^T x = b``) from ``lu_factor(a)``, like ``scipy.linalg.lu_solve``.

    Built from two triangular solves and a row permutation, so it is differentiable in the
    packed factor and in ``b``.

    Parameters
    ----------
    LU_and_pivots
        ``(LU, piv)`` as returned by :func:`lu_factor`.
    b
        Right-hand sides ``(M,)`` or ``(M, K)``.
    trans
        0/False: ``a x = b``; 1/True: ``a^T x = b``; 2: ``a^H x = b``.
    b_ndim, check_finite, overwrite_b
        ``b_ndim`` as in :func:`solve`; the last two are accepted for SciPy compatibility.
    """
    packed, piv = LU_and_pivots
    packed, piv, b = as_tensor_variable(packed), as_tensor_variable(piv), as_tensor_variable(b)
    # both operands in the dtype scipy.linalg.lu_solve's result has (integers count as float64)
    dtype = linalg_dtype(packed.type.dtype, b.type.dtype, what="lu_solve")
    packed, b = as_matrices(packed, "lu_solve", dtype=dtype), cast(b, dtype)
    packed, b, vector = _right_hand_sides(packed, b, b_ndim, "lu_solve")
    trans = int(trans)
    if trans == 0:  # L U x = b[r]
        rows = b[PivotToPermutations(inverse=True)(piv)]
        y = SolveTriangular(lower=True, unit_diagonal=True)(packed, rows)
        return _finish(SolveTriangular(lower=False)(packed, y), vector)
    # (P L U)^T x = b: y = L^-T U^-T b, then x = P y = y[p]
    z = SolveTriangular(lower=False, trans=trans)(packed, b)
    y = SolveTriangular(lower=True, trans=trans, unit_diagonal=True)(packed, z)
    return _finish(y[PivotToPermutations(inverse=False)(piv)], vector)


__all__ = [
    "LU",
    "LUFactor",
    "PivotToPermutations",
    "lu",
    "lu_factor",
    "lu_solve",
    "pivot_to_permutation",
]
