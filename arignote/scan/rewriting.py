"""Rewrites of Scan nodes, registered in the library's rewrite database on import.

* ``scan_pushout_nonseqs``: inner computations that depend only on non-sequences run once,
  before the loop;
* ``scan_pushout_seqs``: elementwise inner work on sequence rows (and non-sequences) runs on
  the whole sequences at once, before the loop, and so does a row times a non-sequence matrix
  (one matrix product instead of one matrix-vector product per step);
* ``scan_remove_unused``: outputs nobody uses (and that feed no used output) are dropped, then
  the inputs the remaining ones do not need;
* ``scan_merge``: loops over the same number of steps, independent of each other, become one;
* ``scan_constant_n_steps``: a loop of one step (a constant) becomes its step, without a loop
  (a constant number of steps also gives outputs a static length: constant folding remakes the
  node);
* ``scan_save_mem``: an output used only through its last rows (``y[-1]``) keeps only those:
  the loop then holds a circular buffer of ``max(rows used, taps)`` states, not all of them;
* ``scan_pushout_add``: an accumulator read only at its end is summed after the loop (a sum of
  outer products becomes one matrix product);
* ``scan_inplace``: a kept circular buffer is written into its initial value's memory when
  nothing else needs that value.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from arignote.graph.basic import Apply, Constant, Variable, ancestors
from arignote.graph.destroyhandler import can_destroy
from arignote.graph.replace import clone_replace
from arignote.graph.rewriting.basic import node_rewriter
from arignote.graph.rewriting.db import register_rewrite
from arignote.graph.traversal import io_toposort
from arignote.scan.op import Scan, ScanInfo
from arignote.tensor.basic import NotScalarConstantError, get_scalar_constant_value
from arignote.tensor.elemwise import DimShuffle, Elemwise
from arignote.tensor.index_spec import SliceSpec
from arignote.tensor.join import concatenate
from arignote.tensor.math import add, mul
from arignote.tensor.products import Dot, dot
from arignote.tensor.rewriting.inplace import InplaceRewriter
from arignote.tensor.shape import shape_padleft
from arignote.tensor.subtensor import Subtensor
from arignote.tensor.type import TensorType


@dataclass
class _Traced:
    taps: tuple[int, ...]
    init: Variable
    tap_vars: list[Variable]
    out: Variable
    keep: int | None
    old: int | None  # index of the node output it replaces (None: new)


@dataclass
class _Parts:
    """A Scan node taken apart, to be edited and put back together."""

    op: Scan
    n_steps: Variable
    seqs: list[tuple[Variable, Variable]] = field(default_factory=list)
    traced: list[_Traced] = field(default_factory=list)
    mapped: list[tuple[Variable, int | None, int | None]] = field(default_factory=list)
    untraced: list[tuple[Variable, Variable, Variable, int | None]] = field(default_factory=list)
    nonseqs: list[tuple[Variable, Variable]] = field(default_factory=list)
    condition: Variable | None = None

    @classmethod
    def of(cls, node: Apply) -> _Parts:
        op, info = node.op, node.op.info
        sl, inner = op.outer_slices(), op.inner_slices()
        outs = op.inner_outputs
        parts = cls(op, node.inputs[0])
        parts.seqs = list(zip(node.inputs[sl["seqs"]], op.inner_inputs[inner["seqs"]]))
        for j, group in enumerate(op.tap_groups()):
            taps, init = info.traced_taps[j], node.inputs[sl["inits"]][j]
            tap_vars = [op.inner_inputs[p] for p in group]
            parts.traced.append(_Traced(taps, init, tap_vars, outs[j], op.keep[j], j))
        for m in range(info.n_mapped):
            k = info.n_traced + m
            parts.mapped.append((outs[k], op.keep[k], k))
        first = info.n_traced + info.n_mapped
        untraced = zip(node.inputs[sl["untraced"]], op.inner_inputs[inner["untraced"]])
        for u, (outer, inner_in) in enumerate(untraced):
            parts.untraced.append((outer, inner_in, outs[first + u], first + u))
        parts.nonseqs = list(zip(node.inputs[sl["nonseqs"]], op.inner_inputs[inner["nonseqs"]]))
        parts.condition = outs[-1] if info.as_while else None
        return parts

    def inner_outputs(self) -> list[Variable]:
        outs = [t.out for t in self.traced] + [m[0] for m in self.mapped]
        outs += [u[2] for u in self.untraced]
        return outs + ([self.condition] if self.condition is not None else [])

    def set_inner_outputs(self, outs: list[Variable]) -> None:
        it = iter(outs)
        for t in self.traced:
            t.out = next(it)
        self.mapped = [(next(it), keep, old) for _, keep, old in self.mapped]
        self.untraced = [(a, b, next(it), old) for a, b, _, old in self.untraced]
        if self.condition is not None:
            self.condition = next(it)

    def replace_inner(self, replace: dict[Variable, Variable]) -> None:
        if replace:
            self.set_inner_outputs(clone_replace(self.inner_outputs(), replace=replace))

    def build(self) -> tuple[list[Variable], dict[int, Variable]]:
        """The new node's outputs, and ``{old output index: new output}``."""
        info = ScanInfo(
            n_seqs=len(self.seqs),
            traced_taps=tuple(t.taps for t in self.traced),
            n_mapped=len(self.mapped),
            n_untraced=len(self.untraced),
            n_nonseqs=len(self.nonseqs),
            as_while=self.condition is not None,
        )
        inner_inputs = [r for _, r in self.seqs] + [v for t in self.traced for v in t.tap_vars]
        inner_inputs += [u[1] for u in self.untraced] + [r for _, r in self.nonseqs]
        keep = [t.keep for t in self.traced] + [m[1] for m in self.mapped]
        op = Scan(
            inner_inputs,
            self.inner_outputs(),
            info,
            self.op.truncate_gradient,
            keep,
            self.op.mode,
            self.op.name,
        )
        outer = [self.n_steps, *[s for s, _ in self.seqs], *[t.init for t in self.traced]]
        outer += [u[0] for u in self.untraced] + [v for v, _ in self.nonseqs]
        outputs = op(*outer, return_list=True)
        olds = [t.old for t in self.traced] + [m[2] for m in self.mapped]
        olds += [u[3] for u in self.untraced]
        return outputs, {old: new for old, new in zip(olds, outputs) if old is not None}


def _replacements(node: Apply, mapping: dict[int, Variable]) -> dict[Variable, Variable]:
    return {node.outputs[k]: new for k, new in mapping.items()}


def _used(fgraph: Any, var: Variable) -> bool:
    return bool(fgraph.clients.get(var))


# -- pushing work out of the loop -------------------------------------------------------------


def _invariant_nodes(parts: _Parts, sources: set[Variable], accept) -> tuple[list, set]:
    """Inner nodes computable from ``sources`` and constants alone (``accept`` filters them),
    and the variables they compute."""
    known = set(sources)
    nodes = []
    inner_inputs = [r for _, r in parts.seqs] + [v for t in parts.traced for v in t.tap_vars]
    inner_inputs += [u[1] for u in parts.untraced] + [r for _, r in parts.nonseqs]
    for node in io_toposort(inner_inputs, parts.inner_outputs()):
        if not node.inputs or not accept(node):
            continue
        if all(v in known or isinstance(v, Constant) for v in node.inputs) and any(
            v in known for v in node.inputs
        ):
            nodes.append(node)
            known.update(node.outputs)
    return nodes, known - set(sources)


def _row_product(node: Apply, per_row: set, plain: dict) -> bool:
    """``dot(row, M)`` or ``dot(M, row)``: a vector computed per step times a non-sequence
    matrix."""
    a, b = node.inputs
    if a in per_row and b in plain:
        return a.type.ndim == 1 and b.type.ndim == 2
    if b in per_row and a in plain:
        return b.type.ndim == 1 and a.type.ndim == 2
    return False


def _frontier(parts: _Parts, nodes: list, computed: set) -> list[Variable]:
    """The computed variables that the rest of the inner graph (or its outputs) reads."""
    inside = set(nodes)
    inner_inputs = [r for _, r in parts.seqs] + [v for t in parts.traced for v in t.tap_vars]
    inner_inputs += [u[1] for u in parts.untraced] + [r for _, r in parts.nonseqs]
    needed = [v for v in parts.inner_outputs() if v in computed]
    for node in io_toposort(inner_inputs, parts.inner_outputs()):
        if node not in inside:
            needed += [v for v in node.inputs if v in computed]
    return list(dict.fromkeys(needed))


@register_rewrite("canonicalize", "scan", name="scan_pushout_nonseqs")
@node_rewriter([Scan])
def scan_pushout_nonseqs(fgraph, node):
    """Compute before the loop what depends only on the non-sequences."""
    parts = _Parts.of(node)
    inner_ns = {r: v for v, r in parts.nonseqs}
    nodes, computed = _invariant_nodes(parts, set(inner_ns), lambda n: True)
    frontier = _frontier(parts, nodes, computed)
    if not frontier:
        return None
    outer = clone_replace(frontier, replace=inner_ns)
    placeholders = [v.type() for v in frontier]
    parts.replace_inner(dict(zip(frontier, placeholders)))
    parts.nonseqs += list(zip(outer, placeholders))
    return _replacements(node, parts.build()[1])


@register_rewrite("canonicalize", "scan", name="scan_pushout_seqs")
@node_rewriter([Scan])
def scan_pushout_seqs(fgraph, node):
    """Run elementwise work on sequence rows over the whole sequences, before the loop."""
    parts = _Parts.of(node)
    rows = {r: s for s, r in parts.seqs}
    plain = {r: v for v, r in parts.nonseqs if isinstance(v.type, TensorType)}
    padded = {r: shape_padleft(v) for r, v in plain.items()}
    nodes, _ = _invariant_nodes(
        parts, set(rows) | set(padded), lambda n: isinstance(n.op, (Elemwise, Dot))
    )
    # only nodes reading a sequence row (directly or through another pushed node) qualify;
    # a product qualifies when it is a row times a non-sequence matrix (then one matrix product)
    per_row = set(rows)
    kept = []
    for n in nodes:
        reads_rows = any(v in per_row for v in n.inputs)
        if reads_rows and (isinstance(n.op, Elemwise) or _row_product(n, per_row, plain)):
            kept.append(n)
            per_row.update(n.outputs)
    frontier = _frontier(parts, kept, per_row - set(rows))
    if not frontier:
        return None
    # rebuilt node by node: the rows become whole sequences, everything else gets a leading
    # (time) dimension of length 1 to broadcast against them
    # (the sequences cut to the number of steps: they may be longer, and of different lengths)
    outer_of: dict[Variable, Variable] = {r: s[: node.inputs[0]] for r, s in rows.items()}
    outer_of.update(padded)
    for n in kept:
        if isinstance(n.op, Dot):  # rows times a matrix: all rows at once
            a, b = n.inputs
            product = dot(outer_of[a], plain[b]) if a in per_row else dot(outer_of[b], plain[a].T)
            outer_of[n.outputs[0]] = product
            continue
        args = [outer_of[v] if v in outer_of else shape_padleft(v) for v in n.inputs]
        outer_of.update(zip(n.outputs, n.op(*args, return_list=True)))
    outer = [outer_of[v] for v in frontier]
    placeholders = [v.type() for v in frontier]
    parts.replace_inner(dict(zip(frontier, placeholders)))
    parts.seqs += list(zip(outer, placeholders))
    return _replacements(node, parts.build()[1])


# -- dropping what is not used ----------------------------------------------------------------


@register_rewrite("canonicalize", "scan", name="scan_remove_unused")
@node_rewriter([Scan])
def scan_remove_unused(fgraph, node):
    """Drop unused outputs (that feed no used one), then inputs the rest does not need."""
    parts = _Parts.of(node)
    needed_outs = _needed_outputs(fgraph, node, parts)
    n_before = (len(parts.traced), len(parts.mapped), len(parts.untraced))
    parts.traced = [t for t in parts.traced if t.out in needed_outs and t.old in needed_outs[t.out]]
    parts.mapped = [m for m in parts.mapped if _used(fgraph, node.outputs[m[2]])]
    parts.untraced = [
        u for u in parts.untraced if u[2] in needed_outs and u[3] in needed_outs[u[2]]
    ]
    reads = set(ancestors(parts.inner_outputs()))
    n_inputs = (len(parts.seqs), len(parts.nonseqs))
    parts.seqs = [s for s in parts.seqs if s[1] in reads]
    parts.nonseqs = [v for v in parts.nonseqs if v[1] in reads]
    same = n_before == (len(parts.traced), len(parts.mapped), len(parts.untraced))
    if same and n_inputs == (len(parts.seqs), len(parts.nonseqs)):
        return None
    return _replacements(node, parts.build()[1])


def _needed_outputs(fgraph, node: Apply, parts: _Parts) -> dict[Variable, set[int]]:
    """The fed-back inner outputs that must stay: used outside, or read by a needed output
    (through their taps). Maps inner output -> {old output index}."""
    feedback = {}
    for t in parts.traced:
        feedback.update(dict.fromkeys(t.tap_vars, (t.out, t.old)))
    for _, inner_in, out, old in parts.untraced:
        feedback[inner_in] = (out, old)
    roots = [m[0] for m in parts.mapped if _used(fgraph, node.outputs[m[2]])]
    roots += [parts.condition] if parts.condition is not None else []
    needed: dict[Variable, set[int]] = {}
    for t in parts.traced:
        if _used(fgraph, node.outputs[t.old]):
            needed.setdefault(t.out, set()).add(t.old)
    for _, _, out, old in parts.untraced:
        if _used(fgraph, node.outputs[old]):
            needed.setdefault(out, set()).add(old)
    frontier = roots + list(needed)
    while frontier:
        reached = [v for v in ancestors(frontier) if v in feedback]
        frontier = []
        for v in reached:
            out, old = feedback[v]
            if old not in needed.get(out, set()):
                needed.setdefault(out, set()).add(old)
                frontier.append(out)
    return needed


# -- merging loops ----------------------------------------------------------------------------


def _mergeable(a: Apply, b: Apply) -> bool:
    oa, ob = a.op, b.op
    return (
        a is not b
        and isinstance(ob, Scan)
        and a.inputs[0] is b.inputs[0]
        and not oa.info.as_while
        and not ob.info.as_while
        and oa.truncate_gradient == ob.truncate_gradient
        and oa.mode == ob.mode
    )


@register_rewrite("canonicalize", "scan", name="scan_merge")
@node_rewriter([Scan])
def scan_merge(fgraph, node):
    """Two independent loops over the same number of steps become one loop."""
    for other in fgraph.toposort():
        if not _mergeable(node, other):
            continue
        if _depends(node, other) or _depends(other, node):
            continue
        first, second = _Parts.of(other), _Parts.of(node)
        n_first = len(other.outputs)
        for t in second.traced:
            t.old += n_first
        second.mapped = [(o, k, old + n_first) for o, k, old in second.mapped]
        second.untraced = [(a, b, c, old + n_first) for a, b, c, old in second.untraced]
        first.seqs += second.seqs
        first.traced += second.traced
        first.mapped += second.mapped
        first.untraced += second.untraced
        first.nonseqs += second.nonseqs
        _, mapping = first.build()
        both = list(other.outputs) + list(node.outputs)
        return {both[k]: new for k, new in mapping.items()}
    return None


def _depends(a: Apply, b: Apply) -> bool:
    """Whether node ``a`` reads (directly or not) an output of ``b``."""
    outs = set(b.outputs)
    return any(v in outs for v in ancestors(a.inputs))


# -- a constant number of steps ---------------------------------------------------------------


@register_rewrite("canonicalize", "scan", name="scan_constant_n_steps")
@node_rewriter([Scan])
def scan_constant_n_steps(fgraph, node):
    """A loop of exactly one step (a constant) is replaced by its step: no loop at all."""
    op = node.op
    if not isinstance(node.inputs[0], Constant) or int(node.inputs[0].data) != 1:
        return None
    if any(k is not None for k in op.keep) or op.inplace:
        return None
    parts = _Parts.of(node)
    replace = {row: seq[0] for seq, row in parts.seqs}
    for t in parts.traced:
        lag = -min(t.taps)
        replace.update({v: t.init[lag + k] for v, k in zip(t.tap_vars, t.taps)})
    replace.update({inner: outer for outer, inner, _, _ in parts.untraced})
    replace.update({inner: outer for outer, inner in parts.nonseqs})
    outs = clone_replace(op.inner_outputs, replace=replace)
    results = []
    for t, out in zip(parts.traced, outs):
        results.append(concatenate([t.init[: -min(t.taps)], shape_padleft(out)]))
    n_traced, n_mapped = op.info.n_traced, op.info.n_mapped
    results += [shape_padleft(o) for o in outs[n_traced : n_traced + n_mapped]]
    results += outs[n_traced + n_mapped : n_traced + n_mapped + op.info.n_untraced]
    return results


# -- memory ----------------------------------------------------------------------------------


def _last_rows_used(fgraph, var: Variable, depth: int = 0) -> tuple[int, list] | None:
    """How many last rows of ``var`` its clients read, when they all read ``var[-k]`` (or
    ``var[c:][-k]``, the form ``scan`` returns): ``(rows, [reading nodes])``, else None."""
    clients = fgraph.clients.get(var, [])
    if not clients:  # a state nobody reads after the loop: its last row will do
        return (1, []) if depth == 0 else None
    rows, readers = 0, []
    for client, position in clients:
        if client == "output" or position != 0 or not isinstance(client.op, Subtensor):
            return None
        spec = client.op.idx_list
        if spec == ("int",) or (spec[0] == "int" and len(spec) >= 1):
            index = _constant(client.inputs[1])
            if index is None or index >= 0:
                return None
            rows, readers = max(rows, -index), [*readers, client]
        elif depth == 0 and _is_tail_slice(client):
            inner = _last_rows_used(fgraph, client.outputs[0], depth + 1)
            if inner is None:
                return None
            rows, readers = max(rows, inner[0]), readers + inner[1]
        else:
            return None
    return rows, readers


def _constant(var: Variable) -> int | None:
    try:
        return int(get_scalar_constant_value(var))
    except NotScalarConstantError:
        return None


def _is_tail_slice(node: Apply) -> bool:
    """``x[c:]`` with a constant ``c >= 0``."""
    spec = node.op.idx_list
    if len(spec) != 1 or not isinstance(spec[0], SliceSpec):
        return False
    if (spec[0].start, spec[0].stop, spec[0].step) != (True, False, False):
        return False
    start = _constant(node.inputs[1])
    return start is not None and start >= 0


@register_rewrite("specialize", "scan", name="scan_save_mem")
@node_rewriter([Scan])
def scan_save_mem(fgraph, node):
    """Keep only the last rows of outputs read only through ``y[-k]`` (a circular buffer)."""
    op = node.op
    keep, readers = list(op.keep), {}
    for k in range(op.info.n_traced + op.info.n_mapped):
        used = _last_rows_used(fgraph, node.outputs[k])
        if used is not None and (keep[k] is None or used[0] < keep[k]):
            keep[k], readers[k] = used
    if not readers:
        return None
    new_op = Scan(
        op.inner_inputs,
        op.inner_outputs,
        op.info,
        op.truncate_gradient,
        keep,
        op.mode,
        op.name,
    )
    new = new_op(*node.inputs, return_list=True)
    replacements = {}
    for k, (old, out) in enumerate(zip(node.outputs, new)):
        if k in readers:  # each reader reads y[-k]: the same index of the kept rows
            for reader in readers[k]:
                replacements[reader.outputs[0]] = reader.op(out, *reader.inputs[1:])
        elif _used(fgraph, old):
            replacements[old] = out
    return replacements


@register_rewrite("specialize", "scan", name="scan_pushout_add")
@node_rewriter([Scan])
def scan_pushout_add(fgraph, node):
    """An accumulator ``acc_t = acc_{t-1} + term_t`` read only at its end becomes
    ``acc_0 + sum_t term_t``: the terms are returned by the loop and summed after it; a sum of
    outer products ``sum_t outer(a_t, b_t)`` is one matrix product ``A.T @ B`` (the gradient
    of a weight matrix in a recurrent network)."""
    if node.op.info.as_while:
        return None
    parts = _Parts.of(node)
    for t in parts.traced:
        term = _accumulated_term(fgraph, node, parts, t)
        if term is None:
            continue
        readers = _last_rows_used(fgraph, node.outputs[t.old])[1]
        factors = _outer_factors(term)
        pieces = list(factors) if factors is not None else [term]
        parts.traced.remove(t)
        # a piece that is a sequence row is the sequence itself; the others become outputs
        rows = {r: s[: node.inputs[0]] for s, r in parts.seqs}
        computed = [p for p in pieces if p not in rows]
        first = len(parts.traced) + len(parts.mapped)
        parts.mapped += [(piece, None, None) for piece in computed]
        outputs, mapping = parts.build()
        by_piece = dict(zip(computed, outputs[first : first + len(computed)]))
        stacked = [rows[p] if p in rows else by_piece[p] for p in pieces]
        total = dot(stacked[0].T, stacked[1]) if factors is not None else stacked[0].sum(axis=0)
        final = t.init[0] + total
        replacements = _replacements(node, mapping)
        replacements.update({r.outputs[0]: final for r in readers})
        return replacements
    return None


def _accumulated_term(fgraph, node: Apply, parts: _Parts, t: _Traced) -> Variable | None:
    """``term`` when traced output ``t`` is ``tap + term`` (term independent of the tap, the
    tap read nowhere else), kept as its last row and read only as ``y[-1]``."""
    if t.taps != (-1,) or t.keep != 1 or not _used(fgraph, node.outputs[t.old]):
        return None
    tap, out = t.tap_vars[0], t.out
    if out.owner is None or out.owner.op != add or len(out.owner.inputs) != 2:
        return None
    first, second = out.owner.inputs
    term = second if first is tap else first if second is tap else None
    if term is None or out.type != term.type or tap in ancestors([term]):
        return None
    inner_inputs = [r for _, r in parts.seqs] + [v for x in parts.traced for v in x.tap_vars]
    inner_inputs += [u[1] for u in parts.untraced] + [r for _, r in parts.nonseqs]
    readers = [n for n in io_toposort(inner_inputs, parts.inner_outputs()) if tap in n.inputs]
    if readers != [out.owner] or tap in parts.inner_outputs():
        return None
    used = _last_rows_used(fgraph, node.outputs[t.old])
    if used is None or used[0] != 1 or not used[1]:
        return None
    return term


def _outer_factors(term: Variable) -> tuple[Variable, Variable] | None:
    """``(a, b)`` when ``term`` is ``a[:, None] * b[None, :]`` for vectors a and b."""
    node = term.owner
    if node is None or node.op != mul or len(node.inputs) != 2:
        return None
    orders = {}
    for v in node.inputs:
        owner = v.owner
        if owner is None or not isinstance(owner.op, DimShuffle):
            return None
        orders[tuple(owner.op.new_order)] = owner.inputs[0]
    if set(orders) != {(0, "x"), ("x", 0)}:
        return None
    return orders[(0, "x")], orders[("x", 0)]


def scan_inplace_candidate(fgraph, node: Apply) -> list[Variable] | None:
    """Write a kept circular buffer into its initial value's memory when it may be destroyed."""
    op = node.op
    if not isinstance(op, Scan) or op.inplace:
        return None
    first = 1 + op.info.n_seqs
    chosen = [
        j
        for j, keep in enumerate(op.keep[: op.info.n_traced])
        if keep is not None and can_destroy(fgraph, node, first + j)
    ]
    if not chosen:
        return None
    return op.with_inplace(tuple(chosen))(*node.inputs, return_list=True)


register_rewrite("inplace", "scan", name="scan_inplace")(
    InplaceRewriter(scan_inplace_candidate, "scan_inplace")
)

__all__ = [
    "scan_constant_n_steps",
    "scan_inplace_candidate",
    "scan_merge",
    "scan_pushout_add",
    "scan_pushout_nonseqs",
    "scan_pushout_seqs",
    "scan_remove_unused",
    "scan_save_mem",
]
