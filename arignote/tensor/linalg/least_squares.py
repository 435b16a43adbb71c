"""Least squares: the pseudo-inverse ``pinv`` and ``lstsq``.

The derivative of the pseudo-inverse (Golub & Pereyra, 1973) holds where the rank of the
matrix does not change, which is the generic case:

    dA+ = -A+ dA A+ + A+ A+^T dA^T (I - A A+) + (I - A+ A) dA^T A+^T A+
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arignote.graph.basic import Apply, Variable
from arignote.graph.grad_types import grad_not_implemented, is_disconnected
from arignote.graph.op import Op
from arignote.scalar.basic import upcast
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.lapack_checks import require_finite
from arignote.tensor.linalg.basic import (
    as_matrices,
    batch_of,
    check_inexact,
    is_complex,
    linalg_dtype,
    matrix_input,
    mH,
    real_dtype,
    symmetric_from_triangle,
)
from arignote.tensor.linalg.decompositions import SVD, min_length, singular_value_grad
from arignote.tensor.math import cast, minimum, real
from arignote.tensor.products import Einsum, conj_if_complex, matmul, outer
from arignote.tensor.type import tensor_type

_UNSET = object()


class MatrixPinv(Op):
    """Moore-Penrose pseudo-inverses of a stack of matrices (``numpy.linalg.pinv``).

    Singular values below ``cutoff`` times the largest are treated as zero; ``cutoff=None``
    means ``max(M, N)`` times the machine epsilon. ``hermitian`` uses the symmetric
    eigensolver (reading the lower triangle).
    """

    __props__ = ("cutoff", "hermitian")

    def __init__(self, cutoff: float | None = 1e-15, hermitian: bool = False) -> None:
        self.cutoff = None if cutoff is None else float(cutoff)
        self.hermitian = bool(hermitian)

    def make_node(self, x):
        x = matrix_input(self, x)
        m, n = x.type.shape[-2:]
        return Apply(self, [x], [tensor_type(x.type.dtype, (*batch_of(x), n, m))()])

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        if not self.hermitian:  # (the hermitian one is an eigendecomposition: no SVD)
            require_finite("SVD", x)
        if self.cutoff is None:
            result = np.linalg.pinv(x, hermitian=self.hermitian, rtol=None)
        else:
            result = np.linalg.pinv(x, rcond=self.cutoff, hermitian=self.hermitian)
        output_storage[0][0] = np.asarray(result, dtype=node.outputs[0].type.dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        (shape,) = input_shapes
        return [(*shape[:-2], shape[-1], shape[-2])]

    def L_op(self, inputs, outputs, output_grads):
        (x,), (p,), (g,) = inputs, outputs, output_grads
        return [pinv_vjp(x, p, g)]

    def R_op(self, inputs, eval_points):
        (x,), (ev,) = inputs, eval_points
        if ev is None:
            return [None]
        p = self(x)
        evt = mH(ev)
        first = -matmul(matmul(p, ev), p)
        # A+ A+^H dA^H (I - A A+)
        second = matmul(matmul(p, mH(p)), evt - matmul(matmul(evt, x), p))
        # (I - A+ A) dA^H A+^H A+
        third = matmul(evt - matmul(p, matmul(x, evt)), matmul(mH(p), p))
        return [first + second + third]


def pinv_vjp(a: Variable, p: Variable, g: Variable) -> Variable:
    """The gradient with respect to ``a`` of ``<g, pinv(a)>``, given ``p = pinv(a)``.

    The adjoint of the Golub-Pereyra derivative (conjugate transposes for complex matrices):
    gA = -A+^H G A+^H + (I - A A+) G^H A+ A+^H + A+^H A+ G^H (I - A+ A).
    """
    gt = mH(g)
    first = -matmul(matmul(mH(p), g), mH(p))
    x2 = matmul(gt, matmul(p, mH(p)))
    second = x2 - matmul(a, matmul(p, x2))
    x3 = matmul(matmul(mH(p), p), gt)
    third = x3 - matmul(matmul(x3, p), a)
    return first + second + third


def _pinv_cutoff(rcond: Any, rtol: Any) -> float | None:
    """NumPy's reading of ``pinv(rcond=..., rtol=...)`` as one relative cutoff."""
    if rcond is not None and rtol is not _UNSET:
        raise ValueError("pinv: rtol and rcond cannot both be set")
    if rcond is not None:
        return float(rcond)
    if rtol is _UNSET:
        return 1e-15
    return None if rtol is None else float(rtol)


def pinv(a: Any, rcond: float | None = None, hermitian: bool = False, *, rtol: Any = _UNSET):
    """The Moore-Penrose pseudo-inverse of each matrix of ``a`` (``numpy.linalg.pinv``).

    Parameters
    ----------
    a
        Matrices ``(..., M, N)``.
    rcond, rtol
        Relative cutoff for small singular values, as in NumPy (``rtol=None`` means
        ``max(M, N)`` times the machine epsilon; without either, 1e-15).
    hermitian
        ``a`` is symmetric (Hermitian): only its lower triangle is read.

    Returns
    -------
    Variable
        The pseudo-inverses, ``(..., N, M)``. The gradient assumes the rank does not change
        under small perturbations (true unless singular values sit at the cutoff).
    """
    cutoff = _pinv_cutoff(rcond, rtol)
    x = as_matrices(a, "pinv")
    if hermitian:
        x = symmetric_from_triangle(x, lower=True)
    return MatrixPinv(cutoff, hermitian)(x)


class Lstsq(Op):
    """Least-squares solutions of ``A x = B`` (``numpy.linalg.lstsq``).

    Outputs ``(x, residuals, rank, s)``: the minimum-norm solution, the squared residual norms
    (empty unless ``A`` has full column rank and more rows than columns), the rank of ``A``
    (int32) and its singular values. ``A`` is a matrix, ``B`` a vector or a matrix.
    """

    __props__ = ("rcond",)

    def __init__(self, rcond: float | None = None) -> None:
        self.rcond = None if rcond is None else float(rcond)

    def make_node(self, a, b):
        a, b = as_tensor_variable(a), as_tensor_variable(b)
        check_inexact(self, a, b)
        if a.type.ndim != 2 or b.type.ndim not in (1, 2):
            raise ValueError(
                f"{self} takes a matrix and a vector or matrix, got {a.type}, {b.type}"
            )
        m, n = a.type.shape
        if m is not None and b.type.shape[0] is not None and m != b.type.shape[0]:
            raise ValueError(f"{self}: {a.type} and {b.type} have different numbers of rows")
        dtype = upcast(a.type.dtype, b.type.dtype)
        outputs = [
            tensor_type(dtype, (n, *b.type.shape[1:]))(),
            tensor_type(real_dtype(dtype), (None,))(),
            tensor_type("int32", ())(),
            tensor_type(real_dtype(dtype), (min_length(m, n),))(),
        ]
        return Apply(self, [a, b], outputs)

    def perform(self, node, inputs, output_storage):
        a, b = inputs
        if a.shape[0] != b.shape[0]:
            raise ValueError(f"{self}: shapes {a.shape} and {b.shape} have different row counts")
        require_finite("SVD", a)  # (NumPy: "SVD did not converge in Linear Least Squares")
        values = np.linalg.lstsq(a, b, rcond=self.rcond)
        for cell, value, out in zip(output_storage, values, node.outputs):
            cell[0] = np.asarray(value, dtype=out.type.dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        a_shape, b_shape = input_shapes
        m, n = a_shape
        k = min_length(*node.inputs[0].type.shape)
        if k is None:
            k = minimum(m, n)
        # the residuals' length depends on the rank, a value: it is read off the output
        return [(n, *b_shape[1:]), None, (), (k,)]

    def L_op(self, inputs, outputs, output_grads):
        (a, b), (_, _, _, _), (g_x, g_res, _, g_s) = inputs, outputs, output_grads
        if not is_disconnected(g_res):
            reason = "The residuals have a value-dependent length; use the solution instead."
            return [grad_not_implemented(self, i, v, reason) for i, v in enumerate(inputs)]
        g_a, g_b = a.zeros_like(), b.zeros_like()
        if not is_disconnected(g_x):
            # x = A+ b: gb = A+^T gx, and gA from the pinv derivative with G = gx b^T
            p = MatrixPinv(self.rcond)(a)
            g_b = matmul(mH(p), g_x)
            g_p = outer(g_x, conj_if_complex(b)) if b.type.ndim == 1 else matmul(g_x, mH(b))
            g_a = pinv_vjp(a, p, g_p)
        if not is_disconnected(g_s):
            g_a = g_a + singular_value_grad(a, g_s)
        return [g_a, g_b]

    def R_op(self, inputs, eval_points):
        (a, b), (ea, eb) = inputs, eval_points
        if ea is None and eb is None:
            return [None] * 4
        p = MatrixPinv(self.rcond)(a)
        # x = A+ b: dx = dA+ b + A+ db
        d_x = None
        if ea is not None:
            d_p = MatrixPinv(self.rcond).R_op([a], [ea])[0]
            d_x = matmul(d_p, b)
        if eb is not None:
            term = matmul(p, eb)
            d_x = term if d_x is None else d_x + term
        reason = "The residuals have a value-dependent length."
        d_res = grad_not_implemented(self, 0, a, reason)
        d_s = None
        if ea is not None:
            u, _, vh = SVD(full_matrices=False)(a)
            d_s = Einsum("ij,ik,kj->k")(ea, conj_if_complex(u), conj_if_complex(vh))
            d_s = real(d_s) if is_complex(a) else d_s  # Re diag(U^H dA V)
        return [d_x, d_res, None, d_s]

    def connection_pattern(self, node):
        return [[True, True, False, True], [True, True, False, False]]


def lstsq(a: Any, b: Any, rcond: float | None = None) -> list[Variable]:
    """Least-squares solution of ``a x = b``, like ``numpy.linalg.lstsq``.

    Parameters
    ----------
    a
        A matrix ``(M, N)``.
    b
        A vector ``(M,)`` or matrix ``(M, K)``.
    rcond
        Singular values below ``rcond`` times the largest count as zero (default: machine
        epsilon times ``max(M, N)``).

    Returns
    -------
    list of Variable
        ``[x, residuals, rank, s]`` as NumPy returns them. Gradients flow through ``x`` and
        ``s`` (the residuals' length depends on the rank, so they are not differentiated).
    """
    a, b = as_tensor_variable(a), as_tensor_variable(b)
    dtype = linalg_dtype(a.type.dtype, b.type.dtype, what="lstsq")
    return Lstsq(rcond)(cast(a, dtype), cast(b, dtype), return_list=True)


__all__ = ["Lstsq", "MatrixPinv", "lstsq", "pinv"]
