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


class HistoryEntry:
    """One recorded change of a graph: ``node``'s input ``i`` (an output when ``node`` is
    ``"output"``) became ``var``, for ``reason``. :class:`FullHistory` keeps two lists of them,
    one to replay the changes and one to undo them."""

    __slots__ = ("i", "node", "reason", "var")

    def __init__(self, node: Any, i: int, var: Any, reason: Any = None) -> None:
        self.node, self.i, self.var, self.reason = node, i, var, reason

    def __repr__(self) -> str:
        return f"HistoryEntry(node={self.node}, i={self.i}, var={self.var}, reason={self.reason})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HistoryEntry) and self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def _fields(self) -> tuple:
        return (self.node, self.i, self.var, self.reason)

    def __reduce__(self):
        # a rewriter given as the reason may not pickle: keep its name
        reason = self.reason
        if reason is not None and not isinstance(reason, str):
            reason = getattr(reason, "__name__", None) or str(reason)
        return type(self), (self.node, self.i, self.var, reason)


class FullHistory(Feature):
    """Records every change of one graph so that one can step through its states.

    After a rewrite, ``start()`` returns the graph to its state when the feature was attached,
    ``next()``/``prev()`` replay or undo one change, ``goto(k)`` reaches the state after ``k``
    changes and ``end()`` the last state; each returns the graph. ``callback`` (if given) is
    called after each recorded change; ``fw[k].reason`` names the rewrite of change ``k``.
    """

    def __init__(self, callback: Any = None) -> None:
        self.fw: list[HistoryEntry] = []  # what each change did
        self.bw: list[HistoryEntry] = []  # how to undo it
        self.pointer = -1  # index of the last change in effect
        self.fg: Any = None
        self.callback = callback

    def on_attach(self, fgraph: Any) -> None:
        if self.fg is not None:
            raise ValueError("FullHistory is already attached to another graph")
        self.fg = fgraph

    def on_change_input(self, fgraph, node, i, var, new_var, reason=None):
        self.bw.append(HistoryEntry(node, i, var, reason))
        self.fw.append(HistoryEntry(node, i, new_var, reason))
        self.pointer += 1
        if self.callback is not None:
            self.callback()

    def clone(self) -> FullHistory:
        return FullHistory(self.callback)

    def goto(self, checkpoint: int) -> Any:
        """The graph as it was after the first ``checkpoint`` changes."""
        length = len(self.bw)
        if not 0 <= checkpoint <= length:
            raise ValueError(f"checkpoint {checkpoint} is not between 0 and {length}")
        pointer = self.pointer
        while pointer > checkpoint - 1:  # undo
            self._apply(self.bw[pointer])
            pointer -= 1
        while pointer < checkpoint - 1:  # replay
            pointer += 1
            self._apply(self.fw[pointer])
        # the moves were recorded as changes too: forget them
        del self.bw[length:], self.fw[length:]
        self.pointer = pointer
        return self.fg

    def _apply(self, entry: HistoryEntry) -> None:
        self.fg.change_node_input(
            entry.node, entry.i, entry.var, reason=("Revert", entry.reason), check=False
        )

    def start(self) -> Any:
        """The graph before any recorded change."""
        return self.goto(0)

    def end(self) -> Any:
        """The graph after every recorded change."""
        return self.goto(len(self.bw))

    def prev(self) -> Any:
        """Undo one change (the graph unchanged at the start)."""
        return self.fg if self.pointer < 0 else self.goto(self.pointer)

    def next(self) -> Any:
        """Replay one change (the graph unchanged at the end)."""
        return self.fg if self.pointer >= len(self.bw) - 1 else self.goto(self.pointer + 2)


class NoOutputFromInplace(Feature):
    """Refuses (at validation) any change that makes one of the protected outputs (by
    position) the result of an in-place operation: such an output would alias, and overwrite,
    another variable's memory (inner graphs of loops protect their outputs so)."""

    def __init__(self, protected_out_ids: Any) -> None:
        self.protected_out_ids = tuple(protected_out_ids)

    def on_attach(self, fgraph: Any) -> None:
        if hasattr(fgraph, "_no_output_from_inplace"):
            raise AlreadyThere(f"NoOutputFromInplace is already attached to {fgraph}")
        fgraph._no_output_from_inplace = self

    def on_detach(self, fgraph: Any) -> None:
        del fgraph._no_output_from_inplace

    def clone(self) -> NoOutputFromInplace:
        return NoOutputFromInplace(self.protected_out_ids)

    def validate(self, fgraph: Any) -> bool:
        for out in (fgraph.outputs[i] for i in self.protected_out_ids):
            node = out.owner
            if node is not None and node.outputs.index(out) in node.op.destroy_map:
                raise InconsistencyError(
                    f"output {out} of the graph is protected from in-place operations, but "
                    f"{node.op} computes it by overwriting one of its inputs"
                )
        return True


class PreserveVariableAttributes(Feature):
    """Keeps a replaced variable's name (when the replacement has none) and its
    ``tag.nan_guard_mode_check`` through rewrites."""

    def on_change_input(self, fgraph, node, i, var, new_var, reason=None):
        if var.owner is not None and var.name is not None and new_var.name is None:
            new_var.name = var.name
        check = getattr(var.tag, "nan_guard_mode_check", None)
        if check is not None and getattr(new_var.tag, "nan_guard_mode_check", False) is False:
            new_var.tag.nan_guard_mode_check = check


# PyTensor keeps InconsistencyError in graph.utils, which sits below this module: bind it there.
_utils.InconsistencyError = InconsistencyError
