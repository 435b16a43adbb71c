"""The default pipeline as a whole: random graphs keep their values; the phases are in order."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import arignote
import arignote.tensor as pt
from arignote.compile.pipeline import PIPELINES, make_pipeline
from arignote.config import config
from arignote.graph.basic import ancestors

NO_REWRITES = arignote.Mode(optimizer=None)

# Total functions on [-2, 2] (no domain errors, no overflow), so values compare exactly enough.
UNARY = {
    "neg": lambda a: -a,
    "exp": lambda a: pt.exp(pt.tanh(a)),
    "log1p_abs": lambda a: pt.log(1 + abs(a)),
    "sqr": pt.sqr,
    "sigmoid": pt.sigmoid,
    "softplus": pt.softplus,
    "log_sigmoid": lambda a: pt.log(pt.sigmoid(a)),
    "pow2": lambda a: a**2,
    "pow3": lambda a: a**3,
    "times_one": lambda a: a * 1,
    "plus_zero": lambda a: a + 0,
    "double": lambda a: a * 2,
    "neg_neg": lambda a: pt.neg(pt.neg(a)),
    "abs_neg": lambda a: abs(-a),
    "transpose": lambda a: a.T,
    "to_float32": lambda a: a.astype("float32"),
}
BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / (1.5 + pt.tanh(b)),
    "max": pt.maximum,
    "sub_self": lambda a, b: (a - b) - (a - b),
    "add_neg": lambda a, b: a + -b,
    "chain": lambda a, b: (a + b) + (b * 3) + 1,
}


def _axis(a, k):
    """Axis ``k`` of ``a``, or every axis when ``a`` has fewer (a reduction made it 0-d)."""
    return k if a.type.ndim > k else None


REDUCE = {
    "sum0": lambda a: a.sum(axis=_axis(a, 0), keepdims=True),
    "sum1": lambda a: a.sum(axis=_axis(a, 1), keepdims=True),
    "max1": lambda a: a.max(axis=_axis(a, 1), keepdims=True),
    "mean0": lambda a: a.mean(axis=_axis(a, 0), keepdims=True),
    "sum_all": lambda a: a.sum(),
}


def _leaves():
    """The inputs of every drawn graph: 3x3 (the lengths are unknown to the graph), a column,
    a float32 row, small integers and a constant, so that results broadcast and mix dtypes."""
    return {
        "a": pt.dmatrix("a"),
        "col": pt.dcol("col"),
        "row": pt.tensor("row", dtype="float32", shape=(1, None)),
        "ints": pt.tensor("ints", dtype="int8", shape=(None, None)),
        "c": pt.constant(np.linspace(-1, 1, 9).reshape(3, 3)),
    }


LEAF_VALUES = {
    "a": lambda rng: rng.uniform(-2, 2, (3, 3)),
    "col": lambda rng: rng.uniform(-2, 2, (3, 1)),
    "row": lambda rng: rng.uniform(-2, 2, (1, 3)).astype("float32"),
    "ints": lambda rng: rng.integers(-3, 4, (3, 3)).astype("int8"),
}


@st.composite
def graphs(draw, max_steps=8):
    """A random DAG over the leaves: each step applies an op to values drawn from everything
    built so far (so intermediate values get several clients), and one or two of the values
    become outputs (so fusion makes multi-output nodes)."""
    steps = []
    size = len(_leaves())
    for _ in range(draw(st.integers(1, max_steps))):
        kind = draw(st.sampled_from(["unary", "binary", "reduce"]))
        table = {"unary": UNARY, "binary": BINARY, "reduce": REDUCE}[kind]
        name = draw(st.sampled_from(sorted(table)))
        operands = [draw(st.integers(0, size - 1)) for _ in range(2 if kind == "binary" else 1)]
        steps.append((kind, name, operands))
        size += 1
    extra = draw(st.integers(0, size - 1))
    return steps, extra


def _build(steps, extra):
    leaves = _leaves()
    pool = list(leaves.values())
    for kind, name, operands in steps:
        args = [pool[k] for k in operands]
        if kind == "binary":
            pool.append(BINARY[name](*args))
        elif kind == "unary":
            pool.append(UNARY[name](*args))
        else:
            pool.append(REDUCE[name](*args))
    inputs = [v for k, v in leaves.items() if k in LEAF_VALUES]
    outputs = [pool[-1]] if extra in (len(pool) - 1,) else [pool[-1], pool[extra]]
    return inputs, outputs


def _has_float32_ancestor(out) -> bool:
    return any(getattr(v.type, "dtype", None) == "float32" for v in ancestors([out]))


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
@given(graphs())
def test_default_pipeline_preserves_values(graph):
    inputs, outputs = _build(*graph)
    rewritten = arignote.function(inputs, outputs, on_unused_input="ignore")
    reference = arignote.function(inputs, outputs, mode=NO_REWRITES, on_unused_input="ignore")
    rng = np.random.default_rng(len(graph[0]))
    for _ in range(2):
        values = [LEAF_VALUES[v.name](rng) for v in inputs]
        copies = [v.copy() for v in values]
        expected = reference(*values)
        for out, got, want in zip(outputs, rewritten(*copies), expected):
            want = np.asarray(want)
            assert np.asarray(got).dtype == want.dtype
            # a float64 result of float32 intermediates is only as precise as they are (sums
            # of float32 terms in canonical order, log1p(x) for log(1 + x))
            tight = want.dtype == np.float64 and not _has_float32_ancestor(out)
            np.testing.assert_allclose(got, want, rtol=1e-9 if tight else 1e-5, atol=1e-12)
        for value, copy in zip(values, copies):  # in-place rewrites never touch the inputs
            np.testing.assert_array_equal(copy, value)
    assert len(rewritten.maker.fgraph.apply_nodes) <= max(
        len(reference.maker.fgraph.apply_nodes), 1
    )


def test_fast_run_phases_are_listed_in_order():
    names = [p.name for p in PIPELINES["fast_run"]]
    assert names == [
        "merge",
        "canonicalize",
        "stabilize",
        "specialize",
        "uncanonicalize",
        "fusion",
        "inplace",
        "final_merge",
    ]


def test_pipeline_phases_can_be_excluded_and_added():
    assert "fusion" not in [str(r) for r in make_pipeline("fast_run", exclude=["fusion"]).rewriters]
    x = pt.dvector("x")
    fused = arignote.function([x], pt.exp(x) + 1, mode=arignote.Mode(optimizer="fast_compile"))
    assert len(fused.maker.fgraph.apply_nodes) == 2
    mode = arignote.Mode(optimizer="fast_compile", include=("fusion",))
    assert len(arignote.function([x], pt.exp(x) + 1, mode=mode).maker.fgraph.apply_nodes) == 1


def _w6(n):
    """Workload W6 of BENCHMARKS.md: sum_{i<n} (x*c_i + exp(x*d_i)), built as a deep chain."""
    rng = np.random.default_rng(0)
    c, d = rng.normal(size=n), rng.normal(size=n) * 0.1
    x = pt.dvector("x")
    total = x * c[0] + pt.exp(x * d[0])
    for i in range(1, n):
        total = total + (x * c[i] + pt.exp(x * d[i]))
    value = np.linspace(-1, 1, 7)
    expected = sum(value * ci + np.exp(value * di) for ci, di in zip(c, d))
    return x, total, value, expected


def test_deep_elementwise_chain_compiles_to_one_node():
    x, total, value, expected = _w6(300)
    with config.change_flags(check_integrity=False):  # an O(graph) check after each rewrite
        fn = arignote.function([x], total)
    assert len(fn.maker.fgraph.apply_nodes) == 1
    np.testing.assert_allclose(fn(value), expected)


@pytest.mark.slow
def test_w6_with_4000_terms_compiles_and_runs():
    """28000 nodes (timings: bench/compile_scaling.py and BENCHMARKS.md; none asserted here)."""
    x, total, value, expected = _w6(4000)
    with config.change_flags(check_integrity=False):
        fn = arignote.function([x], total)
    np.testing.assert_allclose(fn(value), expected)
