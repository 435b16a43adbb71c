"""Copy a graph while substituting some of its variables: ``clone_replace``, ``graph_replace``."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from arignote.graph.basic import Variable, clone_get_equiv
from arignote.graph.traversal import ancestors


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
