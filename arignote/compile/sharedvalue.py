"""Shared variables (defined in the graph layer; the tensor kind in ``arignote.tensor``)."""

from arignote.graph.shared import Container, SharedVariable, shared, shared_constructor

__all__ = ["Container", "SharedVariable", "shared", "shared_constructor"]
