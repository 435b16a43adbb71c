"""Vector and matrix norms (``numpy.linalg.norm``), as graphs of elementwise ops, reductions
and, for the spectral and nuclear norms, singular values."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from arignote.graph.basic import Variable
from arignote.scalar.basic import complex_dtypes, float_dtypes
from arignote.tensor.basic import as_tensor_variable, constant
from arignote.tensor.elemwise import DimShuffle
from arignote.tensor.linalg.basic import real_dtype
from arignote.tensor.linalg.decompositions import SVD
from arignote.tensor.math import abs as tensor_abs
from arignote.tensor.math import cast, neq, sqr, sqrt
from arignote.tensor.math import pow as tensor_pow
from arignote.tensor.pad import pad
from arignote.tensor.reduction import max as tensor_max
from arignote.tensor.reduction import min as tensor_min
from arignote.tensor.reduction import sum as tensor_sum


def _max_from_zero(x: Variable, axis: int) -> Variable:
    """The maximum of the non-negative ``x`` along ``axis``, 0 where that axis is empty (NumPy's
    ``max(..., initial=0)``): one zero is appended along the axis before reducing."""
    axis = axis % x.type.ndim
    width = [(0, 1) if d == axis else (0, 0) for d in range(x.type.ndim)]
    return tensor_max(pad(x, width), axis=axis)


_REDUCERS = {"max": _max_from_zero, "min": tensor_min, "sum": tensor_sum}


def _squared_magnitude(x: Variable) -> Variable:
    """``|x|^2`` elementwise (``x * x`` for real ``x``)."""
    return sqr(tensor_abs(x)) if x.type.dtype in complex_dtypes else sqr(x)


def _normalize_axis(axis: Any, ndim: int) -> tuple[int, ...]:
    if not isinstance(axis, tuple):
        try:
            axis = (operator.index(axis),)
        except TypeError as err:
            raise TypeError("norm: 'axis' must be None, an integer or a tuple of integers") from err
    normalized = []
    for a in axis:
        a = operator.index(a)
        if not -ndim <= a < ndim:
            raise np.exceptions.AxisError(
                f"norm: axis {a} is out of bounds for a tensor of dimension {ndim}"
            )
        normalized.append(a % ndim)
    return tuple(normalized)


def _restore(ret: Variable, axes: tuple[int, ...], ndim: int) -> Variable:
    """Re-insert the reduced ``axes`` as length-1 dimensions (``keepdims=True``)."""
    order: list = []
    kept = iter(range(ret.type.ndim))
    for d in range(ndim):
        order.append("x" if d in axes else next(kept))
    return DimShuffle(ret.type.ndim, order)(ret)


def _vector_norm(x: Variable, ord: Any, axis: int) -> Variable:
    if isinstance(ord, str):
        raise ValueError(f"norm: invalid norm order {ord!r} for vectors")
    if ord is None or ord == 2:
        return sqrt(tensor_sum(_squared_magnitude(x), axis=axis))
    if ord == np.inf:
        return _max_from_zero(tensor_abs(x), axis)
    if ord == -np.inf:
        return tensor_min(tensor_abs(x), axis=axis)
    if ord == 0:  # the number of non-zero entries
        return tensor_sum(cast(neq(x, 0), real_dtype(x.type.dtype)), axis=axis)
    if ord == 1:
        return tensor_sum(tensor_abs(x), axis=axis)
    magnitude = tensor_abs(x)
    total = tensor_sum(tensor_pow(magnitude, float(ord)), axis=axis)
    # the exponent 1/ord is rounded in the result's precision, as NumPy does
    inverse = constant(np.reciprocal(float(ord), dtype=total.type.dtype))
    return tensor_pow(total, inverse)


def _singular_value_norm(x: Variable, rows: int, cols: int, reduce: str) -> Variable:
    """A reduction (max/min/sum) of the singular values of the matrices over (rows, cols)."""
    others = [d for d in range(x.type.ndim) if d not in (rows, cols)]
    moved = DimShuffle(x.type.ndim, [*others, rows, cols])(x)
    values = SVD(full_matrices=False, compute_uv=False)(moved)
    return _REDUCERS[reduce](values, axis=-1)


def _matrix_norm(x: Variable, ord: Any, rows: int, cols: int) -> Variable:
    if rows == cols:
        raise ValueError("norm: duplicate axes given")
    if ord == 2:
        return _singular_value_norm(x, rows, cols, "max")
    if ord == -2:
        return _singular_value_norm(x, rows, cols, "min")
    if ord == "nuc":
        return _singular_value_norm(x, rows, cols, "sum")
    if ord in (None, "fro", "f"):
        return sqrt(tensor_sum(_squared_magnitude(x), axis=(rows, cols)))
    if ord in (1, -1):  # largest (smallest) column sum
        reduce = _max_from_zero if ord == 1 else tensor_min
        return reduce(tensor_sum(tensor_abs(x), axis=rows), axis=cols - (cols > rows))
    if ord in (np.inf, -np.inf):  # largest (smallest) row sum
        reduce = _max_from_zero if ord == np.inf else tensor_min
        return reduce(tensor_sum(tensor_abs(x), axis=cols), axis=rows - (rows > cols))
    raise ValueError(f"norm: invalid norm order {ord!r} for matrices")


def norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Variable:
    """Vector or matrix norm, like ``numpy.linalg.norm``.

    Parameters
    ----------
    x
        A tensor; integers are computed in float64.
    ord
        For vectors: None or 2 (Euclidean), 1, ``inf``, ``-inf``, 0 (number of non-zeros) or
        any other number ``p`` (``sum(|x|^p)^(1/p)``). For matrices: None or ``"fro"``
        (Frobenius), ``"nuc"`` (nuclear), 1, -1 (max/min column sum), 2, -2 (largest/smallest
        singular value), ``inf``, ``-inf`` (max/min row sum).
    axis
        None: with ``ord=None`` the norm of all entries; otherwise ``x`` must be 1-d or 2-d.
        An int: vector norms along that axis. A pair: matrix norms over those two axes.
    keepdims
        Keep the reduced axes as length-1 dimensions.

    Returns
    -------
    Variable
        The norms, in the real dtype of ``x``.
    """
    x = as_tensor_variable(x)
    if x.type.dtype not in float_dtypes + complex_dtypes:
        x = cast(x, "float64")
    ndim = x.type.ndim
    if axis is None:
        if ord is None or (ord in ("f", "fro") and ndim == 2) or (ord == 2 and ndim == 1):
            ret = sqrt(tensor_sum(_squared_magnitude(x)))
            return _restore(ret, tuple(range(ndim)), ndim) if keepdims else ret
        axis = tuple(range(ndim))
    axes = _normalize_axis(axis, ndim)
    if len(axes) == 1:
        ret = _vector_norm(x, ord, axes[0])
    elif len(axes) == 2:
        ret = _matrix_norm(x, ord, *axes)
    else:
        raise ValueError("norm: improper number of dimensions to norm")
    return _restore(ret, tuple(sorted(axes)), ndim) if keepdims else ret


__all__ = ["norm"]
