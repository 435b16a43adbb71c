"""Linkers turn a FunctionGraph into something callable; thunks and error reporting."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from arignote.graph.basic import Apply, Constant, Variable
from arignote.graph.fg import FunctionGraph
from arignote.graph.utils import format_trace


class Linker:
    """Makes thunks for a FunctionGraph. ``accept`` binds a graph; ``make_thunk`` links it."""

    fgraph: FunctionGraph | None = None

    def accept(
        self,
        fgraph: FunctionGraph,
        no_recycling: Sequence[Variable] | None = None,
        profile: Any = None,
    ) -> Linker:
        raise NotImplementedError(f"{type(self).__name__} must define accept()")

    def make_thunk(
        self,
        input_storage: list | None = None,
        output_storage: list | None = None,
        storage_map: dict | None = None,
    ) -> tuple:
        """Return ``(fn, input_storage, output_storage, thunks, order)``."""
        raise NotImplementedError(f"{type(self).__name__} must define make_thunk()")

    def clone(self, allow_gc: bool | None = None) -> Linker:
        raise NotImplementedError(f"{type(self).__name__} must define clone()")


def make_storage_map(
    fgraph: FunctionGraph,
    input_storage: Sequence[list] | None,
    output_storage: Sequence[list] | None,
    storage_map: dict | None,
) -> tuple[dict, list, list]:
    """One-element storage cells for every variable: the given input cells, constants filled."""
    storage_map = {} if storage_map is None else storage_map
    if input_storage is None:
        input_storage = [[None] for _ in fgraph.inputs]
    if len(input_storage) != len(fgraph.inputs):
        raise ValueError(
            f"{len(input_storage)} input cells given for {len(fgraph.inputs)} graph inputs"
        )
    for var, cell in zip(fgraph.inputs, input_storage):
        storage_map[var] = cell
    for var in fgraph.variables:
        if var not in storage_map:
            storage_map[var] = [var.data if isinstance(var, Constant) else None]
    if output_storage is not None:
        for var, cell in zip(fgraph.outputs, output_storage):
            if var not in fgraph.inputs and not isinstance(var, Constant):
                storage_map[var] = cell
    output_storage = [storage_map[var] for var in fgraph.outputs]
    return storage_map, list(input_storage), output_storage


def make_compute_map(fgraph: FunctionGraph, storage_map: dict) -> dict:
    """``compute_map[var] = [computed?]``: inputs and constants count as computed."""
    known = set(fgraph.inputs)
    return {
        var: [var in known or isinstance(var, Constant) or var.owner is None] for var in storage_map
    }


def describe_value(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"array(shape={value.shape}, dtype={value.dtype})"
    if isinstance(value, np.generic):
        return f"{type(value).__name__}({value})"
    return type(value).__name__


def raise_with_op(
    fgraph: FunctionGraph | None,
    node: Apply,
    error: BaseException,
    storage_map: dict | None = None,
    position: int | None = None,
) -> None:
    """Re-raise ``error`` with a description of the node that raised it.

    The message gains the Apply node, its input types, the shapes of the input values, and
    where user code created the node's output. The exception type is kept, so callers can still
    catch ``ValueError`` and friends.
    """
    lines = [f"Apply node that caused the error: {node}"]
    if position is not None:
        lines.append(f"Toposort index: {position}")
    lines.append("Inputs types: " + str([i.type for i in node.inputs]))
    if storage_map is not None:
        values = [storage_map[i][0] if i in storage_map else None for i in node.inputs]
        lines.append("Inputs shapes: " + str([getattr(v, "shape", "no shape") for v in values]))
        lines.append("Inputs values: " + str([describe_value(v) for v in values]))
    traces = [getattr(o.tag, "trace", None) for o in node.outputs]
    created = next((t for t in traces if t), None)
    lines.append("Created at: " + format_trace(created))
    details = "\n".join(lines)
    error.__arignote_node__ = node  # type: ignore[attr-defined]
    if (
        len(error.args) == 1
        and isinstance(error.args[0], str)
        and not getattr(error, "_arignote_described", False)
    ):
        error.args = (f"{error.args[0]}\n{details}",)
        error._arignote_described = True  # type: ignore[attr-defined]
    elif not getattr(error, "_arignote_described", False):
        error.add_note(details)
        error._arignote_described = True  # type: ignore[attr-defined]
    raise error.with_traceback(error.__traceback__)


def gc_plan(fgraph: FunctionGraph, order: list[Apply], storage_map: dict) -> list[list[list]]:
    """For each node in ``order``, the cells that no later node (nor the result) needs."""
    keep = set(fgraph.inputs) | set(fgraph.outputs)
    last_use: dict[Variable, int] = {}
    for position, node in enumerate(order):
        for var in node.inputs:
            last_use[var] = position
        for var in node.outputs:
            last_use.setdefault(var, position)  # unused outputs are freed at once
    plan: list[list[list]] = [[] for _ in order]
    for var, position in last_use.items():
        if var in keep or isinstance(var, Constant) or var.owner is None:
            continue
        plan[position].append(storage_map[var])
    return plan


def thunk_for(
    node: Apply, storage_map: dict, compute_map: dict, no_recycling: set, impl: str | None = None
) -> Callable[[], Any]:
    """The thunk of ``node`` from its op's ``make_thunk``, with a readable error on failure."""
    try:
        return node.op.make_thunk(node, storage_map, compute_map, no_recycling, impl=impl)
    except Exception as err:
        raise_with_op(None, node, err)
        raise  # unreachable: raise_with_op always raises


def perform_thunk(
    node: Apply, storage_map: dict, compute_map: dict, no_recycling: set, debug: bool = False
) -> Callable[[], Any]:
    """A lean thunk calling ``node.op.perform`` (``debug_perform`` with ``debug``).

    It does exactly what the base ``Op.make_thunk`` thunk does: outputs in ``no_recycling``
    start from an empty cell, ``perform`` runs on the input values, and the outputs are marked
    computed in ``compute_map``. The body is generated once per shape of node (number of
    inputs, which outputs are fresh) and cached, so that a call does no looping: it matters
    for small inputs, where this bookkeeping costs as much as the computation.
    """
    op = node.op
    perform = op.debug_perform if debug and hasattr(op, "debug_perform") else op.perform
    input_cells = [storage_map[v] for v in node.inputs]
    output_cells = [storage_map[v] for v in node.outputs]
    flags = [compute_map[v] for v in node.outputs]
    fresh = tuple(v in no_recycling for v in node.outputs)
    if len(input_cells) <= _MAX_UNROLLED and len(output_cells) <= _MAX_UNROLLED:
        factory = _thunk_factory(len(input_cells), fresh)
        thunk = factory(perform, node, output_cells, *input_cells, *output_cells, *flags)
    else:
        thunk = _generic_thunk(perform, node, input_cells, output_cells, flags, fresh)
    thunk.inputs = input_cells  # type: ignore[attr-defined]
    thunk.outputs = output_cells  # type: ignore[attr-defined]
    thunk.perform = perform  # type: ignore[attr-defined]
    thunk.fresh = [c for c, is_fresh in zip(output_cells, fresh) if is_fresh]  # type: ignore[attr-defined]
    thunk.lazy = False  # type: ignore[attr-defined]
    return thunk


_MAX_UNROLLED = 8
_FACTORIES: dict[tuple, Callable] = {}


def _thunk_factory(n_inputs: int, fresh: tuple[bool, ...]) -> Callable:
    """A function building thunks for nodes of ``n_inputs`` inputs and ``len(fresh)`` outputs.

    The source is fixed by the two numbers and the fresh mask (never by user data), so the
    generated code is the same for every node of that shape.
    """
    key = (n_inputs, fresh)
    factory = _FACTORIES.get(key)
    if factory is None:
        ins = [f"i{k}" for k in range(n_inputs)]
        outs = [f"o{k}" for k in range(len(fresh))]
        flags = [f"f{k}" for k in range(len(fresh))]
        body = [f"        {o}[0] = None" for o, is_fresh in zip(outs, fresh) if is_fresh]
        body.append(f"        perform(node, [{', '.join(f'{i}[0]' for i in ins)}], outputs)")
        body += [f"        {f}[0] = True" for f in flags]
        params = ", ".join(["perform", "node", "outputs", *ins, *outs, *flags])
        source = f"def factory({params}):\n    def thunk():\n" + "\n".join(body)
        source += "\n    return thunk\n"
        namespace: dict[str, Any] = {}
        exec(compile(source, f"<thunk {n_inputs}-{len(fresh)}>", "exec"), namespace)
        factory = _FACTORIES[key] = namespace["factory"]
    return factory


def _generic_thunk(
    perform: Callable, node: Apply, input_cells: list, output_cells: list, flags: list, fresh
) -> Callable[[], None]:
    fresh_cells = [cell for cell, is_fresh in zip(output_cells, fresh) if is_fresh]

    def thunk() -> None:
        for cell in fresh_cells:
            cell[0] = None
        perform(node, [cell[0] for cell in input_cells], output_cells)
        for flag in flags:
            flag[0] = True

    return thunk
