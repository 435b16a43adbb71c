"""Helpers to run rewrites directly on variables: ``rewrite_graph``, ``is_same_graph``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arignote.graph.basic import Variable, clone_get_equiv, equal_computations
from arignote.graph.fg import FunctionGraph
from arignote.graph.rewriting.basic import GraphRewriter, MergeOptimizer
from arignote.graph.rewriting.db import DEFAULT_EXCLUDED, phase_rewriter


def rewrite_graph(
    graph: Variable | Sequence[Variable] | FunctionGraph,
    include: Sequence[str] = ("canonicalize",),
    exclude: Sequence[str] = (),
    custom_rewrite: GraphRewriter | None = None,
    clone: bool = False,
    **kwargs: Any,
) -> Any:
    """Apply the rewrite phases named in ``include`` (in that order) to ``graph``.

    Each phase runs every registered rewrite carrying its tag, minus ``exclude`` (and minus
    the "unsafe" and "experimental" tags unless ``include`` names them), after a merge pass.
    Returns the rewritten variable(s), or the FunctionGraph when one was given. Without
    ``clone`` the caller's graph is edited in place; with it, a copy is rewritten (expressed in
    the caller's own input variables) and the original is left untouched.
    """
    if isinstance(graph, FunctionGraph):
        fgraph, return_fgraph = graph, True
    else:
        outputs = [graph] if isinstance(graph, Variable) else list(graph)
        if clone:
            equiv = clone_get_equiv([], outputs, copy_inputs=False, copy_orphans=False)
            outputs = [equiv[o] for o in outputs]
        fgraph = FunctionGraph(outputs=outputs, clone=False)
        return_fgraph = False
    exclude = [t for t in DEFAULT_EXCLUDED if t not in include] + list(exclude)
    MergeOptimizer().rewrite(fgraph)
    for tag in include:
        phase_rewriter(tag, exclude=exclude).rewrite(fgraph)
    if custom_rewrite is not None:
        custom_rewrite.rewrite(fgraph)
    if return_fgraph:
        return fgraph
    if isinstance(graph, Variable):
        return fgraph.outputs[0]
    return list(fgraph.outputs)


def is_same_graph(var1: Variable, var2: Variable) -> bool:
    """Whether two variables compute the same thing from the same inputs."""
    return equal_computations([var1], [var2])
