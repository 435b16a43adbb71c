"""Matrix decompositions: ``cholesky``, ``eigh``/``eigvalsh``, ``eig``, ``svd`` and ``qr``.

The derivatives are the classical ones for real matrices: Murray (2016) for the Cholesky
factor, the first-order perturbation of a symmetric eigenproblem, Townsend (2016) for the SVD,
and Walter & Lehmann (2018) for the QR factorisation. Routines that read one triangle of
their input (Cholesky, ``eigh``) are differentiated as functions of that triangle only, which
is what finite differences on the full matrix measure.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg

from arignote.graph.basic import Apply, Variable
from arignote.graph.grad_types import grad_not_implemented, grad_undefined, is_disconnected
from arignote.graph.op import Op
from arignote.tensor.join import concatenate
from arignote.tensor.lapack_checks import require_finite
from arignote.tensor.linalg.basic import (
    SquareMatrixFunction,
    as_matrices,
    batch_of,
    check_square_value,
    diag_embed,
    diagonal,
    fold_to_triangle,
    is_complex,
    matrix_input,
    matrix_row,
    mH,
    mT,
    off_diagonal_inverse,
    pairwise_gaps,
    real_dtype,
    square_input,
    square_shape,
    symmetric_from_triangle,
    tril,
)
from arignote.tensor.linalg.inverse import MatrixInverse
from arignote.tensor.linalg.solve import SolveTriangular
from arignote.tensor.math import eq, le, minimum, real
from arignote.tensor.products import Einsum, matmul
from arignote.tensor.raise_op import CheckAndRaise
from arignote.tensor.shape import shape_i
from arignote.tensor.type import tensor_type

_inv = MatrixInverse()


_REAL_ONLY = "The derivative is implemented for real matrices only."


def _complex_not_implemented(op: Op, x: Variable, n_outputs: int = 1) -> list | None:
    """``grad_not_implemented`` results for a complex ``x``, None for a real one."""
    if not is_complex(x):
        return None
    return [grad_not_implemented(op, 0, x, _REAL_ONLY)] * n_outputs


def _phi(x: Variable) -> Variable:
    """The lower triangle with the diagonal halved (Murray's Phi)."""
    return 0.5 * (tril(x) + tril(x, -1))


def _copy_lower_to_upper(x: Variable) -> Variable:
    """The symmetric matrices with the lower triangle of ``x``."""
    return tril(x) + mT(tril(x, -1))


# -- Cholesky -----------------------------------------------------------------------------------


class Cholesky(SquareMatrixFunction):
    """The Cholesky factor of symmetric positive-definite matrices (``scipy.linalg.cholesky``).

    ``lower``: ``A = L L^T`` with ``L`` lower triangular, else ``A = U^T U``. Only that
    triangle of ``A`` is read. A matrix that is not positive definite (or not finite) raises
    ``LinAlgError`` (``ValueError``) with ``on_error="raise"``; with ``on_error="nan"`` its
    factor is all NaN, the other matrices of a stack are factored all the same.
    """

    __props__ = ("lower", "on_error")

    def __init__(self, lower: bool = True, on_error: str = "raise") -> None:
        if on_error not in ("raise", "nan"):
            raise ValueError(f"Cholesky: on_error must be 'raise' or 'nan', got {on_error!r}")
        self.lower = bool(lower)
        self.on_error = on_error

    def compute(self, x):
        if self.on_error == "raise" or x.size == 0:
            return scipy.linalg.cholesky(x, lower=self.lower)
        stack = x.reshape(-1, *x.shape[-2:])
        return np.stack([self._factor_or_nan(matrix) for matrix in stack]).reshape(x.shape)

    def _factor_or_nan(self, matrix):
        try:
            return scipy.linalg.cholesky(matrix, lower=self.lower)
        except (np.linalg.LinAlgError, ValueError):  # not positive definite, or not finite
            return np.full(matrix.shape, np.nan)

    def L_op(self, inputs, outputs, output_grads):
        refused = _complex_not_implemented(self, inputs[0])
        if refused:
            return refused
        (factor,), (g_factor,) = outputs, output_grads
        lower_factor = factor if self.lower else mT(factor)
        g_lower = g_factor if self.lower else mT(g_factor)
        # Murray (2016): with S = L L^T, gS = L^-T Phi(L^T gL) L^-1 (for a symmetric dS);
        # the routine reads one triangle of A, so fold gS onto it.
        p = _phi(matmul(mT(lower_factor), g_lower))
        g_s = _lower_inverse_transpose_both_sides(lower_factor, p)
        return [fold_to_triangle(g_s, self.lower)]

    def R_op(self, inputs, eval_points):
        (x,), (ev,) = inputs, eval_points
        if ev is None:
            return [None]
        refused = _complex_not_implemented(self, x)
        if refused:
            return refused
        factor = self(x)
        lower_factor = factor if self.lower else mT(factor)
        d_s = symmetric_from_triangle(ev, self.lower)
        # dL = L Phi(L^-1 dS L^-T)
        inner = _lower_solve_both_sides(lower_factor, d_s)
        d_lower = matmul(lower_factor, _phi(inner))
        return [d_lower if self.lower else mT(d_lower)]


def _lower_inverse_transpose_both_sides(lower: Variable, p: Variable) -> Variable:
    """``L^-T P L^-1`` for lower-triangular ``L``."""
    left = SolveTriangular(lower=True, trans=1)(lower, p)  # L^-T P
    return mT(SolveTriangular(lower=True, trans=1)(lower, mT(left)))  # (L^-T (L^-T P)^T)^T


def _lower_solve_both_sides(lower: Variable, s: Variable) -> Variable:
    """``L^-1 S L^-T`` for lower-triangular ``L``."""
    left = SolveTriangular(lower=True)(lower, s)  # L^-1 S
    return mT(SolveTriangular(lower=True)(lower, mT(left)))


def cholesky(
    x: Any,
    lower: bool = True,
    *,
    check_finite: bool = True,
    overwrite_a: bool = False,
    on_error: str = "nan",
) -> Variable:
    """The Cholesky factor of each symmetric positive-definite matrix of ``x``.

    Parameters
    ----------
    x
        Matrices ``(..., M, M)``; only their ``lower`` (or upper) triangle is read.
    lower
        Return ``L`` with ``x = L L^T`` (default), else ``U`` with ``x = U^T U``.
    check_finite, overwrite_a
        SciPy's and PyTensor's keywords, accepted: ``x`` is never overwritten.
    on_error
        ``"nan"`` (the default, as in PyTensor 3): a matrix that is not positive definite,
        or holds NaN or infinity, gives a factor of NaNs; ``"raise"``: it raises
        ``LinAlgError`` (``ValueError`` for NaN or infinity), as SciPy does.

    Returns
    -------
    Variable
        The triangular factors, like ``scipy.linalg.cholesky(x, lower=lower)``.
    """
    return Cholesky(lower, on_error)(as_matrices(x, "cholesky", square=True))


# -- symmetric eigenproblem ---------------------------------------------------------------------


class Eigh(Op):
    """Eigenvalues (ascending) and eigenvectors of symmetric matrices (``numpy.linalg.eigh``).

    Only the ``UPLO`` triangle (``"L"`` or ``"U"``) is read. With ``compute_v=False`` the only
    output is the eigenvalues (``numpy.linalg.eigvalsh``).

    The derivatives assume distinct eigenvalues: with a repeated eigenvalue the eigenvectors
    are not unique, and the gradient through them is infinite unless the cost does not depend
    on the choice of basis of that eigenspace.
    """

    __props__ = ("uplo", "compute_v")

    def __init__(self, uplo: str = "L", compute_v: bool = True) -> None:
        if uplo not in ("L", "U"):
            raise ValueError(f"Eigh: UPLO must be 'L' or 'U', got {uplo!r}")
        self.uplo = uplo
        self.compute_v = bool(compute_v)

    @property
    def _lower(self) -> bool:
        return self.uplo == "L"

    def make_node(self, x):
        x = square_input(self, x)
        shape = square_shape(x)
        w = tensor_type(real_dtype(x.type.dtype), shape[:-1])()
        if not self.compute_v:
            return Apply(self, [x], [w])
        return Apply(self, [x], [w, tensor_type(x.type.dtype, shape)()])

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        check_square_value(self, x)
        if self.compute_v:
            values = np.linalg.eigh(x, UPLO=self.uplo)
        else:
            values = (np.linalg.eigvalsh(x, UPLO=self.uplo),)
        for cell, value, out in zip(output_storage, values, node.outputs):
            cell[0] = np.asarray(value, dtype=out.type.dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        (shape,) = input_shapes
        w_shape = tuple(shape[:-1])
        return [w_shape, tuple(shape)] if self.compute_v else [w_shape]

    def L_op(self, inputs, outputs, output_grads):
        (x,) = inputs
        refused = _complex_not_implemented(self, x)
        if refused:
            return refused
        w = outputs[0]
        v = outputs[1] if self.compute_v else Eigh(self.uplo)(x)[1]
        g_w = output_grads[0]
        g_v = output_grads[1] if self.compute_v else None
        # gS = V (diag(gw) + F o (V^T gV)) V^T with F[i, j] = 1 / (w[j] - w[i])
        inner = None if is_disconnected(g_w) else diag_embed(g_w)
        if g_v is not None and not is_disconnected(g_v):
            term = off_diagonal_inverse(pairwise_gaps(w)) * matmul(mT(v), g_v)
            inner = term if inner is None else inner + term
        if inner is None:
            return [x.zeros_like()]
        g_s = matmul(matmul(v, inner), mT(v))
        return [fold_to_triangle(g_s, self._lower)]

    def R_op(self, inputs, eval_points):
        (x,), (ev,) = inputs, eval_points
        if ev is None:
            return [None] * len(self.make_node(x).outputs)
        refused = _complex_not_implemented(self, x, len(self.make_node(x).outputs))
        if refused:
            return refused
        w, v = Eigh(self.uplo)(x)
        # dw = diag(V^T dS V); dV = V (F o (V^T dS V))
        projected = matmul(matmul(mT(v), symmetric_from_triangle(ev, self._lower)), v)
        d_w = diagonal(projected)
        if not self.compute_v:
            return [d_w]
        d_v = matmul(v, off_diagonal_inverse(pairwise_gaps(w)) * projected)
        return [d_w, d_v]


def eigh(
    a: Any, b: Any = None, lower: bool = True, UPLO: str | None = None, driver: str = "evr"
) -> tuple[Variable, Variable]:
    """Eigenvalues (ascending) and eigenvectors of symmetric matrices, or of the symmetric
    generalized problem ``a v = w b v``.

    As ``numpy.linalg.eigh`` and ``scipy.linalg.eigh``: returns ``(w, v)`` with
    ``a @ v[..., :, i] == w[..., i] * (b @ v[..., :, i])`` (``b`` the identity when not given).
    Only the lower triangles are read (the upper ones with ``lower=False``, or ``UPLO="U"``,
    NumPy's spelling, which may also come second). The vectors are orthonormal, or
    ``b``-orthonormal (``v^T b v = I``) for a positive-definite ``b``. ``driver`` (SciPy's
    choice of LAPACK routine) is accepted; the results do not depend on it.
    """
    if isinstance(b, str):  # numpy.linalg.eigh(a, "U")
        b, UPLO = None, b
    uplo = UPLO if UPLO is not None else ("L" if lower else "U")
    if driver not in ("ev", "evd", "evr", "evx", "gv", "gvd", "gvx"):
        raise ValueError(f"eigh: unknown driver {driver!r}")
    a = as_matrices(a, "eigh", square=True)
    if b is None:
        w, v = Eigh(uplo)(a)
        return w, v
    return _generalized_eigh(a, as_matrices(b, "eigh", square=True), uplo == "L")


def _generalized_eigh(a: Variable, b: Variable, lower: bool) -> tuple[Variable, Variable]:
    # LAPACK's reduction (sygst): with b = L L^T, a v = w b v is C u = w u for the symmetric
    # C = L^-1 a L^-T and u = L^T v; built from differentiable ops, so it has derivatives
    factor = Cholesky(lower=True)(symmetric_from_triangle(b, lower))
    reduced = _lower_solve_both_sides(factor, symmetric_from_triangle(a, lower))
    w, u = Eigh("L")(reduced)
    return w, SolveTriangular(lower=True, trans=1)(factor, u)  # v = L^-T u


# -- general eigenproblem -----------------------------------------------------------------------


_COMPLEX_OF = {"float32": "complex64", "float64": "complex128"}
_EIGENVECTOR_GAUGE = (
    "The eigenvectors of a general matrix are normalised by LAPACK (unit norm, largest "
    "component real); the derivative of that normalisation is not implemented."
)


class Eig(Op):
    """Eigenvalues and right eigenvectors of general square matrices (``numpy.linalg.eig``).

    The outputs are always complex (NumPy returns real arrays when every eigenvalue happens to
    be real; here the dtype does not depend on the values). Only the eigenvalues are
    differentiated, and only where they are distinct.
    """

    __props__ = ()

    def make_node(self, x):
        x = square_input(self, x)
        dtype = _COMPLEX_OF.get(x.type.dtype, x.type.dtype)
        shape = square_shape(x)
        return Apply(self, [x], [tensor_type(dtype, shape[:-1])(), tensor_type(dtype, shape)()])

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        check_square_value(self, x)
        values = np.linalg.eig(x)
        for cell, value, out in zip(output_storage, values, node.outputs):
            cell[0] = np.asarray(value, dtype=out.type.dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        (shape,) = input_shapes
        return [tuple(shape[:-1]), tuple(shape)]

    def L_op(self, inputs, outputs, output_grads):
        (x,), (_, v), (g_w, g_v) = inputs, outputs, output_grads
        if not is_disconnected(g_v):
            return [grad_not_implemented(self, 0, x, _EIGENVECTOR_GAUGE)]
        if is_disconnected(g_w):
            return [x.zeros_like()]
        # dw = diag(V^-1 dA V), so gA = V^-H diag(gw) V^H (its real part for a real A)
        g_x = matmul(matmul(mH(_inv(v)), diag_embed(g_w)), mH(v))
        return [g_x if is_complex(x) else real(g_x)]

    def R_op(self, inputs, eval_points):
        (x,), (ev,) = inputs, eval_points
        if ev is None:
            return [None, None]
        _, v = self(x)
        # dw = diag(V^-1 dA V) (first-order perturbation with left eigenvectors V^-1)
        b = "abcdefghklmnopqrstuvwxyz"[: x.type.ndim - 2]
        d_w = Einsum(f"{b}ij,{b}jk,{b}ki->{b}i")(_inv(v), ev, v)
        d_v = grad_not_implemented(self, 0, x, _EIGENVECTOR_GAUGE)
        return [d_w, d_v]


def eig(a: Any) -> tuple[Variable, Variable]:
    """Eigenvalues and unit right eigenvectors of square matrices (``numpy.linalg.eig``).

    Returns ``(w, v)``, complex, with ``a @ v[..., :, i] == w[..., i] * v[..., :, i]``.
    Unlike NumPy, whose result is real when every eigenvalue happens to be real, the outputs
    are always complex: their dtype must be known before the values are.
    """
    w, v = Eig()(as_matrices(a, "eig", square=True))
    return w, v


# -- singular value decomposition -----------------------------------------------------------------


def min_length(rows: Any, cols: Any) -> Any:
    """``min(rows, cols)`` of static lengths, None when either is unknown."""
    if rows is None or cols is None:
        return None
    return min(rows, cols)


class SVD(Op):
    """Singular value decomposition ``A = U diag(S) Vh`` (``numpy.linalg.svd``).

    Outputs ``(U, S, Vh)``, or ``S`` alone when ``compute_uv`` is False; ``full_matrices``
    makes ``U`` and ``Vh`` square. Singular values are in descending order.
    """

    __props__ = ("full_matrices", "compute_uv")

    def __init__(self, full_matrices: bool = True, compute_uv: bool = True) -> None:
        self.full_matrices = bool(full_matrices)
        self.compute_uv = bool(compute_uv)

    def make_node(self, x):
        x = matrix_input(self, x)
        batch, (m, n) = batch_of(x), x.type.shape[-2:]
        k = min_length(m, n)
        s = tensor_type(real_dtype(x.type.dtype), (*batch, k))()
        if not self.compute_uv:
            return Apply(self, [x], [s])
        u_cols, v_rows = (m, n) if self.full_matrices else (k, k)
        u = tensor_type(x.type.dtype, (*batch, m, u_cols))()
        vh = tensor_type(x.type.dtype, (*batch, v_rows, n))()
        return Apply(self, [x], [u, s, vh])

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        require_finite("SVD", x)
        values = np.linalg.svd(x, full_matrices=self.full_matrices, compute_uv=self.compute_uv)
        if not self.compute_uv:
            values = (values,)
        for cell, value, out in zip(output_storage, values, node.outputs):
            cell[0] = np.asarray(value, dtype=out.type.dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        (shape,) = input_shapes
        batch, m, n = tuple(shape[:-2]), shape[-2], shape[-1]
        k = _symbolic_min(node.inputs[0], m, n)
        if not self.compute_uv:
            return [(*batch, k)]
        u_cols, v_rows = (m, n) if self.full_matrices else (k, k)
        return [(*batch, m, u_cols), (*batch, k), (*batch, v_rows, n)]

    def L_op(self, inputs, outputs, output_grads):
        (x,) = inputs
        if not self.compute_uv:
            return [singular_value_grad(x, output_grads[0])]
        g_u, g_s, g_vh = output_grads
        if is_disconnected(g_u) and is_disconnected(g_vh):
            return [singular_value_grad(x, g_s)]
        if self.full_matrices and _statically_non_square(x):
            return [
                grad_undefined(
                    self,
                    0,
                    x,
                    "With full_matrices=True the extra columns of U (or rows of Vh) of a "
                    "non-square matrix are not unique; use full_matrices=False.",
                )
            ]
        refused = _complex_not_implemented(self, x)
        if refused:
            return refused
        u, s, vh = outputs
        if self.full_matrices and None in x.type.shape[-2:]:
            # square only at run time: checked before any product uses U or Vh (which would
            # otherwise fail on shapes that do not align, naming no cause)
            u, vh = (_FULL_SVD_SQUARE(v, eq(shape_i(x, -2), shape_i(x, -1))) for v in (u, vh))
        return [_townsend_grad(u, s, vh, g_u, g_s, g_vh)]

    def R_op(self, inputs, eval_points):
        (x,), (ev,) = inputs, eval_points
        if ev is None:
            return [None] * (3 if self.compute_uv else 1)
        thin = not (self.full_matrices and self.compute_uv) or _statically_non_square(x)
        # with full_matrices, unknown lengths are taken as square (else diagonal() fails)
        u, s, vh = SVD(full_matrices=not thin)(x)
        projected = matmul(matmul(mH(u), ev), mH(vh))  # dP = U^H dA V
        d_s = diagonal(projected)
        if is_complex(x):
            d_s = real(d_s)  # singular values are real: dS = Re diag(U^H dA V)
        if not self.compute_uv:
            return [d_s]
        if is_complex(x):
            refused = grad_not_implemented(self, 0, x, _REAL_ONLY)
            return [refused, d_s, refused]
        if self.full_matrices and thin:
            undefined = grad_undefined(self, 0, x, "The extra singular vectors are not unique.")
            return [undefined, d_s, undefined]
        d_u, d_vh = _singular_vector_tangents(x, ev, u, s, vh, projected)
        return [d_u, d_s, d_vh]


_FULL_SVD_SQUARE = CheckAndRaise(
    ValueError,
    "svd(full_matrices=True): the gradient through U or Vh of a non-square matrix is undefined "
    "(its extra singular vectors are not unique); use full_matrices=False",
)
_COMPLETE_QR_WIDE = CheckAndRaise(
    ValueError,
    "qr(mode='complete'): the gradient of a matrix with more rows than columns is undefined "
    "(the extra columns of Q are not unique); use mode='reduced'",
)


def _statically_non_square(x: Variable) -> bool:
    """Whether the static shape shows non-square matrices (unknown lengths may be square: the
    derivatives written for square matrices then fail at run time if they are not)."""
    rows, cols = x.type.shape[-2:]
    return rows is not None and cols is not None and rows != cols


def _symbolic_min(x: Variable, m: Any, n: Any) -> Any:
    from_static = min_length(*x.type.shape[-2:])
    if from_static is not None:
        return from_static
    return minimum(m, n)


def singular_value_grad(x: Variable, g_s: Variable) -> Variable:
    """gA = U diag(gS) Vh with the thin factors (dS = Re diag(U^H dA V))."""
    u, _, vh = SVD(full_matrices=False)(x)
    return matmul(u * matrix_row(g_s), vh)


def _townsend_grad(u, s, vh, g_u, g_s, g_vh) -> Variable:
    """Townsend (2016): the gradient of the thin SVD of a real matrix.

    gA = U [(F o (U^T gU - gU^T U)) S + diag(gS) + S (F o (V^T gV - gV^T V))] V^T
         + (I - U U^T) gU S^-1 V^T + U S^-1 gV^T (I - V V^T),
    with F[i, j] = 1 / (s[j]^2 - s[i]^2) off the diagonal.
    """
    v = mT(vh)
    f = off_diagonal_inverse(pairwise_gaps(s * s))
    s_row = matrix_row(s)  # scales columns: X S == X * s_row
    s_col = s.dimshuffle(*range(s.type.ndim), "x")  # scales rows: S X == s_col * X
    inner = None if is_disconnected(g_s) else diag_embed(g_s)
    extra = None
    if not is_disconnected(g_u):
        ut_gu = matmul(mT(u), g_u)
        term = (f * (ut_gu - mT(ut_gu))) * s_row
        inner = term if inner is None else inner + term
        # (I - U U^T) gU S^-1 V^T
        extra = matmul((g_u - matmul(u, ut_gu)) / s_row, vh)
    if not is_disconnected(g_vh):
        g_v = mT(g_vh)
        vt_gv = matmul(vh, g_v)
        term = s_col * (f * (vt_gv - mT(vt_gv)))
        inner = term if inner is None else inner + term
        # U S^-1 gV^T (I - V V^T)
        side = matmul(u / s_row, mT(g_v) - matmul(matmul(mT(g_v), v), vh))
        extra = side if extra is None else extra + side
    result = matmul(matmul(u, inner), vh)
    return result if extra is None else result + extra


def _singular_vector_tangents(x, ev, u, s, vh, projected):
    """dU = U (F o (dP S + S dP^T)) + (I - U U^T) dA V S^-1, and the same for V."""
    f = off_diagonal_inverse(pairwise_gaps(s * s))
    s_row = matrix_row(s)
    s_col = s.dimshuffle(*range(s.type.ndim), "x")
    v = mT(vh)
    d_u = matmul(u, f * (projected * s_row + s_col * mT(projected)))
    a_v = matmul(ev, v)
    d_u = d_u + (a_v - matmul(u, matmul(mT(u), a_v))) / s_row
    d_v = matmul(v, f * (s_col * projected + mT(projected) * s_row))
    at_u = matmul(mT(ev), u)
    d_v = d_v + (at_u - matmul(v, matmul(vh, at_u))) / s_row
    return d_u, mT(d_v)


def svd(a: Any, full_matrices: bool = True, compute_uv: bool = True) -> Any:
    """Singular value decomposition of each matrix of ``a``, like ``numpy.linalg.svd``.

    Returns ``(U, S, Vh)`` with ``a == U[..., :, :k] * S[..., None, :] @ Vh[..., :k, :]``
    (``k = min(M, N)``), or ``S`` alone when ``compute_uv`` is False. The gradient through
    ``U`` and ``Vh`` needs distinct non-zero singular values (and ``full_matrices=False`` for
    non-square matrices); the gradient through ``S`` alone is always defined.
    """
    x = as_matrices(a, "svd")
    op = SVD(full_matrices, compute_uv)
    if not compute_uv:
        return op(x)
    u, s, vh = op(x)
    return u, s, vh


# -- QR decomposition -----------------------------------------------------------------------------


_QR_MODES = ("reduced", "complete", "r", "raw")


def qr_factor_shapes(mode: str, batch: tuple, m: Any, n: Any, k: Any) -> list[tuple]:
    """The shapes of the QR factors of ``(*batch, m, n)`` matrices in ``mode`` (``k`` the
    smaller length), static or symbolic."""
    return {
        "reduced": [(*batch, m, k), (*batch, k, n)],
        "complete": [(*batch, m, m), (*batch, m, n)],
        "r": [(*batch, k, n)],
        "raw": [(*batch, n, m), (*batch, k)],
    }[mode]


class QR(Op):
    """QR decomposition (``numpy.linalg.qr``) in one of NumPy's modes.

    ``"reduced"``: ``(Q, R)`` with ``Q`` (..., M, K) and ``R`` (..., K, N), ``K = min(M, N)``;
    ``"complete"``: ``Q`` square (..., M, M), ``R`` (..., M, N); ``"r"``: ``R`` alone;
    ``"raw"``: LAPACK's Householder form ``(h, tau)``.
    """

    __props__ = ("mode",)

    def __init__(self, mode: str = "reduced") -> None:
        if mode not in _QR_MODES:
            raise ValueError(f"QR: mode must be one of {_QR_MODES}, got {mode!r}")
        self.mode = mode

    def make_node(self, x):
        x = matrix_input(self, x)
        (m, n) = x.type.shape[-2:]
        shapes = qr_factor_shapes(self.mode, batch_of(x), m, n, min_length(m, n))
        return Apply(self, [x], [tensor_type(x.type.dtype, s)() for s in shapes])

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        values = np.linalg.qr(x, mode=self.mode)
        if self.mode == "r":
            values = (values,)
        for cell, value, out in zip(output_storage, values, node.outputs):
            cell[0] = np.asarray(value, dtype=out.type.dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        (shape,) = input_shapes
        batch, m, n = tuple(shape[:-2]), shape[-2], shape[-1]
        return qr_factor_shapes(self.mode, batch, m, n, _symbolic_min(node.inputs[0], m, n))

    def L_op(self, inputs, outputs, output_grads):
        (x,) = inputs
        reason = self._no_grad_reason(x)
        if reason:
            return [grad_not_implemented(self, 0, x, reason)]
        if self.mode == "r":
            q, r = QR("reduced")(x)
            g_q, g_r = None, output_grads[0]
        else:
            (q, r), (g_q, g_r) = outputs, output_grads
            g_q = None if is_disconnected(g_q) else g_q
            g_r = None if is_disconnected(g_r) else g_r
            if g_q is None and g_r is None:
                return [x.zeros_like()]
        m, n = x.type.shape[-2:]
        if m is not None and n is not None and m >= n:
            return [_qr_grad(q, r, g_q, g_r)]  # tall: R is square
        if self.mode == "complete" and (m is None or n is None):
            q = _COMPLETE_QR_WIDE(q, le(shape_i(x, -2), shape_i(x, -1)))
        return [_qr_grad_any_shape(x, q, r, g_q, g_r)]

    def _no_grad_reason(self, x: Variable) -> str:
        m, n = x.type.shape[-2:]
        if is_complex(x):
            return _REAL_ONLY
        if self.mode == "raw":
            return "The Householder form of mode='raw' is not differentiated."
        if self.mode == "complete" and m is not None and n is not None and m > n:
            return (
                "With mode='complete' the extra columns of Q of a matrix with more rows than "
                "columns are not unique; use mode='reduced'."
            )
        return ""

    def _no_tangent_reason(self, x: Variable) -> str:
        m, n = x.type.shape[-2:]
        if self.mode == "complete" and _statically_non_square(x):
            return "With mode='complete' the tangent is computed for square matrices only."
        if m is not None and n is not None and m < n:
            return (
                "The QR tangent is implemented for matrices with at least as many rows as columns."
            )
        return self._no_grad_reason(x)

    def R_op(self, inputs, eval_points):
        (x,), (ev,) = inputs, eval_points
        if ev is None:
            return [None] * len(self.make_node(x).outputs)
        reason = self._no_tangent_reason(x)
        if reason:
            return [grad_not_implemented(self, 0, x, reason)] * len(self.make_node(x).outputs)
        q, r = QR("complete" if self.mode == "complete" else "reduced")(x)
        # C = Q^T dA R^-1 = Omega + dR R^-1 with Omega skew and dR R^-1 upper triangular
        a_rinv = mT(SolveTriangular(lower=False, trans=1)(r, mT(ev)))  # dA R^-1
        c = matmul(mT(q), a_rinv)
        omega = tril(c, -1) - mT(tril(c, -1))
        d_r = matmul(c - omega, r)
        d_q = a_rinv - matmul(q, c - omega)
        return [d_r] if self.mode == "r" else [d_q, d_r]


def _qr_grad(q, r, g_q, g_r) -> Variable:
    """gA = (gQ + Q copyltu(M)) R^-T with M = R gR^T - gQ^T Q (for M >= N rows)."""
    m: Variable | None = None
    if g_r is not None:
        m = matmul(r, mT(g_r))
    if g_q is not None:
        term = -matmul(mT(g_q), q)
        m = term if m is None else m + term
    left = matmul(q, _copy_lower_to_upper(m))
    if g_q is not None:
        left = left + g_q
    # X R^-T = (R^-1 X^T)^T
    return mT(SolveTriangular(lower=False)(r, mT(left)))


def _columns(x: Variable, start: Any, stop: Any = None) -> Variable:
    return x[(slice(None),) * (x.type.ndim - 1) + (slice(start, stop),)]


def _qr_grad_any_shape(x, q, r, g_q, g_r) -> Variable:
    """The QR gradient for any shape, known or not when the graph is built.

    With k = min(M, N), A = [X | Y] and R = [U | V] split after k columns: X = Q U is the QR
    factorisation of a matrix with a square R (U), and Y = Q V. So gY = Q gV, and gX is the
    square-R gradient with gQ + Y gV^T in place of gQ (Liao et al. 2019, for M < N). For
    M >= N, Y and V have no columns and this is the tall formula itself.
    """
    k = shape_i(q, -1)
    g_u = None if g_r is None else _columns(g_r, None, k)
    g_v = None if g_r is None else _columns(g_r, k)
    y = _columns(x, k)
    if g_v is None:
        g_y = y.zeros_like()
    else:
        g_y = matmul(q, g_v)
        through_y = matmul(y, mT(g_v))
        g_q = through_y if g_q is None else g_q + through_y
    g_x = _qr_grad(q, _columns(r, None, k), g_q, g_u)
    return concatenate([g_x, g_y], axis=x.type.ndim - 1)


_SCIPY_QR_MODES = {"economic": "reduced", "full": "complete"}


def qr(a: Any, mode: str = "reduced") -> Any:
    """QR decomposition of each matrix of ``a``, like ``numpy.linalg.qr`` (served as
    ``arignote.tensor.nlinalg.qr``; ``arignote.tensor.linalg.qr`` is SciPy's, with pivoting).

    ``mode`` is ``"reduced"`` (default), ``"complete"``, ``"r"`` (``R`` only) or ``"raw"``;
    SciPy's names, which PyTensor also takes, mean the same: ``"economic"`` is ``"reduced"``
    and ``"full"`` is ``"complete"``. Gradients are available for ``"reduced"`` and ``"r"``
    (any shape) and for ``"complete"`` when the matrices have at most as many rows as columns
    (else its extra columns of ``Q`` are not unique).
    """
    mode = _SCIPY_QR_MODES.get(mode, mode)
    x = as_matrices(a, "qr")
    outputs = QR(mode)(x, return_list=True)
    return outputs[0] if mode == "r" else tuple(outputs)


__all__ = [
    "QR",
    "SVD",
    "Cholesky",
    "Eig",
    "Eigh",
    "cholesky",
    "eig",
    "eigh",
    "svd",
]
