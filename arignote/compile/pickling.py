"""Pickling compiled graphs without recursion.

Pickle follows references depth first, so a graph pickled as linked ``Variable``/``Apply``
objects needs a few stack frames per node along its longest path: a chain of a few hundred
nodes exceeds Python's recursion limit. A compiled function is therefore pickled with its graph
*flattened*: the variables as a list (each saved without its ``owner``), the nodes as
``(op, input indices, output indices)`` in topological order. Unpickling rebuilds the same
structure node by node. The function's ``In``/``Out`` specifications are saved as positions in
that list, so the user's own graphs (which may be just as deep) are not pickled at all. For the
same reason a profiled function is pickled with a fresh profile (its compile times kept, its
per-node measurements, which refer to the original nodes, left behind).
"""

from __future__ import annotations

from typing import Any

from arignote.graph.fg import FunctionGraph
from arignote.graph.flat import FlatGraph


def _rebuild_fgraph(flat: FlatGraph) -> tuple[FunctionGraph, list]:
    variables = flat.rebuild()
    fgraph = FunctionGraph(
        [variables[i] for i in flat.inputs],
        [variables[o] for o in flat.outputs],
        clone=False,
        update_mapping=flat.update_mapping,
    )
    return fgraph, variables


def flat_maker_state(maker: Any) -> dict:
    """The pickled state of a FunctionMaker: its graph flattened, its specs as positions."""
    state = maker.__dict__.copy()
    state.pop("linker", None)
    state["rewrite_trace"] = None  # the history of the rewriting is not needed to run
    if maker.profile is not None:
        state["profile"] = maker.profile.fresh()  # its measurements name the original nodes
    fgraph = maker.fgraph
    flat = FlatGraph(fgraph.inputs, fgraph.outputs)
    flat.update_mapping = fgraph.update_mapping
    reverse_updates = {j: i for i, j in (fgraph.update_mapping or {}).items()}
    inputs, input_refs = [], []
    for j, inp in enumerate(maker.inputs):
        update_ref = (
            flat.index[fgraph.outputs[reverse_updates[j]]] if j in reverse_updates else None
        )
        input_refs.append((flat.index[fgraph.inputs[j]], update_ref))
        inputs.append(_copy_spec(inp, variable=None, update=None))
    output_refs = [flat.index[fgraph.outputs[i]] for i in range(len(maker.outputs))]
    state["inputs"] = inputs
    state["outputs"] = [_copy_spec(out, variable=None) for out in maker.outputs]
    state["fgraph"] = flat
    state["_spec_refs"] = (input_refs, output_refs)
    return state


def restore_maker_state(state: dict) -> dict:
    """Inverse of :func:`flat_maker_state`: rebuild the graph and re-point the specs."""
    state = dict(state)
    fgraph, variables = _rebuild_fgraph(state["fgraph"])
    input_refs, output_refs = state.pop("_spec_refs")
    for spec, (var_ref, update_ref) in zip(state["inputs"], input_refs):
        spec.variable = variables[var_ref]
        spec.update = variables[update_ref] if update_ref is not None else None
    for spec, var_ref in zip(state["outputs"], output_refs):
        spec.variable = variables[var_ref]
    state["fgraph"] = fgraph
    return state


def _copy_spec(spec: Any, **changes: Any) -> Any:
    new = object.__new__(type(spec))
    new.__dict__.update(spec.__dict__)
    new.__dict__.update(changes)
    return new
