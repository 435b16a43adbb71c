"""JAX versions of the batching ops: ``Blockwise`` (``tensor/blockwise.py``) and the checked
broadcast length ``BroadcastLength`` (``tensor/alloc.py``).

A ``Blockwise`` is its core op's conversion mapped over the batch dimensions with one
``jax.vmap`` per batch dimension, after the inputs are broadcast to the common batch shape
(``vmap`` maps every input along the same axis, so each must have it at full length).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import jax
import jax.numpy as jnp
from arignote.graph.basic import Apply
from arignote.link.jax.dispatch.basic import is_static, jax_funcify, output_dtypes
from arignote.tensor.alloc import BroadcastLength
from arignote.tensor.blockwise import Blockwise, check_core_lengths


def _batched(core: Callable, batch_ndim: int) -> Callable:
    """``core`` mapped over ``batch_ndim`` leading axes of every argument."""
    for _ in range(batch_ndim):
        core = jax.vmap(core)
    return core


@jax_funcify.register(Blockwise)
def jax_funcify_Blockwise(op: Blockwise, node: Apply, **kwargs: Any) -> Callable:
    batch_ndim = op.batch_ndim(node)
    core_node = op.core_node(node)
    core = jax_funcify(op.core_op, node=core_node, **kwargs)
    dtypes = output_dtypes(node)
    several = len(node.outputs) > 1

    def core_arrays(*blocks):
        # static results (a core op evaluated on constants) become arrays vmap can stack
        results = core(*blocks)
        results = results if several else (results,)
        return tuple(jnp.asarray(r, d) for r, d in zip(results, dtypes))

    mapped = _batched(core_arrays, batch_ndim)

    def blockwise(*inputs):
        inputs = [jnp.asarray(x) for x in inputs]
        check_core_lengths(op, [x.shape for x in inputs])  # shapes are static while tracing
        batch = jnp.broadcast_shapes(*(x.shape[:batch_ndim] for x in inputs))
        blocks = [jnp.broadcast_to(x, batch + x.shape[batch_ndim:]) for x in inputs]
        results = mapped(*blocks)
        return results if several else results[0]

    return blockwise


@jax_funcify.register(BroadcastLength)
def jax_funcify_BroadcastLength(op: BroadcastLength, node=None, **kwargs: Any) -> Callable:
    def broadcast_length(*lengths):
        # Lengths known while tracing are checked by ``perform`` (the graph evaluates them
        # then); a length known only at run time cannot raise inside XLA: the lengths must be
        # equal, so the first one is the common length (JAX does not check broadcasting).
        first = lengths[0]
        if is_static(first):
            return np.asarray(first, dtype=np.int64)
        return jnp.asarray(first).astype(jnp.int64)

    return broadcast_length
