"""JAX versions of the pooling ops (``arignote/tensor/signal/pool.py``).

They follow the NumPy kernels (``pool_kernels``) step for step, so that they agree with
``perform`` exactly, ties included:

- the input is zero-padded by ``pad`` on both sides (for every mode, as Theano's CPU pooling
  does), then extended to the end of the last window (``ignore_border=False``) with a value
  that never changes the result (``-inf`` for max, zero for sums);
- pooling is one ``lax.reduce_window`` over that array; averages divide by the static count
  of window positions inside the padded ("average_inc_pad") or the original array;
- the gradients visit the window offsets ("taps") one at a time: tap ``t`` reads the strided
  slice ``t, t + s, t + 2 s, ...`` of the extended array, and writes back through
  ``lax.pad`` with interior padding ``s - 1``, which puts each value at the position it was
  read from. A max-pool gradient goes to *every* position equal to its window's maximum
  (as ``perform`` does), not to one chosen position as ``jax.vjp`` of a max would.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import jax.numpy as jnp
from arignote.graph.basic import Apply
from arignote.link.jax.dispatch.basic import jax_funcify, output_dtypes
from arignote.tensor.signal import pool_kernels as kernels
from arignote.tensor.signal.pool import (
    AveragePoolGrad,
    DownsampleFactorMaxGradGrad,
    MaxPoolGrad,
    Pool,
    PoolBase,
)
from jax import lax


class _Geometry:
    """The windows of ``op`` over an input of spatial shape ``sizes`` (static ints)."""

    def __init__(self, op: PoolBase, sizes: tuple, out: tuple | None = None) -> None:
        self.op, self.sizes = op, tuple(sizes)
        ws, stride, pad, ignore = op.ws, op.stride, op.pad, op.ignore_border
        self.out = (
            tuple(out)
            if out is not None
            else tuple(
                kernels.output_length(n, w, s, p, ignore)
                for n, w, s, p in zip(sizes, ws, stride, pad)
            )
        )
        # the extended length: the padded input, or the end of the last window if further
        self.ext = tuple(
            max((o - 1) * s + w, n + 2 * p)
            for o, s, w, n, p in zip(self.out, stride, ws, sizes, pad)
        )

    def extended(self, x: Any, fill: Any) -> Any:
        """``x`` zero-padded by ``pad``, then filled with ``fill`` up to the extended length."""
        lead = [(0, 0, 0)] * (x.ndim - self.op.ndim)
        zero, fill = jnp.zeros((), x.dtype), jnp.asarray(fill, x.dtype)
        padded = lax.pad(x, zero, lead + [(p, p, 0) for p in self.op.pad])
        tail = [(0, e - n - 2 * p, 0) for e, n, p in zip(self.ext, self.sizes, self.op.pad)]
        return lax.pad(padded, fill, lead + tail)

    def taps(self):
        """Each window offset as ``(offset, strides)`` per spatial axis, with the slice end."""
        if 0 in self.out:
            return
        for tap in np.ndindex(*self.op.ws):
            yield tuple(
                (t, t + (o - 1) * s + 1, s) for t, o, s in zip(tap, self.out, self.op.stride)
            )

    def read(self, xe: Any, tap: tuple) -> Any:
        """The strided slice of the extended array that window offset ``tap`` reads."""
        lead = xe.ndim - self.op.ndim
        starts = (0,) * lead + tuple(t[0] for t in tap)
        ends = tuple(xe.shape[:lead]) + tuple(t[1] for t in tap)
        return lax.slice(xe, starts, ends, (1,) * lead + tuple(t[2] for t in tap))

    def write(self, values: Any, tap: tuple) -> Any:
        """``values`` (``(..., *out)``) placed where ``tap`` read them, zeros elsewhere, in an
        array of the extended shape."""
        lead = [(0, 0, 0)] * (values.ndim - self.op.ndim)
        config = [(start, e - end, s - 1) for (start, end, s), e in zip(tap, self.ext)]
        return lax.pad(values, jnp.zeros((), values.dtype), lead + config)

    def cropped(self, xe: Any) -> Any:
        """The positions of the original input inside an extended array."""
        lead = xe.ndim - self.op.ndim
        starts = (0,) * lead + self.op.pad
        ends = tuple(xe.shape[:lead]) + tuple(p + n for p, n in zip(self.op.pad, self.sizes))
        return lax.slice(xe, starts, ends)

    def counts(self, dtype: np.dtype) -> np.ndarray:
        """The number of positions each window averages over (static)."""
        op = self.op
        include = op.mode == "average_inc_pad"
        args = (op.ws, op.stride, op.pad, op.ignore_border, include)
        return kernels.window_counts(self.sizes, *args).astype(dtype)


def _spatial(op: PoolBase, x: Any) -> tuple:
    return tuple(x.shape[x.ndim - op.ndim :])


def _reduce(geometry: _Geometry, xe: Any, init: Any, combine: Callable) -> Any:
    op, lead = geometry.op, xe.ndim - geometry.op.ndim
    window, strides = (1,) * lead + op.ws, (1,) * lead + op.stride
    pooled = lax.reduce_window(xe, jnp.asarray(init, xe.dtype), combine, window, strides, "VALID")
    # the extended array may hold the start of one more window than the output counts
    ends = tuple(xe.shape[:lead]) + geometry.out
    return lax.slice(pooled, (0,) * xe.ndim, ends)


@jax_funcify.register(Pool)
def jax_funcify_Pool(op: Pool, node: Apply, **kwargs: Any) -> Callable:
    (dtype,) = output_dtypes(node)

    def pool(x):
        geometry = _Geometry(op, _spatial(op, x))
        if op.mode == "max":
            fill = kernels.max_fill(x.dtype)
            return _reduce(geometry, geometry.extended(x, fill), fill, lax.max).astype(dtype)
        summed = _reduce(geometry, geometry.extended(x.astype(dtype), 0), 0, lax.add)
        if op.mode == "sum":
            return summed
        return summed / geometry.counts(dtype)

    return pool


def _total(parts: Any, shape: tuple, dtype: np.dtype) -> Any:
    """The sum of the per-tap arrays (zeros of ``shape`` when there is no window at all)."""
    total = None
    for part in parts:
        total = part if total is None else total + part
    return jnp.zeros(shape, dtype) if total is None else total


def _max_geometry(op: PoolBase, x: Any, maxout: Any) -> _Geometry:
    return _Geometry(op, _spatial(op, x), _spatial(op, maxout))


@jax_funcify.register(MaxPoolGrad)
def jax_funcify_MaxPoolGrad(op: MaxPoolGrad, node: Apply, **kwargs: Any) -> Callable:
    (dtype,) = output_dtypes(node)

    def max_pool_grad(x, maxout, gz):
        geometry = _max_geometry(op, x, maxout)
        xe, gz = geometry.extended(x, kernels.max_fill(x.dtype)), gz.astype(dtype)
        zero = jnp.zeros((), dtype)
        # every position equal to its window's maximum receives the window's gradient
        routed = (
            geometry.write(jnp.where(geometry.read(xe, tap) == maxout, gz, zero), tap)
            for tap in geometry.taps()
        )
        return geometry.cropped(_total(routed, xe.shape, dtype))

    return max_pool_grad


@jax_funcify.register(DownsampleFactorMaxGradGrad)
def jax_funcify_DownsampleFactorMaxGradGrad(op, node: Apply, **kwargs: Any) -> Callable:
    (dtype,) = output_dtypes(node)

    def max_pool_grad_grad(x, maxout, ggx):
        geometry = _max_geometry(op, x, maxout)
        xe = geometry.extended(x, kernels.max_fill(x.dtype))
        ggxe = geometry.extended(ggx.astype(dtype), 0)
        zero = jnp.zeros((), dtype)
        # each window sums the second-order gradient over the positions of its maximum
        picked = (
            jnp.where(geometry.read(xe, tap) == maxout, geometry.read(ggxe, tap), zero)
            for tap in geometry.taps()
        )
        return _total(picked, maxout.shape, dtype)

    return max_pool_grad_grad


@jax_funcify.register(AveragePoolGrad)
def jax_funcify_AveragePoolGrad(op: AveragePoolGrad, node: Apply, **kwargs: Any) -> Callable:
    (dtype,) = output_dtypes(node)

    def average_pool_grad(x, gz):
        geometry = _Geometry(op, _spatial(op, x), _spatial(op, gz))
        gz = gz.astype(dtype)
        if op.mode != "sum":
            gz = gz / geometry.counts(dtype)  # each position gets its share of the window
        spread = (geometry.write(gz, tap) for tap in geometry.taps())
        extended_shape = (*gz.shape[: gz.ndim - op.ndim], *geometry.ext)
        return geometry.cropped(_total(spread, extended_shape, dtype))

    return average_pool_grad
