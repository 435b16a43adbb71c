"""The rewrite pipelines, in order. This is the only place where phase order is decided.

A phase runs every registered rewrite carrying its tag (node rewriters to a fixed point, graph
rewriters in registration order). Modes choose a pipeline by name and may exclude phases or
rewrites by name or tag, include extra ones, or require a tag of every rewrite.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arignote.graph.rewriting.basic import GraphRewriter, MergeOptimizer, SequentialGraphRewriter
from arignote.graph.rewriting.db import DEFAULT_EXCLUDED, phase_rewriter


@dataclass(frozen=True)
class Phase:
    """One step of a pipeline: the rewrites tagged ``tag`` (or a plain merge pass)."""

    name: str
    tag: str | None = None  # None: a merge pass

    def build(self, exclude: Sequence[str], require: Sequence[str]) -> GraphRewriter:
        if self.tag is None:
            return MergeOptimizer()
        return phase_rewriter(self.tag, exclude=exclude, require=require)


PIPELINES: dict[str, tuple[Phase, ...]] = {
    "fast_run": (
        Phase("merge"),
        Phase("canonicalize", "canonicalize"),
        Phase("stabilize", "stabilize"),
        Phase("specialize", "specialize"),
        Phase("uncanonicalize", "uncanonicalize"),
        Phase("fusion", "fusion"),  # a linker may exclude it (Linker.incompatible_rewrites)
        Phase("inplace", "inplace"),
        Phase("final_merge"),
    ),
    "fast_compile": (
        Phase("merge"),
        Phase("canonicalize", "fast_compile"),
        Phase("final_merge"),
    ),
    "merge": (Phase("merge"),),
    "none": (),
}
PIPELINE_ALIASES = {"o1": "fast_run", "unsafe": "fast_run", "None": "none"}


def make_pipeline(
    name: str,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    require: Sequence[str] = (),
) -> Pipeline:
    """The rewriter of pipeline ``name`` with the given tag selections.

    ``exclude`` drops phases and rewrites by name or tag; ``include`` adds the phases it names
    (e.g. "fusion" to a fast_compile pipeline) and re-enables default-excluded tags.
    """
    key = PIPELINE_ALIASES.get(name, name).lower()
    if key not in PIPELINES:
        raise ValueError(f"Unknown rewrite pipeline {name!r}; known: {sorted(PIPELINES)}")
    phases = list(PIPELINES[key])
    present = {p.name for p in phases}
    for extra in include:
        candidate = next((p for p in PIPELINES["fast_run"] if p.name == extra), None)
        if candidate is not None and extra not in present:
            phases.insert(len(phases) - 1 if phases else 0, candidate)
            present.add(extra)
    excluded = [t for t in DEFAULT_EXCLUDED if t not in include] + list(exclude)
    steps = [p.build(excluded, require) for p in phases if p.name not in exclude]
    return Pipeline(*steps, name=key)


class Pipeline(SequentialGraphRewriter):
    """The phases of a pipeline, run in order.

    (Compiling used to pause Python's cyclic garbage collector, process-wide; measured again
    on W6 with N = 1000 and 4000 it saved nothing, so compiling has no such side effect.)
    """
