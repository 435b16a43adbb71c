"""Lazy conditionals: the ``IfElse`` op, ``ifelse``, and the rewrites that simplify them.

``ifelse(c, a, b)`` returns ``a`` when the scalar ``c`` is true and ``b`` otherwise, and,
unlike the elementwise ``switch``, computes only the branch it returns: its thunk is *lazy*
(``thunk.lazy = True``) and asks the VM for the condition first, then only for the inputs of
the chosen branch. Nodes needed only by the other branch never run.

Like PyTensor's, this module is also callable: ``arignote.ifelse(c, a, b)`` works, and
``from arignote.ifelse import ifelse, IfElse`` gives the function and the op.
"""

from __future__ import annotations

import sys
import types
from typing import Any

import numpy as np

from arignote.graph.basic import Apply, Variable
from arignote.graph.grad_types import is_disconnected
from arignote.graph.lazy import lazy_regions
from arignote.graph.op import Op
from arignote.graph.rewriting.basic import copy_stack_trace, node_rewriter
from arignote.graph.rewriting.db import register_rewrite
from arignote.graph.traversal import ancestors
from arignote.scalar.basic import grad_dtype
from arignote.tensor.basic import (
    MakeVector,
    NotScalarConstantError,
    ScalarFromTensor,
    TensorFromScalar,
    as_tensor_variable,
    get_scalar_constant_value,
)
from arignote.tensor.elemwise import DimShuffle, Elemwise
from arignote.tensor.math import switch, zeros_like
from arignote.tensor.shape import Shape, Shape_i
from arignote.tensor.type import TensorType


class IfElse(Op):
    """``outputs = then_values if condition else else_values``, computing only one branch.

    The node's inputs are ``[condition, *then_values, *else_values]`` (``n_outs`` of each),
    its outputs the ``n_outs`` chosen values. The condition is a 0-d tensor (any dtype: zero
    is false). Paired branch values have the same dtype and number of dimensions; an output
    keeps the static lengths its two branches agree on.

    ``as_view=True`` lets an output alias its then-branch input instead of copying it.
    """

    __props__ = ("as_view", "n_outs")

    def __init__(self, n_outs: int, as_view: bool = False, name: str | None = None) -> None:
        if int(n_outs) < 1:
            raise ValueError(f"IfElse needs at least one output, got n_outs={n_outs}")
        self.n_outs = int(n_outs)
        self.as_view = bool(as_view)
        self.name = name
        if self.as_view:
            self.view_map = {k: [k + 1] for k in range(self.n_outs)}

    def __str__(self) -> str:
        words = [w for w in (self.name, "inplace" if self.as_view else None) if w]
        return f"if{{{','.join(words)}}}"

    # -- building -----------------------------------------------------------------------

    def make_node(self, condition: Any, *branches: Any) -> Apply:
        if len(branches) != 2 * self.n_outs:
            raise ValueError(
                f"{self}: expected {2 * self.n_outs} branch values (then and else), got "
                f"{len(branches)}"
            )
        condition = as_tensor_variable(condition)
        if condition.type.ndim != 0:
            raise TypeError(f"{self}: the condition must be a scalar, got {condition.type}")
        pairs = [
            _branch_pair(t, e, k)
            for k, (t, e) in enumerate(zip(branches[: self.n_outs], branches[self.n_outs :]))
        ]
        then_values = [t for t, _, _ in pairs]
        else_values = [e for _, e, _ in pairs]
        return Apply(self, [condition, *then_values, *else_values], [o() for _, _, o in pairs])

    # -- computing ----------------------------------------------------------------------

    def _deliver(self, value: Any, from_then: bool) -> Any:
        """The output value for a branch value: a copy, unless the op may return a view."""
        if self.as_view and from_then:
            return value
        return value.copy() if isinstance(value, np.ndarray) else _copy_value(value)

    def perform(self, node, inputs, output_storage):
        # The eager reference (used by DebugMode and constant folding): both branches are
        # already computed here, the lazy thunk below is what functions run.
        condition, *branches = inputs
        take_then = bool(condition)
        chosen = branches[: self.n_outs] if take_then else branches[self.n_outs :]
        for cell, value in zip(output_storage, chosen):
            cell[0] = self._deliver(value, take_then)

    def make_thunk(self, node, storage_map, compute_map, no_recycling, impl=None):
        return _lazy_thunk(self, node, storage_map, compute_map)

    def lazy_branches(self, node: Apply) -> list:
        """The branch each input serves (None: the condition, always needed); rewrites that
        combine nodes keep the two branches apart (``arignote.graph.lazy``)."""
        return [None] + ["then"] * self.n_outs + ["else"] * self.n_outs

    # -- shapes and derivatives ---------------------------------------------------------

    def infer_shape(self, fgraph, node, input_shapes):
        condition = node.inputs[0]
        then_shapes = input_shapes[1 : 1 + self.n_outs]
        else_shapes = input_shapes[1 + self.n_outs :]
        if any(s is None for s in [*then_shapes, *else_shapes]):
            return [None] * self.n_outs
        return _chosen_shapes(condition, then_shapes, else_shapes, self.name)

    def connection_pattern(self, node):
        # The condition selects every output; branch value k only reaches output k.
        n = self.n_outs
        pairs = [[j == k for j in range(n)] for k in range(n)]
        return [[True] * n, *pairs, *pairs]

    def L_op(self, inputs, outputs, output_grads):
        condition, branches = inputs[0], inputs[1:]
        grads = [
            zeros_like(out, dtype=grad_dtype(out)) if is_disconnected(g) else g
            for out, g in zip(outputs, output_grads)
        ]
        zeros = [zeros_like(b, dtype=g.type.dtype) for b, g in zip(branches, grads * 2)]
        # d(out_k)/d(then_k) is 1 where the condition holds, else 0 (and the reverse for else);
        # the condition is piecewise constant: its gradient is zero.
        split = IfElse(2 * self.n_outs, name=_suffixed(self.name, "grad"))(
            condition,
            *grads,
            *zeros[self.n_outs :],
            *zeros[: self.n_outs],
            *grads,
            return_list=True,
        )
        return [zeros_like(condition, dtype=grad_dtype(condition)), *split]

    def R_op(self, inputs, eval_points):
        # Linear in the branch values for a fixed condition: the tangent of the chosen branch.
        branches, points = inputs[1:], eval_points[1:]
        n = self.n_outs
        results: list = []
        for k in range(n):
            t, e = points[k], points[n + k]
            if t is None and e is None:
                results.append(None)
                continue
            t = zeros_like(branches[k]) if t is None else t
            e = zeros_like(branches[n + k]) if e is None else e
            results.append(IfElse(1, name=_suffixed(self.name, "rop"))(inputs[0], t, e))
        return results


def _copy_value(value: Any) -> Any:
    copier = getattr(value, "copy", None)
    return copier() if callable(copier) else value


def _suffixed(name: str | None, suffix: str) -> str | None:
    return None if name is None else f"{name}_{suffix}"


def _as_branch_value(value: Any, other: Any) -> Variable:
    """A branch value as a variable; a plain number takes the other branch's dtype."""
    if isinstance(value, Variable):
        return value
    if isinstance(other, Variable) and isinstance(other.type, TensorType):
        return as_tensor_variable(np.asarray(value, dtype=other.type.dtype))
    return as_tensor_variable(value)


def _branch_pair(then_value: Any, else_value: Any, k: int) -> tuple[Variable, Variable, Any]:
    """(then value, else value, output type) for output ``k``, checking they are compatible."""
    t = _as_branch_value(then_value, else_value)
    e = _as_branch_value(else_value, t)
    if not (isinstance(t.type, TensorType) and isinstance(e.type, TensorType)):
        if t.type != e.type:
            raise TypeError(
                f"ifelse output {k}: the branches have different types {t.type} and {e.type}"
            )
        return t, e, t.type
    if t.type.dtype != e.type.dtype:
        raise TypeError(
            f"ifelse output {k}: the branches need the same dtype, got then={t.type.dtype}, "
            f"else={e.type.dtype} (cast one of them)"
        )
    if t.type.ndim != e.type.ndim:
        raise TypeError(
            f"ifelse output {k}: the branches need the same number of dimensions, got "
            f"then={t.type.ndim}, else={e.type.ndim}"
        )
    # Only the static lengths both branches agree on are known for the result.
    shape = tuple(a if a == b else None for a, b in zip(t.type.shape, e.type.shape))
    return t, e, t.type.clone(shape=shape)


def _lazy_thunk(op: IfElse, node: Apply, storage_map: dict, compute_map: dict):
    """The lazy thunk: returns the input indices it still needs, or [] once it has run.

    The VM computes the inputs asked for and calls the thunk again. A VM that computes every
    input first simply gets the result at the first call.
    """
    n = op.n_outs
    condition_cell, condition_done = storage_map[node.inputs[0]], compute_map[node.inputs[0]]
    cells = [storage_map[v] for v in node.inputs[1:]]
    done = [compute_map[v] for v in node.inputs[1:]]
    out_cells = [storage_map[v] for v in node.outputs]
    out_done = [compute_map[v] for v in node.outputs]

    def thunk() -> list[int]:
        if not condition_done[0]:
            return [0]
        take_then = bool(condition_cell[0])
        first = 0 if take_then else n
        missing = [1 + first + k for k in range(n) if not done[first + k][0]]
        if missing:
            return missing
        for k in range(n):
            out_cells[k][0] = op._deliver(cells[first + k][0], take_then)
            out_done[k][0] = True
        return []

    thunk.lazy = True  # type: ignore[attr-defined]
    thunk.inputs = [condition_cell, *cells]  # type: ignore[attr-defined]
    thunk.outputs = out_cells  # type: ignore[attr-defined]
    return thunk


# Ops whose values cost nothing to compute from the shapes of graph inputs: a length built
# only from them can be chosen with an (eager) switch without computing either branch.
_SHAPE_ARITHMETIC = (Elemwise, DimShuffle, MakeVector, ScalarFromTensor, TensorFromScalar)


def _is_cheap_length(length: Any) -> bool:
    """Whether ``length`` depends on nothing but constants and shapes of root variables."""
    if not isinstance(length, Variable):
        return True
    for var in ancestors([length]):
        node = var.owner
        if node is None or isinstance(node.op, _SHAPE_ARITHMETIC):
            continue
        if isinstance(node.op, (Shape, Shape_i)) and node.inputs[0].owner is None:
            continue
        return False
    return True


def _chosen_shapes(condition, then_shapes, else_shapes, name) -> list[tuple]:
    """Each output's shape: the chosen branch's lengths.

    Equal lengths pass through; cheap ones (shapes of inputs, constants) are chosen with a
    ``switch``; the others with a lazy IfElse, so that asking for the shape never computes
    the branch that is not taken.
    """
    shapes: list[list] = []
    lazy: list[tuple[int, int, Any, Any]] = []
    for k, (ts, es) in enumerate(zip(then_shapes, else_shapes)):
        entries: list = []
        for d, (t, e) in enumerate(zip(ts, es)):
            if t is e or _same_constant(t, e):
                entries.append(t)
            elif _is_cheap_length(t) and _is_cheap_length(e):
                entries.append(switch(condition, t, e))
            else:
                entries.append(None)
                lazy.append((k, d, t, e))
        shapes.append(entries)
    if lazy:
        chosen = IfElse(len(lazy), name=_suffixed(name, "shape"))(
            condition,
            *[_length(t) for _, _, t, _ in lazy],
            *[_length(e) for _, _, _, e in lazy],
            return_list=True,
        )
        for (k, d, _, _), value in zip(lazy, chosen):
            shapes[k][d] = value
    return [tuple(s) for s in shapes]


def _length(value: Any) -> Variable:
    return as_tensor_variable(value).astype("int64")


def _same_constant(a: Any, b: Any) -> bool:
    try:
        return int(get_scalar_constant_value(a)) == int(get_scalar_constant_value(b))
    except NotScalarConstantError:
        return False


def ifelse(
    condition: Any,
    then_branch: Any,
    else_branch: Any,
    name: str | None = None,
) -> Any:
    """A graph for ``then_branch if condition else else_branch``, computing only one branch.

    Parameters
    ----------
    condition
        A scalar (0-d) tensor or value; zero means false, anything else true.
    then_branch, else_branch
        A variable each, or lists (tuples) of the same length whose paired entries have the
        same dtype and number of dimensions. Plain numbers take the dtype of their pair.
    name
        A name for the op, shown when printing the graph.

    Returns
    -------
    Variable or list or tuple of Variable
        The values of the branch the condition selects: a single variable for single
        branches, else a list (or tuple, if ``then_branch`` is one).

    Notes
    -----
    In a compiled function, the nodes needed only by the branch not taken are not computed
    (the Python VM runs ``IfElse`` lazily). ``switch`` is the elementwise and eager form.

    Examples
    --------
    >>> import arignote
    >>> import arignote.tensor as pt
    >>> from arignote.ifelse import ifelse
    >>> a, b = pt.dscalars("a", "b")
    >>> f = arignote.function([a, b], ifelse(pt.lt(a, b), a * 10, b * 100))
    >>> float(f(1.0, 2.0)), float(f(3.0, 2.0))
    (10.0, 200.0)
    """
    kind = type(then_branch) if isinstance(then_branch, (list, tuple)) else None
    then_values = list(then_branch) if kind else [then_branch]
    else_values = list(else_branch) if isinstance(else_branch, (list, tuple)) else [else_branch]
    if len(then_values) != len(else_values):
        raise ValueError(
            f"ifelse: the then branch has {len(then_values)} values and the else branch "
            f"{len(else_values)}; they must match"
        )
    if not then_values:
        raise ValueError("ifelse: the branches are empty")
    outputs = IfElse(len(then_values), name=name)(
        condition, *then_values, *else_values, return_list=True
    )
    if kind is None:
        return outputs[0]
    return kind(outputs) if kind in (list, tuple) else list(outputs)


# -- rewrites ---------------------------------------------------------------------------------


def _branches(node: Apply) -> tuple[list[Variable], list[Variable]]:
    n = node.op.n_outs
    return list(node.inputs[1 : 1 + n]), list(node.inputs[1 + n :])


def _constant_truth(var: Variable) -> bool | None:
    try:
        return bool(get_scalar_constant_value(var))
    except NotScalarConstantError:
        return None


@register_rewrite("canonicalize", "fast_compile", "ifelse")
@node_rewriter([IfElse])
def local_ifelse_constant_condition(fgraph, node):
    """ifelse(True, a, b) -> a; ifelse(False, a, b) -> b."""
    truth = _constant_truth(node.inputs[0])
    if truth is None:
        return None
    then_values, else_values = _branches(node)
    chosen = then_values if truth else else_values
    copy_stack_trace(node.outputs, chosen)
    return chosen


@register_rewrite("canonicalize", "fast_compile", "ifelse")
@node_rewriter([IfElse])
def local_ifelse_identical_branches(fgraph, node):
    """ifelse(c, a, a) -> a: an output whose two branches are the same variable."""
    then_values, else_values = _branches(node)
    same = {
        out: t
        for out, t, e in zip(node.outputs, then_values, else_values)
        if t is e and fgraph.clients.get(out)
    }
    if not same:
        return None
    copy_stack_trace(list(same), list(same.values()))
    return same


@register_rewrite("canonicalize", "ifelse")
@node_rewriter([IfElse])
def local_ifelse_same_condition_inside(fgraph, node):
    """ifelse(c, ifelse(c, a, b), d) -> ifelse(c, a, d); likewise in the else branch."""
    condition = node.inputs[0]
    then_values, else_values = _branches(node)
    new_then = [_inner_choice(v, condition, True) for v in then_values]
    new_else = [_inner_choice(v, condition, False) for v in else_values]
    if new_then == then_values and new_else == else_values:
        return None
    return IfElse(node.op.n_outs, name=node.op.name)(
        condition, *new_then, *new_else, return_list=True
    )


def _inner_choice(var: Variable, condition: Variable, taken: bool) -> Variable:
    """The value ``var`` has when ``condition`` is ``taken``, if ``var`` is an IfElse on it."""
    node = var.owner
    if node is None or not isinstance(node.op, IfElse) or node.inputs[0] is not condition:
        return var
    then_values, else_values = _branches(node)
    k = node.outputs.index(var)
    return then_values[k] if taken else else_values[k]


@register_rewrite("canonicalize", "ifelse")
@node_rewriter([Elemwise])
def local_lift_ifelse_through_elemwise(fgraph, node):
    """f(ifelse(c, a, b), z) -> ifelse(c, f(a, z), f(b, z)) for an elementwise f.

    The elementwise work moves into the branches, so that it runs only for the branch taken.
    Only when the IfElse outputs feed nothing else, and the lifted results have types the
    original output accepts.
    """
    sources = {i.owner for i in node.inputs if i.owner and isinstance(i.owner.op, IfElse)}
    if len(sources) != 1:
        return None
    (source,) = sources
    if not all(_used_only_by(fgraph, out, node) for out in source.outputs if out in node.inputs):
        return None
    then_values, else_values = _branches(source)
    then_args = [_in_branch(i, source, then_values) for i in node.inputs]
    else_args = [_in_branch(i, source, else_values) for i in node.inputs]
    then_outs = node.op(*then_args, return_list=True)
    else_outs = node.op(*else_args, return_list=True)
    lifted = IfElse(len(node.outputs), name=source.op.name)(
        source.inputs[0], *then_outs, *else_outs, return_list=True
    )
    if not all(old.type.is_super(new.type) for old, new in zip(node.outputs, lifted)):
        return None
    copy_stack_trace(node.outputs, lifted)
    return lifted


def _used_only_by(fgraph, var: Variable, node: Apply) -> bool:
    return all(client is node for client, _ in fgraph.clients.get(var, []))


def _in_branch(var: Variable, source: Apply, values: list[Variable]) -> Variable:
    return values[source.outputs.index(var)] if var.owner is source else var


@register_rewrite("canonicalize", "ifelse")
@node_rewriter([IfElse])
def local_merge_ifelse_same_condition(fgraph, node):
    """ifelse(c, a, b), ifelse(c, x, y) -> one ifelse(c, [a, x], [b, y]).

    Two independent IfElse nodes on the same condition become one node with the outputs of
    both (neither may depend on the other, or the merged node would be its own input).
    """
    condition = node.inputs[0]
    other = _independent_twin(fgraph, node, condition)
    if other is None:
        return None
    then_a, else_a = _branches(node)
    then_b, else_b = _branches(other)
    names = [n for n in (node.op.name, other.op.name) if n]
    merged = IfElse(len(then_a) + len(then_b), name="&".join(names) or None)(
        condition, *then_a, *then_b, *else_a, *else_b, return_list=True
    )
    old = [*node.outputs, *other.outputs]
    copy_stack_trace(old, merged)
    return dict(zip(old, merged))


def _independent_twin(fgraph, node: Apply, condition: Variable) -> Apply | None:
    twins = [
        client
        for client, _ in fgraph.clients.get(condition, [])
        if isinstance(client, Apply)
        and client is not node
        and isinstance(client.op, IfElse)
        and client.inputs[0] is condition
    ]
    if not twins:
        return None
    # Only nodes computed in the same circumstances: merging an IfElse needed only in one
    # branch of another IfElse with one needed elsewhere would compute it needlessly.
    regions = lazy_regions(fgraph)
    for twin in twins:
        if regions.get(twin) != regions.get(node):
            continue
        if not _depends(twin, node) and not _depends(node, twin):
            return twin
    return None


def _depends(node: Apply, on: Apply) -> bool:
    """Whether ``node`` is computed from an output of ``on``."""
    targets = set(on.outputs)
    return any(v in targets for v in ancestors(node.inputs))


@register_rewrite("inplace", "ifelse")
@node_rewriter([IfElse])
def cond_make_inplace(fgraph, node):
    """ifelse(c, a, b) -> the same op returning ``a`` itself (a view) instead of a copy.

    The output then aliases the then-branch value (``view_map``); the destroy handler keeps
    later in-place work from overwriting memory that other nodes still read.
    """
    if node.op.as_view:
        return None
    op = IfElse(node.op.n_outs, as_view=True, name=node.op.name)
    return op(*node.inputs, return_list=True)


class _IfElseModule(types.ModuleType):
    """This module, callable as ``ifelse`` (PyTensor's ``pytensor.ifelse`` is the function)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return ifelse(*args, **kwargs)


sys.modules[__name__].__class__ = _IfElseModule

__all__ = ["IfElse", "ifelse"]
