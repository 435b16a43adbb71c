"""JAX versions of ``UnravelIndex`` and ``RavelMultiIndex`` (``tensor/ravel.py``), written as
integer arithmetic so that ``dims`` may be known only at run time.

NumPy raises for an out-of-range index (``mode="raise"``); XLA cannot raise, so here such an
index gives an unspecified result, as JAX's own index functions do.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
from arignote.graph.basic import Apply
from arignote.link.jax.dispatch.basic import jax_funcify
from arignote.tensor.ravel import RavelMultiIndex, UnravelIndex


def _axis_order(count: int, order: str) -> range:
    """The axes from the fastest-varying one: the last for C order, the first for Fortran."""
    return range(count - 1, -1, -1) if order == "C" else range(count)


@jax_funcify.register(UnravelIndex)
def jax_funcify_UnravelIndex(op: UnravelIndex, node: Apply, **kwargs: Any) -> Callable:
    count = len(node.outputs)

    def unravel_index(indices, dims):
        rest, dims = jnp.asarray(indices, jnp.int64), jnp.asarray(dims, jnp.int64)
        parts: list = [None] * count
        for axis in _axis_order(count, op.order):
            # peel the fastest axis off: index = rest * dims[axis] + part
            parts[axis], rest = rest % dims[axis], rest // dims[axis]
        return tuple(parts) if count > 1 else parts[0]

    return unravel_index


def _in_range(index: Any, length: Any, mode: str) -> Any:
    if mode == "wrap":
        return index % length  # Python's modulo: the sign of the length, as NumPy's wrap
    if mode == "clip":
        return jnp.clip(index, 0, length - 1)
    return index


@jax_funcify.register(RavelMultiIndex)
def jax_funcify_RavelMultiIndex(op: RavelMultiIndex, node: Apply, **kwargs: Any) -> Callable:
    def ravel_multi_index(*inputs):
        *multi_index, dims = inputs
        dims = jnp.asarray(dims, jnp.int64)
        indices = jnp.broadcast_arrays(*(jnp.asarray(i, jnp.int64) for i in multi_index))
        flat, stride = jnp.zeros(indices[0].shape, jnp.int64), jnp.asarray(1, jnp.int64)
        for axis in _axis_order(len(indices), op.order):
            flat = flat + _in_range(indices[axis], dims[axis], op.mode) * stride
            stride = stride * dims[axis]
        return flat

    return ravel_multi_index
