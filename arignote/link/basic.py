"""Linkers, the runner protocol, the linker registry, and error reporting.

A *linker* turns a rewritten FunctionGraph into a *runner*. ``Function`` talks to the runner
only, through four methods:

- ``run(inputs) -> outputs``: the values of the graph's outputs from the values of its inputs
  (both in the graph's order). It may raise an exception not yet described;
- ``fail(error)``: re-raise ``error`` described with the node that raised it, when known;
- ``free()``: drop whatever the runner keeps between calls (memory);
- ``report_profile(stats)``: move the measurements made since the last report into a
  ``ProfileStats`` (no-op when not profiling).

A runner keeps no per-call state: every call works on a frame of its own, so one compiled
function may be called from several threads at once.

Each linker also declares the rewrites it needs and those it cannot take
(``required_rewrites``, ``incompatible_rewrites``: phase names or rewrite tags such as
``"inplace"`` and ``"fusion"``); ``Mode`` builds the rewrite pipeline from that declaration.
Linkers are registered by name with :func:`register_linker`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from arignote.config import config
from arignote.graph.basic import Apply, Variable
from arignote.graph.fg import FunctionGraph
from arignote.graph.utils import format_trace


class Linker:
    """Turns a FunctionGraph into a runner. ``accept`` binds a graph; ``make_runner`` links it.

    Attributes
    ----------
    required_rewrites
        Phases or rewrite tags this linker needs in the pipeline (added to a mode's includes).
    incompatible_rewrites
        Phases or rewrite tags this linker cannot take (excluded from the pipeline).
    copies_shared_generators
        True when the compiled code keeps random state of another kind than NumPy's
        (JAX keys): each function then draws from its own copy of a shared generator, and
        the shared variable keeps its NumPy ``Generator`` for the other functions using it.
    """

    fgraph: FunctionGraph | None = None
    required_rewrites: tuple[str, ...] = ()
    incompatible_rewrites: tuple[str, ...] = ()
    copies_shared_generators: bool = False

    def accept(
        self,
        fgraph: FunctionGraph,
        no_recycling: Sequence[Variable] | None = None,
        profile: Any = None,
    ) -> Linker:
        """Bind ``fgraph`` (a linker already bound to another graph returns a clone)."""
        if self.fgraph is not None and self.fgraph is not fgraph:
            return self.clone().accept(fgraph, no_recycling, profile)
        self.fgraph = fgraph
        self.no_recycling = list(no_recycling or [])
        self.profile = profile
        return self

    def make_runner(self) -> Runner:
        """The runner of the accepted graph."""
        raise NotImplementedError(f"{type(self).__name__} must define make_runner()")

    def clone(self, allow_gc: bool | None = None) -> Linker:
        """A fresh linker with the same settings, bound to no graph."""
        raise NotImplementedError(f"{type(self).__name__} must define clone()")

    def _graph(self) -> FunctionGraph:
        if self.fgraph is None:
            raise ValueError(f"{type(self).__name__}: call accept(fgraph) first")
        return self.fgraph


class Runner:
    """The protocol ``Function`` uses (see the module docstring); defaults for the optional parts.

    Attributes
    ----------
    fgraph
        The graph run.
    order
        The Apply nodes in the order they run (empty when the linker does not expose one).
    """

    fgraph: FunctionGraph
    order: list[Apply]

    def run(self, inputs: Sequence[Any]) -> list[Any]:
        raise NotImplementedError(f"{type(self).__name__} must define run()")

    def fail(self, error: BaseException) -> None:
        raise error

    def free(self) -> None:
        """Nothing is kept between calls by default."""

    def report_profile(self, stats: Any) -> None:
        """Nothing is measured by default."""


# -- the registry ---------------------------------------------------------------------------

#: Linker factories by name (``Mode(linker=name)``); backends add theirs with register_linker.
LINKERS: dict[str, Callable[[], Linker]] = {}


def register_linker(name: str, factory: Callable[[], Linker]) -> None:
    """Make ``Mode(linker=name)`` build its linker with ``factory`` (a class or a function)."""
    LINKERS[name] = factory


def linker_named(name: str) -> Linker:
    """A fresh linker registered under ``name``."""
    factory = LINKERS.get(name)
    if factory is None:
        raise ValueError(f"Unknown linker {name!r}; known: {sorted(LINKERS)}")
    return factory()


# -- errors ---------------------------------------------------------------------------------


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
    storage_map: Mapping | None = None,
    position: int | None = None,
) -> None:
    """Re-raise ``error`` with a description of the node that raised it.

    The message gains the Apply node, its input types, the shapes of the input values (read
    from ``storage_map``, a mapping from variables to one-element cells), and where user code
    created the node's output. The exception type is kept, so callers can still catch
    ``ValueError`` and friends. An error already described is re-raised unchanged.
    """
    if getattr(error, "_arignote_described", False):
        raise error
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
    lines += _verbosity_lines(node)
    _attach(error, node, "\n".join(lines))
    raise error.with_traceback(error.__traceback__)


def _verbosity_lines(node: Apply) -> list[str]:
    """PyTensor's ``exception_verbosity`` flag: "low" hints at "high", which prints the node
    and its inputs (with the nodes computing them) one per line."""
    if config.exception_verbosity != "high":
        return ["HINT: Use the flag exception_verbosity=high for a debug print of this Apply node."]
    lines = ["Debug print of the apply node:", f"{node} <{node.outputs[0].type}>"]
    for inp in node.inputs:
        source = f" computed by {inp.owner}" if inp.owner is not None else ""
        lines.append(f" |{inp} <{inp.type}>{source}")
    return lines


def _attach(error: BaseException, node: Apply, details: str) -> None:
    error.__arignote_node__ = node  # type: ignore[attr-defined]
    if len(error.args) == 1 and isinstance(error.args[0], str):
        error.args = (f"{error.args[0]}\n{details}",)
    else:
        error.add_note(details)
    error._arignote_described = True  # type: ignore[attr-defined]


def thunk_for(
    node: Apply, storage_map: dict, compute_map: dict, no_recycling: set, impl: str | None = None
) -> Callable[[], Any]:
    """The thunk of ``node`` from its op's ``make_thunk``, with a readable error on failure."""
    try:
        return node.op.make_thunk(node, storage_map, compute_map, no_recycling, impl=impl)
    except Exception as err:
        raise_with_op(None, node, err)
        raise  # unreachable: raise_with_op always raises
