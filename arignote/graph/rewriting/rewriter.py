"""The base classes of rewriters, and copying the creation trace to replacements.

They live below both tiers of rewrites (``basic``: procedural rewriters and walkers;
``pattern``: declarative rules), so that neither tier imports the other to get them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arignote.graph.basic import Apply, Variable
from arignote.graph.features import ReplaceValidate
from arignote.graph.fg import FunctionGraph


class Rewriter:
    """Something that rewrites graphs; has a ``name`` for traces and databases."""

    name: str | None = None

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        """Attach the features this rewriter needs (``ReplaceValidate`` by default)."""
        fgraph.attach_feature(ReplaceValidate())

    def __str__(self) -> str:
        return self.name or type(self).__name__

    __repr__ = __str__


class GraphRewriter(Rewriter):
    """Rewrites a whole :class:`FunctionGraph`; ``apply`` returns whether it changed anything."""

    def apply(self, fgraph: FunctionGraph) -> bool:
        raise NotImplementedError(f"{type(self).__name__} must define apply(fgraph)")

    def rewrite(self, fgraph: FunctionGraph) -> bool:
        self.add_requirements(fgraph)
        return bool(self.apply(fgraph))

    def __call__(self, fgraph: FunctionGraph) -> bool:
        return self.rewrite(fgraph)


class NodeRewriter(Rewriter):
    """Rewrites one node; ``tracks()`` lists the op classes or instances it applies to."""

    def tracks(self) -> Sequence[Any] | None:
        """Op classes or instances this rewriter may change (None: any node)."""
        return None

    def transform(self, fgraph: FunctionGraph, node: Apply) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define transform(fgraph, node)")

    def leaves(self) -> list[NodeRewriter]:
        """The elementary rewriters this one is made of (itself, unless it groups others).

        Walkers apply leaves one by one, so that traces and fire counts name the rule that
        actually fired rather than the group it belongs to.
        """
        return [self]


def copy_stack_trace(from_var: Variable | Sequence[Variable], to_var: Any) -> None:
    """Give ``to_var`` (variables) the creation trace of ``from_var`` for error messages."""
    sources = [from_var] if isinstance(from_var, Variable) else list(from_var)
    trace: list = []
    for source in sources:
        trace.extend(getattr(source.tag, "trace", []))
    targets = [to_var] if isinstance(to_var, Variable) else list(to_var)
    for target in targets:
        if isinstance(target, Variable):
            target.tag.trace = list(trace)
