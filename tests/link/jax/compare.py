"""One check shared by the JAX conversion tests: a graph compiled in JAX mode computes what
the Python VM computes (``perform`` of every op, no rewrites), output by output."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import arignote
from arignote.compile.mode import Mode

VM = Mode(linker="vm", optimizer=None)


def assert_jax_matches_vm(
    inputs: Sequence,
    outputs: Sequence,
    values: Sequence,
    rtol: float = 1e-10,
    atol: float = 1e-12,
    calls: int = 1,
) -> list:
    """Compile ``outputs`` both ways, call each ``calls`` times on ``values`` and compare
    every result (dtype, shape and values); return the VM's results of the last call."""
    jax_fn = arignote.function(inputs, outputs, mode="JAX", on_unused_input="ignore")
    vm_fn = arignote.function(inputs, outputs, mode=VM, on_unused_input="ignore")
    for _ in range(calls):
        got, expected = jax_fn(*values), vm_fn(*values)
        for k, (g, e) in enumerate(zip(got, expected, strict=True)):
            g, e = np.asarray(g), np.asarray(e)
            assert g.dtype == e.dtype, f"output {k}: dtype {g.dtype} != {e.dtype}"
            assert g.shape == e.shape, f"output {k}: shape {g.shape} != {e.shape}"
            np.testing.assert_allclose(g, e, rtol=rtol, atol=atol, err_msg=f"output {k}")
    return expected
