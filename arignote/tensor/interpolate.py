"""One-dimensional interpolation: ``interp`` (``numpy.interp``) and ``interpolate1d``.

Both are graphs of existing ops (``searchsorted``, gathers, ``switch``), so they are
differentiable in the query points and in the data (piecewise: the bracketing interval of a
query point is held fixed, as for any piecewise-linear function).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from arignote.graph.basic import Variable
from arignote.scalar.basic import upcast
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.indexing_ops import where
from arignote.tensor.join import concatenate
from arignote.tensor.math import cast, clip, eq, le, lt
from arignote.tensor.shape import shape_i
from arignote.tensor.sort import argsort, searchsorted

METHODS = ("linear", "nearest", "first", "last", "mean")


def _neighbours(xp: Variable, x: Variable) -> tuple[Variable, Variable]:
    """For each query point, the index of the last data point at or below it (clipped to a
    valid interval start ``0..n-2``) and the raw insertion index ``searchsorted(xp, x)``."""
    right = searchsorted(xp, x, side="right")
    return clip(right - 1, 0, shape_i(xp, 0) - 2), right


def _linear(xp: Variable, fp: Variable, x: Variable, lo: Variable) -> Variable:
    x0, x1, y0, y1 = xp[lo], xp[lo + 1], fp[lo], fp[lo + 1]
    width = x1 - x0  # 0 only between repeated abscissae, where the caller takes fp itself
    return y0 + (x - x0) * ((y1 - y0) / where(eq(width, 0), 1, width))


def _piecewise_linear(xp: Variable, fp: Variable, x: Variable) -> Variable:
    """NumPy's rule: at a data point (the last of equal ones) its value, else the line
    through the interval's ends; repeated abscissae (booleans) never divide 0 by 0."""
    lo, right = _neighbours(xp, x)
    at = clip(right - 1, 0, shape_i(xp, 0) - 1)  # the last data point at or below x
    return where(eq(xp[at], x), fp[at], _linear(xp, fp, x, lo))


def _periodic(x: Variable, xp: Variable, fp: Variable, period: Any) -> tuple:
    """NumPy's periodic form: everything modulo ``period``, the data sorted and extended by
    one point on each side so that the interval across the period boundary exists."""
    period = abs(period)
    x, xp = x % period, xp % period
    order = argsort(xp)
    xp, fp = xp[order], fp[order]
    xp = concatenate([xp[-1:] - period, xp, xp[:1] + period])
    fp = concatenate([fp[-1:], fp, fp[:1]])
    return x, xp, fp


def interp(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None, period: Any = None):
    """One-dimensional piecewise-linear interpolation, like ``numpy.interp``.

    Parameters
    ----------
    x
        Query points (any shape).
    xp
        Increasing data abscissae (1-d); with ``period``, any order.
    fp
        Data values, as long as ``xp`` (real or complex).
    left, right
        Values for ``x < xp[0]`` and ``x > xp[-1]`` (default ``fp[0]`` and ``fp[-1]``); ignored
        with ``period``.
    period
        The period of the abscissae, for angular data.

    Returns
    -------
    Variable
        The interpolated values, shaped like ``x``, in float64 (complex128 for complex
        ``fp``) as NumPy returns them.
    """
    x, xp, fp = (as_tensor_variable(v) for v in (x, xp, fp))
    if xp.type.ndim != 1 or fp.type.ndim != 1:
        raise ValueError(f"interp: xp and fp must be 1-d, got {xp.type} and {fp.type}")
    dtype = "complex128" if fp.type.dtype.startswith("complex") else "float64"
    x, xp, fp = cast(x, "float64"), cast(xp, "float64"), cast(fp, dtype)
    if period is not None:
        if period == 0:
            raise ValueError("interp: period must be a non-zero value")
        x, xp, fp = _periodic(x, xp, fp, period)
        return _piecewise_linear(xp, fp, x)
    inside = _piecewise_linear(xp, fp, x)
    below = fp[0] if left is None else cast(as_tensor_variable(left), dtype)
    above = fp[-1] if right is None else cast(as_tensor_variable(right), dtype)
    # exactly at xp[-1] the last interval gives fp[-1]; beyond it, ``right``
    return where(lt(x, xp[0]), below, where(lt(xp[-1], x), above, inside))


def _interval_rule(method: str, x, y, x_new, idx) -> Variable:
    """The value at ``x_new`` from the neighbours ``x[idx-1] < x_new <= x[idx]`` (``idx`` from
    a left-sided ``searchsorted``), with the end intervals extended outwards."""
    n = shape_i(x, 0)
    if method == "first":
        return y[clip(idx - 1, 0, n - 1)]
    if method == "last":
        return y[clip(idx, 0, n - 1)]
    hi = clip(idx, 1, n - 1)
    y0, y1 = y[hi - 1], y[hi]
    if method == "linear":
        return y0 + (x_new - x[hi - 1]) * ((y1 - y0) / (x[hi] - x[hi - 1]))
    if method == "nearest":  # a tie goes to the left neighbour
        return where(le(x_new - x[hi - 1], x[hi] - x_new), y0, y1)
    return (y0 + y1) / 2


def interpolate1d(
    x: Any,
    y: Any,
    method: str = "linear",
    left_pad: Any = None,
    right_pad: Any = None,
    extrapolate: bool = True,
) -> Callable[[Any], Variable]:
    """A function interpolating the data ``(x, y)`` at new points, like PyTensor's.

    Parameters
    ----------
    x, y
        1-d data; ``x`` is sorted (with ``y``) first.
    method
        "linear", "nearest" (the closer neighbour, the left one on a tie), "first" (the left
        neighbour, ``x[i-1] < x_new``), "last" (the right neighbour, ``x_new <= x[i]``) or
        "mean" (of both neighbours).
    left_pad, right_pad
        Values for ``x_new <= x[0]`` and ``x_new > x[-1]`` when ``extrapolate`` is False (default
        ``y[0]`` and ``y[-1]``).
    extrapolate
        Extend the end intervals' rule beyond the data instead of padding.

    Returns
    -------
    callable
        ``f(x_new)``, elementwise over ``x_new`` of any shape.
    """
    if method not in METHODS:
        raise ValueError(f"interpolate1d: method must be one of {METHODS}, got {method!r}")
    x, y = as_tensor_variable(x), as_tensor_variable(y)
    if x.type.ndim != 1 or y.type.ndim != 1:
        raise ValueError(f"interpolate1d: x and y must be 1-d, got {x.type} and {y.type}")
    order = argsort(x)
    x, y = x[order], y[order]
    dtype = upcast(x.type.dtype, y.type.dtype, "float32")
    left = y[0] if left_pad is None else as_tensor_variable(left_pad)
    right = y[-1] if right_pad is None else as_tensor_variable(right_pad)

    def interpolate(x_new: Any) -> Variable:
        x_new = cast(as_tensor_variable(x_new), dtype)
        idx = searchsorted(x, x_new)
        value = _interval_rule(method, x, y, x_new, idx)
        if extrapolate:
            return value
        # below (or at) the first point: left_pad; beyond the last: right_pad
        return where(eq(idx, 0), left, where(eq(idx, shape_i(x, 0)), right, value))

    return interpolate


__all__ = ["interp", "interpolate1d"]
