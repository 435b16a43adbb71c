"""``Op``: the contract every operation in a graph follows.

An Op builds :class:`~arignote.graph.basic.Apply` nodes (``make_node``), computes their values
(``perform``, or a thunk from ``make_thunk``), and describes itself to the rest of the system:
``__props__`` (equality, hash and printing), ``infer_shape``, ``grad``/``L_op``/``R_op``,
``connection_pattern``, ``destroy_map``/``view_map`` and ``do_constant_folding``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from arignote.graph.basic import Apply, Variable
from arignote.graph.fg import FunctionGraph
from arignote.graph.grad_types import DisconnectedType, disconnected_type
from arignote.graph.utils import HasProps, MethodNotDefined, add_tag_trace

StorageMap = dict[Variable, list]
ComputeMap = dict[Variable, list]
Thunk = Callable[[], Any]


class Op(HasProps):
    """Base class of every operation.

    A subclass defines ``make_node`` (or the ``itypes``/``otypes`` shortcut) and ``perform`` (or
    overrides ``make_thunk``), and usually ``__props__``, ``infer_shape`` and ``grad``.
    Two ops that compare equal promise to compute the same values and to destroy and view the
    same inputs (``destroy_map``, ``view_map``): the rewriter merges their applications.
    """

    #: Which output ``op(...)`` returns when there are several (None: all, or the only one).
    default_output: int | None = None
    #: ``{output_index: [input_index]}``: outputs computed by overwriting an input.
    destroy_map: dict[int, list[int]] = {}
    #: ``{output_index: [input_index]}``: outputs that are views of (share memory with) an input.
    view_map: dict[int, list[int]] = {}
    #: Input and output types for the automatic ``make_node``.
    itypes: Sequence[Any] | None = None
    otypes: Sequence[Any] | None = None

    def make_node(self, *inputs: Any) -> Apply:
        """Build the Apply node applying this op to ``inputs`` (the default uses itypes/otypes)."""
        if self.itypes is None or self.otypes is None:
            raise MethodNotDefined(
                "make_node", type(self), "Define make_node, or both itypes and otypes."
            )
        if len(inputs) != len(self.itypes):
            raise TypeError(f"{self} takes {len(self.itypes)} inputs, got {len(inputs)}")
        converted = []
        for position, (inp, itype) in enumerate(zip(inputs, self.itypes)):
            try:
                converted.append(itype.filter_variable(inp))
            except (TypeError, ValueError) as err:
                raise TypeError(
                    f"{self}: input {position} should have type {itype}: {err}"
                ) from err
        return Apply(self, converted, [otype() for otype in self.otypes])

    def __call__(self, *inputs: Any, name: str | None = None, return_list: bool = False, **kwargs):
        """Apply the op: ``make_node(*inputs)`` and return its ``default_output`` (or outputs)."""
        node = self.make_node(*inputs, **kwargs)
        for out in node.outputs:
            add_tag_trace(out)
        if name is not None:
            if len(node.outputs) == 1:
                node.outputs[0].name = name
            else:
                for i, out in enumerate(node.outputs):
                    out.name = f"{name}_{i}"
        if return_list:
            return list(node.outputs)
        if self.default_output is not None:
            return node.outputs[self.default_output]
        if len(node.outputs) == 1:
            return node.outputs[0]
        return list(node.outputs)

    def perform(self, node: Apply, inputs: list[Any], output_storage: list[list[Any]]) -> None:
        """Compute ``node``'s outputs from input values into one-element ``output_storage`` cells.

        A cell may hold a value from an earlier call (of the right dtype, but possibly of the
        wrong shape or strides): it may be reused, but must never change the result.
        """
        raise MethodNotDefined("perform", type(self), "Define perform or override make_thunk.")

    def do_constant_folding(self, fgraph: Any, node: Apply) -> bool:
        """Whether a node of this op with only constant inputs may be computed at compile time."""
        return True

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list:
        """The vector-Jacobian products ``dC/d(input)`` given ``dC/d(output)``, one per input."""
        raise MethodNotDefined(
            "grad",
            type(self),
            "Symbolic differentiation through this op is impossible until it is defined.",
        )

    def L_op(
        self,
        inputs: Sequence[Variable],
        outputs: Sequence[Variable],
        output_grads: Sequence[Variable],
    ) -> list:
        """Like :meth:`grad`, with the node's outputs available for reuse; defaults to ``grad``
        (or to :meth:`pullback` when a subclass defines that, PyTensor 3's name)."""
        if type(self).pullback is not Op.pullback:
            return self.pullback(inputs, outputs, output_grads)
        return self.grad(inputs, output_grads)

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Variable | None]) -> list:
        """The Jacobian-vector products ``J @ v`` for each output (None: no contribution).

        Defaults to :meth:`pushforward` when a subclass defines that (PyTensor 3's name)."""
        if type(self).pushforward is Op.pushforward:
            raise MethodNotDefined("R_op", type(self))
        outputs = self.make_node(*inputs).outputs
        # pushforward speaks of "no tangent" with DisconnectedType where R_op uses None
        tangents = [disconnected_type() if v is None else v for v in eval_points]
        results = self.pushforward(inputs, outputs, tangents)
        return [None if isinstance(r.type, DisconnectedType) else r for r in results]

    def pullback(
        self,
        inputs: Sequence[Variable],
        outputs: Sequence[Variable],
        cotangents: Sequence[Variable],
    ) -> list:
        """PyTensor 3's name for :meth:`L_op`: the cotangent of each input given the outputs'.

        An op may define either; each calls the other by default, so both APIs work.
        """
        return self.L_op(inputs, outputs, cotangents)

    def pushforward(
        self,
        inputs: Sequence[Variable],
        outputs: Sequence[Variable],
        tangents: Sequence[Variable],
    ) -> list:
        """PyTensor 3's name for :meth:`R_op`: the tangent of each output given the inputs'.

        A tangent of :class:`DisconnectedType` stands for "no tangent" (``R_op``'s None), both
        in ``tangents`` and in the result; an op may define this or ``R_op``.
        """
        eval_points = [None if isinstance(t.type, DisconnectedType) else t for t in tangents]
        results = self.R_op(inputs, eval_points)
        return [disconnected_type() if r is None else r for r in results]

    def prepare_node(
        self, node: Apply, storage_map: StorageMap | None, compute_map: ComputeMap | None, impl
    ) -> None:
        """Hook run once per node before its thunk is made (precompute per-node state here)."""

    def make_py_thunk(
        self,
        node: Apply,
        storage_map: StorageMap,
        compute_map: ComputeMap,
        no_recycling: Sequence[Variable],
        debug: bool = False,
    ) -> Thunk:
        """A thunk calling ``perform`` (or ``debug_perform`` when ``debug``) on the node's cells."""
        input_cells = [storage_map[v] for v in node.inputs]
        output_cells = [storage_map[v] for v in node.outputs]
        computed_flags = [compute_map[v] for v in node.outputs]
        fresh_cells = [storage_map[v] for v in node.outputs if v in no_recycling]
        perform = self.debug_perform if debug and hasattr(self, "debug_perform") else self.perform

        def thunk() -> None:
            for cell in fresh_cells:
                cell[0] = None
            perform(node, [cell[0] for cell in input_cells], output_cells)
            for flag in computed_flags:
                flag[0] = True

        thunk.inputs = input_cells  # type: ignore[attr-defined]
        thunk.outputs = output_cells  # type: ignore[attr-defined]
        thunk.perform = perform  # type: ignore[attr-defined]
        thunk.lazy = False  # type: ignore[attr-defined]
        return thunk

    def make_thunk(
        self,
        node: Apply,
        storage_map: StorageMap,
        compute_map: ComputeMap,
        no_recycling: Sequence[Variable],
        impl: str | None = None,
    ) -> Thunk:
        """Return a zero-argument callable computing ``node`` from its storage cells.

        The thunk reads inputs from ``storage_map``, writes outputs there, and marks them
        computed in ``compute_map``. Outputs listed in ``no_recycling`` start from an empty cell.
        Ops that override this method do not need ``perform``.

        A thunk carrying a ``perform`` attribute (a function with ``perform``'s signature that
        computes from the values it is given, as the base thunk's does) lets the VM run the
        node on each call's own values, so that concurrent calls proceed in parallel; any
        other thunk is run through its cells, one call at a time.
        """
        self.prepare_node(node, storage_map, compute_map, impl)
        return self.make_py_thunk(node, storage_map, compute_map, no_recycling, impl == "debug")

    def __str__(self) -> str:
        return type(self).__name__

    __str__._props_default = True  # type: ignore[attr-defined]  # props may replace it

    def __repr__(self) -> str:
        return str(self)


def inner_function_thunk(
    node: Apply, storage_map: StorageMap, compute_map: ComputeMap, perform: Callable, fn: Any
) -> Thunk:
    """The thunk of an inner-graph op whose ``perform(node, inputs, output_storage)`` runs the
    compiled inner function ``fn``: it reads the node's cells, marks the outputs computed, and
    carries ``fn`` (``inner_function``) for the linkers that call it from a frame of their own."""
    input_cells = [storage_map[v] for v in node.inputs]
    output_cells = [storage_map[v] for v in node.outputs]
    flags = [compute_map[v] for v in node.outputs]

    def thunk() -> None:
        perform(node, [cell[0] for cell in input_cells], output_cells)
        for flag in flags:
            flag[0] = True

    perform.inner_function = fn  # type: ignore[attr-defined]
    thunk.perform = perform  # type: ignore[attr-defined]
    thunk.inputs = input_cells  # type: ignore[attr-defined]
    thunk.outputs = output_cells  # type: ignore[attr-defined]
    thunk.lazy = False  # type: ignore[attr-defined]
    thunk.inner_function = fn  # type: ignore[attr-defined]
    return thunk


def get_connection_pattern(node: Apply) -> list[list[bool]]:
    """``node.op.connection_pattern(node)``, or all-connected when the op does not define it."""
    pattern = getattr(node.op, "connection_pattern", None)
    if pattern is None:
        return [[True] * len(node.outputs) for _ in node.inputs]
    return pattern(node)


class HasInnerGraph:
    """Mixin for ops that carry a graph of their own (composite scalar ops, OpFromGraph, ...)."""

    @property
    def fn(self) -> Any:
        raise MethodNotDefined("fn", type(self))

    @property
    def inner_inputs(self) -> list[Variable]:
        raise MethodNotDefined("inner_inputs", type(self))

    @property
    def inner_outputs(self) -> list[Variable]:
        raise MethodNotDefined("inner_outputs", type(self))

    def clone(self) -> HasInnerGraph:
        raise MethodNotDefined("clone", type(self))


class StoredInnerGraph(HasInnerGraph):
    """``HasInnerGraph`` for ops that keep their inner graph as the lists ``self._inputs`` and
    ``self._outputs`` (Scan, OpFromGraph, the optimisation ops): the accessors, once."""

    _inputs: list[Variable]
    _outputs: list[Variable]

    @property
    def inner_inputs(self) -> list[Variable]:
        return self._inputs

    @property
    def inner_outputs(self) -> list[Variable]:
        return self._outputs

    @property
    def fgraph(self) -> FunctionGraph:
        """A copy of the inner graph as a FunctionGraph (for inspection: the op's own
        variables are left as they are)."""
        return FunctionGraph(self._inputs, self._outputs, clone=True)
