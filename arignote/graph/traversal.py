"""Structural graph walks: ancestors, inputs, the nodes between two cuts, topological orders.

Everything here relies only on the duck-typed structure of the IR (``var.owner``,
``node.inputs``), so it serves every kind of graph, including inner graphs of composite ops.
All orders are deterministic: they follow the order of inputs, never the order of a set.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Collection, Hashable, Iterable, Iterator, Sequence
from typing import Any


def walk(
    nodes: Iterable,
    expand: Callable[[Any], Iterable | None],
    bfs: bool = True,
    return_children: bool = False,
    hash_fn: Callable[[Any], Hashable] = id,
) -> Iterator:
    """Yield every node reachable from ``nodes`` through ``expand``, each once.

    With ``return_children`` each item is ``(node, children)``. ``bfs=False`` walks depth first.
    """
    queue = deque(nodes)
    pop = queue.popleft if bfs else queue.pop
    seen: set = set()
    while queue:
        node = pop()
        key = hash_fn(node)
        if key in seen:
            continue
        seen.add(key)
        children = expand(node)
        yield (node, children) if return_children else node
        if children:
            queue.extend(children if bfs else reversed(list(children)))


def ancestors(graphs: Iterable, blockers: Collection | None = None) -> Iterator:
    """Yield the variables ``graphs`` depend on (themselves included), left-first, each once.

    The walk does not go past a variable in ``blockers``.
    """
    blockers = set(blockers) if blockers else set()
    stack = list(reversed(list(graphs)))
    seen: set = set()
    while stack:
        var = stack.pop()
        if var in seen:
            continue
        seen.add(var)
        yield var
        owner = var.owner
        if owner is not None and var not in blockers:
            stack.extend(reversed(owner.inputs))


def graph_inputs(graphs: Iterable, blockers: Collection | None = None) -> list:
    """The variables without owner that ``graphs`` depend on, left-first.

    The walk stops at ``blockers``; as in PyTensor, a blocker computed by a node is not an
    input, so it is not listed (an ownerless one is)."""
    return [v for v in ancestors(graphs, blockers) if v.owner is None]


def vars_between(ins: Collection, outs: Iterable) -> Iterator:
    """Yield the variables on paths from ``ins`` to ``outs`` (ends included)."""
    return ancestors(outs, blockers=ins)


def applys_between(ins: Collection, outs: Iterable) -> list:
    """The Apply nodes on paths from ``ins`` to ``outs``, in topological order."""
    return io_toposort(ins, list(outs))


def orphans_between(ins: Collection, outs: Iterable) -> list:
    """The ownerless variables that ``outs`` depend on and that are not in ``ins``."""
    ins = set(ins)
    return [v for v in ancestors(outs, ins) if v.owner is None and v not in ins]


def io_toposort(
    inputs: Iterable,
    outputs: Sequence,
    orderings: dict | None = None,
    clients: Any = None,
) -> list:
    """Apply nodes between ``inputs`` and ``outputs`` such that each comes after its producers.

    ``orderings`` maps a node to nodes that must run before it (used by in-place bookkeeping).
    The order is the post-order of a depth-first walk from the outputs, visiting inputs left to
    right, so it is stable from run to run. ``clients`` is accepted for API compatibility.
    """
    # A set is used as is: FunctionGraph passes its (large) variable set when importing nodes.
    input_set = inputs if isinstance(inputs, (set, frozenset)) else set(inputs)
    extra = orderings or {}
    order: list = []
    state: dict = {}  # node -> 1 while on the stack, 2 once emitted
    for out in outputs:
        node = out.owner
        if node is None or out in input_set or node in state:
            continue
        _postorder_from(node, input_set, extra, state, order)
    return order


def _parents(node: Any, input_set: set, extra: dict) -> list:
    parents = [v.owner for v in node.inputs if v.owner is not None and v not in input_set]
    before = extra.get(node)
    return parents + list(before) if before else parents


def _postorder_from(root: Any, input_set: set, extra: dict, state: dict, order: list) -> None:
    state[root] = 1
    stack = [(root, iter(_parents(root, input_set, extra)))]
    while stack:
        node, pending = stack[-1]
        for parent in pending:
            mark = state.get(parent)
            if mark is None:
                state[parent] = 1
                stack.append((parent, iter(_parents(parent, input_set, extra))))
                break
            if mark == 1:
                raise ValueError(f"The graph contains a cycle through {parent}")
        else:
            stack.pop()
            state[node] = 2
            order.append(node)


def toposort(outputs: Sequence, blockers: Collection | None = None) -> list:
    """Apply nodes that ``outputs`` depend on, in topological order."""
    return io_toposort(blockers or (), outputs)


def general_toposort(outputs: Iterable, deps: Callable[[Any], Iterable | None]) -> list:
    """Topologically sort every object reachable from ``outputs`` through ``deps``.

    Objects come after everything they depend on; a cycle raises ``ValueError``.
    """
    order: list = []
    state: dict = {}
    for root in outputs:
        if root in state:
            continue
        state[root] = 1
        stack = [(root, iter(deps(root) or ()))]
        while stack:
            obj, pending = stack[-1]
            for dep in pending:
                mark = state.get(dep)
                if mark is None:
                    state[dep] = 1
                    stack.append((dep, iter(deps(dep) or ())))
                    break
                if mark == 1:
                    raise ValueError(f"Dependency cycle through {dep}")
            else:
                stack.pop()
                state[obj] = 2
                order.append(obj)
    return order


def variable_depends_on(variable: Any, depends_on: Collection) -> bool:
    """Whether ``variable`` is, or is computed from, one of ``depends_on``."""
    targets = set(depends_on)
    return any(v in targets for v in ancestors([variable]))


def variable_ancestors(graphs: Iterable, blockers: Collection | None = None) -> Iterator:
    """The variables ``graphs`` are computed from, themselves included (as :func:`ancestors`)."""
    return ancestors(graphs, blockers)


def apply_ancestors(graphs: Iterable, blockers: Collection | None = None) -> Iterator:
    """The apply nodes ``graphs`` are computed by, each once, outputs first."""
    seen: set = set()
    for var in ancestors(graphs, blockers):
        node = var.owner
        if node is not None and node not in seen and (blockers is None or var not in blockers):
            seen.add(node)
            yield node


def get_var_by_name(graphs: Iterable, target_var_id: str) -> tuple:
    """The variables among the ancestors of ``graphs`` whose name is ``target_var_id``."""
    return tuple(v for v in ancestors(graphs) if getattr(v, "name", None) == target_var_id)


def apply_depends_on(apply: Any, depends_on: Any) -> bool:
    """Whether the node ``apply`` is computed from (one of) the node(s) ``depends_on``."""
    targets = set(depends_on) if isinstance(depends_on, (list, tuple, set)) else {depends_on}
    return any(v.owner in targets for v in ancestors(apply.inputs))


def walk_toposort(graphs: Iterable, deps: Callable[[Any], Iterable | None]) -> Iterator:
    """Yield every object reachable from ``graphs`` through ``deps``, each after its
    dependencies (Kahn's algorithm: sources first, then whatever they release, in order).

    ``deps`` must return the same objects each time (identity is what counts). A cycle raises
    ``ValueError`` once the objects that can be ordered are yielded.
    """
    pending: dict = {}  # object -> its dependencies not yet yielded
    clients: dict = {}
    for obj, children in walk(
        graphs, lambda o: pending.setdefault(o, list(deps(o) or ())), False, True
    ):
        for child in children:
            clients.setdefault(child, []).append(obj)
    ready = deque(obj for obj, needed in pending.items() if not needed)
    done: set = set()
    while ready:
        obj = ready.popleft()
        if obj in done:
            continue
        done.add(obj)
        yield obj
        for client in clients.get(obj, ()):
            pending[client] = [d for d in pending[client] if d is not obj]
            if not pending[client]:
                ready.append(client)
    if len(done) != len(pending):
        raise ValueError("graph contains cycles")


def toposort_with_orderings(
    graphs: Iterable,
    *,
    blockers: Iterable | None = None,
    orderings: dict | None = None,
) -> Iterator:
    """Yield the Apply nodes ``graphs`` depend on (not past ``blockers``) in a topological
    order that also puts each node after the nodes (or variables' owners) that
    ``orderings[node]`` lists (in-place rewrites use it to run readers before a destroyer)."""
    if not orderings:
        yield from toposort(list(graphs), blockers=set(blockers or ()))
        return
    stop = frozenset(blockers or ())

    def deps(obj: Any) -> list | None:
        if obj in stop:
            return None
        if hasattr(obj, "outputs"):  # an Apply node
            return [*obj.inputs, *orderings.get(obj, ())]
        owner = obj.owner
        return [owner, *orderings.get(owner, ())] if owner is not None else orderings.get(obj)

    yield from (obj for obj in walk_toposort(graphs, deps) if hasattr(obj, "outputs"))


def truncated_graph_inputs(outputs: Sequence, ancestors_to_include: Iterable | None = None) -> list:
    """The variables closest to ``outputs`` that suffice to compute them without depending on
    each other: graph inputs, cut at the ``ancestors_to_include`` that the outputs reach.

    A variable that depends on none of ``ancestors_to_include`` is returned whole (its own
    inputs are not needed); one of ``ancestors_to_include`` is returned, and the walk goes on
    above it only when it depends on another of them. ``minimize`` uses it to find the
    parameters of an objective given the variable optimised.
    """
    if not ancestors_to_include:
        return list(dict.fromkeys(outputs))
    include = set(ancestors_to_include)
    blockers = set(include)
    found: list = []
    seen: set = set()
    candidates = list(outputs)
    while candidates:
        var = candidates.pop()
        if var in seen:
            continue
        seen.add(var)
        if var in include:
            found.append(var)
            if variable_depends_on(var, include - {var}):
                candidates.extend(v for v in var.owner.inputs if v not in seen)
            continue
        if variable_depends_on(var, blockers):
            candidates.extend(var.owner.inputs)
        else:
            found.append(var)
        blockers.add(var)
    return found
