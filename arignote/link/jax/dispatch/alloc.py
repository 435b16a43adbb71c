"""JAX versions of the allocating and joining ops (``arignote/tensor/alloc.py``, ``join.py``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import jax.numpy as jnp
from arignote.graph.basic import Apply
from arignote.link.jax.dispatch.basic import (
    jax_funcify,
    output_dtypes,
    static_ints,
    static_scalar,
)
from arignote.tensor.alloc import Alloc, AllocEmpty, ARange, Eye, Linspace, check_alloc_broadcast
from arignote.tensor.join import Join, Split


@jax_funcify.register(Alloc)
def jax_funcify_Alloc(op: Alloc, node: Apply, **kwargs: Any) -> Callable:
    (dtype,) = output_dtypes(node)

    def alloc(value, *shape):
        lengths = tuple(static_ints(s, node, "shape") for s in shape)
        value = jnp.asarray(value, dtype)
        check_alloc_broadcast(node, value, lengths)  # (shapes are known when JAX traces)
        return jnp.broadcast_to(value, lengths)

    return alloc


@jax_funcify.register(AllocEmpty)
def jax_funcify_AllocEmpty(op: AllocEmpty, node: Apply, **kwargs: Any) -> Callable:
    (dtype,) = output_dtypes(node)

    def alloc_empty(*shape):
        # XLA has no uninitialized memory: zeros are as cheap
        return jnp.zeros(tuple(static_ints(s, node, "shape") for s in shape), dtype)

    return alloc_empty


@jax_funcify.register(Eye)
def jax_funcify_Eye(op: Eye, node: Apply, **kwargs: Any) -> Callable:
    (dtype,) = output_dtypes(node)

    def eye(n, m, k):
        rows, cols = static_ints(n, node, "rows"), static_ints(m, node, "columns")
        return jnp.eye(rows, cols, static_ints(k, node, "diagonal"), dtype=dtype)

    return eye


@jax_funcify.register(ARange)
def jax_funcify_ARange(op: ARange, node: Apply, **kwargs: Any) -> Callable:
    (dtype,) = output_dtypes(node)

    def arange(start, stop, step):
        bounds = [static_scalar(v, node, "start, stop and step") for v in (start, stop, step)]
        return jnp.asarray(np.arange(*bounds, dtype=dtype))

    return arange


def numpy_linspace(start, stop, num: int, endpoint: bool, axis: int, inner: Any) -> Any:
    """``np.linspace``'s own arithmetic in ``inner`` (its computing dtype): ``start + i * step``
    (``i / div * delta`` where a step is 0), the last sample set to ``stop``. jnp.linspace
    computes otherwise, so infinite endpoints gave NaN at other positions than NumPy's."""
    start, stop = jnp.asarray(start, inner), jnp.asarray(stop, inner)
    delta = stop - start
    div = num - 1 if endpoint else num
    y = jnp.arange(num, dtype=inner).reshape((-1,) + (1,) * delta.ndim)
    if div > 0:
        step = delta / div
        y = jnp.where(jnp.any(step == 0), y / div * delta, y * step)
    else:
        y = y * delta
    y = y + start
    if endpoint and num > 1:
        y = y.at[-1].set(jnp.broadcast_to(stop, y.shape[1:]))
    return jnp.moveaxis(y, 0, axis)


@jax_funcify.register(Linspace)
def jax_funcify_Linspace(op: Linspace, node: Apply, **kwargs: Any) -> Callable:
    (dtype,) = output_dtypes(node)
    inner = np.result_type(*(v.type.dtype for v in node.inputs[:2]), 1.0)  # NumPy's dt
    integer = np.dtype(dtype).kind in "iu"

    def linspace(start, stop, num):
        count = static_ints(num, node, "number of samples")
        y = numpy_linspace(start, stop, count, op.endpoint, op.axis, inner)
        return (jnp.floor(y) if integer else y).astype(dtype)

    return linspace


@jax_funcify.register(Join)
def jax_funcify_Join(op: Join, node: Apply, **kwargs: Any) -> Callable:
    (dtype,) = output_dtypes(node)

    def join(*tensors):
        return jnp.concatenate([jnp.asarray(t).astype(dtype) for t in tensors], axis=op.axis)

    return join


@jax_funcify.register(Split)
def jax_funcify_Split(op: Split, node: Apply, **kwargs: Any) -> Callable:
    def split(x, *sizes):
        lengths = [static_ints(s, node, "piece lengths") for s in sizes]
        return tuple(jnp.split(x, np.cumsum(lengths)[:-1].tolist(), axis=op.axis))

    return split
