"""Memory safety of compiled functions: who may alias or overwrite whose memory.

The rules a compiled function keeps (PyTensor's memory contract):

- An input is never overwritten unless it was declared ``In(..., mutable=True)`` (shared
  variables count as mutable only when the function updates them). This holds even for a
  graph that already contains in-place ops (``accept_inplace=True``): the function destroys a
  private copy instead, inserted by :func:`protect_inputs`. Constants are never overwritten.
- An output never shares memory with an input, a constant or another output unless the user
  asked for it with ``Out(borrow=True)`` (and ``In(borrow=True)`` for inputs):
  :func:`insert_deepcopy`.
- A returned output is never reused as scratch space by a later call (unless borrowed): the
  variables whose memory it may share are "no recycling" (:func:`reuse_pattern`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arignote.compile.ops import deep_copy_op, view_op
from arignote.graph.basic import Constant, Variable
from arignote.graph.fg import FunctionGraph


def _aliased_inputs(var: Variable) -> list[int]:
    """Indices of the owner's inputs whose memory ``var`` may share (views or destroyed)."""
    op = var.owner.op
    sources = list(getattr(op, "view_map", {}).get(var.index, ()))
    sources += getattr(op, "destroy_map", {}).get(var.index, ())
    return sources


def view_root(var: Variable) -> Variable:
    """The variable whose memory ``var`` may share, following views and in-place ops."""
    while var.owner is not None:
        sources = _aliased_inputs(var)
        if not sources:
            break
        var = var.owner.inputs[sources[0]]
    return var


def views_of(fgraph: FunctionGraph, root: Variable) -> set[Variable]:
    """``root`` and every variable of ``fgraph`` that may share its memory."""
    found = {root}
    pending = [root]
    while pending:
        var = pending.pop()
        for client, i in fgraph.clients.get(var, ()):
            if client == "output":
                continue
            op = client.op
            for mapping in (getattr(op, "view_map", {}), getattr(op, "destroy_map", {})):
                for out_index, in_indices in mapping.items():
                    out = client.outputs[out_index]
                    if i in in_indices and out not in found:
                        found.add(out)
                        pending.append(out)
    return found


def reuse_pattern(fgraph: FunctionGraph, outputs: Sequence[Variable]) -> set[Variable]:
    """Computed variables that may share memory with ``outputs`` (must not be recycled)."""
    result: set[Variable] = set()
    for out in outputs:
        result |= views_of(fgraph, view_root(out))
    return {v for v in result if v.owner is not None}


def _destroyed_inputs(node: Any) -> list[int]:
    return sorted({i for ins in getattr(node.op, "destroy_map", {}).values() for i in ins})


def protect_inputs(fgraph: FunctionGraph, mutable: Sequence[bool]) -> int:
    """Make every in-place op that would overwrite a protected input overwrite a copy.

    ``mutable[i]`` says whether ``fgraph.inputs[i]`` may be overwritten. An op overwriting
    (through views or not) a non-mutable input or a constant gets a ``DeepCopyOp`` of that
    input instead. Returns how many copies were inserted.
    """
    protected = {var for var, ok in zip(fgraph.inputs, mutable) if not ok}
    inserted = 0
    for node in fgraph.toposort():
        for i in _destroyed_inputs(node):
            var = node.inputs[i]
            root = view_root(var)
            if root in protected or isinstance(root, Constant):
                fgraph.change_node_input(node, i, deep_copy_op(var), reason="protect_inputs")
                inserted += 1
    return inserted


def destroyed_inputs(fgraph: FunctionGraph) -> set[Variable]:
    """The inputs of ``fgraph`` that some node overwrites (directly or through views)."""
    inputs = set(fgraph.inputs)
    found = set()
    for node in fgraph.apply_nodes:
        for i in _destroyed_inputs(node):
            root = view_root(node.inputs[i])
            if root in inputs:
                found.add(root)
    return found


def insert_deepcopy(
    fgraph: FunctionGraph,
    output_borrow: Sequence[bool],
    input_borrow: Sequence[bool],
    updated: Sequence[bool],
    n_returned: int,
) -> None:
    """Copy outputs that would alias an input, a constant or another output.

    ``output_borrow[i]``: output ``i`` may be the function's own memory; ``input_borrow[j]``:
    input ``j`` may be returned as is to a borrowing output; ``updated[j]``: input ``j`` gets
    a new value after each call, so an update output may take over its old memory. The first
    ``n_returned`` outputs are returned to the user, the others are updates.
    """
    input_index = {var: j for j, var in enumerate(fgraph.inputs)}
    roots = [view_root(out) for out in fgraph.outputs]
    counts: dict[Variable, int] = {}
    for root in roots:
        counts[root] = counts.get(root, 0) + 1
    for i, (out, root) in enumerate(zip(list(fgraph.outputs), roots)):
        borrow = output_borrow[i]
        if isinstance(root, Constant):
            _copy_output(fgraph, i, out, view=borrow)
            continue
        shared_with_output = counts[root] > 1
        j = input_index.get(root)
        if j is None:
            if shared_with_output:
                others = [k for k, r in enumerate(roots) if r is root and k != i]
                _copy_output(fgraph, i, out, view=borrow and all(output_borrow[k] for k in others))
                counts[root] -= 1
            continue
        # An update output may take over the memory of another input that is itself updated
        # (``updates=[(a, b), (b, a)]`` swaps without copying), never its own or a returned one.
        takes_over = i >= n_returned and updated[j] and not shared_with_output
        if takes_over and (fgraph.update_mapping or {}).get(i) != j:
            continue
        _copy_output(fgraph, i, out, view=borrow and input_borrow[j] and not shared_with_output)
        counts[root] -= 1


def _copy_output(fgraph: FunctionGraph, i: int, out: Variable, view: bool) -> None:
    new = view_op(out) if view else deep_copy_op(out)
    fgraph.change_node_input("output", i, new, reason="insert_deepcopy")
