"""Random graphs give the same values on the JAX backend as on the Python VM without rewrites.

The graphs are those of the pipeline's own property test (elementwise ops, broadcasting,
reductions, mixed dtypes), plus shape-changing and indexing steps that exercise the static
shape handling of the JAX backend.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("jax", reason="the JAX backend needs jax (pip install arignote[jax])")

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import arignote
import arignote.tensor as pt
from tests.tensor.rewriting import test_pipeline as pipeline

NO_REWRITES = arignote.Mode(optimizer=None)

# Steps that change shapes: their lengths come from the inputs' shapes, static while tracing.
RESHAPE = {
    "flatten_back": lambda a: a.flatten().reshape(a.shape),
    "tile_rows": lambda a: pt.concatenate([a, a[::-1]], axis=0)[: a.shape[0]],
    "split_join": lambda a: pt.concatenate([a[:, 1:], a[:, :1]], axis=1),
    "matmul_self": lambda a: pt.dot(a, a.T) / 10,
    "cumsum": lambda a: pt.cumsum(a, axis=1) / 3,
    "sort": lambda a: pt.sort(a, axis=0),
    "softmax": lambda a: pt.special.softmax(a, axis=1),
    "logsumexp": lambda a: pt.logsumexp(a, axis=0, keepdims=True),
}


@st.composite
def graphs(draw):
    steps, extra = draw(pipeline.graphs(max_steps=6))
    reshapes = draw(st.lists(st.sampled_from(sorted(RESHAPE)), max_size=2))
    return steps, extra, reshapes


def _build(steps, extra, reshapes):
    inputs, outputs = pipeline._build(steps, extra)
    last = outputs[0]
    for name in reshapes:
        if last.type.ndim == 2:
            last = RESHAPE[name](last)
    return inputs, [last, *outputs[1:]]


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
@given(graphs())
def test_jax_backend_matches_the_python_vm(graph):
    inputs, outputs = _build(*graph)
    jax_fn = arignote.function(inputs, outputs, mode="JAX", on_unused_input="ignore")
    reference = arignote.function(inputs, outputs, mode=NO_REWRITES, on_unused_input="ignore")
    rng = np.random.default_rng(len(graph[0]))
    values = [pipeline.LEAF_VALUES[v.name](rng) for v in inputs]
    for got, want in zip(jax_fn(*values), reference(*values)):
        want = np.asarray(want)
        got = np.asarray(got)
        assert got.dtype == want.dtype and got.shape == want.shape
        tight = want.dtype == np.float64
        np.testing.assert_allclose(got, want, rtol=1e-9 if tight else 1e-5, atol=1e-12)
