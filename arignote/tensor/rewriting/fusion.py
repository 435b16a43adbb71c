"""Elementwise fusion: connected ``Elemwise`` nodes become one ``Elemwise(Composite)``.

Fusing a chain ``exp(x * 2) + y`` into one node means one pass over the data (one generated
function with reused buffers on the Python VM, one loop for compiled backends). A group of
nodes is fused when all of them produce outputs of the same broadcast pattern (so the fused
node does no redundant work) and when fusing cannot create a cycle: no path may leave the
group and come back into it through other nodes. Values used outside the group become extra
outputs of the fused node.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arignote.graph.basic import Apply, Constant, Variable
from arignote.graph.features import InconsistencyError
from arignote.graph.lazy import ALWAYS, lazy_regions
from arignote.graph.rewriting.basic import GraphRewriter, copy_stack_trace
from arignote.graph.rewriting.db import register_rewrite
from arignote.graph.rewriting.trace import note_rewrite
from arignote.scalar.basic import constant as scalar_constant
from arignote.scalar.basic import get_scalar_type
from arignote.scalar.composite import Composite
from arignote.tensor.elemwise import CAReduce, DimShuffle, Elemwise
from arignote.tensor.type import TensorType

__all__ = ["FusionOptimizer", "reduction_fusion_candidates"]


def _fusable(node: Apply) -> bool:
    op = node.op
    return (
        isinstance(op, Elemwise)
        and not op.inplace_pattern
        and all(isinstance(o.type, TensorType) for o in node.outputs)
    )


def _pattern(node: Apply) -> tuple:
    """Nodes fuse only with nodes whose outputs broadcast the same way."""
    return node.outputs[0].type.broadcastable


class _Groups:
    """Union-find of fusion groups with the bookkeeping that keeps fusion acyclic.

    Group ids are bits of Python ints: ``dep[var]`` holds the groups ``var`` depends on,
    ``ext[g]`` the groups that the inputs of ``g`` from outside ``g`` depend on. Merging groups
    a and b is safe when neither's outside inputs depend on the other.
    """

    def __init__(self) -> None:
        self.parent: dict[int, int] = {}
        self.mask: dict[int, int] = {}
        self.ext: dict[int, int] = {}
        self.members: dict[int, list[Apply]] = {}
        self.of_node: dict[Apply, int] = {}

    def find(self, g: int) -> int:
        root = g
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[g] != root:
            self.parent[g], g = root, self.parent[g]
        return root

    def group_of(self, node: Apply | None) -> int | None:
        g = self.of_node.get(node) if node is not None else None
        return None if g is None else self.find(g)

    def new(self, node: Apply, ext: int) -> int:
        g = len(self.parent)
        self.parent[g], self.mask[g], self.ext[g], self.members[g] = g, 1 << g, ext, [node]
        self.of_node[node] = g
        return g

    def dep_of(self, var: Variable, dep: dict) -> int:
        """The groups ``var`` depends on. A value computed in a group depends on everything the
        group's inputs depend on, as it stands now: after fusion it comes out of one node."""
        g = self.group_of(var.owner)
        if g is None:
            return dep.get(var, 0)
        return self.mask[g] | self.ext[g]

    def dissolve(self, g: int) -> None:
        """Give up fusing group ``g``: its nodes stay as they are."""
        for node in self.members.pop(g):
            del self.of_node[node]

    def can_join(self, groups: list[int], outside: list[Variable], dep: dict) -> bool:
        union = 0
        for g in groups:
            union |= self.mask[g]
        if any(self.dep_of(v, dep) & union for v in outside):
            return False  # an input of the node comes back from the group through other nodes
        # masks of distinct groups are disjoint: ``union & ~mask[a]`` is "the other groups"
        return not any(self.ext[a] & union & ~self.mask[a] for a in groups)

    def join(self, node: Apply, groups: list[int], outside: list[Variable], dep: dict) -> int:
        root = groups[0]
        for g in groups[1:]:
            self.parent[g] = root
            self.mask[root] |= self.mask[g]
            self.ext[root] |= self.ext[g]
            self.members[root].extend(self.members.pop(g))
        for v in outside:
            self.ext[root] |= self.dep_of(v, dep)
        self.members[root].append(node)
        self.of_node[node] = root
        return root


def find_fusion_groups(fgraph: Any) -> list[list[Apply]]:
    """Groups of two or more fusable nodes, each in topological order."""
    groups = _Groups()
    dep: dict[Variable, int] = {}
    order = fgraph.toposort()
    position = {node: k for k, node in enumerate(order)}
    regions = lazy_regions(fgraph)  # nodes of different IfElse branches never fuse
    for node in order:
        in_dep = 0
        for inp in node.inputs:
            in_dep |= groups.dep_of(inp, dep)
        if _fusable(node):
            _place(groups, node, dep, in_dep, regions)
        else:
            for out in node.outputs:
                dep[out] = in_dep
    dissolved = _break_cycles(groups, order)
    if dissolved:  # fusion gave up on groups it had formed: worth knowing, and rare
        note_rewrite(fgraph, "fusion", f"dissolved {dissolved} group(s) that would close a cycle")
    return [sorted(m, key=position.__getitem__) for m in groups.members.values() if len(m) > 1]


def _place(groups: _Groups, node: Apply, dep: dict, in_dep: int, regions: dict) -> int:
    """Put ``node`` in the group(s) of its inputs when that is safe, else in a new group."""
    pattern = _pattern(node)
    region = regions.get(node, ALWAYS)
    candidates: list[int] = []
    for inp in node.inputs:
        g = groups.group_of(inp.owner)
        if g is None or g in candidates:
            continue
        first = groups.members[g][0]
        if _pattern(first) == pattern and regions.get(first, ALWAYS) == region:
            candidates.append(g)
    candidates.sort(key=lambda g: -len(groups.members[g]))
    # all of them at once if possible, else the largest that fits
    options = [candidates] + ([[g] for g in candidates[:4]] if len(candidates) > 1 else [])
    for chosen in options:
        if not chosen:
            break
        chosen_set = set(chosen)
        outside = [i for i in node.inputs if groups.group_of(i.owner) not in chosen_set]
        if groups.can_join(chosen, outside, dep):
            return groups.join(node, chosen, outside, dep)
    return groups.new(node, in_dep)


def _break_cycles(groups: _Groups, order: list[Apply], max_rounds: int = 20) -> int:
    """Dissolve groups until contracting every group into one node leaves the graph acyclic.

    The dependency sets above are exact for the groups as they stood when each node was
    placed; a group growing later can still close a cycle through other groups. This final
    check (a topological sort of the contracted graph) makes fusion safe whatever happened.
    Returns the number of groups dissolved.
    """
    dissolved = 0
    for round_ in range(max_rounds + 1):
        stuck = _cyclic_groups(groups, order)
        if not stuck:
            return dissolved
        victims = (
            stuck if round_ == max_rounds else [max(stuck, key=lambda g: len(groups.members[g]))]
        )
        for g in victims:
            groups.dissolve(g)
        dissolved += len(victims)
    return dissolved


def _cyclic_groups(groups: _Groups, order: list[Apply]) -> list[int]:
    """Groups left over by a topological sort of the contracted graph (empty when acyclic)."""
    key = {node: groups.group_of(node) if node in groups.of_node else node for node in order}
    edges: dict[Any, set] = {}
    indegree: dict[Any, int] = dict.fromkeys(key.values(), 0)
    for node in order:
        target = key[node]
        for inp in node.inputs:
            source = key.get(inp.owner)
            if source is None or source == target or target in edges.setdefault(source, set()):
                continue
            edges[source].add(target)
            indegree[target] += 1
    ready = [k for k, d in indegree.items() if d == 0]
    while ready:
        for target in edges.get(ready.pop(), ()):
            indegree[target] -= 1
            if indegree[target] == 0:
                ready.append(target)
    return [k for k, d in indegree.items() if d > 0 and isinstance(k, int)]


def _scalar_value(var: Variable) -> Any:
    """The value of a single-element constant, possibly dimshuffled (inlined into the
    composite rather than passed as an input), or None."""
    while var.owner is not None and isinstance(var.owner.op, DimShuffle):
        var = var.owner.inputs[0]
    if isinstance(var, Constant) and np.size(var.data) == 1:
        return np.asarray(var.data).reshape(())
    return None


def _build(fgraph: Any, group: list[Apply]) -> tuple[list, list, list] | None:
    """The fused node's tensor inputs, the composite, and the replaced variables."""
    in_group = set(group)
    produced = {o for node in group for o in node.outputs}
    tensor_inputs: list[Variable] = []
    memo: dict[Variable, Variable] = {}
    scalar_inputs: list[Variable] = []
    for node in group:
        for inp in node.inputs:
            if inp in produced or inp in memo:
                continue
            value = _scalar_value(inp)
            if value is not None:
                memo[inp] = scalar_constant(value[()], dtype=inp.type.dtype)
                continue
            memo[inp] = get_scalar_type(inp.type.dtype).make_variable()
            scalar_inputs.append(memo[inp])
            tensor_inputs.append(inp)
        # the tensor node already knows its output dtypes: no need to resolve them again
        results = [get_scalar_type(o.type.dtype).make_variable() for o in node.outputs]
        Apply(node.op.scalar_op, [memo[i] for i in node.inputs], results)
        memo.update(zip(node.outputs, results))
    if not tensor_inputs:
        return None
    replaced = [
        o
        for node in group
        for o in node.outputs
        if any(c == "output" or c not in in_group for c, _ in fgraph.clients.get(o, ()))
    ]
    composite = Composite(scalar_inputs, [memo[o] for o in replaced])
    return tensor_inputs, [composite], replaced


class FusionOptimizer(GraphRewriter):
    """Fuses groups of connected ``Elemwise`` nodes into ``Elemwise(Composite)`` nodes."""

    name = "elemwise_fusion"

    def apply(self, fgraph: Any) -> bool:
        changed = False
        for group in find_fusion_groups(fgraph):
            if any(node not in fgraph.apply_nodes for node in group):
                continue
            changed |= self._fuse(fgraph, group)
        return changed

    def _fuse(self, fgraph: Any, group: list[Apply]) -> bool:
        built = _build(fgraph, group)
        if built is None:
            return False
        tensor_inputs, (composite,), replaced = built
        new = Elemwise(composite)(*tensor_inputs, return_list=True)
        if any(not old.type.is_super(n.type) for old, n in zip(replaced, new)):
            return False
        for old, n in zip(replaced, new):
            copy_stack_trace(old, n)
        try:
            fgraph.replace_all_validate(list(zip(replaced, new)), reason=self)
        except InconsistencyError:
            return False
        return True


register_rewrite("fusion", "elemwise_fusion", name="elemwise_fusion")(FusionOptimizer())


def reduction_fusion_candidates(fgraph: Any) -> list[tuple[Apply, Apply]]:
    """``(reduction, elementwise)`` node pairs a backend can compute in a single pass.

    A reduction (``CAReduce``) whose input is computed by an ``Elemwise`` node used by nothing
    else: a loop can reduce the elementwise results as they are produced, never storing them.
    Fusion leaves such pairs intact (the reduction is not elementwise), and this lists them.
    """
    pairs = []
    for node in fgraph.toposort():
        if not isinstance(node.op, CAReduce):
            continue
        producer = node.inputs[0].owner
        if producer is None or not isinstance(producer.op, Elemwise):
            continue
        clients = fgraph.clients.get(node.inputs[0], ())
        if len(clients) == 1 and len(producer.outputs) == 1:
            pairs.append((node, producer))
    return pairs
