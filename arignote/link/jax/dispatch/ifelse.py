"""JAX version of ``IfElse`` (``arignote/ifelse.py``): ``lax.cond``, lazy as on the VM.

``lax.cond`` runs only the branch the condition picks, so the nodes that only one branch needs
are computed inside that branch: :func:`lazy_fgraph_to_jax` (which the linker uses for a graph
holding an ``IfElse``) finds them with :func:`arignote.graph.lazy.lazy_regions`, the analysis
the VM uses, and calls them from the branch functions given to ``lax.cond`` (nested conditions
nest). A condition known while tracing (a constant, or computed from shapes) computes only its
branch, which may then have any shape. Inside the inner graph of a loop or an ``OpFromGraph``
the branch values are computed before the node and ``lax.cond`` only selects.

``lax.cond`` needs both branches to have the same shape and dtype; paired values always have
the same dtype, and branches whose shapes differ raise :class:`DynamicShapeError` (the output's
shape would depend on the condition's run-time value).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable
from typing import Any

import jax
import jax.numpy as jnp
from arignote.graph.basic import Apply, Constant
from arignote.graph.fg import FunctionGraph
from arignote.graph.lazy import ALWAYS, lazy_regions
from arignote.link.basic import raise_with_op
from arignote.link.jax.dispatch.basic import (
    DynamicShapeError,
    _run_node,
    as_dtype,
    check_supported,
    constant_value,
    is_static,
    jax_funcify,
    output_dtypes,
    register_by_name,
)
from jax import lax

_IFELSE = "arignote.ifelse.IfElse"


@register_by_name(_IFELSE)
def jax_funcify_IfElse(op: Any, node: Apply, **kwargs: Any) -> Callable:
    n = op.n_outs

    def ifelse(condition, *branches):
        return _choose(node, condition, lambda: branches[:n], lambda: branches[n:])

    return ifelse


def _choose(node: Apply, condition: Any, then: Callable, other: Callable) -> Any:
    """The node's outputs: ``then()`` or ``other()`` (each returns the branch's values)."""
    dtypes = output_dtypes(node)

    def cast(branch: Callable) -> Callable:
        return lambda: tuple(as_dtype(v, d) for v, d in zip(branch(), dtypes))

    then, other = cast(then), cast(other)
    if is_static(condition):
        chosen = then() if bool(condition) else other()
    else:
        _check_shapes(node, jax.eval_shape(then), jax.eval_shape(other))
        chosen = lax.cond(jnp.asarray(condition).astype(bool), then, other)
    return tuple(chosen) if len(dtypes) > 1 else chosen[0]


def _check_shapes(node: Apply, then: tuple, other: tuple) -> None:
    for k, (a, b) in enumerate(zip(then, other)):
        if a.shape != b.shape:
            raise DynamicShapeError(
                f"Output {k} of node {node} is {a.shape} in the then-branch and {b.shape} in "
                "the else-branch: its shape would depend on the condition's value at run time, "
                "which JAX cannot compile (lax.cond needs both branches of the same shape). "
                "Make it static: give both branches the same shape, or make the condition a "
                "constant"
            )


# -- lazy branches in a whole graph ------------------------------------------------------------


def lazy_fgraph_to_jax(fgraph: FunctionGraph, **kwargs: Any) -> Callable:
    """Like :func:`~arignote.link.jax.dispatch.basic.fgraph_to_jax`, with the nodes that only
    one branch of an ``IfElse`` needs computed inside that branch of its ``lax.cond``."""
    nodes = fgraph.toposort()
    check_supported(nodes)
    regions = lazy_regions(fgraph)
    members: dict[Hashable, list[Apply]] = defaultdict(list)
    for node in nodes:
        members[regions.get(node, ALWAYS)].append(node)
    steps = {node: jax_funcify(node.op, node=node, **kwargs) for node in nodes}
    constants = {
        var: constant_value(var)
        for node in nodes
        for var in node.inputs
        if isinstance(var, Constant)
    }
    constants.update({o: constant_value(o) for o in fgraph.outputs if isinstance(o, Constant)})
    runner = _RegionRunner(members, steps)

    def graph_function(*values):
        env = dict(constants)
        env.update(zip(fgraph.inputs, values))
        runner.run(ALWAYS, env)
        return tuple(env[o] for o in fgraph.outputs)

    return graph_function


class _RegionRunner:
    """Computes the nodes of one region in order; an IfElse computes its branches' regions
    inside ``lax.cond``."""

    def __init__(self, members: dict, steps: dict) -> None:
        self.members, self.steps = members, steps

    def run(self, region: Hashable, env: dict) -> None:
        for node in self.members.get(region, ()):
            try:
                results = self._compute(node, env)
            except Exception as err:
                raise_with_op(None, node, err)
            env.update(zip(node.outputs, results))

    def _compute(self, node: Apply, env: dict) -> list:
        if not _is_ifelse(node):
            return _run_node(node, self.steps[node], [env[v] for v in node.inputs])
        n = node.op.n_outs
        then = self._branch(node, "then", node.inputs[1 : 1 + n], env)
        other = self._branch(node, "else", node.inputs[1 + n :], env)
        result = _choose(node, env[node.inputs[0]], then, other)
        return list(result) if n > 1 else [result]

    def _branch(self, node: Apply, label: str, values: list, env: dict) -> Callable:
        def branch():
            local = dict(env)  # the branch's own nodes are computed in its own scope
            self.run((node, label), local)
            return tuple(local[v] for v in values)

        return branch


def _is_ifelse(node: Apply) -> bool:
    return any(f"{c.__module__}.{c.__qualname__}" == _IFELSE for c in type(node.op).__mro__)
