"""JAX versions of the reductions that are not ``CAReduce``s (``arignote/tensor/reduction.py``)
and of the normalizing ops over axes (``LogSumExp``, ``Softmax``, ``LogSoftmax``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import jax.scipy.special as jsp
from arignote.graph.basic import Apply
from arignote.link.jax.dispatch.basic import jax_funcify, output_dtypes
from arignote.tensor.math import LogSumExp
from arignote.tensor.reduction import Argmax, _ArgReduce
from arignote.tensor.special import LogSoftmax, Softmax


@jax_funcify.register(_ArgReduce)
def jax_funcify_ArgReduce(op: _ArgReduce, node: Apply, **kwargs: Any) -> Callable:
    find = jnp.argmax if isinstance(op, Argmax) else jnp.argmin
    ndim = node.inputs[0].type.ndim
    axes = tuple(op._axes(ndim))
    kept = [d for d in range(ndim) if d not in axes]

    def arg_reduce(x):
        # the reduced axes, moved to the end and flattened into one (NumPy's order)
        kept_shape = tuple(x.shape[d] for d in kept)
        grouped = jnp.transpose(x, kept + list(axes)).reshape((*kept_shape, -1))
        return find(grouped, axis=-1).astype("int64")

    return arg_reduce


@jax_funcify.register(LogSumExp)
def jax_funcify_LogSumExp(op: LogSumExp, node: Apply, **kwargs: Any) -> Callable:
    axis = op.axis
    (dtype,) = output_dtypes(node)

    def logsumexp(x):
        return jsp.logsumexp(jnp.asarray(x, dtype), axis=axis)

    return logsumexp


@jax_funcify.register(Softmax)
def jax_funcify_Softmax(op: Softmax, node: Apply, **kwargs: Any) -> Callable:
    axis = op.axis
    (dtype,) = output_dtypes(node)

    def softmax(x):
        return jsp.softmax(jnp.asarray(x, dtype), axis=axis)

    return softmax


@jax_funcify.register(LogSoftmax)
def jax_funcify_LogSoftmax(op: LogSoftmax, node: Apply, **kwargs: Any) -> Callable:
    axis = op.axis
    (dtype,) = output_dtypes(node)

    def log_softmax(x):
        return jsp.log_softmax(jnp.asarray(x, dtype), axis=axis)

    return log_softmax
