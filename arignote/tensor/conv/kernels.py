"""NumPy kernels of the convolution ops: im2col (a strided view of the padded input, copied
once into a matrix) followed by one batched matrix product per group, which NumPy hands to BLAS.

Everything here is a correlation over ``k`` spatial dimensions of arrays laid out as
``(batch, channels, *spatial)`` with kernels ``(out_channels, in_channels / groups, *kernel)``;
the ops flip kernels themselves when they compute a true convolution.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


def border_pads(border_mode, kshape, dilation) -> tuple[tuple[int, int], ...]:
    """``(before, after)`` zero padding per spatial dimension for a border mode.

    "valid" pads nothing, "full" pads ``d (k - 1)`` (every overlap counts), "half" pads
    ``d (k // 2)`` (same size for odd kernels and unit strides); explicit pairs pass through.
    """
    if border_mode == "valid":
        return tuple((0, 0) for _ in kshape)
    if border_mode == "full":
        return tuple((d * (k - 1),) * 2 for k, d in zip(kshape, dilation))
    if border_mode == "half":
        return tuple((d * (k // 2),) * 2 for k, d in zip(kshape, dilation))
    return tuple(border_mode)


def pad_spatial(x: np.ndarray, pads) -> np.ndarray:
    if not any(before or after for before, after in pads):
        return x
    return np.pad(x, [(0, 0), (0, 0), *pads])


def _patches(xp: np.ndarray, kshape, dilation, subsample) -> np.ndarray:
    """View ``(N, C, *out, *kernel)`` of the windows that meet each output position."""
    k = len(kshape)
    extents = [d * (n - 1) + 1 for n, d in zip(kshape, dilation)]
    if any(e > n for e, n in zip(extents, xp.shape[2:])):  # no window fits: no output position
        out = [max(0, (n - e) // s + 1) for n, e, s in zip(xp.shape[2:], extents, subsample)]
        return np.zeros((*xp.shape[:2], *out, *kshape), dtype=xp.dtype)
    windows = sliding_window_view(xp, extents, axis=tuple(range(2, 2 + k)))
    steps = tuple(slice(None, None, s) for s in subsample)
    taps = tuple(slice(None, None, d) for d in dilation)
    return windows[(slice(None), slice(None), *steps, *taps)]


def _columns(x, kshape, pads, dilation, subsample, groups):
    """The im2col matrix ``(groups, N * prod(out), C/groups * prod(kernel))`` and ``out``."""
    patches = _patches(pad_spatial(x, pads), kshape, dilation, subsample)
    n, c, k = x.shape[0], x.shape[1], len(kshape)
    out = patches.shape[2 : 2 + k]
    patches = patches.reshape(n, groups, c // groups, *out, *kshape)
    order = (1, 0, *range(3, 3 + k), 2, *range(3 + k, 3 + 2 * k))
    # a copy in every case: a reshape of the window view can stay a view with overlapping
    # strides, which BLAS cannot take (NumPy then falls back to a slow loop)
    width = c // groups * math.prod(kshape)
    cols = np.ascontiguousarray(patches.transpose(order).reshape(groups, n * math.prod(out), width))
    return cols, out


def _topgrad_matrix(gy: np.ndarray, groups: int) -> np.ndarray:
    """``(groups, F/groups, N * prod(out))`` view of the output cotangent."""
    n, f = gy.shape[:2]
    positions = math.prod(gy.shape[2:])
    grouped = gy.reshape(n, groups, f // groups, positions)
    flat = grouped.transpose(1, 2, 0, 3).reshape(groups, f // groups, n * positions)
    return np.ascontiguousarray(flat)


def _group_matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a[g] @ b[g]`` for each group, one 2-D product each: NumPy's stacked ``matmul`` does
    not always reach BLAS (measured 1000x slower on im2col shapes), its 2-D ``@`` does."""
    if len(a) == 1:
        return (a[0] @ b[0])[None]
    return np.stack([a[g] @ b[g] for g in range(len(a))])


def corr(x, w, pads, subsample, dilation, groups) -> np.ndarray:
    """``out[n, f, o] = sum_{c, t} x_pad[n, c, o * s + t * d] w[f, c, t]`` (within a group)."""
    f, k = w.shape[0], w.ndim - 2
    cols, out = _columns(x, w.shape[2:], pads, dilation, subsample, groups)
    weights = w.reshape(groups, f // groups, math.prod(w.shape[1:])).transpose(0, 2, 1)
    result = _group_matmul(cols, weights)  # (groups, N * prod(out), F/groups)
    result = result.reshape(groups, x.shape[0], *out, f // groups)
    order = (1, 0, 1 + k + 1, *range(2, 2 + k))
    return result.transpose(order).reshape(x.shape[0], f, *out)


def corr_grad_weights(x, gy, kshape, pads, subsample, dilation, groups) -> np.ndarray:
    """The gradient of :func:`corr` with respect to its kernel: ``gy`` against the columns."""
    cols, _ = _columns(x, kshape, pads, dilation, subsample, groups)
    dw = _group_matmul(_topgrad_matrix(gy, groups), cols)  # (groups, F/groups, C/groups * K)
    return dw.reshape(gy.shape[1], x.shape[1] // groups, *kshape)


def corr_grad_inputs(w, gy, ishape, pads, subsample, dilation, groups) -> np.ndarray:
    """The gradient of :func:`corr` with respect to its input (col2im of ``w^T gy``)."""
    f = w.shape[0]
    weights = w.reshape(groups, f // groups, math.prod(w.shape[1:]))
    dcols = _group_matmul(_topgrad_matrix(gy, groups).transpose(0, 2, 1), weights)
    return _col2im(dcols, gy.shape, w.shape[1], w.shape[2:], ishape, pads, subsample, dilation)


def _col2im(dcols, gshape, cg, kshape, ishape, pads, subsample, dilation) -> np.ndarray:
    """Scatter-add columns ``(groups, N * prod(out), C/groups * prod(kernel))`` back to images.

    Each kernel tap ``t`` sends the output positions to input positions ``o * s + t * d``,
    distinct for one tap, so the scatter is one strided ``+=`` per tap.
    """
    n, out, k, groups = gshape[0], gshape[2:], len(kshape), len(dcols)
    dcols = dcols.reshape(groups, n, *out, cg, *kshape)
    # taps first, then (N, groups, C/groups, *out): each tap's block is contiguous
    taps_first = (*range(3 + k, 3 + 2 * k), 1, 0, 2 + k, *range(2, 2 + k))
    dcols = np.ascontiguousarray(dcols.transpose(taps_first))
    padded = [size + before + after for size, (before, after) in zip(ishape, pads)]
    dx = np.zeros((n, groups, cg, *padded), dtype=dcols.dtype)
    for tap in itertools.product(*(range(t) for t in kshape)):
        where = tuple(
            slice(t * d, t * d + s * (o - 1) + 1, s)
            for t, d, s, o in zip(tap, dilation, subsample, out)
        )
        dx[(Ellipsis, *where)] += dcols[tap]
    crop = tuple(slice(before, before + size) for size, (before, _) in zip(ishape, pads))
    return dx.reshape(n, groups * cg, *padded)[(slice(None), slice(None), *crop)]


# -- unshared kernels: one kernel per output position, ``(F, *out, C/groups, *kernel)`` ----------


def _unshared_weights(w: np.ndarray, groups: int, k: int) -> np.ndarray:
    """``(groups, F/groups, prod(out), C/groups * prod(kernel))`` view of unshared kernels."""
    out = w.shape[1 : 1 + k]
    return w.reshape(groups, w.shape[0] // groups, math.prod(out), math.prod(w.shape[1 + k :]))


def _topgrad_positions(gy: np.ndarray, groups: int) -> np.ndarray:
    """``(N, groups, F/groups, prod(out))`` view of the output cotangent."""
    return gy.reshape(gy.shape[0], groups, gy.shape[1] // groups, math.prod(gy.shape[2:]))


def corr_unshared(x, w, pads, subsample, dilation, groups) -> np.ndarray:
    """:func:`corr` with a separate kernel ``w[f, o]`` for each output position ``o``."""
    k = (w.ndim - 2) // 2
    cols, out = _columns(x, w.shape[-k:], pads, dilation, subsample, groups)
    if tuple(out) != tuple(w.shape[1 : 1 + k]):
        raise ValueError(
            f"unshared convolution: the kernels of shape {w.shape} are for {w.shape[1 : 1 + k]} "
            f"output positions, the input of shape {x.shape} gives {tuple(out)}"
        )
    cols = cols.reshape(groups, x.shape[0], math.prod(out), cols.shape[-1])
    result = np.einsum("gnpq,gfpq->ngfp", cols, _unshared_weights(w, groups, k), optimize=True)
    return result.reshape(x.shape[0], w.shape[0], *out)


def corr_unshared_grad_weights(x, gy, kshape, pads, subsample, dilation, groups) -> np.ndarray:
    """The gradient of :func:`corr_unshared` with respect to its kernels."""
    cols, out = _columns(x, kshape, pads, dilation, subsample, groups)
    cols = cols.reshape(groups, x.shape[0], math.prod(out), cols.shape[-1])
    dw = np.einsum("ngfp,gnpq->gfpq", _topgrad_positions(gy, groups), cols, optimize=True)
    return dw.reshape(gy.shape[1], *out, x.shape[1] // groups, *kshape)


def corr_unshared_grad_inputs(w, gy, ishape, pads, subsample, dilation, groups) -> np.ndarray:
    """The gradient of :func:`corr_unshared` with respect to its input."""
    k = (w.ndim - 2) // 2
    weights = _unshared_weights(w, groups, k)
    dcols = np.einsum("ngfp,gfpq->gnpq", _topgrad_positions(gy, groups), weights, optimize=True)
    dcols = dcols.reshape(groups, gy.shape[0] * math.prod(gy.shape[2:]), dcols.shape[-1])
    cg = w.shape[1 + k]
    return _col2im(dcols, gy.shape, cg, w.shape[-k:], ishape, pads, subsample, dilation)
