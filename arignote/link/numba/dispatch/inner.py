"""Graphs inside graphs: the generated code of a whole graph, with lazy branches, for the
outer graph and for the inner graphs of ``Scan`` and ``OpFromGraph``.

:func:`graph_function` writes one Python function computing a FunctionGraph node by node and
has numba compile it; an inner graph's kernel (``Scan``, ``OpFromGraph``) calls it and stays
native around the nodes it runs in object mode (``basic.with_inner_fallbacks``). A lazy
``IfElse`` becomes a real ``if``: the nodes that only one of its branches needs
(:func:`arignote.graph.lazy.lazy_regions`) are written inside that branch, so the branch not
taken is never computed, as on the Python VM.

Inner graphs are rewritten by :func:`rewrite_inner` with the phases of the ``fast_run``
pipeline a native function gets (in-place rewrites excluded, fusion included), since their
op does not go through ``function``: the order repeats the one of
``arignote.compile.pipeline`` (a layer above, which this package cannot import).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any

from arignote.graph.basic import Apply, Constant, Variable
from arignote.graph.features import ReplaceValidate
from arignote.graph.fg import FunctionGraph
from arignote.graph.lazy import ALWAYS, lazy_regions
from arignote.graph.rewriting.basic import MergeOptimizer
from arignote.graph.rewriting.db import DEFAULT_EXCLUDED, phase_rewriter
from arignote.link.numba.dispatch.basic import (
    NotNative,
    compile_source,
    constant_expression,
    kernel_for,
)
from arignote.link.numba.dispatch.random import drawing_form
from arignote.tensor.type import TensorType

#: The rewrite phases of a native inner graph, in the order of the ``fast_run`` pipeline.
_PHASES = ("canonicalize", "stabilize", "specialize", "uncanonicalize", "fusion")
_EXCLUDED = (*DEFAULT_EXCLUDED, "inplace")

#: Qualified name of the one lazy op written natively (its inputs: condition, then, else).
IFELSE = "arignote.ifelse.IfElse"


def rewrite_inner(inputs: Sequence[Variable], outputs: Sequence[Variable]) -> FunctionGraph:
    """A rewritten copy of the graph from ``inputs`` to ``outputs`` (see the module docstring)."""
    fgraph = FunctionGraph(list(inputs), list(outputs), clone=True)
    fgraph.attach_feature(ReplaceValidate())
    MergeOptimizer().rewrite(fgraph)
    for tag in _PHASES:
        phase_rewriter(tag, exclude=_EXCLUDED).rewrite(fgraph)
    MergeOptimizer().rewrite(fgraph)
    return fgraph


def aliasing_outputs(fgraph: FunctionGraph) -> set[int]:
    """Positions of the outputs of ``fgraph`` that may share memory with an input or a constant:
    one of them itself, or the result of an op returning a view (kernels of other ops return
    fresh arrays)."""
    return {k for k, out in enumerate(fgraph.outputs) if _may_alias(out)}


def _may_alias(var: Variable) -> bool:
    op = var.owner.op if var.owner is not None else None
    return op is None or bool(getattr(op, "view_map", None) or getattr(op, "destroy_map", None))


def graph_function(
    fgraph: FunctionGraph, fresh_inputs: Collection = ()
) -> tuple[Callable, dict[Apply, NotNative]]:
    """``graph(*inputs) -> tuple`` compiled by numba, and the nodes running in object mode.

    A 0-d tensor output leaves as a number (``value[()]``), as in the linker's graph function.
    """
    writer = _Writer(fgraph, fresh_inputs)
    source = writer.source()
    return compile_source(source, "graph", writer.namespace), writer.fallbacks


def is_lazy_graph(fgraph: FunctionGraph) -> bool:
    """Whether ``fgraph`` holds an op that computes only some of its inputs (an ``IfElse``)."""
    return any(getattr(n.op, "lazy_branches", None) is not None for n in fgraph.apply_nodes)


def _qualified(op: Any) -> str:
    return f"{type(op).__module__}.{type(op).__qualname__}"


class _Writer:
    """Writes the source of a graph function; nodes of a lazy branch go inside its ``if``."""

    def __init__(self, fgraph: FunctionGraph, fresh_inputs: Collection = ()) -> None:
        self.fgraph = fgraph
        self.fresh_inputs = frozenset(fresh_inputs)
        self.names: dict[Variable, str] = {v: f"i{k}" for k, v in enumerate(fgraph.inputs)}
        self.namespace: dict[str, Any] = {}
        self.fallbacks: dict[Apply, NotNative] = {}
        self.order = fgraph.toposort()
        self.position = {node: k for k, node in enumerate(self.order)}
        self.regions = lazy_regions(fgraph)

    def source(self) -> str:
        args = ", ".join(self.names[v] for v in self.fgraph.inputs)
        lines = [f"def graph({args}):"]
        lines += self._region(ALWAYS, "    ")
        results = "".join(self._result(v) + ", " for v in self.fgraph.outputs)
        lines.append(f"    return ({results})")
        return "\n".join(lines) + "\n"

    def _region(self, region: Any, indent: str) -> list[str]:
        lines: list[str] = []
        for node in self.order:
            if self.regions.get(node, ALWAYS) != region:
                continue
            if getattr(node.op, "lazy_branches", None) is not None:
                lines += self._branch(node, indent)
            else:
                lines += self._call(node, indent)
        return lines

    def _call(self, node: Apply, indent: str) -> list[str]:
        position = self.position[node]
        kernel, reason = kernel_for(drawing_form(self.fgraph, node, self.fresh_inputs))
        if reason is not None:
            self.fallbacks[node] = reason
        self.namespace[f"k{position}"] = kernel
        args = ", ".join(self._name(v) for v in node.inputs)
        outs = self._outputs(node)
        target = outs[0] if len(outs) == 1 else ", ".join(outs)
        return [f"{indent}{target} = k{position}({args})"]

    def _outputs(self, node: Apply) -> list[str]:
        position = self.position[node]
        outs = [f"v{position}_{j}" for j in range(len(node.outputs))]
        self.names.update(zip(node.outputs, outs))
        return outs

    def _branch(self, node: Apply, indent: str) -> list[str]:
        """``if cond: <then nodes> outs = copies`` and the same for ``else``."""
        if _qualified(node.op) != IFELSE:
            raise NotNative(type(node.op).__name__, "a lazy op other than IfElse")
        n = node.op.n_outs
        condition = self._name(node.inputs[0])
        outs = self._outputs(node)
        lines = [f"{indent}if {condition}[()]:"]
        for label, values in (("then", node.inputs[1 : 1 + n]), ("else", node.inputs[1 + n :])):
            if label == "else":
                lines.append(f"{indent}else:")
            inner = indent + "    "
            lines += self._region((node, label), inner)
            for out, value in zip(outs, values):
                # a fresh value, as IfElse's perform delivers (views only with as_view)
                lines.append(f"{inner}{out} = {self._name(value)}.copy()")
        return lines

    def _name(self, var: Variable) -> str:
        """The expression for ``var`` (constants become globals)."""
        if isinstance(var, Constant):
            return constant_expression(var.data, self.namespace)
        return self.names[var]

    def _result(self, var: Variable) -> str:
        name = self._name(var)
        is_0d = isinstance(var.type, TensorType) and var.type.ndim == 0
        return f"{name}[()]" if is_0d else name
