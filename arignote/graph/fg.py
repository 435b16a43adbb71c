"""``FunctionGraph``: a graph with fixed inputs and outputs that rewrites can edit in place."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from arignote.graph import utils as _utils
from arignote.graph.basic import Apply, Constant, Variable, clone_get_equiv
from arignote.graph.features import AlreadyThere, Feature, ReplaceValidate
from arignote.graph.flat import FlatGraph
from arignote.graph.traversal import applys_between, io_toposort

ClientList = list[tuple[Any, int]]


class MissingInputError(ValueError):
    """A computation needs a variable that is neither an input of the graph nor a constant."""


class FunctionGraph:
    """The subgraph between ``inputs`` and ``outputs``, with bookkeeping for rewriting.

    ``clients[var]`` lists where ``var`` is used: ``(node, i)`` when it is ``node.inputs[i]``, and
    ``("output", i)`` when it is ``outputs[i]``. (Each variable also gets a ``clients`` attribute
    holding the same list, as the graph-structures documentation describes.) With ``clone`` the
    graph is copied first, so edits never touch the caller's variables.
    """

    def __init__(
        self,
        inputs: Sequence[Variable] | None = None,
        outputs: Sequence[Variable] | None = None,
        features: Iterable[Feature] | None = None,
        clone: bool = True,
        update_mapping: dict[int, int] | None = None,
        copy_inputs: bool = True,
        copy_orphans: bool = True,
    ) -> None:
        if outputs is None:
            raise ValueError("A FunctionGraph needs its outputs")
        outputs = list(outputs)
        if inputs is None:
            from_outputs = _ownerless_inputs(outputs)
            inputs = from_outputs
        inputs = list(inputs)
        if clone:
            equiv = clone_get_equiv(inputs, outputs, copy_inputs, copy_orphans)
            inputs = [equiv[i] for i in inputs]
            outputs = [equiv[o] for o in outputs]
        self.inputs: list[Variable] = []
        self.outputs: list[Variable] = []
        self.apply_nodes: set[Apply] = set()
        self.variables: set[Variable] = set()
        self.clients: dict[Variable, ClientList] = {}
        self.features: list[Feature] = []
        self._callbacks: dict[str, list] = {}
        self.update_mapping = update_mapping
        self.profile = None
        for inp in inputs:
            self.add_input(inp, check=False)
        for out in outputs:
            self.add_output(out, reason="init")
        for feature in features or ():
            self.attach_feature(feature)

    # -- variables and clients ------------------------------------------------------------

    def setup_var(self, var: Variable) -> None:
        if var not in self.clients:
            clients: ClientList = []
            self.clients[var] = clients
            var.clients = clients  # type: ignore[attr-defined]

    def add_input(self, var: Variable, check: bool = True) -> None:
        """Make ``var`` an input of the graph."""
        if check and var in self.inputs:
            return
        if isinstance(var, Constant):
            raise TypeError(
                f"Constant {var} cannot be an input of a graph: constants carry their value"
            )
        self.inputs.append(var)
        self.setup_var(var)
        self.variables.add(var)

    def add_output(self, var: Variable, reason: str | None = None, import_missing: bool = False):
        """Append ``var`` to the outputs."""
        self.outputs.append(var)
        self.import_var(var, reason=reason, import_missing=import_missing)
        self.clients[var].append(("output", len(self.outputs) - 1))

    def add_client(self, var: Variable, client: tuple[Any, int]) -> None:
        self.clients[var].append(client)

    def get_clients(self, var: Variable) -> ClientList:
        return self.clients[var]

    def remove_client(
        self,
        var: Variable,
        client: tuple[Any, int],
        reason: str | None = None,
        remove_if_empty: bool = False,
    ) -> None:
        """Remove one use of ``var``; prune its computation if nothing else uses it.

        ``remove_if_empty`` also drops ``var`` itself from the graph's variables when it is left
        without clients (inputs are always kept).
        """
        pending = [(var, client)]
        while pending:
            var, client = pending.pop()
            clients = self.clients[var]
            _remove_client_entry(clients, client)
            if clients:
                continue
            owner = var.owner
            if owner is None:
                if remove_if_empty and var not in self.inputs:
                    self._forget_var(var)
                continue
            if any(self.clients[out] for out in owner.outputs):
                continue
            self._prune_node(owner, reason)
            pending.extend((inp, (owner, i)) for i, inp in enumerate(owner.inputs))

    def _prune_node(self, node: Apply, reason: str | None) -> None:
        self.apply_nodes.remove(node)
        for out in node.outputs:
            self._forget_var(out)
        self.execute_callbacks("on_prune", node, reason)

    def _forget_var(self, var: Variable) -> None:
        self.variables.discard(var)
        clients = self.clients.pop(var, None)
        if clients is not None and var.__dict__.get("clients") is clients:
            del var.clients  # type: ignore[attr-defined]

    # -- importing --------------------------------------------------------------------------

    def import_var(self, var: Variable, reason: str | None = None, import_missing: bool = False):
        """Bring ``var`` (and the computation producing it) into the graph."""
        if var in self.variables:
            return
        if var.owner is not None:
            self.import_node(var.owner, reason=reason, import_missing=import_missing)
            return
        if not isinstance(var, Constant) and var not in self.inputs:
            if not import_missing:
                raise MissingInputError(_missing_input_message(var))
            self.add_input(var, check=False)
            return
        self.setup_var(var)
        self.variables.add(var)

    def import_node(
        self,
        apply_node: Apply,
        check: bool = True,
        reason: str | None = None,
        import_missing: bool = False,
    ) -> None:
        """Bring ``apply_node`` and the nodes it depends on into the graph."""
        new_nodes = io_toposort(self.variables, apply_node.outputs)
        if check:
            for node in new_nodes:
                self._check_inputs_available(node, import_missing)
        for node in new_nodes:
            if node in self.apply_nodes:
                continue
            self.apply_nodes.add(node)
            for out in node.outputs:
                self.setup_var(out)
                self.variables.add(out)
            for i, inp in enumerate(node.inputs):
                if inp not in self.variables:
                    self.import_var(inp, reason=reason, import_missing=import_missing)
                self.clients[inp].append((node, i))
            self.execute_callbacks("on_import", node, reason)

    def _check_inputs_available(self, node: Apply, import_missing: bool) -> None:
        for inp in node.inputs:
            if inp.owner is None and inp not in self.variables and not isinstance(inp, Constant):
                if import_missing:
                    self.add_input(inp, check=False)
                else:
                    raise MissingInputError(_missing_input_message(inp, node))

    # -- changing the graph -------------------------------------------------------------------

    def change_node_input(
        self,
        node: Any,
        i: int,
        new_var: Variable,
        reason: str | None = None,
        import_missing: bool = False,
        check: bool = True,
    ) -> None:
        """Make ``new_var`` the ``i``-th input of ``node`` (output ``i`` when node is "output")."""
        if node == "output":
            var = self.outputs[i]
        else:
            var = node.inputs[i]
        if var is new_var:
            return
        if check and not var.type.is_super(new_var.type):
            raise TypeError(
                f"Cannot replace {var} (type {var.type}) by {new_var} (type {new_var.type}) as "
                f"input {i} of {node}: the new type is not a subtype of the old one"
            )
        self.import_var(new_var, reason=reason, import_missing=import_missing)
        self.clients[new_var].append((node, i))
        if node == "output":
            self.outputs[i] = new_var
        else:
            node.inputs[i] = new_var
        self.remove_client(var, (node, i), reason=reason, remove_if_empty=True)
        self.execute_callbacks("on_change_input", node, i, var, new_var, reason=reason)

    def replace(
        self,
        var: Variable,
        new_var: Variable,
        reason: str | None = None,
        verbose: bool = False,
        import_missing: bool = False,
    ) -> None:
        """Make every user of ``var`` use ``new_var`` instead.

        ``new_var`` is converted to ``var``'s type when possible; an incompatible type raises
        ``TypeError`` naming both variables.
        """
        if verbose:
            print(f"rewriting: {reason}: {var} -> {new_var}")  # noqa: T201
        try:
            new_var = var.type.filter_variable(new_var, allow_convert=True)
        except (TypeError, ValueError) as err:
            raise TypeError(
                f"Replacement {new_var} (type {getattr(new_var, 'type', None)}) is incompatible "
                f"with {var} (type {var.type})" + (f" in rewrite {reason}" if reason else "")
            ) from err
        if var not in self.variables:
            return
        for node, i in list(self.clients[var]):
            self.change_node_input(
                node, i, new_var, reason=reason, import_missing=import_missing, check=False
            )

    def replace_all(self, pairs: Iterable[tuple[Variable, Variable]], **kwargs: Any) -> None:
        """``replace`` each ``(var, new_var)`` pair in turn."""
        for var, new_var in pairs:
            self.replace(var, new_var, **kwargs)

    def remove_node(self, node: Apply, reason: str | None = None) -> None:
        """Remove ``node`` and everything that uses its outputs (outputs included)."""
        if node not in self.apply_nodes:
            return
        for out in node.outputs:
            for client, i in list(self.clients.get(out, ())):
                if client == "output":
                    self.remove_output(i, reason=reason)
                else:
                    self.remove_node(client, reason=reason)
        self.apply_nodes.discard(node)
        for out in node.outputs:
            self._forget_var(out)
        self.execute_callbacks("on_prune", node, reason)
        for i, inp in enumerate(node.inputs):
            if (node, i) in self.clients.get(inp, ()):
                self.remove_client(inp, (node, i), reason=reason)

    def remove_output(self, index: int, reason: str | None = None) -> None:
        """Drop output ``index`` (and whatever only it needed)."""
        var = self.outputs.pop(index)
        self.remove_client(var, ("output", index), reason=reason)
        for later in range(index, len(self.outputs)):
            clients = self.clients[self.outputs[later]]
            clients[clients.index(("output", later + 1))] = ("output", later)

    def remove_input(self, index: int, reason: str | None = None) -> None:
        """Drop input ``index`` and every node that depends on it."""
        var = self.inputs.pop(index)
        for client, _ in list(self.clients.get(var, ())):
            if client == "output":
                continue
            self.remove_node(client, reason=reason)
        for client_index in [i for c, i in self.clients.get(var, ()) if c == "output"]:
            self.remove_output(client_index, reason=reason)
        self._forget_var(var)

    # -- features -------------------------------------------------------------------------

    def attach_feature(self, feature: Feature) -> None:
        """Attach ``feature`` (a no-op if it, or an equivalent, is already there)."""
        if feature in self.features:
            return
        try:
            feature.on_attach(self)
        except AlreadyThere:
            return
        self.features.append(feature)
        self._callbacks.clear()

    def remove_feature(self, feature: Feature) -> None:
        if feature not in self.features:
            return
        self.features.remove(feature)
        self._callbacks.clear()
        feature.on_detach(self)

    def execute_callbacks(self, name: str, *args: Any, **kwargs: Any) -> None:
        """Call ``feature.<name>(self, *args, **kwargs)`` on every feature that defines it."""
        callbacks = self._callbacks.get(name)
        if callbacks is None:
            callbacks = self._callbacks[name] = [
                getattr(f, name) for f in self.features if _overrides(f, name)
            ]
        for callback in callbacks:
            callback(self, *args, **kwargs)

    def collect_callbacks(self, name: str, *args: Any) -> dict:
        """``{feature: feature.<name>(self, *args)}`` for every feature defining ``name``."""
        return {f: getattr(f, name)(self, *args) for f in self.features if hasattr(f, name)}

    # -- reading the graph ----------------------------------------------------------------

    def toposort(self) -> list[Apply]:
        """The Apply nodes in an order that respects data dependencies and feature orderings."""
        if len(self.apply_nodes) < 2:
            return list(self.apply_nodes)
        return io_toposort(self.inputs, self.outputs, self.orderings())

    def orderings(self) -> dict:
        """Ordering constraints from every feature, merged."""
        merged: dict = {}
        for feature in self.features:
            for node, before in feature.orderings(self).items():
                merged.setdefault(node, []).extend(before)
        return merged

    def check_integrity(self) -> None:
        """Raise if the node/variable sets and the client lists disagree with the graph."""
        nodes = set(applys_between(self.inputs, self.outputs))
        if nodes != self.apply_nodes:
            raise AssertionError(
                f"apply_nodes is out of date: missing {nodes - self.apply_nodes}, "
                f"extra {self.apply_nodes - nodes}"
            )
        for node in nodes:
            for i, inp in enumerate(node.inputs):
                if inp not in self.variables:
                    raise AssertionError(f"{inp}, input {i} of {node}, is not in the graph")
                if (node, i) not in self.clients[inp]:
                    raise AssertionError(f"clients of {inp} lack ({node}, {i})")
        for i, out in enumerate(self.outputs):
            if ("output", i) not in self.clients[out]:
                raise AssertionError(f"clients of output {out} lack ('output', {i})")
        for var in self.variables:
            for client, i in self.clients[var]:
                used = self.outputs[i] if client == "output" else client.inputs[i]
                if used is not var:
                    raise AssertionError(f"stale client ({client}, {i}) recorded for {var}")

    def clone(self, check_integrity: bool = True) -> FunctionGraph:
        """An independent copy of this graph (features cloned too)."""
        return self.clone_get_equiv(check_integrity)[0]

    def clone_get_equiv(
        self, check_integrity: bool = True, attach_feature: bool = True
    ) -> tuple[FunctionGraph, dict]:
        """An independent copy of this graph and the map from old to new variables and nodes."""
        equiv = clone_get_equiv(self.inputs, self.outputs)
        if check_integrity:
            self.check_integrity()
        new = FunctionGraph(
            [equiv[i] for i in self.inputs],
            [equiv[o] for o in self.outputs],
            clone=False,
            update_mapping=self.update_mapping,
        )
        if check_integrity:
            new.check_integrity()
        if attach_feature:
            for feature in self.features:
                new.attach_feature(feature.clone())
        return new, equiv

    def __str__(self) -> str:
        """The outputs as expressions over the inputs, as in PyTensor:
        ``FunctionGraph(Add(x, *1 -> Exp(y)), *1)``, where ``*1`` marks a result used twice."""
        return "FunctionGraph(" + ", ".join(_expressions(self.outputs)) + ")"

    def __repr__(self) -> str:
        return str(self)

    def __contains__(self, item: Any) -> bool:
        if isinstance(item, Variable):
            return item in self.variables
        return item in self.apply_nodes

    def __getstate__(self) -> dict:
        # Pickle and deepcopy follow links depth first: the linked variables and nodes (and
        # every variable's ``clients``) would make them recurse node by node, past the
        # recursion limit for graphs of a hundred nodes. The structure is saved flat instead.
        # Features install helpers on the graph (``checkpoint``, ``validate``...) and may hold
        # its nodes: fresh clones of them are saved, as ``clone`` does, and re-attached.
        return {
            "flat": FlatGraph(self.inputs, self.outputs),
            "features": [feature.clone() for feature in self.features],
            "update_mapping": self.update_mapping,
            "profile": self.profile,
        }

    def __setstate__(self, state: dict) -> None:
        flat = state["flat"]
        variables = flat.rebuild()
        FunctionGraph.__init__(
            self,
            [variables[i] for i in flat.inputs],
            [variables[o] for o in flat.outputs],
            clone=False,
            update_mapping=state["update_mapping"],
        )
        self.profile = state["profile"]
        for feature in state["features"]:
            self.attach_feature(feature)


def _ownerless_inputs(outputs: list[Variable]) -> list[Variable]:
    from_graph = []
    seen: set = set()
    for node in io_toposort([], outputs):
        for inp in node.inputs:
            if inp.owner is None and not isinstance(inp, Constant) and inp not in seen:
                seen.add(inp)
                from_graph.append(inp)
    for out in outputs:
        if out.owner is None and not isinstance(out, Constant) and out not in seen:
            seen.add(out)
            from_graph.append(out)
    return from_graph


def _remove_client_entry(clients: ClientList, client: tuple[Any, int]) -> None:
    """Remove ``client`` from ``clients``, looking at the most recent entries first.

    Pruning a graph removes uses in roughly the reverse order they were added (a replacement
    having just appended its own); scanning from the front made pruning a variable with
    thousands of uses quadratic.
    """
    for k in range(len(clients) - 1, max(len(clients) - 9, -1), -1):
        if clients[k] == client:
            del clients[k]
            return
    clients.remove(client)


def _overrides(feature: Feature, name: str) -> bool:
    """Whether ``feature`` defines callback ``name`` beyond the do-nothing base version."""
    method = getattr(type(feature), name, None)
    if method is None:
        return hasattr(feature, name)
    return method is not getattr(Feature, name, None)


def _missing_input_message(var: Variable, node: Apply | None = None) -> str:
    where = f" (needed by {node})" if node is not None else ""
    return (
        f"Input {var}{where} is needed to compute the outputs but was not given as an input of "
        "the graph"
    )


__all__ = ["FunctionGraph", "MissingInputError", "ReplaceValidate"]


# PyTensor keeps MissingInputError in graph.utils, which sits below this module: bind it there.
_utils.MissingInputError = MissingInputError


def _expressions(outputs: Sequence[Variable]) -> list[str]:
    """Each output written as nested op applications; a computed variable used more than
    once is written in full once, labelled ``*n -> ...``, and as ``*n`` afterwards."""
    uses: dict[Variable, int] = {}
    for var in outputs:
        uses[var] = uses.get(var, 0) + 1
    for node in io_toposort([], outputs):
        for inp in node.inputs:
            uses[inp] = uses.get(inp, 0) + 1
    labels: dict[Variable, str] = {}

    def show(var: Variable) -> str:
        if var.owner is None:
            return str(var)
        if var in labels:
            return labels[var]
        text = f"{var.owner.op}({', '.join(show(i) for i in var.owner.inputs)})"
        if uses.get(var, 0) > 1:
            labels[var] = f"*{len(labels) + 1}"
            return f"{labels[var]} -> {text}"
        return text

    return [show(var) for var in outputs]
