"""Shared helper of the JAX control-flow tests: a graph compiled on the VM and in JAX mode."""

from __future__ import annotations

import numpy as np

import arignote


def check_vm_and_jax_agree(inputs, outputs, args, rtol=1e-10, **kwargs):
    """Compile ``outputs`` both ways, call both on ``args`` and check they agree; the results."""
    vm = arignote.function(inputs, outputs, **kwargs)
    jx = arignote.function(inputs, outputs, mode="JAX", **kwargs)
    expected, got = vm(*args), jx(*args)
    many = isinstance(outputs, (list, tuple))
    for e, g in zip(expected if many else [expected], got if many else [got]):
        assert np.shape(g) == np.shape(e)
        np.testing.assert_allclose(np.asarray(g), e, rtol=rtol, atol=1e-12)
    return expected, got
