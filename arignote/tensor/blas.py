"""BLAS-backed products: ``Gemm``, ``Gemv`` and ``Ger`` (through ``scipy.linalg.blas``).

They fold the scaling and addition around a product into one call: ``beta * z + alpha *
dot(x, y)`` is one ``gemm``. The "specialize" rewrites (``tensor/rewriting/blas.py``) introduce
them; the "inplace" phase makes them overwrite ``z`` when it is no longer needed.

The arrays are handed to the Fortran routines without copies: a C-ordered matrix is the
transpose of a Fortran-ordered one, so ``z = x @ y`` is computed as ``z.T = y.T @ x.T``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.linalg import blas as scipy_blas

from arignote.graph.basic import Apply, Variable
from arignote.graph.op import Op
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.elemwise import DimShuffle
from arignote.tensor.products import Dot, outer
from arignote.tensor.reduction import sum as tsum
from arignote.tensor.type import tensor_type

__all__ = ["Gemm", "Gemv", "Ger", "gemm", "gemm_inplace", "gemv", "gemv_inplace", "ger"]

BLAS_DTYPES = ("float32", "float64", "complex64", "complex128")
_dot = Dot()


def _check_operands(op: Op, operands: dict[str, Variable], ndims: dict[str, int]) -> str:
    """The common dtype of the operands; TypeError naming the op and the culprit otherwise."""
    dtypes = {v.type.dtype for v in operands.values()}
    if len(dtypes) != 1 or next(iter(dtypes)) not in BLAS_DTYPES:
        described = ", ".join(f"{k}: {v.type}" for k, v in operands.items())
        raise TypeError(f"{op} needs operands of one BLAS dtype {BLAS_DTYPES}, got {described}")
    for name, ndim in ndims.items():
        if operands[name].type.ndim != ndim:
            raise TypeError(f"{op}: {name} must have {ndim} dimensions, got {operands[name].type}")
    return dtypes.pop()


def _same(*lengths: int | None) -> int | None:
    """The static length several dimensions must share (ValueError when they disagree)."""
    known = {n for n in lengths if n is not None}
    if len(known) > 1:
        raise ValueError(f"dimensions of lengths {sorted(known)} must be equal")
    return known.pop() if known else None


def _finite(*arrays: np.ndarray) -> bool:
    return all(bool(np.isfinite(a).all()) for a in arrays)


def _scale_terms(alpha, product, beta, target) -> Any:
    """NumPy's ``beta * target + alpha * product`` (used where BLAS would skip a 0 * nan)."""
    return beta * target + alpha * product


class _BlasOp(Op):
    """Shared ``__init__`` and printing: ``inplace`` overwrites input 0."""

    __props__ = ("inplace",)

    def __init__(self, inplace: bool = False) -> None:
        self.inplace = bool(inplace)
        self.destroy_map = {0: [0]} if self.inplace else {}

    def __str__(self) -> str:
        return f"{type(self).__name__}{{{'inplace' if self.inplace else 'no_inplace'}}}"


def _mismatch(op: Op, form: str, left: tuple, right: tuple, added: tuple) -> str:
    """The error of a BLAS node whose shapes do not fit, in the terms of the operations the user
    wrote: the rewrite fused a matrix product with the addition or subtraction around it."""
    what = f"{op}, the rewritten form of `{form}` (a product added to or subtracted from a term)"
    if left[-1] != right[0]:
        return (
            f"{what}: the inner dimensions of the matrix product of shapes {left} and {right} "
            "do not match"
        )
    product = left[:-1] + right[1:]
    return (
        f"{what}: the product has shape {product} and the other term of the addition has "
        f"shape {added}: they do not match (no broadcasting there)"
    )


class Gemm(_BlasOp):
    """``beta * z + alpha * dot(x, y)`` for matrices; alpha and beta are 0-d tensors."""

    def make_node(self, z, alpha, x, y, beta) -> Apply:
        z, alpha, x, y, beta = map(as_tensor_variable, (z, alpha, x, y, beta))
        operands = {"z": z, "alpha": alpha, "x": x, "y": y, "beta": beta}
        dtype = _check_operands(self, operands, {"z": 2, "alpha": 0, "x": 2, "y": 2, "beta": 0})
        try:
            rows = _same(z.type.shape[0], x.type.shape[0])
            _same(x.type.shape[1], y.type.shape[0])
            cols = _same(z.type.shape[1], y.type.shape[1])
        except ValueError as err:
            raise ValueError(f"{self}: shapes {z.type}, {x.type}, {y.type}: {err}") from err
        shape = z.type.shape if self.inplace else (rows, cols)
        return Apply(self, [z, alpha, x, y, beta], [tensor_type(dtype, shape)()])

    def perform(self, node, inputs, output_storage):
        z, alpha, x, y, beta = inputs
        if x.shape[1] != y.shape[0] or z.shape != (x.shape[0], y.shape[1]):
            raise ValueError(_mismatch(self, "z + alpha * (x @ y)", x.shape, y.shape, z.shape))
        alpha, beta = alpha[()], beta[()]
        if 0 in x.shape or 0 in y.shape or (not (alpha and beta) and not _finite(x, y, z)):
            result = _scale_terms(alpha, x @ y, beta, z)
        elif z.flags.c_contiguous:
            fn = scipy_blas.get_blas_funcs("gemm", (z,))
            result = fn(alpha, y.T, x.T, beta, z.T, overwrite_c=self.inplace).T
        else:
            fn = scipy_blas.get_blas_funcs("gemm", (z,))
            result = fn(alpha, x, y, beta, z, overwrite_c=self.inplace)
        output_storage[0][0] = np.asarray(result, dtype=node.outputs[0].type.dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        _, _, xs, ys, _ = input_shapes
        return [(xs[0], ys[1])]

    def grad(self, inputs, output_grads):
        z, alpha, x, y, beta = inputs
        (g,) = output_grads
        # out = beta z + alpha x.y: linear in z, x, y; bilinear with the scalars
        return [
            beta * g,
            tsum(g * _dot(x, y)),
            alpha * _dot(g, y.T),
            alpha * _dot(x.T, g),
            tsum(g * z),
        ]

    def R_op(self, inputs, eval_points):
        z, alpha, x, y, beta = inputs
        ez, ea, ex, ey, eb = eval_points
        terms = [
            beta * ez if ez is not None else None,
            ea * _dot(x, y) if ea is not None else None,
            alpha * _dot(ex, y) if ex is not None else None,
            alpha * _dot(x, ey) if ey is not None else None,
            eb * z if eb is not None else None,
        ]
        return [_total(terms)]


class Gemv(_BlasOp):
    """``beta * y + alpha * dot(a, x)`` for a matrix ``a`` and vectors ``x``, ``y``."""

    def make_node(self, y, alpha, a, x, beta) -> Apply:
        y, alpha, a, x, beta = map(as_tensor_variable, (y, alpha, a, x, beta))
        operands = {"y": y, "alpha": alpha, "a": a, "x": x, "beta": beta}
        dtype = _check_operands(self, operands, {"y": 1, "alpha": 0, "a": 2, "x": 1, "beta": 0})
        try:
            rows = _same(y.type.shape[0], a.type.shape[0])
            _same(a.type.shape[1], x.type.shape[0])
        except ValueError as err:
            raise ValueError(f"{self}: shapes {y.type}, {a.type}, {x.type}: {err}") from err
        shape = y.type.shape if self.inplace else (rows,)
        return Apply(self, [y, alpha, a, x, beta], [tensor_type(dtype, shape)()])

    def perform(self, node, inputs, output_storage):
        y, alpha, a, x, beta = inputs
        if a.shape[1] != x.shape[0] or y.shape != (a.shape[0],):
            raise ValueError(_mismatch(self, "y + alpha * (A @ x)", a.shape, x.shape, y.shape))
        alpha, beta = alpha[()], beta[()]
        if 0 in a.shape or (not (alpha and beta) and not _finite(y, a, x)):
            result = _scale_terms(alpha, a @ x, beta, y)
        else:
            fn = scipy_blas.get_blas_funcs("gemv", (y,))
            if a.flags.c_contiguous:  # a.T is Fortran-ordered: ask for its transpose
                result = fn(alpha, a.T, x, beta, y, trans=1, overwrite_y=self.inplace)
            else:
                result = fn(alpha, a, x, beta, y, overwrite_y=self.inplace)
        output_storage[0][0] = np.asarray(result, dtype=node.outputs[0].type.dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        return [(input_shapes[2][0],)]

    def grad(self, inputs, output_grads):
        y, alpha, a, x, beta = inputs
        (g,) = output_grads
        # out = beta y + alpha a.x
        return [
            beta * g,
            tsum(g * _dot(a, x)),
            alpha * outer(g, x),
            alpha * _dot(a.T, g),
            tsum(g * y),
        ]

    def R_op(self, inputs, eval_points):
        y, alpha, a, x, beta = inputs
        ey, ealpha, ea, ex, ebeta = eval_points
        terms = [
            beta * ey if ey is not None else None,
            ealpha * _dot(a, x) if ealpha is not None else None,
            alpha * _dot(ea, x) if ea is not None else None,
            alpha * _dot(a, ex) if ex is not None else None,
            ebeta * y if ebeta is not None else None,
        ]
        return [_total(terms)]


class Ger(_BlasOp):
    """``a + alpha * outer(x, y)``: a rank-one update of the matrix ``a``."""

    def make_node(self, a, alpha, x, y) -> Apply:
        a, alpha, x, y = map(as_tensor_variable, (a, alpha, x, y))
        operands = {"a": a, "alpha": alpha, "x": x, "y": y}
        dtype = _check_operands(self, operands, {"a": 2, "alpha": 0, "x": 1, "y": 1})
        try:
            rows = _same(a.type.shape[0], x.type.shape[0])
            cols = _same(a.type.shape[1], y.type.shape[0])
        except ValueError as err:
            raise ValueError(f"{self}: shapes {a.type}, {x.type}, {y.type}: {err}") from err
        shape = a.type.shape if self.inplace else (rows, cols)
        return Apply(self, [a, alpha, x, y], [tensor_type(dtype, shape)()])

    def perform(self, node, inputs, output_storage):
        a, alpha, x, y = inputs
        if a.shape != (x.shape[0], y.shape[0]):
            raise ValueError(
                f"{self}, the rewritten form of `A + alpha * outer(x, y)` (an addition of an "
                f"outer product written in the graph): outer(x, y) has shape "
                f"{(x.shape[0], y.shape[0])} and A has shape {a.shape}: they do not match"
            )
        alpha = alpha[()]
        if 0 in a.shape or (not alpha and not _finite(x, y)):
            result = a + alpha * np.outer(x, y)
        elif a.flags.c_contiguous:  # a.T + alpha outer(y, x) is the same update, transposed
            fn = scipy_blas.get_blas_funcs("ger", (a,))
            result = fn(alpha, y, x, a=a.T, overwrite_a=self.inplace).T
        else:
            fn = scipy_blas.get_blas_funcs("ger", (a,))
            result = fn(alpha, x, y, a=a, overwrite_a=self.inplace)
        output_storage[0][0] = np.asarray(result, dtype=node.outputs[0].type.dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        return [(input_shapes[2][0], input_shapes[3][0])]

    def grad(self, inputs, output_grads):
        _, alpha, x, y = inputs
        (g,) = output_grads
        # out = a + alpha x y^T: d/dx = alpha g.y, d/dy = alpha g^T.x, d/dalpha = x^T g y
        return [g, _dot(_dot(x, g), y), alpha * _dot(g, y), alpha * _dot(g.T, x)]

    def R_op(self, inputs, eval_points):
        _, alpha, x, y = inputs
        ea, ealpha, ex, ey = eval_points
        terms = [
            ea,
            ealpha * outer(x, y) if ealpha is not None else None,
            alpha * outer(ex, y) if ex is not None else None,
            alpha * outer(x, ey) if ey is not None else None,
        ]
        return [_total(terms)]


def _total(terms: list) -> Variable | None:
    present = [t for t in terms if t is not None]
    if not present:
        return None
    result = present[0]
    for term in present[1:]:
        result = result + term
    return result


gemm = Gemm(inplace=False)
gemm_inplace = Gemm(inplace=True)
gemv = Gemv(inplace=False)
gemv_inplace = Gemv(inplace=True)
ger = Ger(inplace=False)
ger_inplace = Ger(inplace=True)


def transpose(x: Variable) -> Variable:
    """The transposed view of a matrix."""
    return DimShuffle(2, (1, 0))(x)
