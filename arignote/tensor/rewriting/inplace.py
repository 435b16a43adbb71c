"""In-place rewrites: ops that may overwrite an input they no longer need are made to do so.

They run last (the "inplace" phase), on a graph with a ``DestroyHandler``: each candidate is
checked locally (``can_destroy``: the memory is not protected, and every other reader can run
first), the changes of a pass are applied together and validated once, and if that validation
fails they are undone and retried one at a time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from arignote.graph.basic import Apply, Variable
from arignote.graph.destroyhandler import DestroyHandler, can_destroy
from arignote.graph.features import InconsistencyError
from arignote.graph.rewriting.basic import GraphRewriter, copy_stack_trace
from arignote.graph.rewriting.db import register_rewrite
from arignote.tensor.elemwise import Elemwise

__all__ = ["InplaceRewriter", "elemwise_inplace_candidate"]

Candidate = Callable[[Any, Apply], "list[Variable] | None"]


class InplaceRewriter(GraphRewriter):
    """Replaces nodes by the in-place versions ``candidate(fgraph, node)`` proposes."""

    def __init__(self, candidate: Candidate, name: str) -> None:
        self.candidate = candidate
        self.name = name

    def add_requirements(self, fgraph: Any) -> None:
        super().add_requirements(fgraph)
        fgraph.attach_feature(DestroyHandler())

    def apply(self, fgraph: Any) -> bool:
        checkpoint = fgraph.checkpoint()
        changed = False
        try:
            for node in fgraph.toposort():
                if node not in fgraph.apply_nodes:
                    continue
                new = self.candidate(fgraph, node)
                if new is None:
                    continue
                for old, replacement in zip(node.outputs, new):
                    fgraph.replace(old, replacement, reason=self)
                changed = True
            if changed:
                fgraph.validate()
        except InconsistencyError:
            fgraph.revert(checkpoint)
            return self._one_at_a_time(fgraph)
        except Exception:
            # A failing candidate must not leave unvalidated in-place ops behind (outside
            # tests the error is only warned about and compilation goes on).
            fgraph.revert(checkpoint)
            raise
        return changed

    def _one_at_a_time(self, fgraph: Any) -> bool:
        changed = False
        for node in fgraph.toposort():
            new = self.candidate(fgraph, node) if node in fgraph.apply_nodes else None
            if new is None:
                continue
            try:
                fgraph.replace_all_validate(list(zip(node.outputs, new)), reason=self)
                changed = True
            except InconsistencyError:
                continue
        return changed


def elemwise_inplace_candidate(fgraph: Any, node: Apply) -> list[Variable] | None:
    """``f(a, b)`` computed into the memory of an input of its output's type, if one may be
    overwritten (each output takes its own input)."""
    op = node.op
    if not isinstance(op, Elemwise) or op.inplace_pattern:
        return None
    # Earlier rewrites may have given the inputs more precise static shapes than the node's
    # outputs still have; the in-place node is made from the inputs, so compare with those.
    current = op.make_node(*node.inputs).outputs
    pattern: dict[int, int] = {}
    for o, out in enumerate(current):
        for i, inp in enumerate(node.inputs):
            if i in pattern.values() or inp.type != out.type:
                continue
            if can_destroy(fgraph, node, i):
                pattern[o] = i
                break
    if not pattern:
        return None
    new = Elemwise(op.scalar_op, pattern)(*node.inputs, return_list=True)
    copy_stack_trace(node.outputs, new)
    return new


register_rewrite("inplace", "inplace_elemwise", name="inplace_elemwise")(
    InplaceRewriter(elemwise_inplace_candidate, "inplace_elemwise")
)
