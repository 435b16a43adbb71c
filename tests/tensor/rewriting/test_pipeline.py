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

NO_REWRITES = arignote.Mode(optimizer=None)

# Total functions on [-2, 2] (no domain errors, no overflow), so values compare exactly enough.
UNARY = {
    "neg": lambda a: -a,
    "exp": lambda a: pt.exp(pt.tanh(a)),
    "log1p_abs": lambda a: pt.log(1 + abs(a)),
    "sqr": pt.sqr,
    "sigmoid": pt.sigmoid,
    "softplus": pt.softplus,
    "pow2": lambda a: a**2,
    "pow3": lambda a: a**3,
    "times_one": lambda a: a * 1,
    "plus_zero": lambda a: a + 0,
    "double": lambda a: a * 2,
    "neg_neg": lambda a: pt.neg(pt.neg(a)),
    "transpose": lambda a: a.T,
}
BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / (1.5 + pt.tanh(b)),
    "max": pt.maximum,
    "sub_self": lambda a, b: (a - b) - (a - b),
}
REDUCE = {
    "sum0": lambda a: a.sum(axis=0, keepdims=True),
    "sum1": lambda a: a.sum(axis=1, keepdims=True),
    "max1": lambda a: a.max(axis=1, keepdims=True),
    "mean0": lambda a: a.mean(axis=0, keepdims=True),
}


@st.composite
def graphs(draw, depth=4):
    """An expression over two 3x3 matrices and a constant, as a list of construction steps
    (every intermediate stays 3x3, so transposes and reductions always broadcast)."""
    leaves = ["a", "b", "c"]
    steps = draw(
        st.lists(
            st.one_of(
                st.tuples(st.just("unary"), st.sampled_from(sorted(UNARY))),
                st.tuples(st.just("binary"), st.sampled_from(sorted(BINARY))),
                st.tuples(st.just("reduce"), st.sampled_from(sorted(REDUCE))),
            ),
            min_size=1,
            max_size=depth * 2,
        )
    )
    picks = draw(st.lists(st.sampled_from(leaves), min_size=len(steps), max_size=len(steps)))
    return steps, picks


def _build(steps, picks, a, b):
    env = {"a": a, "b": b, "c": pt.constant(np.linspace(-1, 1, 9).reshape(3, 3))}
    current = a
    for (kind, name), pick in zip(steps, picks):
        other = env[pick]
        if kind == "unary":
            current = UNARY[name](current)
        elif kind == "binary":
            current = BINARY[name](current, other)
        else:
            current = REDUCE[name](current) + other  # broadcast back to 3x3
    return current


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
@given(graphs())
def test_default_pipeline_preserves_values(graph):
    steps, picks = graph
    a, b = pt.dmatrices("a", "b")
    out = _build(steps, picks, a, b)
    rewritten = arignote.function([a, b], out, on_unused_input="ignore")
    reference = arignote.function([a, b], out, mode=NO_REWRITES, on_unused_input="ignore")
    rng = np.random.default_rng(len(steps))
    for _ in range(2):
        va, vb = rng.uniform(-2, 2, (3, 3)), rng.uniform(-2, 2, (3, 3))
        expected = reference(va, vb)
        np.testing.assert_allclose(rewritten(va, vb), expected, rtol=1e-9, atol=1e-12)
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
