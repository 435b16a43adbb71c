"""LU factorisation of tridiagonal matrices and solves with it (LAPACK ``gttrf`` / ``gttrs``).

A tridiagonal ``n x n`` matrix is held as its three diagonals: ``dl`` (below, ``n - 1``), ``d``
(``n``) and ``du`` (above, ``n - 1``). ``gttrf`` factors it with partial pivoting into
``dl`` (the multipliers of ``L``), ``d``, ``du``, ``du2`` (the three diagonals of ``U``, which
gains a second superdiagonal through the row swaps) and ``ipiv``; ``gttrs`` solves
``A x = b`` or ``A^T x = b`` from them in O(n) operations. LAPACK needs ``n >= 2``.

Derivatives: the solve is linear in ``b``, so its gradient with respect to ``b`` is the
transposed solve with the same factors (``gb = A^-T gx``), and so is its tangent. The packed
factors are not differentiable one by one (the row swaps depend on the values and ``U``'s
second superdiagonal is their by-product): gradients with respect to them, and to the
matrix through them, are reported as not implemented; differentiate ``solve(a, b)`` for those.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg

from arignote.graph.basic import Apply, Variable
from arignote.graph.grad_types import grad_not_implemented, grad_undefined, is_disconnected
from arignote.graph.op import Op
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.blockwise import Blockwise
from arignote.tensor.extra_ops import diagonal
from arignote.tensor.math import maximum
from arignote.tensor.type import tensor_type

_INDEX_DTYPE = "int32"  # LAPACK's pivots
_NOT_DIFFERENTIABLE = (
    "the packed tridiagonal LU factors (pivoted, with U's second superdiagonal a by-product of "
    "the row swaps) have no derivative here; differentiate solve(a, b) instead"
)


def _lapack_dtype(name: str, dtypes: list[str]) -> str:
    """The dtype LAPACK's ``name`` computes inputs of ``dtypes`` in (integers: float64)."""
    return scipy.linalg.get_lapack_funcs(name, [np.zeros((), d) for d in dtypes]).dtype.name


def _vectors(op: Op, values: tuple) -> list[Variable]:
    variables = [as_tensor_variable(v) for v in values]
    for v in variables:
        if v.type.ndim != 1:
            raise TypeError(f"{op} takes vectors (use the user function for stacks), got {v.type}")
    return variables


def _length(*candidates: tuple[Any, int]) -> int | None:
    """n from the first static length known (``(length, n - length)`` pairs)."""
    for length, less in candidates:
        if length is not None:
            return length + less
    return None


class LUFactorTridiagonal(Op):
    """``(dl, d, du, du2, ipiv)``: LAPACK's ``gttrf`` of the tridiagonal matrix of diagonals
    ``dl`` (below), ``d`` and ``du`` (above)."""

    __props__ = ()
    gufunc_signature = "(l),(n),(l)->(l),(n),(l),(k),(n)"

    def make_node(self, dl, d, du):
        dl, d, du = _vectors(self, (dl, d, du))
        dtype = _lapack_dtype("gttrf", [v.type.dtype for v in (dl, d, du)])
        n = _length((d.type.shape[0], 0), (dl.type.shape[0], 1), (du.type.shape[0], 1))
        short = None if n is None else n - 1
        outputs = [tensor_type(dtype, (short,))(), tensor_type(dtype, (n,))()]
        outputs += [tensor_type(dtype, (short,))()]
        outputs += [tensor_type(dtype, (None if n is None else max(n - 2, 0),))()]
        outputs += [tensor_type(_INDEX_DTYPE, (n,))()]
        return Apply(self, [dl, d, du], outputs)

    def perform(self, node, inputs, output_storage):
        dtype = node.outputs[0].type.dtype
        _check_lengths(self, *(len(v) for v in inputs))
        gttrf = scipy.linalg.get_lapack_funcs("gttrf", dtype=np.dtype(dtype))
        dl, d, du, du2, ipiv, _info = gttrf(*(np.array(v, dtype=dtype) for v in inputs))
        for cell, value, out in zip(output_storage, (dl, d, du, du2, ipiv), node.outputs):
            cell[0] = np.asarray(value, dtype=out.type.dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        (short,), (n,), _ = input_shapes
        return [(short,), (n,), (short,), (maximum(n - 2, 0),), (n,)]

    def L_op(self, inputs, outputs, output_grads):
        return [grad_not_implemented(self, k, x, _NOT_DIFFERENTIABLE) for k, x in enumerate(inputs)]


def _check_lengths(op: Op, dl: int, d: int, du: int) -> None:
    if d < 2 or dl != d - 1 or du != d - 1:
        raise ValueError(
            f"{op}: the diagonals of an n x n tridiagonal matrix (n >= 2) have lengths n - 1, "
            f"n, n - 1; got {dl}, {d}, {du}"
        )


class SolveLUFactorTridiagonal(Op):
    """``x`` with ``A x = b`` (``transposed``: ``A^T x = b``) from ``gttrf``'s factors of a
    tridiagonal ``A`` (LAPACK's ``gttrs``); ``b`` is a vector (``b_ndim=1``) or a matrix."""

    __props__ = ("b_ndim", "transposed")

    def __init__(self, b_ndim: int, transposed: bool = False) -> None:
        if b_ndim not in (1, 2):
            raise ValueError(f"b_ndim must be 1 or 2, got {b_ndim!r}")
        self.b_ndim = int(b_ndim)
        self.transposed = bool(transposed)
        rhs = "(n)" if self.b_ndim == 1 else "(n,m)"
        self.gufunc_signature = f"(l),(n),(l),(k),(n),{rhs}->{rhs}"

    def make_node(self, dl, d, du, du2, ipiv, b):
        dl, d, du, du2, ipiv = _vectors(self, (dl, d, du, du2, ipiv))
        b = as_tensor_variable(b)
        if b.type.ndim != self.b_ndim:
            raise TypeError(f"{self} expects b with {self.b_ndim} dimension(s), got {b.type}")
        if ipiv.type.dtype[:3] not in ("int", "uin"):
            raise TypeError(f"{self} takes integer pivots, got {ipiv.type}")
        dtype = _lapack_dtype("gttrs", [v.type.dtype for v in (dl, d, du, du2, b)])
        n = _length((d.type.shape[0], 0), (b.type.shape[0], 0), (dl.type.shape[0], 1))
        out = tensor_type(dtype, (n, *b.type.shape[1:]))()
        return Apply(self, [dl, d, du, du2, ipiv, b], [out])

    def perform(self, node, inputs, output_storage):
        dtype = node.outputs[0].type.dtype
        *factors, ipiv, b = inputs
        gttrs = scipy.linalg.get_lapack_funcs("gttrs", dtype=np.dtype(dtype))
        arrays = [np.asarray(v, dtype=dtype) for v in factors]
        n = len(arrays[1])
        _check_lengths(self, len(arrays[0]), n, len(arrays[2]))
        if len(arrays[3]) != max(n - 2, 0) or len(ipiv) != n or len(b) != n:
            raise ValueError(
                f"{self}: factors of an {n} x {n} matrix need du2 of {max(n - 2, 0)}, {n} "
                f"pivots and {n} rows of b; got {len(arrays[3])}, {len(ipiv)}, {len(b)}"
            )
        if np.size(b) == 0:  # no right-hand side (LAPACK is not called with none)
            output_storage[0][0] = np.zeros(np.shape(b), dtype=dtype)
            return
        x, info = gttrs(
            *arrays,
            np.asarray(ipiv, np.int32),
            np.array(b, dtype=dtype),
            trans="T" if self.transposed else "N",
        )
        if info < 0:
            raise ValueError(f"{self}: LAPACK gttrs refused argument {-info}")
        output_storage[0][0] = np.asarray(x, dtype=dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        return [input_shapes[5]]

    def _same_factors(self, inputs, b) -> Variable:
        """The solve of ``b`` with the same factors, transposed the other way."""
        return SolveLUFactorTridiagonal(self.b_ndim, not self.transposed)(*inputs[:5], b)

    def L_op(self, inputs, outputs, output_grads):
        (gx,) = output_grads
        grads = [
            grad_not_implemented(self, k, x, _NOT_DIFFERENTIABLE) for k, x in enumerate(inputs[:4])
        ]
        grads.append(grad_undefined(self, 4, inputs[4], "the pivots are integers"))
        # x = A^-1 b is linear in b: gb = A^-T gx (and A^-1 gx for the transposed solve)
        grads.append(self._same_factors(inputs, gx))
        return grads

    def R_op(self, inputs, eval_points):
        if any(ev is not None for ev in eval_points[:5]):
            return [None]  # no tangent through the packed factors
        if eval_points[5] is None or is_disconnected(eval_points[5]):
            return [None]
        return [SolveLUFactorTridiagonal(self.b_ndim, self.transposed)(*inputs[:5], eval_points[5])]


def tridiagonal_lu_factor(a: Any) -> tuple:
    """LAPACK's ``gttrf`` of the tridiagonal matrices ``a`` (``(..., n, n)``, ``n >= 2``): the
    diagonals of ``a`` are factored, the rest of ``a`` is ignored.

    Parameters
    ----------
    a
        Square matrices, read only on their three central diagonals.

    Returns
    -------
    tuple of Variable
        ``dl, d, du, du2, ipiv``: the factors for :func:`tridiagonal_lu_solve`.
    """
    a = as_tensor_variable(a)
    if a.type.ndim < 2:
        raise TypeError(f"tridiagonal_lu_factor takes matrices, got {a.type}")
    diagonals = [diagonal(a, offset=k, axis1=-2, axis2=-1) for k in (-1, 0, 1)]
    if a.type.ndim == 2:
        return tuple(LUFactorTridiagonal()(*diagonals))
    op = LUFactorTridiagonal()
    return tuple(Blockwise(op, op.gufunc_signature)(*diagonals))


def tridiagonal_lu_solve(
    a_diagonals: tuple, b: Any, *, b_ndim: int, transposed: bool = False
) -> Variable:
    """Solve ``A x = b`` (``transposed``: ``A^T x = b``) from ``tridiagonal_lu_factor(A)``.

    Parameters
    ----------
    a_diagonals
        ``(dl, d, du, du2, ipiv)`` as returned by :func:`tridiagonal_lu_factor`.
    b
        Right-hand sides: vectors (``b_ndim=1``) or matrices (``b_ndim=2``), in stacks like
        the factors.
    b_ndim
        1 or 2: the dimensions of one right-hand side.
    transposed
        Solve with the transposed matrix.
    """
    op = SolveLUFactorTridiagonal(b_ndim=b_ndim, transposed=transposed)
    inputs = [as_tensor_variable(v) for v in (*a_diagonals, b)]
    core = [1, 1, 1, 1, 1, b_ndim]
    if all(v.type.ndim == c for v, c in zip(inputs, core, strict=True)):
        return op(*inputs)
    return Blockwise(op, op.gufunc_signature)(*inputs)


__all__ = [
    "LUFactorTridiagonal",
    "SolveLUFactorTridiagonal",
    "tridiagonal_lu_factor",
    "tridiagonal_lu_solve",
]
