"""Inverses and determinants: ``inv``, ``det``, ``slogdet`` and ``matrix_power``.

All derivatives come from ``d(A^-1) = -A^-1 dA A^-1`` and Jacobi's formula
``d det(A) = det(A) tr(A^-1 dA)``.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from arignote.graph.basic import Apply, Variable
from arignote.graph.grad_types import grad_not_implemented, is_disconnected
from arignote.graph.op import Op
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.linalg.basic import (
    SquareMatrixFunction,
    as_matrices,
    batch_of,
    check_square,
    check_square_value,
    identity_like,
    is_complex,
    mH,
    real_dtype,
    scalar_per_matrix,
    square_input,
)
from arignote.tensor.math import cast
from arignote.tensor.products import Einsum, conj_if_complex, matmul
from arignote.tensor.type import tensor_type


def _trace_of_product(x: Variable, y: Variable) -> Variable:
    """``tr(x y)`` for each pair of matrices."""
    b = "abcdefghklmnopqrstuvwxyz"[: x.type.ndim - 2]
    return Einsum(f"{b}ij,{b}ji->{b}")(x, y)


class MatrixInverse(SquareMatrixFunction):
    """The inverses of a stack of square matrices (``numpy.linalg.inv``)."""

    __props__ = ()

    def compute(self, x):
        return np.linalg.inv(x)

    def L_op(self, inputs, outputs, output_grads):
        (y,), (gy,) = outputs, output_grads
        # dY = -Y dA Y, so gA = -Y^H gY Y^H
        return [-matmul(matmul(mH(y), gy), mH(y))]

    def R_op(self, inputs, eval_points):
        (x,), (ev,) = inputs, eval_points
        if ev is None:
            return [None]
        y = self(x)
        return [-matmul(matmul(y, ev), y)]


_inv = MatrixInverse()


def inv(a: Any) -> Variable:
    """The inverse of each square matrix of ``a`` (``numpy.linalg.inv``).

    Integers are computed in float64; a singular matrix raises ``LinAlgError`` at run time.
    """
    return _inv(as_matrices(a, "inv", square=True))


class Det(Op):
    """The determinants of a stack of square matrices (``numpy.linalg.det``)."""

    __props__ = ()

    def make_node(self, x):
        x = square_input(self, x)
        return Apply(self, [x], [tensor_type(x.type.dtype, batch_of(x))()])

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        check_square_value(self, x)
        output_storage[0][0] = np.asarray(np.linalg.det(x), dtype=node.outputs[0].type.dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        return [tuple(input_shapes[0][:-2])]

    def L_op(self, inputs, outputs, output_grads):
        (x,), (d,), (gd,) = inputs, outputs, output_grads
        # Jacobi: d det = det tr(A^-1 dA), so gA = gd conj(det) A^-H
        return [scalar_per_matrix(gd * conj_if_complex(d)) * mH(_inv(x))]

    def R_op(self, inputs, eval_points):
        (x,), (ev,) = inputs, eval_points
        if ev is None:
            return [None]
        return [self(x) * _trace_of_product(_inv(x), ev)]


_det = Det()


def det(a: Any) -> Variable:
    """The determinant of each square matrix of ``a`` (``numpy.linalg.det``)."""
    return _det(as_matrices(a, "det", square=True))


class SlogDet(Op):
    """Sign and log of the absolute value of determinants (``numpy.linalg.slogdet``).

    The sign is piecewise constant: only ``logabsdet`` carries a derivative.
    """

    __props__ = ()

    def make_node(self, x):
        x = square_input(self, x)
        batch = batch_of(x)
        sign = tensor_type(x.type.dtype, batch)()
        logabsdet = tensor_type(real_dtype(x.type.dtype), batch)()
        return Apply(self, [x], [sign, logabsdet])

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        check_square_value(self, x)
        sign, logabsdet = np.linalg.slogdet(x)
        for cell, value, out in zip(output_storage, (sign, logabsdet), node.outputs):
            cell[0] = np.asarray(value, dtype=out.type.dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        batch = tuple(input_shapes[0][:-2])
        return [batch, batch]

    def L_op(self, inputs, outputs, output_grads):
        (x,), (g_sign, g_log) = inputs, output_grads
        if is_complex(x) and not is_disconnected(g_sign):
            # the sign of a complex determinant is a phase that moves with the matrix
            reason = "The derivative of the phase of a complex determinant is not implemented."
            return [grad_not_implemented(self, 0, x, reason)]
        if is_disconnected(g_log):
            return [x.zeros_like()]
        # d log|det A| = Re tr(A^-1 dA), so gA = g A^-H
        return [scalar_per_matrix(g_log) * mH(_inv(x))]

    def R_op(self, inputs, eval_points):
        (x,), (ev,) = inputs, eval_points
        if ev is None:
            return [None, None]
        return [None, _trace_of_product(_inv(x), ev)]


_slogdet = SlogDet()


def slogdet(a: Any) -> tuple[Variable, Variable]:
    """``(sign, logabsdet)`` of the determinant of each square matrix of ``a``.

    As ``numpy.linalg.slogdet``: ``det(a) == sign * exp(logabsdet)``, without overflow.
    """
    sign, logabsdet = _slogdet(as_matrices(a, "slogdet", square=True))
    return sign, logabsdet


def matrix_power(a: Any, n: int) -> Variable:
    """``a`` to the integer power ``n`` by repeated squaring (``numpy.linalg.matrix_power``).

    ``n == 0`` gives identity matrices of ``a``'s dtype; a negative ``n`` inverts ``a`` first
    (in float64 for integer ``a``, as NumPy does).
    """
    try:
        n = operator.index(n)
    except TypeError as err:
        raise TypeError(f"matrix_power: the exponent must be an integer, got {n!r}") from err
    a = as_tensor_variable(a)
    if a.type.ndim < 2:
        raise ValueError(f"matrix_power needs an array of at least 2 dimensions, got {a.type}")
    check_square(a, "matrix_power")
    if n == 0:
        return cast(identity_like(a), a.type.dtype)
    if n < 0:
        a, n = inv(a), -n
    result, power = None, a
    while n:  # binary exponentiation: a^n as a product of the squares a^(2^k)
        if n & 1:
            result = power if result is None else matmul(result, power)
        n >>= 1
        if n:
            power = matmul(power, power)
    return result


__all__ = [
    "Det",
    "MatrixInverse",
    "SlogDet",
    "det",
    "inv",
    "matrix_power",
    "slogdet",
]
