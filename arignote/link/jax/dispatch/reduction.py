"""JAX versions of the reductions that are not ``CAReduce``s (``arignote/tensor/reduction.py``)
and of the normalizing ops over axes (``LogSumExp``, ``Softmax``, ``LogSoftmax``)."""

from __future__ import annotations

import math
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
        # the reduced length is given, not -1: JAX cannot infer -1 when a kept axis is empty
        reduced = math.prod(x.shape[d] for d in axes)
        grouped = jnp.transpose(x, kept + list(axes)).reshape((*kept_shape, reduced))
        return find(grouped, axis=-1).astype("int64")

    return arg_reduce


def _along_axis(jax_function: Callable) -> Callable:
    """A conversion applying ``jax_function(x, axis=op.axis)`` in the output dtype (the shape
    of logsumexp, softmax and log_softmax)."""

    def convert(op: Any, node: Apply, **kwargs: Any) -> Callable:
        axis = op.axis
        (dtype,) = output_dtypes(node)

        def along_axis(x):
            return jax_function(jnp.asarray(x, dtype), axis=axis)

        return along_axis

    return convert


jax_funcify.register(LogSumExp)(_along_axis(jsp.logsumexp))
jax_funcify.register(Softmax)(_along_axis(jsp.softmax))
jax_funcify.register(LogSoftmax)(_along_axis(jsp.log_softmax))
