"""Rewrites for indexing (``arignote.tensor.subtensor``): merging indexings, in-place writes.

"canonicalize": ``x[i][j] -> x[i, j]`` and ``x[a:][c:] -> x[a + c:]``: one view instead of
two. Slices are merged only where the result is obviously the same for every length of ``x``
(non-negative constant bounds, no steps); integer indices that pass through untouched
dimensions are always merged.

"inplace": ``inc_subtensor``/``set_subtensor`` write into ``x`` itself when nothing else needs
``x`` (an ``alloc`` of zeros being filled in, typically).
"""

from __future__ import annotations

from typing import Any

from arignote.graph.basic import Apply, Variable
from arignote.graph.destroyhandler import can_destroy
from arignote.graph.rewriting.basic import copy_stack_trace, node_rewriter
from arignote.graph.rewriting.db import register_rewrite
from arignote.tensor.advanced_subtensor import AdvancedIncSubtensor, AdvancedIncSubtensor1
from arignote.tensor.index_spec import INT, entry_groups
from arignote.tensor.rewriting.basic import scalar_constant
from arignote.tensor.rewriting.inplace import InplaceRewriter
from arignote.tensor.subtensor import IncSubtensor, Subtensor, getitem

__all__: list[str] = []

_NOT_CONSTANT = object()


def _bound(var: Variable | None) -> Any:
    """A slice field: None when absent, its value when a non-negative constant, else a marker."""
    if var is None:
        return None
    value = scalar_constant(var)
    if value is None or int(value) < 0:
        return _NOT_CONSTANT
    return int(value)


def _simple_slice(group: tuple) -> tuple[int, int | None] | None:
    """``(start, stop)`` of a step-less slice with non-negative constant bounds, or None."""
    start, stop, step = (_bound(v) for v in group)
    if _NOT_CONSTANT in (start, stop, step) or step not in (None, 1):
        return None
    return start or 0, stop


def _merge_slices(inner: tuple[int, int | None], outer: tuple[int, int | None]) -> slice:
    """x[a:b][c:d] == x[a + c:min(b, a + d)] for non-negative a, b, c, d."""
    (a, b), (c, d) = inner, outer
    stops = [s for s in (b, None if d is None else a + d) if s is not None]
    return slice(a + c, min(stops) if stops else None)


def _merged_entry(inner_group: tuple, outer: tuple) -> Any:
    """The index of one dimension of x for an inner slice and the outer entry applied to it."""
    outer_entry, outer_group = outer
    bounds = _simple_slice(inner_group)
    if bounds is None:
        return None
    if outer_entry == INT:
        position = _bound(outer_group[0])
        if bounds[1] is not None or position in (None, _NOT_CONSTANT):
            return None  # x[a:b][j] fails where j >= b - a even when x[a + j] exists
        return bounds[0] + position
    outer_bounds = _simple_slice(outer_group)
    return None if outer_bounds is None else _merge_slices(bounds, outer_bounds)


def _python_index(entry: Any, group: tuple) -> Any:
    if entry == INT:
        return group[0]
    return slice(*group)


def _merged_index(inner: list[tuple], outer: list[tuple]) -> tuple | None:
    """The index into x equivalent to the two indexings, or None if one cannot be found."""
    pending = list(outer)
    index: list[Any] = []
    for entry, group in inner:
        if entry == INT:
            index.append(group[0])
        elif not pending:
            index.append(_python_index(entry, group))
        else:
            merged = _merged_entry(group, pending.pop(0))
            if merged is None:
                return None
            index.append(merged)
    # outer entries beyond the inner ones index the dimensions the inner indexing left alone
    index.extend(_python_index(e, g) for e, g in pending)
    return tuple(index)


@register_rewrite("canonicalize", "subtensor")
@node_rewriter([Subtensor])
def local_subtensor_of_subtensor(fgraph, node):
    """x[i1][i2] -> x[i], one view instead of two (see the module docstring)."""
    inner_node = node.inputs[0].owner
    if inner_node is None or not isinstance(inner_node.op, Subtensor):
        return None
    if None in node.op.idx_list or None in inner_node.op.idx_list:
        return None  # new axes: left alone
    x = inner_node.inputs[0]
    inner = list(entry_groups(inner_node.op.idx_list, inner_node.inputs[1:]))
    outer = list(entry_groups(node.op.idx_list, node.inputs[1:]))
    index = _merged_index(inner, outer)
    if index is None:
        return None
    try:
        new = getitem(x, index)
    except IndexError:
        return None
    out = node.outputs[0]
    if not out.type.is_super(new.type):
        return None
    copy_stack_trace(out, new)
    return [new]


_WRITES = (IncSubtensor, AdvancedIncSubtensor, AdvancedIncSubtensor1)


def inc_subtensor_inplace_candidate(fgraph, node: Apply) -> list[Variable] | None:
    """x[index] += y (or = y) done in x's memory when nothing else needs x."""
    op = node.op
    if not isinstance(op, _WRITES) or op.inplace or not can_destroy(fgraph, node, 0):
        return None
    props = op._props_dict()
    props["inplace"] = True
    new = type(op)(**props)(*node.inputs)
    copy_stack_trace(node.outputs[0], new)
    return [new]


register_rewrite("inplace", "inplace_subtensor", name="inplace_subtensor")(
    InplaceRewriter(inc_subtensor_inplace_candidate, "inplace_subtensor")
)
