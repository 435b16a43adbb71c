"""Which nodes of a graph run only when a lazy op asks for them (a branch of an ``IfElse``).

A lazy op lists, through ``op.lazy_branches(node)``, a branch label for each of its inputs
(None for an input it always needs). A node belongs to a branch when every use of its outputs
is, directly or through other nodes of that branch, an input of that branch; otherwise it is
``ALWAYS`` computed. Rewrites that combine nodes (elementwise fusion) must not combine nodes of
different regions, or the combined node would compute a branch that is not taken.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from arignote.graph.basic import Apply, Variable

#: The region of nodes computed whatever the lazy ops decide.
ALWAYS = "always"


def _branches_of(node: Apply) -> list | None:
    branches = getattr(node.op, "lazy_branches", None)
    return None if branches is None else branches(node)


def has_lazy_nodes(fgraph: Any) -> bool:
    return any(_branches_of(node) is not None for node in fgraph.apply_nodes)


def lazy_regions(fgraph: Any) -> dict[Apply, Hashable]:
    """The region of every node: ``ALWAYS``, or ``(lazy node, branch)`` (empty when the graph
    has no lazy op, every node then being ``ALWAYS``)."""
    if not has_lazy_nodes(fgraph):
        return {}
    uses: dict[Variable, Hashable] = dict.fromkeys(fgraph.outputs, ALWAYS)
    regions: dict[Apply, Hashable] = {}
    # In reverse topological order every use of a variable is seen before its owner.
    for node in reversed(fgraph.toposort()):
        labels = {uses[o] for o in node.outputs if o in uses}
        region = labels.pop() if len(labels) == 1 else ALWAYS
        regions[node] = region
        branches = _branches_of(node)
        for k, inp in enumerate(node.inputs):
            label = region if branches is None or branches[k] is None else (node, branches[k])
            uses[inp] = label if uses.get(inp, label) == label else ALWAYS
    return regions
