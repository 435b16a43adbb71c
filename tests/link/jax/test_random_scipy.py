"""JAX samplers of the scipy.stats-backed distributions follow the same law as the VM's draws."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="the JAX backend needs jax (pip install arignote[jax])")
import scipy.stats  # noqa: E402

import arignote  # noqa: E402
import arignote.tensor.random as ptr  # noqa: E402

CASES = [
    (ptr.t, (3.0, 1.0, 2.0)),
    (ptr.invgamma, (3.0, 2.0)),
    (ptr.gengamma, (2.0, 1.5, 3.0)),
    (ptr.truncexpon, (2.0, 1.0, 2.0)),
    (ptr.betabinom, (10, 2.0, 3.0)),
]


@pytest.mark.parametrize("draw, params", CASES, ids=[c[0].__name__ for c in CASES])
def test_jax_draws_have_the_vm_distribution(draw, params):
    def sample(mode):
        rng = arignote.shared(np.random.default_rng(0))
        return np.asarray(arignote.function([], draw(*params, size=4000, rng=rng), mode=mode)())

    on_jax, on_vm = sample("JAX"), sample("FAST_RUN")
    assert on_jax.dtype == on_vm.dtype
    # two-sample Kolmogorov-Smirnov: the same law (the numbers themselves differ)
    assert scipy.stats.ks_2samp(on_jax, on_vm).pvalue > 1e-4
