"""The in-place rewrite of random variables: advance the generator itself, not a copy of it.

A ``RandomVariable`` copies its input generator before drawing, so that the input is left as it
was. The copy is wasted when nothing else will read the input's value: then the op may draw from
the generator itself (``inplace=True``, ``destroy_map = {0: [0]}``).
"""

from __future__ import annotations

from typing import Any

from arignote.graph.basic import Apply, Constant, Variable
from arignote.graph.rewriting.basic import node_rewriter
from arignote.graph.rewriting.db import register_rewrite
from arignote.tensor.random.op import RandomVariable


def _single_client(fgraph: Any, var: Variable, node: Apply, position: int) -> bool:
    return fgraph.clients.get(var) == [(node, position)]


def _alias_source(var: Variable) -> tuple[Apply, int] | None:
    """The (node, input position) whose memory ``var`` shares (view_map or destroy_map)."""
    owner = var.owner
    if owner is None:
        return None
    aliases = {**getattr(owner.op, "view_map", {}), **getattr(owner.op, "destroy_map", {})}
    sources = aliases.get(var.index)
    return (owner, sources[0]) if sources else None


def destroyable_input(fgraph: Any, var: Variable) -> bool:
    """Whether the graph input ``var`` may be overwritten during a call.

    True for an input whose value the function replaces after the call (an updated shared
    variable, recorded in ``fgraph.update_mapping`` as ``{output index: input index}``), and
    for an input declared mutable: one that an attached feature with a ``protected`` list (the
    ``Supervisor`` convention) does not protect. Any other input is left untouched.
    """
    if isinstance(var, Constant) or var not in fgraph.inputs:
        return False
    position = fgraph.inputs.index(var)
    if position in (getattr(fgraph, "update_mapping", None) or {}).values():
        return True
    supervisors = [f for f in fgraph.features if hasattr(f, "protected")]
    return bool(supervisors) and all(var not in f.protected for f in supervisors)


def rng_is_destroyable(fgraph: Any, node: Apply) -> bool:
    """Whether ``node`` may advance its input generator instead of a copy.

    Along the chain of aliases leading to the generator's memory, every variable must be read by
    this node alone (no other op and no function output may see the old state); the chain must
    start at a value computed in this call, or at an input that :func:`destroyable_input`
    allows to overwrite. A constant is never overwritten.
    """
    var, reader, position = node.inputs[0], node, 0
    while True:
        if not _single_client(fgraph, var, reader, position):
            return False
        source = _alias_source(var)
        if source is None:
            break
        reader, position = source
        var = reader.inputs[position]
    if isinstance(var, Constant):
        return False
    return var.owner is not None or destroyable_input(fgraph, var)


@node_rewriter([RandomVariable])
def local_random_make_inplace(fgraph, node):
    """op(rng, ...) -> op{inplace}(rng, ...) when nothing else reads the generator ``rng``."""
    if node.op.inplace or not rng_is_destroyable(fgraph, node):
        return None
    return node.op.clone_with(inplace=True).make_node(*node.inputs).outputs


register_rewrite("inplace", "random")(local_random_make_inplace)

__all__ = ["destroyable_input", "local_random_make_inplace", "rng_is_destroyable"]
