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
from arignote.tensor.alloc import Alloc, AllocEmpty, ARange, Eye, Linspace
from arignote.tensor.join import Join, Split


@jax_funcify.register(Alloc)
def jax_funcify_Alloc(op: Alloc, node: Apply, **kwargs: Any) -> Callable:
    (dtype,) = output_dtypes(node)

    def alloc(value, *shape):
        lengths = tuple(static_ints(s, node, "shape") for s in shape)
        return jnp.broadcast_to(jnp.asarray(value, dtype), lengths)

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


@jax_funcify.register(Linspace)
def jax_funcify_Linspace(op: Linspace, node: Apply, **kwargs: Any) -> Callable:
    (dtype,) = output_dtypes(node)

    def linspace(start, stop, num):
        count = static_ints(num, node, "number of samples")
        return jnp.linspace(start, stop, count, endpoint=op.endpoint, dtype=dtype, axis=op.axis)

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
