"""Rewrite databases: named rewriters with tags, selected by queries.

Every rewrite is registered once, under a unique name, with tags naming the phases it belongs
to ("canonicalize", "stabilize", "specialize", ...) and topics ("shape", "fusion", ...). Modes
select rewrites with a :class:`RewriteDatabaseQuery` (include / require / exclude). The order in
which phases run is not stored here: it lives in ``arignote/compile/pipeline.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from arignote.graph.rewriting.basic import (
    EquilibriumGraphRewriter,
    GraphRewriter,
    MergeOptimizer,
    NodeRewriter,
    Rewriter,
    SequentialGraphRewriter,
    SequentialNodeRewriter,
)
from arignote.graph.rewriting.pattern import PatternMatcher, pattern_registrar, rule_from_entry


@dataclass(frozen=True)
class RewriteDatabaseQuery:
    """Which rewrites to take: any tag in ``include``, all of ``require``, none of ``exclude``.

    Names count as tags, so ``exclude=("local_exp_log",)`` removes one rewrite.
    """

    include: frozenset[str] = field(default_factory=frozenset)
    require: frozenset[str] = field(default_factory=frozenset)
    exclude: frozenset[str] = field(default_factory=frozenset)

    def __init__(
        self, include: Iterable[str] = (), require: Iterable[str] = (), exclude: Iterable[str] = ()
    ) -> None:
        for name, value in (("include", include), ("require", require), ("exclude", exclude)):
            if isinstance(value, str):
                value = (value,)
            object.__setattr__(self, name, frozenset(value))

    def including(self, *tags: str) -> RewriteDatabaseQuery:
        return RewriteDatabaseQuery(self.include | set(tags), self.require, self.exclude)

    def requiring(self, *tags: str) -> RewriteDatabaseQuery:
        return RewriteDatabaseQuery(self.include, self.require | set(tags), self.exclude)

    def excluding(self, *tags: str) -> RewriteDatabaseQuery:
        return RewriteDatabaseQuery(self.include, self.require, self.exclude | set(tags))

    def matches(self, tags: frozenset[str]) -> bool:
        return bool(tags & self.include) and self.require <= tags and not tags & self.exclude


class RewriteDatabase:
    """Named rewriters with tags, in registration order."""

    def __init__(self) -> None:
        self._entries: dict[str, tuple[Any, frozenset[str]]] = {}

    def register(self, name: str, rewriter: Any, *tags: str) -> Any:
        """Add ``rewriter`` under ``name`` (which also counts as a tag)."""
        if name in self._entries:
            raise ValueError(f"A rewrite named {name!r} is already registered")
        if not isinstance(rewriter, (Rewriter, RewriteDatabase)):
            raise TypeError(f"Cannot register {rewriter!r}: not a rewriter or database")
        if isinstance(rewriter, Rewriter) and rewriter.name is None:
            rewriter.name = name
        self._entries[name] = (rewriter, frozenset((*tags, name)))
        return rewriter

    def remove(self, name: str) -> None:
        del self._entries[name]

    def __contains__(self, name: str) -> bool:
        return name in self._entries

    def __getitem__(self, name: str) -> Any:
        return self._entries[name][0]

    def names(self) -> list[str]:
        return list(self._entries)

    def tags_of(self, name: str) -> frozenset[str]:
        return self._entries[name][1]

    def select(self, query: RewriteDatabaseQuery) -> list[Any]:
        """The registered rewriters matching ``query``, in registration order."""
        chosen = []
        for rewriter, tags in self._entries.values():
            if not query.matches(tags):
                continue
            if isinstance(rewriter, RewriteDatabase):
                chosen.append(rewriter.query(query))
            else:
                chosen.append(rewriter)
        return chosen

    def query(self, query: RewriteDatabaseQuery | None = None, **kwargs: Any) -> Any:
        """The rewriters matching ``query`` (or ``include=``/``exclude=`` keywords)."""
        return self.select(query or RewriteDatabaseQuery(**kwargs))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.names()})"


class EquilibriumDB(RewriteDatabase):
    """A database whose query runs the selected rewriters to a fixed point."""

    def __init__(self, max_use_ratio: float = 10.0) -> None:
        super().__init__()
        self.max_use_ratio = max_use_ratio

    def query(self, query=None, **kwargs) -> EquilibriumGraphRewriter:
        return EquilibriumGraphRewriter(super().query(query, **kwargs), self.max_use_ratio)


class SequenceDB(RewriteDatabase):
    """A database whose query runs the selected graph rewriters in registration order."""

    def query(self, query=None, **kwargs) -> SequentialGraphRewriter:
        return SequentialGraphRewriter(*super().query(query, **kwargs))


class LocalGroupDB(RewriteDatabase):
    """A database of node rewriters whose query tries them in turn, as one node rewriter."""

    def query(self, query=None, **kwargs) -> SequentialNodeRewriter:
        return SequentialNodeRewriter(*super().query(query, **kwargs))


#: Every rewrite of the library, registered by the modules that define them.
rewrites = RewriteDatabase()

#: Tags whose rewrites run only when asked for by name (``include=("unsafe",)``): they change
#: results for some inputs (``x / x -> 1`` is wrong where x is 0).
DEFAULT_EXCLUDED = ("unsafe", "experimental")

# Merging identical computations is part of every algebraic phase: canonical forms make
# permuted expressions identical, and merging them makes later rewrites see one node.
rewrites.register(
    "merge", MergeOptimizer(), "canonicalize", "stabilize", "specialize", "fast_compile"
)


def register_rewrite(
    *tags: str, name: str | None = None, db: RewriteDatabase | None = None
) -> Callable[[Any], Any]:
    """Decorator registering a rewriter with ``tags`` in ``db`` (default: the library's)."""

    def decorator(rewriter: Any) -> Any:
        key = name or getattr(rewriter, "name", None) or getattr(rewriter, "__name__", None)
        if key is None:
            raise ValueError(f"register_rewrite needs a name for {rewriter!r}")
        (db if db is not None else rewrites).register(key, rewriter, *tags)
        return rewriter

    return decorator


def phase_rewriter(
    tag: str,
    exclude: Sequence[str] = (),
    require: Sequence[str] = (),
    db: RewriteDatabase | None = None,
    max_use_ratio: float = 10.0,
) -> GraphRewriter:
    """All rewrites tagged ``tag``, run together to a fixed point (graph rewriters, such as the
    merge, once per pass; node rewriters from a queue of the nodes that changed)."""
    query = RewriteDatabaseQuery(include=[tag], require=require, exclude=exclude)
    chosen = (db or rewrites).query(query)
    if not any(isinstance(r, NodeRewriter) for r in chosen):
        return SequentialGraphRewriter(*chosen, name=tag)
    return EquilibriumGraphRewriter(chosen, max_use_ratio, name=tag)


def register_patterns(
    tags: str | Sequence[str],
    table: Sequence[Any],
    db: RewriteDatabase | None = None,
    allow_cast: bool = True,
    same_dtype: bool = False,
) -> PatternMatcher:
    """Register each rule of ``table`` under a stable generated name, with ``tags``.

    An entry is ``(pattern, replacement)`` or ``(pattern, replacement, options)``, options being
    keywords of :class:`PatternNodeRewriter` (``constraint``, ``allow_cast``, ``same_dtype``,
    ``name``); ``allow_cast`` and ``same_dtype`` given here are every rule's default. Rules
    are named ``<first tag>:<pattern>`` (``canonicalize:neg(neg(x))``), so that they can be
    excluded by name and recognized in traces. Returns the table as one matcher.
    """
    tags = (tags,) if isinstance(tags, str) else tuple(tags)
    db = rewrites if db is None else db
    rules = []
    for entry in table:
        rule = rule_from_entry(entry, tags[0], allow_cast, same_dtype)
        base, suffix = rule.name, 2
        while rule.name in db:
            rule.name = f"{base}#{suffix}"
            suffix += 1
        db.register(rule.name, rule, *tags)
        rules.append(rule)
    return PatternMatcher(rules, name=f"{tags[0]}-patterns")


pattern_registrar.append(register_patterns)
