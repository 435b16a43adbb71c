"""IndexMap's inner graph is compiled by the outer function's mode, once per compiled function."""

from __future__ import annotations

import numpy as np
import pytest

import arignote.tensor as pt
from arignote import function
from arignote.compile.debugmode import BadInferShape, DebugMode
from arignote.compile.function import FunctionMaker
from arignote.compile.nanguardmode import NanGuardError, NanGuardMode
from arignote.graph.basic import Apply
from arignote.graph.op import Op
from arignote.scan import IndexMap, index_map


class RowWithWrongShape(Op):
    """2 * row, claiming (in infer_shape) one element more than it returns."""

    __props__ = ()

    def make_node(self, x):
        x = pt.as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] * 2

    def infer_shape(self, fgraph, node, input_shapes):
        return [(input_shapes[0][0] + 1,)]


def _rows_times(x, c):
    """Row i: c * sum(x[i]) + i (its shape comes from c alone, so n = 0 works too)."""
    fn = lambda i, row, c: c * row.sum() + i  # noqa: E731
    return index_map(fn, x.shape[0], sequences=[x], non_sequences=[c])


@pytest.fixture
def compilations(monkeypatch):
    count = []
    create = FunctionMaker.create
    monkeypatch.setattr(
        FunctionMaker, "create", lambda self, *a: count.append(1) or create(self, *a)
    )
    return count


def test_calls_compile_nothing_and_the_op_caches_nothing(compilations, rng):
    x, c = pt.dmatrix("x"), pt.dvector("c")
    out = _rows_times(x, c)
    f = function([x, c], out)
    g = function([x, c], out * 1)
    assert len(compilations) == 6  # per outer function: itself, its inner graph, row shapes
    op = next(n.op for n in f.maker.fgraph.apply_nodes if isinstance(n.op, IndexMap))
    assert not any("compiled" in name for name in vars(op))
    compilations.clear()
    xv, cv = rng.normal(size=(3, 2)), rng.normal(size=2)
    for value in (xv, xv[:0], xv[:1]):  # n = 3, 0 (shapes from the shape graph), 1
        expected = value.sum(axis=1)[:, None] * cv + np.arange(len(value))[:, None]
        np.testing.assert_allclose(f(value, cv), expected)
        np.testing.assert_allclose(g(value, cv), expected)
    assert compilations == []


def test_debug_mode_checks_the_inner_graph(rng):
    x = pt.dmatrix("x")
    out = index_map(lambda i, row: RowWithWrongShape()(row), x.shape[0], sequences=[x])
    xv = rng.normal(size=(3, 2))
    np.testing.assert_allclose(function([x], out)(xv), 2 * xv)  # unchecked
    with pytest.raises(BadInferShape, match="RowWithWrongShape"):
        function([x], out, mode=DebugMode(optimizer="fast_compile"))(xv)


def test_nan_guard_mode_names_the_inner_node():
    x = pt.dvector("x")
    out = index_map(lambda i, row: pt.log(row - 1.0), x.shape[0], sequences=[x])
    f = function([x], out, mode=NanGuardMode(optimizer="fast_compile"))
    np.testing.assert_allclose(f(np.array([2.0, 3.0])), np.log([1.0, 2.0]))
    with pytest.raises(NanGuardError) as info:
        f(np.array([2.0, 0.0]))
    assert not isinstance(info.value.node.op, IndexMap)  # found inside, where it was made
    assert "log" in str(info.value.node)


def test_profiling_reaches_the_inner_graph(rng):
    x, c = pt.dmatrix("x"), pt.dvector("c")
    f = function([x, c], _rows_times(x, c), profile=True)
    for _ in range(2):
        f(rng.normal(size=(4, 2)), rng.normal(size=2))
    (inner,) = f.profile.inner
    assert inner.fct_callcount == 8  # 2 calls of 4 rows
    assert inner.apply_stats and all(s.calls == 8 for s in inner.apply_stats.values())
    assert "Inner graph:" in f.profile.summary_text()
