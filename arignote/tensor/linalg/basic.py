"""Pieces shared by the linear-algebra ops: dtypes, input checks, triangular parts, identities.

Every op of the package works on stacks of matrices: the last two dimensions are the matrices,
the leading ones are batch dimensions (as in ``numpy.linalg``). The user functions convert
their inputs to the dtype NumPy computes in (:func:`linalg_dtype`), so the ops only ever see
floating-point or complex tensors.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arignote.graph.basic import Apply, Variable
from arignote.graph.op import Op
from arignote.graph.utils import MethodNotDefined
from arignote.scalar.basic import upcast
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.extra_ops import tril, triu
from arignote.tensor.math import cast, ones_like, real
from arignote.tensor.products import Einsum, adjoint, matrix_transpose
from arignote.tensor.type import tensor_type

INEXACT_DTYPES = ("float32", "float64", "complex64", "complex128")
COMPLEX_DTYPES = ("complex64", "complex128")

mT = matrix_transpose
mH = adjoint


def is_complex(x: Variable) -> bool:
    return x.type.dtype in COMPLEX_DTYPES


def linalg_dtype(*dtypes: str, what: str = "linalg") -> str:
    """The dtype NumPy's linear algebra computes in for inputs of ``dtypes``.

    Single and double precision (real or complex) are kept; booleans and integers count as
    float64 (so float32 with an integer gives float64); float16 is refused, as
    ``numpy.linalg`` refuses it.
    """
    for dtype in dtypes:
        if dtype == "float16":
            raise TypeError(f"{what}: float16 is not supported by linear algebra (as in NumPy)")
    # numpy.linalg reads every non-float operand as float64 before finding the common type
    return upcast(*[d if d in INEXACT_DTYPES else "float64" for d in dtypes])


def real_dtype(dtype: str) -> str:
    """The real dtype of the same precision (``complex64`` -> ``float32``)."""
    return {"complex64": "float32", "complex128": "float64"}.get(dtype, dtype)


def as_matrices(x: Any, what: str, square: bool = False, dtype: str | None = None) -> Variable:
    """``x`` as a tensor of at least two dimensions, cast to its linalg dtype (or ``dtype``).

    Raises ValueError when it has fewer dimensions, or (``square``) when its last two static
    lengths differ.
    """
    x = as_tensor_variable(x)
    if x.type.ndim < 2:
        raise ValueError(f"{what} needs an array of at least 2 dimensions, got {x.type}")
    if square:
        check_square(x, what)
    return cast(x, dtype or linalg_dtype(x.type.dtype, what=what))


def check_square(x: Variable, what: Any) -> None:
    """Raise ``LinAlgError`` (NumPy's, a ValueError) when the static lengths of ``x``'s last two
    dimensions differ."""
    rows, cols = x.type.shape[-2:]
    if rows is not None and cols is not None and rows != cols:
        message = f"{what} needs square matrices, got {x.type} (last 2 dimensions differ)"
        raise np.linalg.LinAlgError(message)


def check_inexact(op: Op, *inputs: Variable) -> None:
    """The ops take only floating-point or complex tensors (the user functions cast)."""
    for x in inputs:
        if x.type.dtype not in INEXACT_DTYPES:
            raise TypeError(f"{op} takes float32/64 or complex tensors, got {x.type}")


def square_input(op: Op, x: Any) -> Variable:
    """The single input of ``op``, checked to be a stack of square float/complex matrices."""
    x = as_tensor_variable(x)
    check_inexact(op, x)
    if x.type.ndim < 2:
        raise ValueError(f"{op} needs an array of at least 2 dimensions, got {x.type}")
    check_square(x, op)
    return x


def matrix_input(op: Op, x: Any) -> Variable:
    """The single input of ``op``, checked to be a stack of float/complex matrices."""
    x = as_tensor_variable(x)
    check_inexact(op, x)
    if x.type.ndim < 2:
        raise ValueError(f"{op} needs an array of at least 2 dimensions, got {x.type}")
    return x


def check_square_value(op: Op, a: np.ndarray) -> None:
    """Run-time check that ``a`` is a stack of square matrices (``LinAlgError``, as NumPy)."""
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise np.linalg.LinAlgError(f"{op} needs square matrices, got an array of shape {a.shape}")


def batch_of(x: Variable, core: int = 2) -> tuple:
    """The static batch shape of ``x`` (all but the last ``core`` dimensions)."""
    return x.type.shape[: x.type.ndim - core]


def square_shape(x: Variable) -> tuple:
    """The static shape of ``x`` with the matrix size filled in from either known length."""
    rows, cols = x.type.shape[-2:]
    n = rows if rows is not None else cols
    return (*batch_of(x), n, n)


def triangle(x: Variable, lower: bool, k: int = 0) -> Variable:
    """The lower or upper triangle of the matrices of ``x``, ``k`` diagonals into the strict
    part (k >= 0): ``tril(x, -k)`` or ``triu(x, k)``."""
    return tril(x, -k) if lower else triu(x, k)


def symmetric_from_triangle(x: Variable, lower: bool, hermitian: bool = True) -> Variable:
    """The symmetric (Hermitian) matrices whose ``lower`` (or upper) triangle is that of ``x``.

    This is the matrix routines reading one triangle (Cholesky, ``eigh``, ...) actually see,
    and differentiating through it gives the gradient with respect to that triangle only.
    ``hermitian=False`` makes complex matrices symmetric instead of Hermitian. LAPACK's
    Hermitian routines ignore the imaginary parts of the diagonal, and so does this.
    """
    strict = triangle(x, lower, 1)
    if hermitian and is_complex(x):
        return strict + mH(strict) + diag_embed(real(diagonal(x)))
    return triangle(x, lower) + mT(strict)


def fold_to_triangle(g: Variable, lower: bool, hermitian: bool = True) -> Variable:
    """The adjoint of :func:`symmetric_from_triangle`: ``tril(g) + tril(g^H, -1)`` (or upper,
    with only the real part of the diagonal for complex Hermitian matrices)."""
    if hermitian and is_complex(g):
        return triangle(g, lower, 1) + triangle(mH(g), lower, 1) + diag_embed(real(diagonal(g)))
    return triangle(g, lower) + triangle(mT(g), lower, 1)


def _batch_letters(ndim: int) -> str:
    return "abcdefghklmnopqrstuvwxyz"[: ndim - 2]


def diagonal(x: Variable) -> Variable:
    """The diagonals of the (square) matrices of ``x``, as ``(..., n)``."""
    b = _batch_letters(x.type.ndim)
    return Einsum(f"{b}ii->{b}i")(x)


def diag_embed(v: Variable) -> Variable:
    """Square matrices with the vectors ``v`` (``(..., n)``) on their diagonals."""
    b = _batch_letters(v.type.ndim + 1)
    return Einsum(f"{b}i->{b}ii")(v)


def trace(x: Variable) -> Variable:
    """The traces of the (square) matrices of ``x``."""
    b = _batch_letters(x.type.ndim)
    return Einsum(f"{b}ii->{b}")(x)


def identity_like(x: Variable) -> Variable:
    """Identity matrices shaped and typed like the square matrices of ``x``."""
    return diag_embed(diagonal(ones_like(x)))


def off_diagonal_inverse(d: Variable) -> Variable:
    """``1 / d`` away from the diagonals of ``d``, 0 on them.

    Used with ``d[i, j] = w[j] - w[i]`` for eigenvalue or singular-value gaps: equal values off
    the diagonal give an infinite result, the usual degenerate case of those derivatives.
    """
    eye = identity_like(d)
    return (1 - eye) / (d + eye)


def pairwise_gaps(w: Variable) -> Variable:
    """``d[..., i, j] = w[..., j] - w[..., i]`` for vectors ``w``."""
    nd = w.type.ndim
    rows = w.dimshuffle(*range(nd - 1), "x", nd - 1)
    cols = w.dimshuffle(*range(nd), "x")
    return rows - cols


def matrix_column(v: Variable) -> Variable:
    """Vectors ``(..., n)`` as one-column matrices ``(..., n, 1)``."""
    return v.dimshuffle(*range(v.type.ndim), "x")


def matrix_row(v: Variable) -> Variable:
    """Vectors ``(..., n)`` as one-row matrices ``(..., 1, n)``."""
    nd = v.type.ndim
    return v.dimshuffle(*range(nd - 1), "x", nd - 1)


def drop_last(x: Variable) -> Variable:
    """``x[..., 0]`` for a last dimension of static length 1."""
    return x.dimshuffle(*range(x.type.ndim - 1))


def scalar_per_matrix(s: Variable) -> Variable:
    """Per-matrix values ``(...)`` as ``(..., 1, 1)``, to scale stacks of matrices."""
    return s.dimshuffle(*range(s.type.ndim), "x", "x")


__all__: list[str] = []


class SquareMatrixFunction(Op):
    """Maps stacks of square matrices to stacks of matrices of the same shape.

    Subclasses give the NumPy/SciPy computation in ``compute`` (and their derivatives); the
    checks, the static shape and ``infer_shape`` are shared.
    """

    def compute(self, x: np.ndarray) -> np.ndarray:
        raise MethodNotDefined("compute", type(self))

    def make_node(self, x):
        x = square_input(self, x)
        return Apply(self, [x], [tensor_type(x.type.dtype, square_shape(x))()])

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        check_square_value(self, x)
        output_storage[0][0] = np.asarray(self.compute(x), dtype=node.outputs[0].type.dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        return [input_shapes[0]]
