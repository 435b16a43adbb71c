"""The rewrite pipelines, in order. This is the only place where phase order is decided.

A phase runs every registered rewrite carrying its tag (node rewriters to a fixed point, graph
rewriters in registration order). Modes choose a pipeline by name and may exclude phases or
rewrites by name or tag, include extra ones, or require a tag of every rewrite.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
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
    """The phases of a pipeline, run in order with Python's cyclic garbage collector paused.

    Rewriting creates and drops many small objects; on graphs of thousands of nodes the
    collector's repeated full scans made compile time grow faster than the graph. Reference
    counting still frees what rewriting drops, and the collector resumes afterwards.
    """

    def apply(self, fgraph) -> bool:
        with gc_paused():
            return super().apply(fgraph)


_pause_lock = threading.Lock()
_pauses = 0  # compilations in progress that asked for the pause
_resume = False  # whether the collector was enabled when the first of them began


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while at least one compilation runs.

    The collector is process-wide, so the pause is shared: concurrent (or nested)
    compilations count themselves in, the first one pauses the collector only if it was
    enabled, and the last one out re-enables it then. A collector the user disabled stays
    disabled; reference counting frees memory meanwhile.
    """
    global _pauses, _resume
    with _pause_lock:
        if _pauses == 0:
            _resume = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _pause_lock:
            _pauses -= 1
            if _pauses == 0 and _resume:
                gc.enable()
