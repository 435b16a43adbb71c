"""``RewriteTrace``: a feature recording which rewrite replaced what."""

from __future__ import annotations

from typing import Any

from arignote.graph.features import Feature


class RewriteTrace(Feature):
    """Records ``(rewrite name, old variable, new variable)`` for every replacement made.

    A replacement that is undone (a feature vetoed it and ``History`` reverted it) is dropped
    from the record: the trace lists what the graph went through, not what was attempted.
    """

    def __init__(self) -> None:
        self.events: list[tuple[str, Any, Any]] = []
        self.notes: list[tuple[str, str]] = []  # what rewrites report without replacing
        self._seen: set = set()

    def note(self, name: str, detail: str) -> None:
        """Record something rewrite ``name`` did or gave up that is not a replacement."""
        self.notes.append((name, detail))

    def on_change_input(self, fgraph, node, i, var, new_var, reason=None):
        if reason is None:
            return
        if reason == "revert":
            self._forget(undone=var, restored=new_var)
            return
        key = (str(reason), id(var), id(new_var))
        if key not in self._seen:
            self._seen.add(key)
            self.events.append((str(reason), var, new_var))

    def _forget(self, undone: Any, restored: Any) -> None:
        """Drop the latest event that replaced ``restored`` by ``undone`` (a revert replays
        one callback per use of the variable; only the first finds the event)."""
        for k in range(len(self.events) - 1, -1, -1):
            name, old, new = self.events[k]
            if old is restored and new is undone:
                del self.events[k]
                self._seen.discard((name, id(old), id(new)))
                return

    @property
    def fired(self) -> list[str]:
        """Names of the rewrites that fired, in order, each once."""
        return list(dict.fromkeys(name for name, _, _ in self.events))

    def clone(self) -> RewriteTrace:
        return RewriteTrace()

    def __str__(self) -> str:
        return "\n".join(f"{name}: {old} -> {new}" for name, old, new in self.events)


def note_rewrite(fgraph: Any, name: str, detail: str) -> None:
    """Add a note to every RewriteTrace watching ``fgraph`` (nothing when none does)."""
    for feature in getattr(fgraph, "features", ()):
        if isinstance(feature, RewriteTrace):
            feature.note(name, detail)
