"""``arignote.tensor.special``: softmax, log-softmax and logsumexp along axes, and the special
functions of combinatorics and statistics (``logit``, ``beta``, ``betaln``, ``factorial``,
``poch``), as in ``scipy.special``.

The three axis ops subtract the maximum before exponentiating, so they neither overflow nor
underflow to NaN for large inputs; their gradients are exact closed forms.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from arignote import scalar as ps
from arignote.graph.basic import Apply, Variable
from arignote.graph.op import Op
from arignote.scalar.basic import complex_dtypes
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.elemwise import DimShuffle, Elemwise
from arignote.tensor.math import eq, exp, isclose, logical_not
from arignote.tensor.reduction import normalize_axes
from arignote.tensor.reduction import sum as _sum
from arignote.tensor.type import tensor_type


def _exp_dtype(op: Op, dtype: str) -> str:
    """The output dtype of ``np.exp`` (and scipy's softmax family) for inputs of ``dtype``."""
    if dtype in complex_dtypes:
        raise TypeError(f"{op} expects real inputs, got dtype {dtype}")
    return np.exp.resolve_dtypes((np.dtype(dtype), None))[-1].name


def _check_axes(op: Op, x: Variable) -> None:
    if any(a >= x.type.ndim for a in op.axis):
        raise ValueError(f"{op}: axis {op.axis} is out of range for {x.type}")


def _normalized_axis(axis: Any, ndim: int) -> tuple[int, ...]:
    """``axis`` (int, tuple or None for all) as a sorted tuple of non-negative ints."""
    axes = normalize_axes(axis, ndim)
    return tuple(range(ndim)) if axes is None else axes


def _expand(g: Variable, axes: tuple[int, ...], ndim: int) -> Variable:
    """Re-insert the reduced ``axes`` into ``g`` as length-1 dimensions (keepdims)."""
    kept = iter(range(g.type.ndim))
    order = ["x" if d in axes else next(kept) for d in range(ndim)]
    return DimShuffle(g.type.ndim, order)(g)


def _shifted(x: np.ndarray, axes: tuple[int, ...], dtype: str) -> np.ndarray:
    """``x - max(x, axes)`` in ``dtype``: exponentials of it are at most 1."""
    x = np.asarray(x, dtype=dtype)
    if x.size == 0:
        return x
    with np.errstate(invalid="ignore"):  # inf - inf: NaN, as in SciPy
        return x - np.max(x, axis=axes, keepdims=True)


class AxisOp(Op):
    """Common frame of the ops normalizing over ``axis``: props, validation, float output."""

    __props__ = ("axis",)

    def __init__(self, axis: tuple[int, ...]) -> None:
        axis = tuple(int(a) for a in axis)
        if any(a < 0 for a in axis) or len(set(axis)) != len(axis):
            raise ValueError(f"{type(self).__name__} expects distinct axes >= 0, got {axis}")
        self.axis = tuple(sorted(axis))

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        _check_axes(self, x)
        out_dtype = _exp_dtype(self, x.type.dtype)
        return Apply(self, [x], [tensor_type(out_dtype, self._out_shape(x.type.shape))()])

    def _out_shape(self, shape: tuple) -> tuple:
        return shape

    def infer_shape(self, fgraph, node, input_shapes):
        return [self._out_shape(input_shapes[0])]

    def __str__(self) -> str:
        return f"{type(self).__name__}{{axis={self.axis}}}"


class Softmax(AxisOp):
    """``exp(x) / sum(exp(x), axis)``: ``scipy.special.softmax(x, axis)``."""

    def perform(self, node, inputs, output_storage):
        e = np.exp(_shifted(inputs[0], self.axis, node.outputs[0].type.dtype))
        output_storage[0][0] = e / np.sum(e, axis=self.axis, keepdims=True)

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
        shifted = _shifted(inputs[0], self.axis, node.outputs[0].type.dtype)
        with np.errstate(divide="ignore"):  # an all -inf slice gives log(0) = -inf
            total = np.log(np.sum(np.exp(shifted), axis=self.axis, keepdims=True))
        output_storage[0][0] = shifted - total

    def L_op(self, inputs, outputs, output_grads):
        (y,), (gy,) = outputs, output_grads
        # dy_i/dx_j = delta_ij - softmax_j: gx = gy - softmax * sum(gy)
        return [gy - exp(y) * _sum(gy, axis=self.axis, keepdims=True)]

    def R_op(self, inputs, eval_points):
        (x,), (v,) = inputs, eval_points
        if v is None:
            return [None]
        return [v - _sum(exp(self(x)) * v, axis=self.axis, keepdims=True)]


class LogSumExp(AxisOp):
    """``log(sum(exp(x), axis))`` with the reduced axes removed: ``scipy.special.logsumexp``."""

    def _out_shape(self, shape: tuple) -> tuple:
        return tuple(s for d, s in enumerate(shape) if d not in self.axis)

    def perform(self, node, inputs, output_storage):
        dtype = node.outputs[0].type.dtype
        x = np.asarray(inputs[0], dtype=dtype)
        if x.size == 0:
            out_shape = self._out_shape(x.shape)
            output_storage[0][0] = np.full(out_shape, -np.inf, dtype=dtype)
            return
        top = np.max(x, axis=self.axis, keepdims=True)
        # An infinite maximum would make x - top NaN: shift by 0 there instead (inf stays inf,
        # an all -inf slice gives log(0) = -inf, as in SciPy).
        top = np.where(np.isfinite(top), top, 0).astype(dtype, copy=False)
        with np.errstate(divide="ignore"):
            total = np.log(np.sum(np.exp(x - top), axis=self.axis, keepdims=True))
        output_storage[0][0] = np.squeeze(total + top, axis=self.axis)

    def L_op(self, inputs, outputs, output_grads):
        (x,), (out,), (gz,) = inputs, outputs, output_grads
        ndim = x.type.ndim
        # d logsumexp / dx = softmax(x) = exp(x - logsumexp(x))
        weights = exp(x - _expand(out, self.axis, ndim))
        return [_expand(gz, self.axis, ndim) * weights]

    def R_op(self, inputs, eval_points):
        (x,), (v,) = inputs, eval_points
        if v is None:
            return [None]
        weights = exp(x - _expand(self(x), self.axis, x.type.ndim))
        return [_sum(weights * v, axis=self.axis)]


def softmax(x: Any, axis: Any = -1) -> Variable:
    """The softmax of ``x`` along ``axis``: ``exp(x) / sum(exp(x), axis, keepdims=True)``.

    Parameters
    ----------
    x : tensor-like
        Real values (integers are converted to float64).
    axis : int, tuple of ints or None
        The axes normalized together (None: all of them). Default: the last axis.

    Returns
    -------
    TensorVariable
        Non-negative values summing to 1 over ``axis``, with the shape of ``x``.
    """
    x = as_tensor_variable(x)
    return Softmax(_normalized_axis(axis, x.type.ndim))(x)


def log_softmax(x: Any, axis: Any = -1) -> Variable:
    """The logarithm of :func:`softmax`, ``x - logsumexp(x, axis, keepdims=True)``, computed
    without forming the softmax (accurate where it underflows).

    Parameters
    ----------
    x : tensor-like
    axis : int, tuple of ints or None
        Default: the last axis.

    Returns
    -------
    TensorVariable
        Values whose exponentials sum to 1 over ``axis``, with the shape of ``x``.
    """
    x = as_tensor_variable(x)
    return LogSoftmax(_normalized_axis(axis, x.type.ndim))(x)


def logsumexp(x: Any, axis: Any = None, keepdims: bool = False) -> Variable:
    """``log(sum(exp(x), axis))`` without overflow, like ``scipy.special.logsumexp``.

    Parameters
    ----------
    x : tensor-like
    axis : int, tuple of ints or None
        The axes summed over (None: all).
    keepdims : bool
        Keep the reduced axes as length-1 dimensions.

    Returns
    -------
    TensorVariable
        ``-inf`` for empty or all ``-inf`` slices, ``inf`` where a slice holds ``inf``.
    """
    x = as_tensor_variable(x)
    axes = _normalized_axis(axis, x.type.ndim)
    out = LogSumExp(axes)(x)
    return _expand(out, axes, x.type.ndim) if keepdims else out


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
    # all(close) == (number of pairs that are not close is 0); lives here, above reductions
    far = logical_not(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))
    return eq(_sum(far), 0)


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
