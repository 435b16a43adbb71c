"""Copy a graph while substituting some of its variables: ``clone_replace``, ``graph_replace``,
and ``vectorize_graph``, which re-applies a graph to inputs with extra leading batch dimensions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import singledispatch
from typing import Any

from arignote.graph.basic import Apply, Variable, clone_get_equiv
from arignote.graph.op import Op
from arignote.graph.traversal import ancestors, io_toposort


def _as_pairs(replace: Mapping | Iterable | None) -> list[tuple[Variable, Variable]]:
    if replace is None:
        return []
    pairs = list(replace.items()) if isinstance(replace, Mapping) else list(replace)
    for old, new in pairs:
        if not isinstance(old, Variable):
            raise TypeError(
                f"Replacement keys must be Variables, got {type(old).__name__} ({old!r})"
            )
        if not isinstance(new, Variable):
            raise TypeError(f"Replacement for {old} must be a Variable, got {type(new).__name__}")
    return pairs


def _rebuild(outputs: list[Variable], pairs: list, strict: bool) -> list[Variable]:
    memo: dict = {}
    for old, new in pairs:
        memo[old] = old.type.filter_variable(new, allow_convert=True) if strict else new
    equiv = clone_get_equiv(list(memo), outputs, copy_inputs=False, copy_orphans=False, memo=memo)
    return [equiv[o] for o in outputs]


def clone_replace(
    output: Variable | Sequence[Variable],
    replace: Mapping | Iterable | None = None,
    strict: bool = True,
    **rebuild_kwds: Any,
) -> Variable | list[Variable]:
    """Copy the graph of ``output``, using ``replace[v]`` wherever it used ``v``.

    Unreplaced graph inputs and constants are shared with the original graph; the computation
    downstream of a replaced variable is rebuilt. With ``strict`` each replacement must be
    convertible to the type of the variable it replaces; otherwise nodes are re-made with the
    new types. Returns a variable or a list, matching ``output``.
    """
    single = isinstance(output, Variable)
    outputs = [output] if single else list(output)
    new_outputs = _rebuild(outputs, _as_pairs(replace), strict)
    return new_outputs[0] if single else new_outputs


def graph_replace(
    outputs: Variable | Sequence[Variable],
    replace: Mapping | Iterable,
    *,
    strict: bool = True,
) -> Variable | list[Variable]:
    """Rebuild ``outputs`` with the variables of ``replace`` substituted.

    Unlike :func:`clone_replace`, ``strict`` also requires that every key of ``replace`` is
    actually part of the graph of ``outputs`` (a replacement that would have no effect is an
    error).
    """
    single = isinstance(outputs, Variable)
    outs = [outputs] if single else list(outputs)
    pairs = _as_pairs(replace)
    if strict:
        in_graph = set(ancestors(outs))
        unused = [old for old, _ in pairs if old not in in_graph]
        if unused:
            raise ValueError(f"Replacements for {unused} are not used by the graph of {outs}")
    new_outputs = _rebuild(outs, pairs, strict)
    return new_outputs[0] if single else new_outputs


# -- vectorization ---------------------------------------------------------------------------


@singledispatch
def _vectorize_node(op: Op, node: Apply, *batched_inputs: Variable) -> Apply:
    """How ``op`` applies to inputs with extra leading (batch) dimensions: one rule per op
    class, registered by the layer that defines it (the tensor layer registers a fallback
    for every ``Op`` that wraps it in a ``Blockwise``)."""
    raise NotImplementedError(
        f"vectorize_node: no rule to batch {op} (type {type(op).__name__}) over new dimensions"
    )


def vectorize_node(node: Apply, *batched_inputs: Variable) -> Apply:
    """The node computing ``node``'s outputs for each entry of the batched inputs.

    Each batched input is ``node``'s input with zero or more extra leading dimensions; the
    outputs get the (broadcast) batch dimensions in front of the original ones.
    """
    if len(batched_inputs) != len(node.inputs):
        raise TypeError(
            f"vectorize_node: {node.op} takes {len(node.inputs)} inputs, got {len(batched_inputs)}"
        )
    return _vectorize_node(node.op, node, *batched_inputs)


def vectorize_graph(
    outputs: Variable | Sequence[Variable],
    replace: Mapping[Variable, Variable],
) -> Variable | list[Variable]:
    """Re-apply the graph of ``outputs`` to the batched variables of ``replace``.

    ``replace`` maps variables of the graph (usually its inputs) to versions with extra leading
    batch dimensions; every node downstream of them is rebuilt by :func:`vectorize_node`, so
    that the result computes the original graph once per batch entry, with the batch
    dimensions first. Nodes that depend on no replaced variable are shared unchanged. Returns
    a variable or a list, matching ``outputs``.

    >>> import arignote.tensor as pt
    >>> x = pt.dvector("x")
    >>> y = pt.exp(x).sum()
    >>> xs = pt.dmatrix("xs")
    >>> vectorize_graph(y, {x: xs}).type.ndim
    1
    """
    single = isinstance(outputs, Variable)
    outs = [outputs] if single else list(outputs)
    memo: dict = dict(_as_pairs(replace))
    for node in io_toposort(list(memo), outs):
        new_inputs = [memo.get(i, i) for i in node.inputs]
        if all(new is old for new, old in zip(new_inputs, node.inputs)):
            continue
        new_node = vectorize_node(node, *new_inputs)
        memo.update(zip(node.outputs, new_node.outputs))
    results = [memo.get(o, o) for o in outs]
    return results[0] if single else results


vectorize = vectorize_graph  # PyTensor's older name
