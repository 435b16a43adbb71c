"""``MRG_RandomStreams`` in JAX mode draws the same numbers as the Python VM, call after call:
the MRG31k3p state lives in shared variables advanced by their default updates."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("jax", reason="the JAX backend needs jax (pip install arignote[jax])")

import arignote
from arignote.sandbox.rng_mrg import MRG_RandomStreams
from tests.link.jax.compare import VM


def _draws(mode, dtype):
    srng = MRG_RandomStreams(2024)
    uniform = srng.uniform((5, 13), dtype=dtype)  # 10 streams: 6.5 rounds, the last partial
    few = srng.uniform((3,), low=-2.0, high=1.0, dtype=dtype, nstreams=7)  # fewer values
    normal = srng.normal((4, 3), avg=1.0, std=2.0, dtype=dtype)
    coins = srng.binomial((9,), p=0.3, dtype="int64")
    fn = arignote.function([], [uniform, few, normal, coins], mode=mode)
    calls = [[np.asarray(v) for v in fn()] for _ in range(3)]
    states = [np.asarray(state.get_value()) for state, _ in srng.updates()]
    return calls, states


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_mrg_draws_equal_the_vm_across_calls(dtype):
    (jax_calls, jax_states), (vm_calls, vm_states) = _draws("JAX", dtype), _draws(VM, dtype)
    for got, expected in zip(jax_calls, vm_calls, strict=True):
        for k, (g, e) in enumerate(zip(got, expected, strict=True)):
            assert g.dtype == e.dtype and g.shape == e.shape
            if k in (0, 3):  # the draws themselves are the same numbers, bit for bit
                np.testing.assert_array_equal(g, e)
            else:  # scaled or through Box-Muller: XLA may fuse (FMA) or round the last bit
                tol = 1e-12 if dtype == "float64" else 1e-6
                np.testing.assert_allclose(g, e, rtol=tol, atol=tol)
    assert not np.array_equal(jax_calls[0][0], jax_calls[1][0])  # the state advanced
    for g, e in zip(jax_states, vm_states, strict=True):
        assert g.dtype == np.int32
        np.testing.assert_array_equal(g, e)
