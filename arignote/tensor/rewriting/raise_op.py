"""Rewrites for the checks of ``arignote.tensor.raise_op``."""

from __future__ import annotations

from arignote.graph.rewriting.basic import copy_stack_trace, node_rewriter
from arignote.graph.rewriting.db import register_rewrite
from arignote.tensor.basic import NotScalarConstantError, get_scalar_constant_value
from arignote.tensor.raise_op import Assert, CheckAndRaise


def _proven_true(condition) -> bool:
    try:
        return bool(get_scalar_constant_value(condition))
    except NotScalarConstantError:
        return False


@register_rewrite("canonicalize", "specialize", "fast_compile")
@node_rewriter([CheckAndRaise])
def local_remove_useless_assert(fgraph, node):
    """check(x, True, c) -> check(x, c); check(x, True) -> x: conditions proven true go."""
    value, *conditions = node.inputs
    remaining = [c for c in conditions if not _proven_true(c)]
    if len(remaining) == len(conditions):
        return None
    new = node.op(value, *remaining) if remaining else value
    copy_stack_trace(node.outputs[0], new)
    return [new]


@register_rewrite("canonicalize", "specialize", "unsafe")
@node_rewriter([Assert])
def local_remove_all_assert(fgraph, node):
    """assert(x, ...) -> x, on request only (``including("unsafe")``): trusts every Assert."""
    return [node.inputs[0]]
