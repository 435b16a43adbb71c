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
    """The variables without owner (or in ``blockers``) that ``graphs`` depend on, left-first."""
    blockers = set(blockers) if blockers else set()
    return [v for v in ancestors(graphs, blockers) if v.owner is None or v in blockers]


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
