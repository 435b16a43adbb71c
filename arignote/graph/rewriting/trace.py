"""``RewriteTrace``: a feature recording which rewrite replaced what."""

from __future__ import annotations

from typing import Any

from arignote.graph.features import Feature


class RewriteTrace(Feature):
    """Records ``(rewrite name, old variable, new variable)`` for every replacement made."""

    def __init__(self) -> None:
        self.events: list[tuple[str, Any, Any]] = []
        self._seen: set = set()

    def on_change_input(self, fgraph, node, i, var, new_var, reason=None):
        if reason is None or reason == "revert":
            return
        key = (str(reason), id(var), id(new_var))
        if key not in self._seen:
            self._seen.add(key)
            self.events.append((str(reason), var, new_var))

    @property
    def fired(self) -> list[str]:
        """Names of the rewrites that fired, in order, each once."""
        return list(dict.fromkeys(name for name, _, _ in self.events))

    def clone(self) -> RewriteTrace:
        return RewriteTrace()

    def __str__(self) -> str:
        return "\n".join(f"{name}: {old} -> {new}" for name, old, new in self.events)
