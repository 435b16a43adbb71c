"""JAX version of ``IndexMap`` (``arignote/scan/index_map.py``): ``jax.vmap`` of its inner graph.

``IndexMap`` lives above the link layer, so it is registered by its qualified name. Its inner
graph is converted with the same conversions as the outer graph, and mapped over the index and
the sequences' rows by ``jax.vmap`` (one batched computation, not a loop); the length must be
static, as every JAX shape.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import jax
import jax.numpy as jnp
from arignote.graph.basic import Apply
from arignote.graph.traversal import io_toposort
from arignote.link.jax.dispatch.basic import fgraph_to_jax, register_by_name, static_ints


@register_by_name("arignote.scan.index_map.IndexMap")
def jax_funcify_IndexMap(op: Any, node: Apply, **kwargs: Any) -> Callable:
    inputs, outputs = list(op.inner_inputs), list(op.inner_outputs)
    inner = fgraph_to_jax(inputs, outputs, io_toposort(inputs, outputs), **kwargs)
    n_sequences = op.n_sequences
    n_rest = len(inputs) - 1 - n_sequences
    in_axes = (0,) * (1 + n_sequences) + (None,) * n_rest
    mapped = jax.vmap(inner, in_axes=in_axes)
    dtypes = [np.dtype(o.type.dtype) for o in node.outputs]

    def index_map(n, *args):
        length = static_ints(n, node, "length")
        rows = mapped(jnp.arange(length, dtype="int64"), *args)
        results = tuple(jnp.asarray(r).astype(d) for r, d in zip(rows, dtypes))
        return results if len(results) > 1 else results[0]

    return index_map
