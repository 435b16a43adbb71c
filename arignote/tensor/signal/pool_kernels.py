"""NumPy kernels of the pooling ops, over the last ``nd`` axes of an array.

The input is zero-padded by ``pad`` on both sides (as Theano's CPU pooling does, for every
mode), then extended at the end so that the last, truncated windows of
``ignore_border=False`` are full; the extension holds ``-inf`` for max pooling and zeros for
sums, so it never changes a result. Averages divide by the number of window positions inside
the padded array ("average_inc_pad") or inside the original one ("average_exc_pad").
"""

from __future__ import annotations

import itertools

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


def output_length(size, ws, stride, pad, ignore_border, maximum=max):
    """Pooled length along one axis (ints, or symbolic with a symbolic ``maximum``)."""
    padded = size + 2 * pad
    if ignore_border:
        return (padded - ws) // stride + 1
    if stride >= ws:
        return (padded - 1) // stride + 1
    return maximum(0, (padded - 1 - ws + stride) // stride) + 1


def _lengths(shape, ws, stride, pad, ignore_border):
    return tuple(
        output_length(n, w, s, p, ignore_border) for n, w, s, p in zip(shape, ws, stride, pad)
    )


def _extended(x, ws, stride, pad, out, fill):
    """``x`` zero-padded by ``pad`` and filled with ``fill`` up to the end of the last window
    (``x`` itself when neither is needed)."""
    nd = len(ws)
    lead = x.shape[: x.ndim - nd]
    ext = [
        max((o - 1) * s + w, n + 2 * p)
        for o, s, w, n, p in zip(out, stride, ws, x.shape[-nd:], pad)
    ]
    if not any(pad) and tuple(ext) == x.shape[-nd:]:
        return x
    full = np.full((*lead, *ext), fill, dtype=x.dtype)
    full[(Ellipsis, *[slice(0, n + 2 * p) for n, p in zip(x.shape[-nd:], pad)])] = 0
    full[(Ellipsis, *[slice(p, p + n) for n, p in zip(x.shape[-nd:], pad)])] = x
    return full


def _windows(xe, ws, stride, out):
    """View ``(..., *out, *ws)`` of the pooling windows."""
    nd = len(ws)
    view = sliding_window_view(xe, ws, axis=tuple(range(xe.ndim - nd, xe.ndim)))
    steps = tuple(slice(None, (o - 1) * s + 1, s) for o, s in zip(out, stride))
    return view[(Ellipsis, *steps, *[slice(None)] * nd)]


def window_counts(shape, ws, stride, pad, ignore_border, include_pad):
    """How many positions of each window fall inside the padded (or the original) array."""
    nd = len(ws)
    out = _lengths(shape, ws, stride, pad, ignore_border)
    if min(out) <= 0:  # no window at all (a zero-length axis): nothing to count
        return np.zeros([max(o, 0) for o in out])
    inside = np.ones(shape, dtype=np.float64)
    if include_pad:
        inside = np.pad(inside, [(p, p) for p in pad], constant_values=1.0)
        pad = (0,) * nd
    xe = _extended(inside, ws, stride, pad, out, 0.0)
    return _windows(xe, ws, stride, out).sum(axis=tuple(range(-nd, 0)))


def max_fill(dtype) -> float | int:
    """The value that never wins a maximum: -inf, or the smallest integer of ``dtype``."""
    dtype = np.dtype(dtype)
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min if dtype.kind in "iu" else False


def _taps(ws, stride, out):
    """For each window offset, the strided slice of the extended array it reads."""
    for tap in itertools.product(*(range(w) for w in ws)):
        yield tuple(slice(t, t + (o - 1) * s + 1, s) for t, s, o in zip(tap, stride, out))


def pool(x, ws, stride, pad, ignore_border, mode):
    """Pooled values: the windows combined one tap at a time (a strided slice per window
    offset, reduced with ``maximum`` or ``add`` in place: faster than reducing a window view)."""
    nd = len(ws)
    out = _lengths(x.shape[-nd:], ws, stride, pad, ignore_border)
    fill = max_fill(x.dtype) if mode == "max" else 0
    xe = _extended(x, ws, stride, pad, out, fill)
    combine = np.maximum if mode == "max" else np.add
    taps = _taps(ws, stride, out)
    result = np.array(
        xe[(Ellipsis, *next(taps))],
        dtype=np.result_type(x.dtype, np.float64) if mode.startswith("average") else x.dtype,
    )
    for where in taps:
        combine(result, xe[(Ellipsis, *where)], out=result)
    if mode in ("max", "sum"):
        return result
    counts = window_counts(x.shape[-nd:], ws, stride, pad, ignore_border, mode == "average_inc_pad")
    return result / counts


def _cropped(gxe, x_shape, pad):
    nd = len(pad)
    return gxe[(Ellipsis, *[slice(p, p + n) for n, p in zip(x_shape[-nd:], pad)])]


def max_pool_grad(x, maxout, gz, ws, stride, pad, ignore_border):
    """Each window's gradient goes to the positions that hold its maximum (to all of them on
    ties, as in Theano)."""
    out = maxout.shape[-len(ws) :]
    xe = _extended(x, ws, stride, pad, out, max_fill(x.dtype))
    gxe = np.zeros(xe.shape, dtype=gz.dtype)
    add = np.logical_or if gz.dtype == bool else np.add  # booleans do not add in place
    for where in _taps(ws, stride, out):
        view = gxe[(Ellipsis, *where)]
        add(view, np.where(xe[(Ellipsis, *where)] == maxout, gz, 0), out=view)
    return _cropped(gxe, x.shape, pad)


def max_pool_grad_grad(x, maxout, ggx, ws, stride, pad, ignore_border):
    """The adjoint of :func:`max_pool_grad` in ``gz``: each window sums ``ggx`` over the
    positions that hold its maximum."""
    out = maxout.shape[-len(ws) :]
    xe = _extended(x, ws, stride, pad, out, max_fill(x.dtype))
    ggxe = _extended(ggx, ws, stride, pad, out, 0)
    ggz = np.zeros(maxout.shape, dtype=ggx.dtype)
    for where in _taps(ws, stride, out):
        ggz += np.where(xe[(Ellipsis, *where)] == maxout, ggxe[(Ellipsis, *where)], 0)
    return ggz


def average_pool_grad(x_shape, gz, ws, stride, pad, ignore_border, mode):
    """Each window spreads its gradient evenly (unscaled for "sum") over its positions."""
    nd = len(ws)
    out = gz.shape[-nd:]
    if mode != "sum":
        counts = window_counts(
            x_shape[-nd:], ws, stride, pad, ignore_border, mode == "average_inc_pad"
        )
        gz = gz / counts
    lead = gz.shape[: gz.ndim - nd]
    ext = [
        max((o - 1) * s + w, n + 2 * p)
        for o, s, w, n, p in zip(out, stride, ws, x_shape[-nd:], pad)
    ]
    gxe = np.zeros((*lead, *ext), dtype=gz.dtype)
    for where in _taps(ws, stride, out):
        gxe[(Ellipsis, *where)] += gz
    return _cropped(gxe, x_shape, pad)
