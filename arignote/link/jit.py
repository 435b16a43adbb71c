"""The base of whole-graph (JIT) backends: one rewritten graph becomes one callable.

A backend subclasses :class:`JITLinker`, implements :meth:`JITLinker.fgraph_convert` and
declares the rewrites it needs and those it cannot take; it registers itself by name with
:func:`~arignote.link.basic.register_linker`::

    class MyLinker(JITLinker):
        incompatible_rewrites = ("inplace", "fusion")

        def fgraph_convert(self, fgraph, **kwargs):
            ...  # a callable(*input_arrays) -> tuple of output arrays

    register_linker("mine", MyLinker)

The callable must be safe to call from several threads at once (pure functions of their
arguments are).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from arignote.graph.fg import FunctionGraph
from arignote.link.basic import Linker, Runner


class JITLinker(Linker):
    """A linker compiling the whole graph into one callable (see the module docstring)."""

    def __init__(self, **convert_kwargs: Any) -> None:
        self.convert_kwargs = convert_kwargs
        self.fgraph = None
        self.no_recycling: list = []
        self.profile: Any = None

    def fgraph_convert(self, fgraph: FunctionGraph, **kwargs: Any) -> Callable[..., tuple]:
        """``callable(*input_arrays) -> tuple_of_output_arrays`` computing ``fgraph``."""
        raise NotImplementedError(f"{type(self).__name__} must define fgraph_convert()")

    def make_runner(self) -> JITRunner:
        fgraph = self._graph()
        return JITRunner(fgraph, self.fgraph_convert(fgraph, **self.convert_kwargs), str(self))

    def clone(self, allow_gc: bool | None = None) -> JITLinker:
        return type(self)(**self.convert_kwargs)

    def __str__(self) -> str:
        return type(self).__name__


class JITRunner(Runner):
    """Runs a converted graph: inputs in, outputs out; failures name the backend."""

    def __init__(self, fgraph: FunctionGraph, function: Callable[..., tuple], name: str) -> None:
        self.fgraph = fgraph
        self.order = fgraph.toposort()
        self.function = function
        self.name = name

    def run(self, inputs: Sequence[Any]) -> list[Any]:
        return list(self.function(*inputs))

    def fail(self, error: BaseException) -> None:
        if not getattr(error, "_arignote_described", False):
            error.add_note(f"Raised by the function {self.name} compiled from the whole graph")
            error._arignote_described = True  # type: ignore[attr-defined]
        raise error
