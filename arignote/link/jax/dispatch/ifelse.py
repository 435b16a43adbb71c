"""JAX version of ``IfElse`` (``arignote/ifelse.py``): ``lax.cond`` choosing the branch values.

The branch values are computed in the outer graph before the node (as in PyTensor's JAX
backend), so in JAX mode both branches are computed and ``lax.cond`` selects one: the laziness
of the VM's ``ifelse`` is not kept. A condition known while tracing (a constant, or computed
from shapes) picks its branch at once, and that branch may have any shape.

``lax.cond`` needs both branches to have the same shape and dtype; paired values always have
the same dtype, and branches whose shapes differ raise :class:`DynamicShapeError` (the output's
shape would depend on the condition's run-time value).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
from arignote.graph.basic import Apply
from arignote.link.jax.dispatch.basic import (
    DynamicShapeError,
    as_dtype,
    is_static,
    output_dtypes,
    register_by_name,
)
from jax import lax


@register_by_name("arignote.ifelse.IfElse")
def jax_funcify_IfElse(op: Any, node: Apply, **kwargs: Any) -> Callable:
    n = op.n_outs
    dtypes = output_dtypes(node)

    def ifelse(condition, *branches):
        then = [as_dtype(v, d) for v, d in zip(branches[:n], dtypes)]
        other = [as_dtype(v, d) for v, d in zip(branches[n:], dtypes)]
        if is_static(condition):
            chosen = then if bool(condition) else other
        else:
            _check_shapes(node, then, other)
            chosen = lax.cond(
                jnp.asarray(condition).astype(bool), lambda: tuple(then), lambda: tuple(other)
            )
        return tuple(chosen) if n > 1 else chosen[0]

    return ifelse


def _check_shapes(node: Apply, then: list, other: list) -> None:
    for k, (a, b) in enumerate(zip(then, other)):
        if jnp.shape(a) != jnp.shape(b):
            raise DynamicShapeError(
                f"Output {k} of node {node} is {jnp.shape(a)} in the then-branch and "
                f"{jnp.shape(b)} in the else-branch: its shape would depend on the condition's "
                "value at run time, which JAX cannot compile (lax.cond needs both branches of "
                "the same shape). Make it static: give both branches the same shape, or make the "
                "condition a constant"
            )
