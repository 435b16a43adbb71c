"""Rewriters: node rewriters (one node at a time) and graph rewriters (a whole graph).

A :class:`NodeRewriter` looks at one Apply node and returns ``None``/``False`` for "no change",
or the replacements for its outputs (a list with one entry per output, or a dict from old to new
variables). It never edits the graph itself: the walker that runs it applies the replacements
through ``fgraph.replace_all_validate``, which undoes them if a feature objects.
"""

from __future__ import annotations

import contextlib
import copy
import time
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from arignote.config import config
from arignote.graph.basic import Apply, Constant, Variable
from arignote.graph.destroyhandler import DestroyHandler
from arignote.graph.features import Feature, InconsistencyError
from arignote.graph.fg import FunctionGraph
from arignote.graph.op import Op
from arignote.graph.rewriting.rewriter import (
    GraphRewriter,
    NodeRewriter,
    Rewriter,
    copy_stack_trace,
)
from arignote.graph.traversal import walk


class FromFunctionNodeRewriter(NodeRewriter):
    """A node rewriter made from a plain function (see :func:`node_rewriter`)."""

    def __init__(
        self, fn: Callable, tracks: Sequence[Any] | None, requirements: Sequence[Callable] = ()
    ) -> None:
        self.fn = fn
        self._tracks = list(tracks) if tracks is not None else None
        self.requirements = tuple(requirements)
        self.name = fn.__name__
        self.__doc__ = fn.__doc__

    def tracks(self) -> Sequence[Any] | None:
        return self._tracks

    def transform(self, fgraph: FunctionGraph, node: Apply) -> Any:
        return self.fn(fgraph, node)

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        super().add_requirements(fgraph)
        for requirement in self.requirements:
            requirement(fgraph)

    def __call__(self, fgraph: FunctionGraph, node: Apply) -> Any:
        return self.fn(fgraph, node)


def node_rewriter(
    tracks: Sequence[Any] | None, inplace: bool = False, requirements: Sequence[Callable] = ()
) -> Callable[[Callable], FromFunctionNodeRewriter]:
    """Decorator turning ``fn(fgraph, node)`` into a :class:`NodeRewriter` for ``tracks``.

    ``tracks`` lists Op classes (matching subclasses too) or Op instances (matching equal ops);
    ``None`` means every node. The function returns None for no change, else a list or dict of
    replacements.
    """
    if tracks is not None:
        tracks = list(tracks)
        for t in tracks:
            if not (isinstance(t, Op) or (isinstance(t, type) and issubclass(t, Op))):
                raise TypeError(f"node_rewriter tracks Op classes or instances, got {t!r}")

    def decorator(fn: Callable) -> FromFunctionNodeRewriter:
        return FromFunctionNodeRewriter(fn, tracks, requirements)

    return decorator


class FromFunctionGraphRewriter(GraphRewriter):
    """A graph rewriter made from a plain function ``fn(fgraph)`` (see :func:`graph_rewriter`)."""

    def __init__(self, fn: Callable, requirements: Sequence[Callable] = ()) -> None:
        self.fn = fn
        self.requirements = tuple(requirements)
        self.name = getattr(fn, "__name__", None)
        self.__doc__ = fn.__doc__

    def apply(self, fgraph: FunctionGraph) -> bool:
        return bool(self.fn(fgraph))

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        super().add_requirements(fgraph)
        for requirement in self.requirements:
            requirement(fgraph)


def graph_rewriter(fn: Callable) -> FromFunctionGraphRewriter:
    """Decorator turning ``fn(fgraph)``, which edits the graph in place, into a
    :class:`GraphRewriter` (its ``rewrite(fgraph)`` attaches the usual features first)."""
    return FromFunctionGraphRewriter(fn)


class SequentialNodeRewriter(NodeRewriter):
    """Tries several node rewriters in turn and returns the first change."""

    def __init__(self, *rewriters: NodeRewriter, name: str | None = None) -> None:
        self.rewriters = list(rewriters)
        self.name = name
        self.tracker = OpToRewriterTracker(self.rewriters)

    def tracks(self) -> Sequence[Any] | None:
        tracked: list = []
        for rewriter in self.rewriters:
            t = rewriter.tracks()
            if t is None:
                return None
            tracked.extend(t)
        return tracked

    def transform(self, fgraph: FunctionGraph, node: Apply) -> Any:
        for rewriter in self.tracker.get_trackers(node.op):
            result = rewriter.transform(fgraph, node)
            if result:
                return result
        return None

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        for rewriter in self.rewriters:
            rewriter.add_requirements(fgraph)

    def leaves(self) -> list[NodeRewriter]:
        return [leaf for rewriter in self.rewriters for leaf in rewriter.leaves()]


class OpToRewriterTracker:
    """Finds the node rewriters that track a given op (by class, through the MRO, or instance)."""

    def __init__(self, rewriters: Iterable[NodeRewriter] = ()) -> None:
        self.by_type: dict[type, list] = {}
        self.by_instance: dict[Op, list] = {}
        self.untracked: list = []
        self._cache: dict[Any, list] = {}
        self._order: dict[NodeRewriter, int] = {}
        for rewriter in rewriters:
            self.add(rewriter)

    def add(self, rewriter: NodeRewriter) -> None:
        leaves = rewriter.leaves()
        if leaves != [rewriter]:
            for leaf in leaves:
                self.add(leaf)
            return
        self._order.setdefault(rewriter, len(self._order))
        self._cache.clear()
        tracks = rewriter.tracks()
        if tracks is None:
            self.untracked.append(rewriter)
            return
        for t in tracks:
            table = self.by_type if isinstance(t, type) else self.by_instance
            table.setdefault(t, []).append(rewriter)

    def get_trackers(self, op: Op) -> list:
        """The rewriters that apply to ``op``, in registration order."""
        try:
            return self._cache[op]
        except (KeyError, TypeError):
            pass
        found = set(self.untracked) | set(self.by_instance.get(op, ()))
        for cls in type(op).__mro__:
            found.update(self.by_type.get(cls, ()))
        ordered = sorted(found, key=self._order.__getitem__)
        with contextlib.suppress(TypeError):
            self._cache[op] = ordered
        return ordered


# -- applying replacements ------------------------------------------------------------------


class RewriteError(Exception):
    """A rewriter misbehaved (returned bad replacements or raised)."""


def replacements_for(rewriter: Any, node: Apply, result: Any) -> list[tuple[Variable, Variable]]:
    """Normalize what ``rewriter.transform`` returned into checked ``(old, new)`` pairs."""
    if isinstance(result, dict):
        pairs = [(old, new) for old, new in result.items() if old != "remove"]
    elif isinstance(result, (list, tuple)):
        if len(result) != len(node.outputs):
            raise RewriteError(
                f"Rewriter {rewriter} returned {len(result)} replacements for {node}, which has "
                f"{len(node.outputs)} outputs"
            )
        pairs = list(zip(node.outputs, result))
    else:
        raise RewriteError(
            f"Rewriter {rewriter} returned {type(result).__name__} for {node}; expected None, a "
            "list or a dict"
        )
    checked = []
    for old, new in pairs:
        if new is None or old is new:
            continue
        if not isinstance(new, Variable):
            raise RewriteError(f"Rewriter {rewriter} replaced {old} by a non-variable {new!r}")
        try:
            new = old.type.filter_variable(new, allow_convert=True)
        except (TypeError, ValueError) as err:
            raise TypeError(
                f"Rewriter {rewriter} produced an incompatible replacement for {old} in {node}: "
                f"expected type {old.type}, got {new.type} ({new})"
            ) from err
        checked.append((old, new))
    return checked


def handle_rewrite_error(rewriter: Any, node: Apply | None, error: Exception) -> None:
    """Apply ``config.on_rewrite_error``: raise, warn (and skip), or ignore."""
    policy = config.on_rewrite_error
    if policy == "raise":
        raise error
    if policy == "warn":
        where = f" on {node}" if node is not None else ""
        warnings.warn(
            f"Rewrite {rewriter} failed{where} and was skipped: {type(error).__name__}: {error}",
            RewriteWarning,
            stacklevel=3,
        )


class RewriteWarning(UserWarning):
    """A rewrite failed and was skipped (``config.on_rewrite_error="warn"``)."""


def apply_node_rewriter(
    fgraph: FunctionGraph, rewriter: NodeRewriter, node: Apply, vetoed: set | None = None
) -> bool:
    """Run ``rewriter`` on ``node`` and apply its replacements; return whether it changed.

    A change a feature vetoes is undone, and ``(rewriter, node)`` is added to ``vetoed``.
    """
    try:
        result = rewriter.transform(fgraph, node)
        if not result:
            return False
        pairs = replacements_for(rewriter, node, result)
        if not pairs:
            return False
        fgraph.replace_all_validate(pairs, reason=rewriter)
    except InconsistencyError:
        if vetoed is not None:
            vetoed.add((rewriter, node))
        return False  # a feature vetoed the change; it has been undone
    except Exception as err:
        handle_rewrite_error(rewriter, node, err)
        return False
    if config.check_integrity:
        fgraph.check_integrity()
    return True


class _PendingNodes:
    """A first-in first-out queue of nodes to visit, in which a node waits at most once.

    A node whose inputs change many times before its turn comes (a sum of thousands of terms,
    each rewritten) is visited once, with all the changes, rather than once per change: that
    made the fixed-point loop quadratic on wide nodes.
    """

    def __init__(self, nodes: Iterable[Apply] = ()) -> None:
        self._queue: deque = deque()
        self._waiting: set = set()
        for node in nodes:
            self.append(node)

    def append(self, node: Apply) -> None:
        if node not in self._waiting:
            self._waiting.add(node)
            self._queue.append(node)

    def popleft(self) -> Apply:
        node = self._queue.popleft()
        self._waiting.discard(node)
        return node

    def __bool__(self) -> bool:
        return bool(self._queue)

    def __len__(self) -> int:
        return len(self._queue)

    def __iter__(self):
        return iter(self._queue)


class _NodeQueue(Feature):
    """Follows graph changes on behalf of a walker: new nodes and rewired clients are revisited.

    With ``revisit_clients``, a node whose input changed is revisited, and so are the nodes
    using its outputs: a pattern rooted one level up may match now (``log(1 + exp(x))`` once
    the inner ``exp`` appears).
    """

    def __init__(self, queue: _PendingNodes, revisit_clients: bool) -> None:
        self.queue = queue
        self.revisit_clients = revisit_clients

    def on_import(self, fgraph, node, reason):
        self.queue.append(node)

    def on_change_input(self, fgraph, node, i, var, new_var, reason=None):
        if not self.revisit_clients or node == "output":
            return
        self.queue.append(node)
        for out in node.outputs:
            for client, _ in fgraph.clients.get(out, ()):
                if client != "output":
                    self.queue.append(client)


# -- walkers --------------------------------------------------------------------------------


WALKING_ORDERS = ("in_to_out", "out_to_in", "dfs")


class WalkingGraphRewriter(GraphRewriter):
    """Applies one node rewriter to every node, in input-to-output or output-to-input order,
    or ("dfs", PyTensor's order of ``dfs_rewriter``) depth-first from the outputs, each node
    before the nodes computing its inputs.

    Nodes created by a rewrite are visited too (unless ``ignore_newtrees``), once.
    """

    def __init__(
        self,
        node_rewriter: NodeRewriter,
        order: str = "in_to_out",
        ignore_newtrees: bool = False,
        name: str | None = None,
    ) -> None:
        if order not in WALKING_ORDERS:
            raise ValueError(f"order must be one of {WALKING_ORDERS}, got {order!r}")
        self.node_rewriter = node_rewriter
        self.order = order
        self.ignore_newtrees = ignore_newtrees
        self.name = name or f"{order}({node_rewriter})"

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        super().add_requirements(fgraph)
        self.node_rewriter.add_requirements(fgraph)

    def apply(self, fgraph: FunctionGraph) -> bool:
        if self.order == "dfs":
            order = _depth_first_nodes(fgraph.outputs)
        else:
            order = fgraph.toposort()
            if self.order == "out_to_in":
                order.reverse()
        queue = _PendingNodes(order)
        follower = None if self.ignore_newtrees else _NodeQueue(queue, revisit_clients=False)
        if follower is not None:
            fgraph.attach_feature(follower)
        changed = False
        tracker = OpToRewriterTracker([self.node_rewriter])
        vetoed: set = set()  # (as in EquilibriumGraphRewriter: a refused change is not retried)
        try:
            while queue:
                node = queue.popleft()
                if node not in fgraph.apply_nodes:
                    continue
                for rewriter in tracker.get_trackers(node.op):
                    if (rewriter, node) in vetoed:
                        continue
                    if apply_node_rewriter(fgraph, rewriter, node, vetoed):
                        changed = True
                        break
        finally:
            if follower is not None:
                fgraph.remove_feature(follower)
        return changed


def _depth_first_nodes(outputs: Sequence[Variable]) -> list[Apply]:
    """The nodes computing ``outputs``, depth-first from the outputs, last input first (the
    order of PyTensor's ``dfs_rewriter``: a stack onto which each node's inputs are pushed)."""
    # ``walk`` visits a variable's expansion first to last: reversed, the last input comes first
    variables = walk(outputs, lambda v: v.owner.inputs[::-1] if v.owner else None, bfs=False)
    return list(dict.fromkeys(v.owner for v in variables if v.owner is not None))


def _combine(rewriters: Sequence[NodeRewriter]) -> NodeRewriter:
    return rewriters[0] if len(rewriters) == 1 else SequentialNodeRewriter(*rewriters)


def in2out(
    *rewriters: NodeRewriter, name: str | None = None, **kwargs: Any
) -> WalkingGraphRewriter:
    """Walk the graph from inputs to outputs applying ``rewriters`` (tried in order)."""
    return WalkingGraphRewriter(_combine(rewriters), "in_to_out", name=name, **kwargs)


def out2in(
    *rewriters: NodeRewriter, name: str | None = None, **kwargs: Any
) -> WalkingGraphRewriter:
    """Walk the graph from outputs to inputs applying ``rewriters`` (tried in order)."""
    return WalkingGraphRewriter(_combine(rewriters), "out_to_in", name=name, **kwargs)


def dfs_rewriter(
    *rewriters: NodeRewriter, name: str | None = None, **kwargs: Any
) -> WalkingGraphRewriter:
    """Walk the graph depth-first from its outputs applying ``rewriters`` (tried in order):
    PyTensor 3's ``dfs_rewriter``, the walk it uses where ``in2out`` was used before."""
    return WalkingGraphRewriter(_combine(rewriters), "dfs", name=name, **kwargs)


class SequentialGraphRewriter(GraphRewriter):
    """Runs graph rewriters one after the other."""

    def __init__(self, *rewriters: GraphRewriter, name: str | None = None) -> None:
        if len(rewriters) == 1 and isinstance(rewriters[0], (list, tuple)):
            rewriters = tuple(rewriters[0])
        self.rewriters = list(rewriters)
        self.name = name
        self.timings: list[tuple[str, float]] = []

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        super().add_requirements(fgraph)
        for rewriter in self.rewriters:
            rewriter.add_requirements(fgraph)

    def apply(self, fgraph: FunctionGraph) -> bool:
        changed = False
        self.timings = []
        for rewriter in self.rewriters:
            start = time.perf_counter()
            try:
                changed |= bool(rewriter.apply(fgraph))
            except Exception as err:
                handle_rewrite_error(rewriter, None, err)
            self.timings.append((str(rewriter), time.perf_counter() - start))
        return changed


class EquilibriumGraphRewriter(GraphRewriter):
    """Applies node (and graph) rewriters until none of them changes the graph any more.

    Works from a queue: every node is visited once, then only nodes created by a rewrite and
    nodes whose inputs were rewired are revisited, so the cost follows the amount of change
    rather than (passes x graph size). ``max_use_ratio`` bounds how often each rewriter may
    fire (times the initial node count) to stop rewrite cycles.
    """

    def __init__(
        self,
        rewriters: Iterable[Rewriter],
        max_use_ratio: float = 10.0,
        name: str | None = None,
        max_passes: int = 50,
    ) -> None:
        rewriters = list(rewriters)
        self.node_rewriters = [r for r in rewriters if isinstance(r, NodeRewriter)]
        self.graph_rewriters = [r for r in rewriters if isinstance(r, GraphRewriter)]
        unknown = [r for r in rewriters if not isinstance(r, (NodeRewriter, GraphRewriter))]
        if unknown:
            raise TypeError(f"EquilibriumGraphRewriter takes rewriters, got {unknown}")
        self.tracker = OpToRewriterTracker(self.node_rewriters)
        self.max_use_ratio = max_use_ratio
        self.max_passes = max_passes
        self.name = name
        self.fire_counts: dict[str, int] = {}

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        super().add_requirements(fgraph)
        for rewriter in (*self.node_rewriters, *self.graph_rewriters):
            rewriter.add_requirements(fgraph)

    def apply(self, fgraph: FunctionGraph) -> bool:
        self.fire_counts = {}
        max_uses = max(100, int(self.max_use_ratio * max(len(fgraph.apply_nodes), 1)))
        changed_any = False
        for pass_ in range(self.max_passes):
            touched = _PendingNodes()
            changed = self._run_graph_rewriters(fgraph, touched)
            if pass_ and not changed:
                return changed_any  # the node rewriters were at their fixed point already
            # After the first pass, only what the graph rewriters touched can match anew.
            seed = fgraph.toposort() if pass_ == 0 else touched
            changed |= self._run_node_rewriters(fgraph, max_uses, seed)
            changed_any |= changed
            if not changed or not self.graph_rewriters:
                return changed_any
        warnings.warn(
            f"{self} stopped after {self.max_passes} passes without reaching a fixed point",
            RewriteWarning,
            stacklevel=2,
        )
        return changed_any

    def _run_graph_rewriters(self, fgraph: FunctionGraph, touched: _PendingNodes) -> bool:
        """Run the graph rewriters, collecting in ``touched`` the nodes their changes reach."""
        if not self.graph_rewriters:
            return False
        changed = False
        follower = _NodeQueue(touched, revisit_clients=True)
        fgraph.attach_feature(follower)
        try:
            for rewriter in self.graph_rewriters:
                try:
                    changed |= bool(rewriter.apply(fgraph))
                except Exception as err:
                    handle_rewrite_error(rewriter, None, err)
        finally:
            fgraph.remove_feature(follower)
        return changed

    def _run_node_rewriters(self, fgraph: FunctionGraph, max_uses: int, seed: Any) -> bool:
        queue = _PendingNodes(seed)
        follower = _NodeQueue(queue, revisit_clients=True)
        fgraph.attach_feature(follower)
        changed = False
        # Undoing a vetoed change queues the node again: without this record, a rewrite the
        # destroy handler refuses (an in-place IfElse whose output a later node overwrites)
        # would be tried forever. A real change may make it valid: the record is then cleared.
        vetoed: set = set()
        try:
            while queue:
                node = queue.popleft()
                if node not in fgraph.apply_nodes:
                    continue
                for rewriter in self.tracker.get_trackers(node.op):
                    if (rewriter, node) in vetoed:
                        continue
                    if not apply_node_rewriter(fgraph, rewriter, node, vetoed):
                        continue
                    changed = True
                    vetoed.clear()
                    self._count(rewriter, max_uses)
                    break
        finally:
            fgraph.remove_feature(follower)
        return changed

    def _count(self, rewriter: NodeRewriter, max_uses: int) -> None:
        key = str(rewriter)
        count = self.fire_counts.get(key, 0) + 1
        self.fire_counts[key] = count
        if count > max_uses:
            raise RewriteError(
                f"{self}: rewriter {key} fired {count} times (more than {max_uses}); it probably "
                "undoes another rewrite or rewrites its own output"
            )


# -- merging --------------------------------------------------------------------------------


class MergeOptimizer(GraphRewriter):
    """Merges equal constants and identical computations (same op, same inputs).

    Relies on the Op contract's promise that equal ops compute the same thing. Nodes that
    destroy an input are never merged: each needs its own input.
    """

    name = "merge"

    def apply(self, fgraph: FunctionGraph) -> bool:
        changed = self._merge_constants(fgraph)
        seen: dict = {}
        for node in fgraph.toposort():
            if node not in fgraph.apply_nodes or getattr(node.op, "destroy_map", None):
                continue
            try:
                key = (node.op, tuple(node.inputs))
                hash(key)
            except TypeError:
                continue
            kept = seen.get(key)
            if kept is None:
                seen[key] = node
                continue
            pairs = [
                (old, new) for old, new in zip(node.outputs, kept.outputs) if old.type == new.type
            ]
            if len(pairs) != len(node.outputs):
                continue
            try:
                fgraph.replace_all_validate(pairs, reason=self)
                changed = True
            except InconsistencyError:
                continue
        return changed

    def _merge_constants(self, fgraph: FunctionGraph) -> bool:
        first: dict = {}
        pairs = []
        for var in list(fgraph.variables):
            if not isinstance(var, Constant) or not fgraph.clients.get(var):
                continue
            try:
                signature = var.signature()
                kept = first.setdefault(signature, var)
            except TypeError:
                continue
            if kept is not var:
                pairs.append((var, kept))
        for old, new in pairs:
            fgraph.replace(old, new, reason=self)
        return bool(pairs)


class SubstitutionNodeRewriter(NodeRewriter):
    """Replaces each application of ``op1`` by ``op2`` applied to the same inputs.

    ``op2.make_node`` must take the inputs of ``op1``'s nodes and give as many outputs. With
    ``transfer_tags`` the new node and its outputs get copies of the old ones' tags. For
    example ``SubstitutionNodeRewriter(add, sub)`` turns ``add(x, add(y, z))`` into
    ``sub(x, sub(y, z))``; it does not apply to the nodes it makes (``reentrant = False``).
    """

    reentrant = False

    def __init__(self, op1: Op, op2: Op, transfer_tags: bool = True) -> None:
        self.op1, self.op2, self.transfer_tags = op1, op2, transfer_tags
        self.name = f"{op1} -> {op2}"

    def tracks(self) -> Sequence[Any]:
        return [self.op1]

    def transform(self, fgraph: FunctionGraph, node: Apply, enforce_tracks: bool = True) -> Any:
        if enforce_tracks and node.op != self.op1:
            return False
        new = self.op2.make_node(*node.inputs)
        if self.transfer_tags:
            new.tag = copy.copy(node.tag)
            for old, out in zip(node.outputs, new.outputs, strict=True):
                out.tag = copy.copy(old.tag)
        return new.outputs


def walking_rewriter(
    order: str,
    *node_rewriters: NodeRewriter,
    name: str | None = None,
    **kwargs: Any,
) -> WalkingGraphRewriter:
    """A :class:`WalkingGraphRewriter` applying ``node_rewriters`` (tried in turn) in
    ``order`` (``"in_to_out"``, ``"out_to_in"`` or ``"dfs"``): :func:`in2out`,
    :func:`out2in` and :func:`dfs_rewriter` with the order as an argument.
    ``failure_callback`` is accepted for PyTensor's signature; a failing rewrite is reported
    through ``config.on_rewrite_error`` as everywhere in arignote."""
    kwargs.pop("failure_callback", None)
    if name is None and len(node_rewriters) == 1:
        name = getattr(node_rewriters[0], "__name__", None)
    return WalkingGraphRewriter(_combine(node_rewriters), order, name=name, **kwargs)


def _attach_destroy_handler(fgraph: FunctionGraph) -> None:
    fgraph.attach_feature(DestroyHandler())


def inplace_graph_rewriter(fn: Callable) -> FromFunctionGraphRewriter:
    """:func:`graph_rewriter` for a function that introduces in-place ops: the rewriter also
    attaches a :class:`DestroyHandler`, which refuses in-place changes that would overwrite a
    value still needed."""
    rewriter = FromFunctionGraphRewriter(
        fn, (lambda fgraph: fgraph.attach_feature(DestroyHandler()),)
    )
    rewriter.__name__ = fn.__name__  # type: ignore[attr-defined]
    return rewriter


# The declarative tier lives in its own module (over ``rewriter``, not over this one); it is
# re-exported here because ``arignote.graph.rewriting.basic.PatternNodeRewriter`` is its
# public path (as in Aesara/PyTensor).
from arignote.graph.rewriting.pattern import (  # noqa: E402
    PatternMatcher,
    PatternNodeRewriter,
    PatternVar,
    pattern_vars,
)

__all__ = [
    "EquilibriumGraphRewriter",
    "GraphRewriter",
    "MergeOptimizer",
    "NodeRewriter",
    "PatternMatcher",
    "PatternNodeRewriter",
    "PatternVar",
    "RewriteError",
    "RewriteWarning",
    "Rewriter",
    "SequentialGraphRewriter",
    "SequentialNodeRewriter",
    "SubstitutionNodeRewriter",
    "WalkingGraphRewriter",
    "copy_stack_trace",
    "dfs_rewriter",
    "in2out",
    "inplace_graph_rewriter",
    "node_rewriter",
    "out2in",
    "pattern_vars",
    "walking_rewriter",
]
