"""JAX version of ``OpFromGraph`` (``arignote/compile/builders.py``): its graph, inlined.

The inner graph is converted with the same conversions as the outer graph and called where the
node stands, so XLA compiles it as part of the outer function (nothing is compiled apart).
Shared variables the inner graph uses are inputs of the node (and of the inner graph).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from arignote.graph.basic import Apply
from arignote.graph.traversal import io_toposort
from arignote.link.jax.dispatch.basic import fgraph_to_jax, register_by_name


@register_by_name("arignote.compile.builders.OpFromGraph")
def jax_funcify_OpFromGraph(op: Any, node: Apply, **kwargs: Any) -> Callable:
    inputs, outputs = list(op.inner_inputs), list(op.inner_outputs)
    inner = fgraph_to_jax(inputs, outputs, io_toposort(inputs, outputs), **kwargs)
    single = len(outputs) == 1

    def op_from_graph(*args):
        results = inner(*args)
        return results[0] if single else results

    return op_from_graph
