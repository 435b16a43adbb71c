"""Constant folding: computing, at compile time, nodes whose inputs are all constants."""

from __future__ import annotations

from typing import Any

import numpy as np

from arignote.config import config
from arignote.graph.basic import Apply, Constant
from arignote.graph.rewriting.basic import node_rewriter


def evaluate_node(node: Apply) -> list[Any]:
    """Run ``node`` once on its (constant) inputs through its own thunk; return output values."""
    storage_map = {v: [v.data if isinstance(v, Constant) else None] for v in node.inputs}
    storage_map.update({v: [None] for v in node.outputs})
    compute_map = {v: [isinstance(v, Constant)] for v in node.inputs}
    compute_map.update({v: [False] for v in node.outputs})
    thunk = node.op.make_thunk(node, storage_map, compute_map, no_recycling=[])
    required = thunk()
    if required:  # a lazy thunk asking for more: its inputs are all computed already
        thunk()
    return [storage_map[v][0] for v in node.outputs]


def _would_bloat(node: Apply, values: list[Any]) -> bool:
    """Whether folding turns small inputs into a large constant (e.g. ``zeros(10**8)``)."""
    out_size = sum(int(np.size(v)) for v in values)
    if out_size <= config.max_constant_fold_size:
        return False
    in_size = sum(int(np.size(i.data)) for i in node.inputs)
    return out_size > 10 * max(in_size, 1)


@node_rewriter(None)
def constant_folding(fgraph: Any, node: Apply):
    """op(c1, c2, ...) -> the constant it computes, when the op allows folding."""
    if not all(isinstance(i, Constant) for i in node.inputs):
        return None
    if not node.op.do_constant_folding(fgraph, node):
        return None
    values = evaluate_node(node)
    if _would_bloat(node, values):
        return None
    replacements = []
    for out, value in zip(node.outputs, values):
        if not hasattr(out.type, "make_constant"):
            return None
        constant = out.type.make_constant(value)
        constant.tag.__update__(out.tag)
        replacements.append(constant)
    return replacements
