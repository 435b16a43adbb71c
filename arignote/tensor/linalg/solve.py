"""Linear systems: ``solve``, ``solve_triangular`` and ``cho_solve``.

Each op solves ``op(A) X = B`` for stacks of square matrices ``A`` (..., M, M) and right-hand
sides ``B`` (..., M, K) of the same number of dimensions; the user functions turn vector
right-hand sides into one-column matrices and pad the batch dimensions, as
``numpy.linalg.solve`` does. The derivatives all follow from ``d(A^-1) = -A^-1 dA A^-1``:
with ``X = A^-1 B``, ``gB = A^-T gX`` and ``gA = -gB X^T``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg
import scipy.linalg.blas

from arignote.graph.basic import Apply, Variable
from arignote.graph.op import Op
from arignote.scalar.basic import upcast
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.elemwise import DimShuffle, broadcast_static_shape
from arignote.tensor.linalg.basic import (
    check_inexact,
    check_square,
    drop_last,
    is_complex,
    linalg_dtype,
    matrix_column,
    mH,
    mT,
    symmetric_from_triangle,
    triangle,
)
from arignote.tensor.math import cast
from arignote.tensor.products import conj_if_complex, matmul, sum_to_type
from arignote.tensor.type import tensor_type


class SolveBase(Op):
    """``X`` solving ``op(A) X = B``: common type checks, shapes and batch handling.

    Subclasses define ``_solve(a, b)`` (NumPy/SciPy on values whose batch dimensions
    broadcast), ``_adjoint_solve(a, gx)`` (``op(A)^-H gX``), ``_matrix_grad(a, x, gb)`` (the
    gradient with respect to ``A`` given ``gB``) and ``_tangent_matrix(ea)`` (the tangent of
    ``op(A)`` for a tangent ``ea`` of ``A``).
    """

    def make_node(self, a, b):
        a, b = as_tensor_variable(a), as_tensor_variable(b)
        check_inexact(self, a, b)
        if a.type.ndim < 2 or a.type.ndim != b.type.ndim:
            raise TypeError(
                f"{self} takes matrices A and B of the same number (>= 2) of dimensions, got "
                f"{a.type} and {b.type}"
            )
        check_square(a, self)
        rows_a, rows_b = a.type.shape[-1], b.type.shape[-2]
        if rows_a is not None and rows_b is not None and rows_a != rows_b:
            raise ValueError(f"{self}: A {a.type} and B {b.type} have incompatible shapes")
        batch = broadcast_static_shape([a.type.shape[:-2], b.type.shape[:-2]], context=self)
        rows = rows_b if rows_b is not None else rows_a
        shape = (*batch, rows, b.type.shape[-1])
        return Apply(self, [a, b], [tensor_type(upcast(a.type.dtype, b.type.dtype), shape)()])

    def perform(self, node, inputs, output_storage):
        a, b = inputs
        dtype = node.outputs[0].type.dtype
        if a.shape[-1] != a.shape[-2] or a.shape[-1] != b.shape[-2]:
            raise ValueError(f"{self}: A of shape {a.shape} and B of shape {b.shape} do not fit")
        if a.size == 0 or b.size == 0:  # SciPy refuses some empty systems: X is empty too
            shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + b.shape[-2:]
            output_storage[0][0] = np.zeros(shape, dtype=dtype)
            return
        for dim in range(a.ndim - 2):
            sizes = {
                v.shape[dim] for v, var in zip(inputs, node.inputs) if var.type.shape[dim] != 1
            }
            if len(sizes) > 1:
                raise ValueError(
                    f"{self}: batch dimensions of A {a.shape} and B {b.shape} do not match"
                )
        x = self._solve(a, b)
        output_storage[0][0] = np.asarray(x, dtype=dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        a, (a_shape, b_shape) = node.inputs[0], input_shapes
        batch = []
        for d, static in enumerate(node.outputs[0].type.shape[:-2]):
            if static is not None:
                batch.append(static)
            else:
                batch.append(a_shape[d] if a.type.shape[d] != 1 else b_shape[d])
        return [(*batch, b_shape[-2], b_shape[-1])]

    def L_op(self, inputs, outputs, output_grads):
        (a, b), (x,), (gx,) = inputs, outputs, output_grads
        gb_full = self._adjoint_solve(a, gx)  # gB = op(A)^-H gX
        ga_full = self._matrix_grad(a, x, gb_full)
        return [sum_to_type(ga_full, a), sum_to_type(gb_full, b)]

    def R_op(self, inputs, eval_points):
        (a, b), (ea, eb) = inputs, eval_points
        if ea is None and eb is None:
            return [None]
        x = self(a, b)
        rhs = eb if eb is not None else None
        if ea is not None:
            change = matmul(self._tangent_matrix(ea), x)  # dX = op(A)^-1 (dB - d op(A) X)
            rhs = -change if rhs is None else rhs - change
        return [self(a, rhs)]


class Solve(SolveBase):
    """``X = A^-1 B`` for general (``"gen"``), symmetric (``"sym"``), Hermitian (``"her"``) or
    positive-definite (``"pos"``) matrices ``A``.

    ``assume_a`` only picks the LAPACK routine: the matrices it receives are full (for the
    structured kinds, :func:`solve` builds them from the triangle the user designates).
    """

    __props__ = ("assume_a",)

    def __init__(self, assume_a: str = "gen") -> None:
        if assume_a not in _ASSUME_A.values():
            raise ValueError(
                f"Solve: assume_a must be one of {sorted(_ASSUME_A)}, got {assume_a!r}"
            )
        self.assume_a = assume_a

    def _solve(self, a, b):
        if self.assume_a == "gen":
            return np.linalg.solve(a, b)
        return scipy.linalg.solve(a, b, assume_a=self.assume_a)

    def _adjoint_solve(self, a, gx):
        return self(mH(a), gx)

    def _matrix_grad(self, a, x, gb):
        return -matmul(gb, mH(x))

    def _tangent_matrix(self, ea):
        return ea


_ASSUME_A = {
    "gen": "gen",
    "general": "gen",
    "sym": "sym",
    "symmetric": "sym",
    "her": "her",
    "hermitian": "her",
    "pos": "pos",
    "positive definite": "pos",
}


def _right_hand_sides(a: Variable, b: Variable, b_ndim: int | None, what: str):
    """``(a, b, vector)``: ``b`` as matrices, both padded to the same number of dimensions."""
    if b_ndim is None:
        b_ndim = 1 if b.type.ndim == 1 else 2  # NumPy 2's rule
    if b_ndim not in (1, 2) or b.type.ndim < b_ndim:
        raise ValueError(f"{what}: b_ndim must be 1 or 2 and at most b's ndim, got {b_ndim}")
    vector = b_ndim == 1
    if vector:
        b = matrix_column(b)
    ndim = max(a.type.ndim, b.type.ndim)
    a = _pad(a, ndim)
    b = _pad(b, ndim)
    return a, b, vector


def _pad(x: Variable, ndim: int) -> Variable:
    missing = ndim - x.type.ndim
    if missing == 0:
        return x
    return DimShuffle(x.type.ndim, ["x"] * missing + list(range(x.type.ndim)))(x)


def _solve_inputs(a: Any, b: Any, what: str) -> tuple[Variable, Variable]:
    a, b = as_tensor_variable(a), as_tensor_variable(b)
    if a.type.ndim < 2:
        raise ValueError(f"{what} needs A with at least 2 dimensions, got {a.type}")
    if b.type.ndim < 1:
        raise ValueError(f"{what} needs B with at least 1 dimension, got {b.type}")
    check_square(a, what)
    dtype = linalg_dtype(a.type.dtype, b.type.dtype, what=what)
    return cast(a, dtype), cast(b, dtype)


def _finish(x: Variable, vector: bool) -> Variable:
    return drop_last(x) if vector else x


def solve(
    a: Any,
    b: Any,
    assume_a: str = "gen",
    lower: bool = False,
    transposed: bool = False,
    b_ndim: int | None = None,
    *,
    check_finite: bool = True,
    overwrite_a: bool = False,
    overwrite_b: bool = False,
) -> Variable:
    """Solve ``a x = b`` for ``x``, like ``numpy.linalg.solve`` / ``scipy.linalg.solve``.

    Parameters
    ----------
    a
        Square matrices ``(..., M, M)``.
    b
        Right-hand sides: a vector ``(M,)`` (or stack of vectors when ``b_ndim=1``), or
        matrices ``(..., M, K)``. Batch dimensions broadcast against ``a``'s.
    assume_a
        ``"gen"`` (general), ``"sym"`` (symmetric), ``"her"`` (Hermitian) or ``"pos"``
        (positive definite). For the structured kinds only the ``lower`` (or upper) triangle
        of ``a`` is read, as in SciPy.
    lower
        Which triangle the structured kinds read.
    transposed
        Solve ``a^T x = b`` instead.
    b_ndim
        1 or 2: whether ``b``'s core is a vector or a matrix (default: NumPy's rule, a vector
        only when ``b`` is 1-d).
    check_finite, overwrite_a, overwrite_b
        SciPy's and PyTensor's keywords, accepted: results are never written into the inputs,
        and non-finite entries give the values LAPACK computes from them.

    Returns
    -------
    Variable
        ``x``, shaped like the broadcast ``b``.
    """
    if assume_a not in _ASSUME_A:
        raise ValueError(f"solve: assume_a must be one of {sorted(_ASSUME_A)}, got {assume_a!r}")
    a, b = _solve_inputs(a, b, "solve")
    kind = _ASSUME_A[assume_a]
    if kind != "gen":
        a = symmetric_from_triangle(a, lower, hermitian=kind != "sym")
    elif transposed:
        a = mT(a)
    a, b, vector = _right_hand_sides(a, b, b_ndim, "solve")
    return _finish(Solve(kind)(a, b), vector)


class SolveTriangular(SolveBase):
    """``X = op(T)^-1 B`` for the triangular part ``T`` of ``A``, as ``scipy.linalg``'s.

    Only the ``lower`` (or upper) triangle of ``A`` is read, without its diagonal when
    ``unit_diagonal`` (which is then taken as ones); ``trans`` is 0 (``T``), 1 (``T^T``) or
    2 (``T^H``).
    """

    __props__ = ("lower", "trans", "unit_diagonal")

    def __init__(self, lower: bool = False, trans: int = 0, unit_diagonal: bool = False) -> None:
        self.lower = bool(lower)
        self.trans = _normalize_trans(trans)
        self.unit_diagonal = bool(unit_diagonal)

    def _solve(self, a, b):
        # no finiteness check: inf/nan propagate (lu_solve's second solve reads the first's)
        try:
            return scipy.linalg.solve_triangular(
                a,
                b,
                trans=self.trans,
                lower=self.lower,
                unit_diagonal=self.unit_diagonal,
                check_finite=False,
            )
        except np.linalg.LinAlgError:  # a 0 on the diagonal: LAPACK's trtrs refuses
            return self._substitute(a, b)

    def _substitute(self, a, b):
        """``op(T)^-1 B`` by BLAS ``trsm``, which does not check for singularity: a zero on
        the diagonal gives inf/nan, as LAPACK's getrs (``scipy.linalg.lu_solve``, built from
        these solves) and PyTensor's solve_triangular give."""
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        a, b = np.broadcast_to(a, batch + a.shape[-2:]), np.broadcast_to(b, batch + b.shape[-2:])
        trsm = scipy.linalg.blas.get_blas_funcs("trsm", (a, b))
        x = np.empty(b.shape, dtype=trsm.dtype)
        with np.errstate(all="ignore"):
            for i in np.ndindex(batch):
                x[i] = trsm(
                    1.0, a[i], b[i], lower=self.lower, trans_a=self.trans, diag=self.unit_diagonal
                )
        return x

    def _op(self, t: Variable) -> Variable:
        """op(T): T, T^T or T^H by ``trans``."""
        return (t, mT(t), mH(t))[self.trans]

    def _adjoint_solve(self, a, gx):
        # op(T)^-H gX: T^-H (trans 2) for T, T^-1 for T^H, conj(T^-1 conj(gX)) for T^T
        if self.trans == 1 and is_complex(a):
            plain = SolveTriangular(self.lower, 0, self.unit_diagonal)
            return conj_if_complex(plain(a, conj_if_complex(gx)))
        flipped = SolveTriangular(self.lower, 2 if self.trans == 0 else 0, self.unit_diagonal)
        return flipped(a, gx)

    def _matrix_grad(self, a, x, gb):
        g_op_t = -matmul(gb, mH(x))  # gradient with respect to op(T)
        return triangle(self._op(g_op_t), self.lower, 1 if self.unit_diagonal else 0)

    def _tangent_matrix(self, ea):
        return self._op(triangle(ea, self.lower, 1 if self.unit_diagonal else 0))


def _normalize_trans(trans: Any) -> int:
    table = {0: 0, 1: 1, 2: 2, "N": 0, "T": 1, "C": 2}
    if trans not in table:
        raise ValueError(f"trans must be 0, 1, 2, 'N', 'T' or 'C', got {trans!r}")
    return table[trans]


def solve_triangular(
    a: Any,
    b: Any,
    trans: int | str = 0,
    lower: bool = False,
    unit_diagonal: bool = False,
    b_ndim: int | None = None,
    *,
    check_finite: bool = True,
    overwrite_b: bool = False,
) -> Variable:
    """Solve ``op(a) x = b`` for triangular ``a``, like ``scipy.linalg.solve_triangular``.

    Parameters
    ----------
    a
        Square matrices ``(..., M, M)``; only their ``lower`` (default: upper) triangle is read.
    b
        Right-hand sides ``(M,)`` or ``(..., M, K)`` (see :func:`solve` for ``b_ndim``).
    trans
        0 or ``"N"``: ``a x = b``; 1 or ``"T"``: ``a^T x = b``; 2 or ``"C"``: ``a^H x = b``.
    lower
        Whether ``a`` is lower triangular.
    unit_diagonal
        Take the diagonal of ``a`` as ones, without reading it.
    check_finite, overwrite_b
        SciPy's and PyTensor's keywords, accepted (see :func:`solve`).

    Returns
    -------
    Variable
        ``x``, shaped like the broadcast ``b``.
    """
    a, b = _solve_inputs(a, b, "solve_triangular")
    a, b, vector = _right_hand_sides(a, b, b_ndim, "solve_triangular")
    return _finish(SolveTriangular(lower, trans, unit_diagonal)(a, b), vector)


class ChoSolve(SolveBase):
    """``X = (C C^T)^-1 B`` (``lower``) or ``(C^T C)^-1 B`` from a Cholesky factor ``C``.

    Only the designated triangle of ``C`` is read, as ``scipy.linalg.cho_solve`` does.
    """

    __props__ = ("lower",)

    def __init__(self, lower: bool = False) -> None:
        self.lower = bool(lower)

    def _solve(self, a, b):
        return scipy.linalg.cho_solve((a, self.lower), b)

    def _adjoint_solve(self, a, gx):
        return self(a, gx)  # the system matrix is Hermitian

    def _matrix_grad(self, a, x, gb):
        # With S = C C^H (lower) and gS = -gB X^H: dS = dC C^H + C dC^H, so
        # gC = tril((gS + gS^H) C); for S = C^H C (upper), gC = triu(C (gS + gS^H)).
        g_s = -matmul(gb, mH(x))
        g_sym = g_s + mH(g_s)
        factor = triangle(a, self.lower)
        g_c = matmul(g_sym, factor) if self.lower else matmul(factor, g_sym)
        return triangle(g_c, self.lower)

    def R_op(self, inputs, eval_points):
        (c, b), (ec, eb) = inputs, eval_points
        if ec is None and eb is None:
            return [None]
        x = self(c, b)
        rhs = eb
        if ec is not None:
            factor, d_factor = triangle(c, self.lower), triangle(ec, self.lower)
            if self.lower:
                d_s = matmul(d_factor, mH(factor)) + matmul(factor, mH(d_factor))
            else:
                d_s = matmul(mH(d_factor), factor) + matmul(mH(factor), d_factor)
            change = matmul(d_s, x)
            rhs = -change if rhs is None else rhs - change
        return [self(c, rhs)]


def cho_solve(c_and_lower: tuple[Any, bool], b: Any, b_ndim: int | None = None) -> Variable:
    """Solve ``a x = b`` given the Cholesky factor of ``a``, like ``scipy.linalg.cho_solve``.

    Parameters
    ----------
    c_and_lower
        ``(c, lower)``: the factor (as returned by :func:`cholesky`) and whether it is lower
        triangular (``a = c c^T``) or upper (``a = c^T c``). Only that triangle is read.
    b
        Right-hand sides ``(M,)`` or ``(..., M, K)`` (see :func:`solve` for ``b_ndim``).

    Returns
    -------
    Variable
        ``x``, shaped like the broadcast ``b``.
    """
    try:
        c, lower = c_and_lower
    except (TypeError, ValueError) as err:
        raise TypeError("cho_solve takes (c, lower) as first argument") from err
    c, b = _solve_inputs(c, b, "cho_solve")
    c, b, vector = _right_hand_sides(c, b, b_ndim, "cho_solve")
    return _finish(ChoSolve(bool(lower))(c, b), vector)


__all__ = [
    "ChoSolve",
    "Solve",
    "SolveTriangular",
    "cho_solve",
    "solve",
    "solve_triangular",
]
