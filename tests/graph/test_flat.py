"""Flat graphs: FunctionGraphs pickle and deep-copy without recursing node by node."""

from __future__ import annotations

import copy
import pickle

import pytest

from arignote.graph.basic import equal_computations
from arignote.graph.features import ReplaceValidate
from arignote.graph.fg import FunctionGraph
from arignote.graph.flat import FlatGraph
from tests.graph.toy import ToyOp, const, var

twice = ToyOp("twice", nin=1)
add = ToyOp("add", nin=2)


def _chain(depth: int):
    x, y = var("x"), var("y")
    out = x
    for k in range(depth):
        out = twice(out) if k % 2 else add(out, y)
    return x, y, out


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_deep_function_graph_round_trips(how):
    x, y, out = _chain(2000)
    fgraph = FunctionGraph([x, y], [out, add(out, const(2.0))], clone=False)
    fgraph.attach_feature(ReplaceValidate())
    copied = pickle.loads(pickle.dumps(fgraph)) if how == "pickle" else copy.deepcopy(fgraph)
    copied.check_integrity()
    assert len(copied.apply_nodes) == len(fgraph.apply_nodes) == 2001
    assert not set(copied.variables) & set(fgraph.variables)
    assert equal_computations(copied.outputs, fgraph.outputs, copied.inputs, fgraph.inputs)
    assert hasattr(copied, "replace_validate")  # features are re-attached
    assert [v.name for v in copied.inputs] == ["x", "y"]


def test_flat_graph_records_positions_in_topological_order():
    x, y, out = _chain(4)
    flat = FlatGraph([x, y], [out])
    assert flat.inputs == [0, 1]
    seen = set(flat.inputs)
    for _, ins, outs, _ in flat.nodes:
        assert all(i in seen or flat.variables[i][1].get("data") is not None for i in ins)
        seen.update(outs)
    variables = flat.rebuild()
    assert equal_computations([variables[flat.outputs[0]]], [out], variables[:2], [x, y])
