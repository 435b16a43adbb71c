"""``arignote.tensor.special``: softmax, log-softmax and logsumexp along axes, and the special
functions of combinatorics and statistics (``logit``, ``beta``, ``betaln``, ``factorial``,
``poch``), as in ``scipy.special``.

The three axis ops subtract the maximum before exponentiating, so they neither overflow nor
underflow to NaN for large inputs; their gradients are exact closed forms. ``LogSumExp`` and
``logsumexp`` are defined in :mod:`arignote.tensor.math` (as in PyTensor) and exported here too.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from arignote import scalar as ps
from arignote.graph.basic import Variable
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.elemwise import Elemwise
from arignote.tensor.math import AxisOp, LogSumExp, exp, isclose, logsumexp, normalized_axes
from arignote.tensor.reduction import all as _all
from arignote.tensor.reduction import sum as _sum


def _shifted(x: np.ndarray, axes: tuple[int, ...], dtype: str) -> np.ndarray:
    """``x - max(x, axes)`` in ``dtype``: exponentials of it are at most 1."""
    x = np.asarray(x, dtype=dtype)
    if x.size == 0:
        return x
    with np.errstate(invalid="ignore"):  # inf - inf: NaN, as in SciPy
        return x - np.max(x, axis=axes, keepdims=True)


class Softmax(AxisOp):
    """``exp(x) / sum(exp(x), axis)``: ``scipy.special.softmax(x, axis)``."""

    def perform(self, node, inputs, output_storage):
        dtype = node.outputs[0].type.dtype
        e = np.exp(_shifted(inputs[0], self.axis, dtype))
        # 0-d arithmetic gives NumPy scalars: store an array of the declared type
        output_storage[0][0] = np.asarray(e / np.sum(e, axis=self.axis, keepdims=True), dtype)

    def L_op(self, inputs, outputs, output_grads):
        (y,), (gy,) = outputs, output_grads
        # dy_i/dx_j = y_i (delta_ij - y_j): gx = y * (gy - sum(gy * y))
        return [y * (gy - _sum(gy * y, axis=self.axis, keepdims=True))]

    def R_op(self, inputs, eval_points):
        (x,), (v,) = inputs, eval_points
        if v is None:
            return [None]
        y = self(x)
        return [y * (v - _sum(v * y, axis=self.axis, keepdims=True))]  # J v, J symmetric


class LogSoftmax(AxisOp):
    """``x - logsumexp(x, axis)``: ``scipy.special.log_softmax(x, axis)``."""

    def perform(self, node, inputs, output_storage):
        dtype = node.outputs[0].type.dtype
        shifted = _shifted(inputs[0], self.axis, dtype)
        with np.errstate(divide="ignore"):  # an all -inf slice gives log(0) = -inf
            total = np.log(np.sum(np.exp(shifted), axis=self.axis, keepdims=True))
        output_storage[0][0] = np.asarray(shifted - total, dtype)

    def L_op(self, inputs, outputs, output_grads):
        (y,), (gy,) = outputs, output_grads
        # dy_i/dx_j = delta_ij - softmax_j: gx = gy - softmax * sum(gy)
        return [gy - exp(y) * _sum(gy, axis=self.axis, keepdims=True)]

    def R_op(self, inputs, eval_points):
        (x,), (v,) = inputs, eval_points
        if v is None:
            return [None]
        return [v - _sum(exp(self(x)) * v, axis=self.axis, keepdims=True)]


def softmax(x: Any, axis: Any = None) -> Variable:
    """The softmax of ``x`` over ``axis``: ``exp(x) / sum(exp(x), axis, keepdims=True)``.

    Parameters
    ----------
    x : tensor-like
        Real values (integers are converted to float64).
    axis : int, tuple of ints or None
        The axes normalized together. The default, None, normalizes over all of them, as
        ``scipy.special.softmax`` and PyTensor do (pass ``axis=-1`` for one softmax per row).

    Returns
    -------
    TensorVariable
        Non-negative values summing to 1 over ``axis``, with the shape of ``x``.
    """
    x = as_tensor_variable(x)
    return Softmax(normalized_axes(axis, x.type.ndim, "softmax"))(x)


def log_softmax(x: Any, axis: Any = None) -> Variable:
    """The logarithm of :func:`softmax`, ``x - logsumexp(x, axis, keepdims=True)``, computed
    without forming the softmax (accurate where it underflows).

    Parameters
    ----------
    x : tensor-like
    axis : int, tuple of ints or None
        The axes normalized together; the default, None, means all of them (as
        ``scipy.special.log_softmax`` and PyTensor).

    Returns
    -------
    TensorVariable
        Values whose exponentials sum to 1 over ``axis``, with the shape of ``x``.
    """
    x = as_tensor_variable(x)
    return LogSoftmax(normalized_axes(axis, x.type.ndim, "log_softmax"))(x)


logit = Elemwise(ps.logit)
beta = Elemwise(ps.beta)
betaln = Elemwise(ps.betaln)
poch = Elemwise(ps.poch)


def factorial(n: Any, exact: bool = False) -> Variable:
    """``n!``, like ``scipy.special.factorial``.

    Parameters
    ----------
    n : tensor-like
        With ``exact=False``: any real values, ``Gamma(n + 1)`` for ``n >= 0`` and 0 below.
    exact : bool
        Compute in integers (integer ``n`` only; values past 20! overflow int64).

    Returns
    -------
    TensorVariable
        float64 values (``exact=False``) or int64 values (``exact=True``).
    """
    return _factorial_op(bool(exact))(n)


@cache
def _factorial_op(exact: bool) -> Elemwise:
    return Elemwise(ps.Factorial(exact))


def allclose(
    a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> Variable:
    """Whether every pair of elements is close (see :func:`isclose`), like ``np.allclose``.

    Returns
    -------
    TensorVariable
        A 0-d boolean; true for empty inputs.
    """
    return _all(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


__all__ = [
    "LogSoftmax",
    "LogSumExp",
    "Softmax",
    "allclose",
    "beta",
    "betaln",
    "factorial",
    "log_softmax",
    "logit",
    "logsumexp",
    "poch",
    "softmax",
]
