"""Features: objects attached to a FunctionGraph that follow (and may veto) its changes.

A feature receives callbacks as nodes are imported (``on_import``), pruned (``on_prune``) and
rewired (``on_change_input``), can add ordering constraints (``orderings``), and can take part in
validation (``validate``), which rewriters call after a replacement.
"""

from __future__ import annotations

from typing import Any

from arignote.graph import utils as _utils


class AlreadyThere(Exception):
    """Raised by ``Feature.on_attach`` to say an equivalent feature is already attached."""


class InconsistencyError(Exception):
    """A change to a FunctionGraph broke one of its features' invariants; it will be undone."""


class Feature:
    """Base class: every callback does nothing, so a feature defines only what it needs."""

    def on_attach(self, fgraph: Any) -> None:
        """Called when attached; may raise :class:`AlreadyThere`."""

    def on_detach(self, fgraph: Any) -> None:
        """Called when removed from ``fgraph``."""

    def on_import(self, fgraph: Any, node: Any, reason: str | None) -> None:
        """Called for each node entering the graph (including those present at attach time)."""

    def on_prune(self, fgraph: Any, node: Any, reason: str | None) -> None:
        """Called for each node leaving the graph."""

    def on_change_input(
        self, fgraph: Any, node: Any, i: int, var: Any, new_var: Any, reason: str | None = None
    ) -> None:
        """Called after ``node.inputs[i]`` (output ``i`` if node is "output") became ``new_var``."""

    def orderings(self, fgraph: Any) -> dict:
        """Extra ``{node: [nodes that must run before it]}`` constraints for toposort."""
        return {}

    def clone(self) -> Feature:
        return type(self)()


class Bookkeeper(Feature):
    """A feature that replays ``on_import`` for the nodes already present when attached."""

    def on_attach(self, fgraph: Any) -> None:
        for node in fgraph.toposort():
            self.on_import(fgraph, node, "on_attach")

    def on_detach(self, fgraph: Any) -> None:
        for node in fgraph.toposort():
            self.on_prune(fgraph, node, "Bookkeeper.detach")


class History(Feature):
    """Records input changes so that a run of them can be undone (``checkpoint``/``revert``)."""

    def __init__(self) -> None:
        self.history: dict[Any, list | None] = {}

    def on_attach(self, fgraph: Any) -> None:
        if hasattr(fgraph, "checkpoint"):
            raise AlreadyThere("History is already attached")
        self.history[fgraph] = []
        fgraph.checkpoint = lambda: len(self.history[fgraph])
        fgraph.revert = lambda checkpoint: self.revert(fgraph, checkpoint)

    def on_detach(self, fgraph: Any) -> None:
        del fgraph.checkpoint
        del fgraph.revert
        del self.history[fgraph]

    def on_change_input(self, fgraph, node, i, var, new_var, reason=None):
        changes = self.history.get(fgraph)
        if changes is not None:
            changes.append((node, i, var, new_var))

    def revert(self, fgraph: Any, checkpoint: int) -> None:
        """Undo every change recorded after ``checkpoint``."""
        changes = self.history[fgraph]
        self.history[fgraph] = None  # do not record the undoing itself
        try:
            while len(changes) > checkpoint:
                node, i, var, _new_var = changes.pop()
                fgraph.change_node_input(node, i, var, reason="revert", check=False)
        finally:
            self.history[fgraph] = changes


class Validator(Feature):
    """Gives the graph ``validate()`` (run every feature's ``validate``) and ``consistent()``."""

    def on_attach(self, fgraph: Any) -> None:
        if hasattr(fgraph, "validate"):
            raise AlreadyThere("Validator is already attached")
        fgraph.validate = lambda: self.validate_(fgraph)
        fgraph.consistent = lambda: self.consistent_(fgraph)

    def on_detach(self, fgraph: Any) -> None:
        del fgraph.validate
        del fgraph.consistent

    def validate_(self, fgraph: Any) -> bool:
        fgraph.execute_callbacks("validate")
        return True

    def consistent_(self, fgraph: Any) -> bool:
        try:
            fgraph.validate()
        except InconsistencyError:
            return False
        return True


class ReplaceValidate(History, Validator):
    """Replacements that are undone when they make the graph invalid."""

    def on_attach(self, fgraph: Any) -> None:
        for attr in ("replace_validate", "replace_all_validate"):
            if hasattr(fgraph, attr):
                raise AlreadyThere(f"{attr} is already defined on the graph")
        History.on_attach(self, fgraph)
        Validator.on_attach(self, fgraph)
        fgraph.replace_validate = lambda r, new_r, reason=None: self.replace_all_validate(
            fgraph, [(r, new_r)], reason=reason
        )
        fgraph.replace_all_validate = lambda replacements, reason=None: self.replace_all_validate(
            fgraph, replacements, reason=reason
        )

    def on_detach(self, fgraph: Any) -> None:
        History.on_detach(self, fgraph)
        Validator.on_detach(self, fgraph)
        del fgraph.replace_validate
        del fgraph.replace_all_validate

    def replace_all_validate(self, fgraph: Any, replacements: list, reason: str | None = None):
        """Apply ``replacements``; if validation fails, undo them all and re-raise."""
        checkpoint = fgraph.checkpoint()
        try:
            for var, new_var in replacements:
                fgraph.replace(var, new_var, reason=reason)
            fgraph.validate()
        except Exception:
            fgraph.revert(checkpoint)
            raise

    def clone(self) -> ReplaceValidate:
        return ReplaceValidate()


# PyTensor keeps InconsistencyError in graph.utils, which sits below this module: bind it there.
_utils.InconsistencyError = InconsistencyError
