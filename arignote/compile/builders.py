"""``OpFromGraph``: a graph packaged as one op (PyTensor's ``pytensor.compile.builders``).

The op keeps a private copy of the graph (its *inner graph*). A compiled function runs it as
an inner function compiled once per outer function, in ``make_thunk``, with the outer
function's mode (:func:`arignote.compile.mode.linking_mode`), so DebugMode and the other modes
reach inside. Shapes, gradients and Jacobian-vector products come from the inner graph, or from
the overrides the user gives; with ``inline=True`` a rewrite replaces the op by its graph.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from arignote.autodiff import Rop, grad
from arignote.autodiff.connection import graph_connection_pattern
from arignote.compile.function import function
from arignote.compile.mode import get_mode, linking_mode
from arignote.graph.basic import Apply, Constant, Variable, clone_get_equiv
from arignote.graph.fg import FunctionGraph, MissingInputError
from arignote.graph.grad_types import disconnected, is_disconnected, is_null
from arignote.graph.op import Op, StoredInnerGraph, inner_function_thunk
from arignote.graph.replace import clone_replace
from arignote.graph.rewriting.basic import copy_stack_trace, node_rewriter
from arignote.graph.rewriting.db import register_rewrite
from arignote.graph.shared import SharedVariable
from arignote.graph.traversal import graph_inputs, io_toposort
from arignote.scalar.basic import grad_dtype
from arignote.tensor.math import zeros_like
from arignote.tensor.shape_feature import ShapeFeature
from arignote.tensor.type import TensorType


def _structure_key(inputs: Sequence[Variable], outputs: Sequence[Variable]) -> tuple:
    """A hashable description of a closed graph, equal for structurally equal graphs: nodes
    by op and by the positions of their inputs, constants by value, inputs by type."""
    refs: dict[Variable, tuple] = {v: ("in", k) for k, v in enumerate(inputs)}

    def ref(v: Variable) -> tuple:
        if v not in refs:  # a constant (the graph is closed)
            refs[v] = ("const", v.type, v.signature())
        return refs[v]

    nodes = []
    for node in io_toposort(list(inputs), list(outputs)):
        nodes.append((node.op, tuple(ref(v) for v in node.inputs)))
        refs.update({o: ("node", len(nodes) - 1, j) for j, o in enumerate(node.outputs)})
    return (tuple(v.type for v in inputs), tuple(nodes), tuple(ref(o) for o in outputs))


def _copy_graph(
    inputs: list[Variable], outputs: list[Variable]
) -> tuple[list[Variable], list[Variable], list[SharedVariable]]:
    """A private copy of the graph, with fresh inputs; shared variables it uses become extra
    (implicit) inputs; any other free variable is an error."""
    shared = []
    for var in graph_inputs(outputs, blockers=inputs):
        if var in inputs or isinstance(var, Constant):
            continue
        if not isinstance(var, SharedVariable):
            raise MissingInputError(
                f"OpFromGraph: the graph uses {var}, which is not among its inputs"
            )
        if var not in shared:
            shared.append(var)
    every_input = [*inputs, *shared]
    fresh = [v.type(v.name) for v in every_input]
    equiv = clone_get_equiv(
        every_input,
        outputs,
        copy_inputs=False,
        copy_orphans=False,
        memo=dict(zip(every_input, fresh)),
    )
    return fresh, [equiv[o] for o in outputs], shared


def _check_arguments(inputs: Any, outputs: Any, kwargs: dict) -> None:
    if not (isinstance(inputs, (list, tuple)) and isinstance(outputs, (list, tuple))):
        raise TypeError("OpFromGraph: inputs and outputs must be lists")
    for var in [*inputs, *outputs]:
        if not isinstance(var, Variable):
            raise TypeError(f"OpFromGraph: inputs and outputs must be Variables, got {var!r}")
    repeated = [v for k, v in enumerate(inputs) if v in inputs[:k]]
    if repeated and kwargs.get("on_unused_input") != "ignore":
        raise ValueError(
            f"OpFromGraph: the variables {repeated} are given more than once as inputs; use "
            "var.copy() to make distinct inputs"
        )
    if "updates" in kwargs or "givens" in kwargs:
        raise ValueError("OpFromGraph does not take updates or givens")


class OpFromGraph(Op, StoredInnerGraph):
    """An op computing ``outputs`` from ``inputs`` (a graph used as one operation).

    Parameters
    ----------
    inputs, outputs
        Lists of variables: the graph's inputs and outputs. Shared variables the graph uses
        become implicit inputs (passed automatically).
    inline
        Replace the op by its graph when compiling (the outer rewrites then see inside);
        otherwise the inner graph is compiled as its own function.
    lop_overrides
        Replaces the gradient (``L_op``): an ``OpFromGraph`` taking ``inputs + outputs +
        output_grads``; a callable ``f(inputs, outputs, output_grads)`` returning one gradient
        per input; or a list with one entry per input: None (the default gradient), a
        callable returning that input's gradient, or a ``DisconnectedType``/``NullType``
        variable.
    rop_overrides
        Replaces ``R_op`` the same way: an ``OpFromGraph`` taking ``inputs + eval_points``, a
        callable ``f(inputs, eval_points)`` returning one tangent per output, or a list with
        one entry per output.
    connection_pattern
        ``[[input i reaches output j]]``; computed from the graph when None.
    name
        Shown when printing.
    **kwargs
        Passed to the compilation of the inner function (e.g. ``on_unused_input``).
        ``pullback``/``pushforward`` are PyTensor's newer names of the two overrides.

    Examples
    --------
    >>> import arignote
    >>> import arignote.tensor as pt
    >>> from arignote.compile.builders import OpFromGraph
    >>> x, y, z = pt.dscalars("x", "y", "z")
    >>> op = OpFromGraph([x, y, z], [x + y * z])
    >>> f = arignote.function([x, y, z], op(x, y, z) + op(z, y, x))
    >>> float(f(1.0, 2.0, 3.0))
    12.0
    """

    def __init__(
        self,
        inputs: list[Variable],
        outputs: list[Variable],
        inline: bool = False,
        lop_overrides: Any = None,
        rop_overrides: Any = None,
        connection_pattern: list[list[bool]] | None = None,
        name: str | None = None,
        strict: bool = False,
        **kwargs: Any,
    ) -> None:
        lop_overrides = kwargs.pop("pullback", None) if lop_overrides is None else lop_overrides
        rop_overrides = kwargs.pop("pushforward", None) if rop_overrides is None else rop_overrides
        _check_arguments(inputs, outputs, kwargs)
        self._inputs, self._outputs, self.shared_inputs = _copy_graph(list(inputs), list(outputs))
        if strict and self.shared_inputs:
            raise ValueError(
                f"OpFromGraph(strict=True): the graph uses the shared variables "
                f"{self.shared_inputs} without taking them as inputs"
            )
        self.is_inline = bool(inline)
        self.lop_overrides = lop_overrides
        self.rop_overrides = rop_overrides
        self._connection_pattern = connection_pattern
        self.name = name
        self.kwargs = kwargs
        self.input_types = [v.type for v in self._inputs]
        self.output_types = [v.type for v in self._outputs]
        self._key = _structure_key(self._inputs, self._outputs)
        self._lop_ops: dict = {}  # symbolic derivative ops, by pattern of connected arguments
        self._rop_ops: dict = {}

    # -- identity ---------------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        return (
            type(self) is type(other)
            and self._key == other._key
            and self.is_inline == other.is_inline
            and len(self.shared_inputs) == len(other.shared_inputs)
            and all(a is b for a, b in zip(self.shared_inputs, other.shared_inputs))
            and self.lop_overrides is other.lop_overrides
            and self.rop_overrides is other.rop_overrides
            and self._connection_pattern == other._connection_pattern
        )

    def __hash__(self) -> int:
        return hash((type(self), self._key, self.is_inline))

    def __str__(self) -> str:
        return f"{self.name or type(self).__name__}{{inline={self.is_inline}}}"

    def __getstate__(self) -> dict:
        state = super().__getstate__()
        state.update(_lop_ops={}, _rop_ops={})
        return state

    # -- the inner graph ------------------------------------------------------------------

    @property
    def fn(self) -> Any:
        """A new compiled inner function (in the default mode); the op keeps none."""
        return self._compile(None)

    def clone(self) -> OpFromGraph:
        return self._remade(self._inputs, self._outputs)

    def _remade(self, inputs: list[Variable], outputs: list[Variable]) -> OpFromGraph:
        return type(self)(
            inputs,
            outputs,
            inline=self.is_inline,
            lop_overrides=self.lop_overrides,
            rop_overrides=self.rop_overrides,
            connection_pattern=self._connection_pattern,
            name=self.name,
            **self.kwargs,
        )

    def _compile(self, mode: Any) -> Any:
        options = dict(self.kwargs)
        chosen = mode if mode is not None else get_mode(options.pop("mode", None))
        options.pop("mode", None)
        options.setdefault("on_unused_input", "ignore")
        fn = function(self._inputs, self._outputs, mode=chosen, **options)
        fn.trust_input = True
        return fn

    # -- building ---------------------------------------------------------------------------

    def __call__(self, *inputs: Any, **kwargs: Any) -> Any:
        explicit = len(self._inputs) - len(self.shared_inputs)
        if len(inputs) == explicit:
            inputs = (*inputs, *self.shared_inputs)
        elif len(inputs) != len(self._inputs):
            raise ValueError(f"{self} expects {explicit} inputs, got {len(inputs)}")
        return super().__call__(*inputs, **kwargs)

    def make_node(self, *inputs: Any) -> Apply:
        if len(inputs) != len(self._inputs):
            raise ValueError(f"{self} expects {len(self._inputs)} inputs, got {len(inputs)}")
        converted = [
            t.filter_variable(v, allow_convert=True) for t, v in zip(self.input_types, inputs)
        ]
        explicit = len(self._inputs) - len(self.shared_inputs)
        if any(a is not b for a, b in zip(converted[explicit:], self.shared_inputs)):
            return self._with_other_shared(converted, explicit)
        return Apply(self, converted, [t() for t in self.output_types])

    def _with_other_shared(self, converted: list[Variable], explicit: int) -> Apply:
        """The node when other variables replace the implicit shared inputs: a new op whose
        graph takes the shared variables given (or the other variables as plain inputs)."""
        replace = dict(zip(self._inputs[explicit:], converted[explicit:]))
        outputs = clone_replace(self._outputs, replace=replace)
        extra = [v for v in converted[explicit:] if not isinstance(v, SharedVariable)]
        op = self._remade(self._inputs[:explicit] + extra, list(outputs))
        return Apply(
            op, converted[:explicit] + extra + op.shared_inputs, [t() for t in op.output_types]
        )

    # -- computing --------------------------------------------------------------------------

    def perform(self, node, inputs, output_storage):
        # The reference: each inner node computed in turn (DebugMode and constant folding
        # use it); compiled functions run the inner function from make_thunk instead.
        values = _evaluate(self._inputs, self._outputs, inputs)
        for cell, value in zip(output_storage, values):
            cell[0] = value

    def make_thunk(self, node, storage_map, compute_map, no_recycling, impl=None):
        fn = self._compile(linking_mode())  # once per outer compiled function

        def perform(node: Apply, inputs: list, output_storage: list) -> None:
            # From values alone: the linker runs it on each call's own frame (thread-safe).
            for cell, value in zip(output_storage, fn(*inputs)):
                cell[0] = value

        return inner_function_thunk(node, storage_map, compute_map, perform, fn)

    # -- shapes -----------------------------------------------------------------------------

    def infer_shape(self, fgraph, node, input_shapes):
        inner = FunctionGraph(self._inputs, self._outputs, features=[ShapeFeature()], clone=True)
        feature = inner.shape_feature
        for var, shape in zip(inner.inputs, input_shapes):
            if shape is not None and isinstance(var.type, TensorType):
                feature.set_shape(var, shape)
        shapes = [feature.shape_tuple(o) for o in inner.outputs]
        entries = [e for s in shapes if s is not None for e in s]
        replaced = iter(clone_replace(entries, replace=dict(zip(inner.inputs, node.inputs))))
        return [None if s is None else tuple(next(replaced) for _ in s) for s in shapes]

    def connection_pattern(self, node):
        return self._pattern()

    def _pattern(self) -> list[list[bool]]:
        if self._connection_pattern is None:
            self._connection_pattern = graph_connection_pattern(self._inputs, self._outputs)
        return self._connection_pattern

    # -- derivatives --------------------------------------------------------------------------

    def L_op(self, inputs, outputs, output_grads):
        connected = tuple(not is_disconnected(g) for g in output_grads)
        if connected not in self._lop_ops:
            self._lop_ops[connected] = _build_lop(self, connected)
        lop, template = self._lop_ops[connected]
        given = [g for g, c in zip(output_grads, connected) if c]
        results = iter(lop(*inputs, *outputs, *given, return_list=True) if lop else [])
        pattern = self._pattern()
        grads = []
        for k, t in enumerate(template):
            if is_disconnected(t) and any(pattern[k]):
                # an input the graph uses, declared disconnected by an override: no gradient
                grads.append(zeros_like(inputs[k], dtype=grad_dtype(inputs[k])))
            else:
                grads.append(t if is_disconnected(t) or is_null(t) else next(results))
        return grads

    def R_op(self, inputs, eval_points):
        if all(ev is None for ev in eval_points):
            return [None] * len(self._outputs)
        if self.rop_overrides is not None:  # overrides receive a tangent for every input
            eval_points = [
                zeros_like(i) if ev is None else ev for i, ev in zip(inputs, eval_points)
            ]
        given = tuple(ev is not None for ev in eval_points)
        if given not in self._rop_ops:
            self._rop_ops[given] = _build_rop(self, given)
        rop, template = self._rop_ops[given]
        points = [ev for ev in eval_points if ev is not None]
        results = iter(rop(*inputs, *points, return_list=True) if rop else [])
        return [
            None if t is None or is_disconnected(t) else (t if is_null(t) else next(results))
            for t in template
        ]


def _evaluate(inputs: list[Variable], outputs: list[Variable], values: list) -> list:
    """The values of ``outputs`` for ``values`` of ``inputs``, node by node (no compilation)."""
    storage: dict[Variable, list] = {v: [x] for v, x in zip(inputs, values)}
    computed: dict[Variable, list] = {v: [True] for v in inputs}
    for node in io_toposort(inputs, outputs):
        for var in node.inputs:
            if var not in storage:  # a constant
                storage[var] = [var.data]
                computed[var] = [True]
        storage.update({v: [None] for v in node.outputs})
        computed.update({v: [False] for v in node.outputs})
        if type(node.op).perform is not Op.perform:  # (nested OpFromGraph: no compilation)
            node.op.perform(
                node, [storage[v][0] for v in node.inputs], [storage[v] for v in node.outputs]
            )
            continue
        thunk = node.op.make_thunk(node, storage, computed, no_recycling=[])
        while thunk():  # a lazy thunk asks again until its inputs (all computed) suffice
            pass
    return [o.data if isinstance(o, Constant) else storage[o][0] for o in outputs]


# -- the derivative ops ------------------------------------------------------------------------


def _fresh(types: Sequence[Any], connected: Sequence[bool] | None = None) -> list[Variable]:
    if connected is None:
        connected = [True] * len(types)
    return [t() if c else disconnected() for t, c in zip(types, connected)]


def _default_grads(op: OpFromGraph, gs: list[Variable], wrt: list[Variable]) -> list:
    known = {o: g for o, g in zip(op.inner_outputs, gs) if not is_disconnected(g)}
    if not known or not wrt:
        return [disconnected() for _ in wrt]
    return grad(
        None,
        wrt,
        known_grads=known,
        disconnected_inputs="ignore",
        return_disconnected="disconnected",
        null_gradients="return",
    )


def _from_list(entries: list, defaults: Callable[[list], list], args: tuple, what: str) -> list:
    """Combine per-entry overrides (None: the default; a callable; a Disconnected/Null
    variable) into one list."""
    positions = [k for k, e in enumerate(entries) if e is None]
    filled = dict(zip(positions, defaults(positions)))
    results = []
    for k, entry in enumerate(entries):
        if entry is None:
            results.append(filled[k])
        elif isinstance(entry, Variable):
            if not (is_disconnected(entry) or is_null(entry)):
                raise ValueError(
                    f"{what} override lists may hold only DisconnectedType or NullType "
                    f"variables, got {entry.type}"
                )
            results.append(entry)
        elif callable(entry):
            results.append(entry(*args))
        else:
            raise ValueError(f"{what} override entries must be None, a Variable or a callable")
    return results


def _called(override: Any, args: tuple, n: int, what: str) -> list:
    if isinstance(override, OpFromGraph):
        return list(
            override(
                *[v for group in args for v in group if not is_disconnected(v)], return_list=True
            )
        )
    if not callable(override):
        raise TypeError(f"the {what} override must be None, a list, an OpFromGraph or a callable")
    results = override(*args)
    if not isinstance(results, (list, tuple)) or len(results) != n:
        raise ValueError(
            f"the {what} override must return a list of {n} variables, got {results!r}"
        )
    return list(results)


def _package(op: OpFromGraph, inputs: list[Variable], results: list, name: str) -> tuple:
    """(an OpFromGraph computing the real entries of ``results`` from ``inputs``, or None;
    ``results`` itself as the template saying which entries are disconnected or null)."""
    real = [r for r in results if r is not None and not is_disconnected(r) and not is_null(r)]
    if not real:
        return None, results
    derived = OpFromGraph(
        inputs,
        real,
        inline=op.is_inline,
        name=None if op.name is None else f"{op.name}_{name}",
        on_unused_input="ignore",
    )
    return derived, results


def _build_lop(op: OpFromGraph, connected: tuple[bool, ...]) -> tuple:
    inputs = list(op.inner_inputs)
    outs = _fresh(op.output_types)
    gs = _fresh(op.output_types, connected)
    override = op.lop_overrides
    args = (inputs, outs, gs)
    if override is None:
        results = _default_grads(op, gs, inputs)
    elif isinstance(override, list):
        if len(override) != len(inputs):
            raise ValueError(f"Need to override {len(inputs)} gradients, got {len(override)}")
        results = _from_list(
            override, lambda ks: _default_grads(op, gs, [inputs[k] for k in ks]), args, "L_op"
        )
    else:
        results = _called(override, args, len(inputs), "L_op")
    return _package(op, inputs + outs + [g for g in gs if not is_disconnected(g)], results, "LOp")


def _default_tangents(op: OpFromGraph, wrt: list, points: list, which: list[int]) -> list:
    if not which:
        return []
    if not wrt:
        return [None for _ in which]
    return Rop(
        [op.inner_outputs[j] for j in which],
        wrt,
        points,
        disconnected_outputs="ignore",
        return_disconnected="none",
    )


def _build_rop(op: OpFromGraph, given: tuple[bool, ...]) -> tuple:
    inputs = list(op.inner_inputs)
    wrt = [v for v, g in zip(inputs, given) if g]
    points = [v.type() for v in wrt]
    override = op.rop_overrides
    n = len(op.inner_outputs)
    if override is None:
        results = _default_tangents(op, wrt, points, list(range(n)))
    else:  # all tangents given (see R_op)
        args = (inputs, points)
        if isinstance(override, list):
            if len(override) != n:
                raise ValueError(f"Need to override {n} R_op outputs, got {len(override)}")
            results = _from_list(
                override, lambda js: _default_tangents(op, wrt, points, js), args, "R_op"
            )
        else:
            results = _called(override, args, n, "R_op")
    return _package(op, inputs + points, results, "ROp")


# -- inlining ----------------------------------------------------------------------------------


@register_rewrite("canonicalize", "fast_compile", "inline_ofg")
@node_rewriter([OpFromGraph])
def inline_ofg_expansion(fgraph, node):
    """OpFromGraph(inline=True)(x) -> its inner graph applied to x."""
    op = node.op
    if not op.is_inline:
        return None
    outputs = clone_replace(op.inner_outputs, replace=dict(zip(op.inner_inputs, node.inputs)))
    copy_stack_trace(node.outputs, outputs)
    return outputs


__all__ = ["OpFromGraph"]
