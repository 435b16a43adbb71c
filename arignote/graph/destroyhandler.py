"""``DestroyHandler``: the feature that keeps in-place operations safe.

An op that overwrites an input declares it in ``destroy_map``; an op whose output shares
memory with an input declares it in ``view_map``. Values connected by views form a family
around a *root* (the variable whose memory they all share). Destroying any member of a family
overwrites the root's memory, so:

- the root must not be a constant, nor a graph input unless that input is declared mutable;
- at most one op may destroy a family, and no member of it may be a graph output;
- every other op reading a member of the family must run *before* the destroyer: the handler
  adds these ordering constraints (``orderings``), and the graph is invalid when they
  contradict the data dependencies (the destroyed value is needed afterwards).

The output of a destroying op is the new content of that memory: it starts a family of its
own, so a chain of in-place ops (``x += 1; x *= 2``) is valid.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from arignote.graph.basic import Apply, Constant, Variable
from arignote.graph.features import AlreadyThere, Feature, InconsistencyError
from arignote.graph.lazy import has_lazy_nodes

__all__ = ["DestroyHandler", "can_destroy", "view_root"]


def view_root(var: Variable) -> Variable:
    """The variable whose memory ``var`` shares through ``view_map`` (``var`` itself if none)."""
    while var.owner is not None:
        sources = getattr(var.owner.op, "view_map", {}).get(var.index)
        if not sources:
            break
        var = var.owner.inputs[sources[0]]
    return var


def _destroyed(node: Apply) -> list[Variable]:
    return [node.inputs[i] for inputs in node.op.destroy_map.values() for i in inputs]


class DestroyHandler(Feature):
    """Validates ``destroy_map``/``view_map`` use and orders readers before destroyers.

    ``mutable_inputs`` lists the graph inputs (variables or positions) that ops may destroy;
    the others, and constants, are protected. With no destroyer in the graph, validation and
    ordering cost nothing.
    """

    def __init__(self, mutable_inputs: Iterable[Any] = ()) -> None:
        self._mutable_spec = list(mutable_inputs)
        self.mutable: set[Variable] = set()
        self.destroyers: set[Apply] = set()
        self.fgraph: Any = None

    # -- feature protocol ---------------------------------------------------------------------

    def on_attach(self, fgraph: Any) -> None:
        if getattr(fgraph, "destroy_handler", None) is not None:
            raise AlreadyThere("a DestroyHandler is already attached")
        fgraph.destroy_handler = self
        self.fgraph = fgraph
        self.mutable = {fgraph.inputs[m] if isinstance(m, int) else m for m in self._mutable_spec}
        self.destroyers = {n for n in fgraph.apply_nodes if n.op.destroy_map}

    def on_detach(self, fgraph: Any) -> None:
        fgraph.destroy_handler = None
        self.fgraph = None
        self.destroyers = set()

    def on_import(self, fgraph: Any, node: Apply, reason: str | None) -> None:
        if node.op.destroy_map:
            self.destroyers.add(node)

    def on_prune(self, fgraph: Any, node: Apply, reason: str | None) -> None:
        self.destroyers.discard(node)

    def clone(self) -> DestroyHandler:
        positions = [self.fgraph.inputs.index(v) for v in self.mutable] if self.fgraph else []
        return DestroyHandler(positions or self._mutable_spec)

    # -- the rules ----------------------------------------------------------------------------

    @property
    def protected(self) -> list[Variable]:
        """The graph inputs that may not be overwritten (the "supervisor" convention that
        other in-place rewriters read)."""
        return [i for i in self.fgraph.inputs if i not in self.mutable] if self.fgraph else []

    def why_protected(self, root: Variable) -> str | None:
        """Why ``root``'s memory may not be overwritten (None when it may)."""
        if isinstance(root, Constant):
            return f"{root} is a constant"
        if root in self.fgraph.inputs and root not in self.mutable:
            return f"{root} is an input of the graph that is not declared mutable"
        return None

    def validate(self, fgraph: Any) -> bool:
        """Raise ``InconsistencyError`` if the graph's in-place operations are unsafe."""
        if self.destroyers:
            self._orderings_or_raise()
        return True

    def orderings(self, fgraph: Any) -> dict:
        """``{destroyer: [ops that must run before it]}``: the other readers of its family."""
        if not self.destroyers:
            return {}
        return self._orderings_or_raise()

    def _orderings_or_raise(self) -> dict:
        destroyer_of: dict[Variable, Apply] = {}
        orderings: dict = {}
        for node in sorted(self.destroyers, key=id):
            for var in _destroyed(node):
                root = view_root(var)
                self._check_root(node, var, root, destroyer_of)
                destroyer_of[root] = node
                readers = self._readers(_family_of(self.fgraph, root), node)
                if readers:
                    orderings.setdefault(node, []).extend(readers)
        if orderings:
            self._check_acyclic(orderings)
        return orderings

    def _check_acyclic(self, orderings: dict) -> None:
        """Raise if "readers before destroyers" contradicts the data dependencies.

        The data graph has no cycle, so a cycle goes through some destroyer (the target of
        every ordering edge): a depth-first search from the destroyers, along data edges and
        ordering edges, finds any. It visits what depends on a destroyer, not the whole
        graph, so validating a replacement stays cheap where in-place ops are few.
        """
        before: dict[Apply, list[Apply]] = {}  # reader -> destroyers it must precede
        for destroyer, readers in orderings.items():
            for reader in readers:
                before.setdefault(reader, []).append(destroyer)
        clients = self.fgraph.clients
        state: dict[Apply, int] = {}  # 1: on the current path, 2: done
        for start in orderings:
            if start in state:
                continue
            state[start] = 1
            stack = [(start, iter(_successors(start, clients, before)))]
            while stack:
                node, successors = stack[-1]
                child = next(successors, None)
                if child is None:
                    state[node] = 2
                    stack.pop()
                elif state.get(child) == 1:
                    raise InconsistencyError(
                        "An in-place operation overwrites a value that is still needed after "
                        f"it runs ({child} must run both before and after {node})"
                    )
                elif child not in state:
                    state[child] = 1
                    stack.append((child, iter(_successors(child, clients, before))))

    def _check_root(self, node: Apply, var: Variable, root: Variable, destroyer_of: dict) -> None:
        why = self.why_protected(root)
        if why is not None:
            raise InconsistencyError(f"{node} overwrites {var}, but {why}")
        other = destroyer_of.get(root)
        if other is not None:
            raise InconsistencyError(
                f"{var} (memory of {root}) is overwritten by two operations: {other} and {node}"
            )

    def _readers(self, family: list[Variable], destroyer: Apply) -> list[Apply]:
        readers: dict[Apply, None] = {}  # ordered, and cheap to test (many readers)
        for member in family:
            for client, i in self.fgraph.clients.get(member, ()):
                if client == "output":
                    raise InconsistencyError(
                        f"{destroyer} overwrites {member}, which is an output of the graph"
                    )
                if client is destroyer:
                    if i not in [j for js in destroyer.op.destroy_map.values() for j in js]:
                        raise InconsistencyError(
                            f"{destroyer} reads {member} (input {i}) while overwriting it"
                        )
                    continue
                readers[client] = None
        return list(readers)


def can_destroy(fgraph: Any, node: Apply, index: int, max_visits: int = 500) -> bool:
    """Whether ``node`` may overwrite its input ``index`` (checked locally, conservatively).

    True when the memory is not protected, nothing else destroys it, it is not a graph output,
    ``node`` does not read it through another input, and every other reader can run before
    ``node`` (none of them depends on ``node``). Both searches give up, saying no, after
    ``max_visits`` uses or nodes: an in-place pass asks this of every node, and a value read
    thousands of times would otherwise make the pass quadratic. In-place rewriters use this to
    choose candidates cheaply; the ``DestroyHandler`` still validates the result.
    """
    handler = getattr(fgraph, "destroy_handler", None)
    var = node.inputs[index]
    root = view_root(var)
    if handler is None or handler.why_protected(root) is not None:
        return False
    family = _family_of(fgraph, root, max_visits)
    if family is None:
        return False
    if any(i != index and view_root(inp) is root for i, inp in enumerate(node.inputs)):
        return False
    readers = set()
    for member in family:
        for client, _ in fgraph.clients.get(member, ()):
            if client == "output" or (client is not node and client in handler.destroyers):
                return False
            if client is not node:
                readers.add(client)
    if readers and _runs_on_demand(fgraph, handler):
        return False
    return not readers or not _reaches(fgraph, node, readers, max_visits)


def _runs_on_demand(fgraph: Any, handler: Any) -> bool:
    """Whether the graph has lazy nodes (an ``IfElse``): the lazy VM then computes values on
    demand, not in the order that puts readers before the node overwriting their input, so
    no value with other readers may be overwritten. Cached on the handler: in-place passes
    ask for every node, and they add no lazy node."""
    cached = getattr(handler, "_runs_on_demand", None)
    if cached is None:
        cached = handler._runs_on_demand = has_lazy_nodes(fgraph)
    return cached


def _successors(node: Apply, clients: dict, before: dict) -> list:
    """The nodes that must run after ``node``: users of its outputs, and the destroyers that
    ``node`` reads the victim of."""
    after = [c for out in node.outputs for c, _ in clients.get(out, ()) if c != "output"]
    return after + before.get(node, [])


def _family_of(fgraph: Any, root: Variable, max_uses: int | None = None) -> list[Variable] | None:
    """``root`` and the variables viewing it, found by walking clients through views (None
    when they have more than ``max_uses`` uses in all)."""
    family, stack = [], [root]
    uses = 0
    while stack:
        var = stack.pop()
        family.append(var)
        clients = fgraph.clients.get(var, ())
        uses += len(clients)
        if max_uses is not None and uses > max_uses:
            return None
        for client, i in clients:
            if client == "output":
                continue
            for out_index, inputs in getattr(client.op, "view_map", {}).items():
                if i in inputs:
                    stack.append(client.outputs[out_index])
    return family


def _reaches(fgraph: Any, start: Apply, targets: set, max_visits: int) -> bool:
    """Whether a node of ``targets`` depends on ``start`` (True also when the search is cut)."""
    stack, seen = [start], {start}
    while stack:
        node = stack.pop()
        for out in node.outputs:
            for client, _ in fgraph.clients.get(out, ()):
                if client == "output" or client in seen:
                    continue
                if client in targets or len(seen) >= max_visits:
                    return True
                seen.add(client)
                stack.append(client)
    return False
