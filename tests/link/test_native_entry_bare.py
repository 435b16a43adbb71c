"""The native entry point's lean return: a one-output graph returns its value bare (no tuple),
and a 0-d output whose dtype ``np.array`` infers from the number is made without passing it."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt

numba_backend = pytest.importorskip("arignote.link.numba")


@pytest.mark.parametrize(
    ("dtype", "inferred"),
    [("float64", True), ("int64", True), ("bool", True), ("float32", False), ("int32", False)],
)
def test_zero_d_outputs_keep_their_dtype_with_or_without_passing_it(dtype, inferred):
    a = pt.dscalar("a")
    out = pt.cast(a * 3, dtype)
    vm = arignote.function([a], out, mode="VM")
    for trust in (False, True):
        f = arignote.function([a], out, mode="NUMBA", trust_input=trust)
        assert "r0 = graph(*args)" in f._entry.source  # bare: no tuple unpacking
        assert ("return array(r0)\n" in f._entry.source) == inferred
        got = f(np.array(1.7))
        assert type(got) is np.ndarray and got.dtype == dtype and got.shape == ()
        assert got == vm(np.array(1.7))


def test_several_outputs_and_the_runner_boundary_still_unpack_a_tuple():
    a = pt.dvector("a")
    f = arignote.function([a], [a.sum(), a * 2], mode="NUMBA")
    assert "r0, r1, = graph(*args)" in f._entry.source
    total, doubled = f(np.arange(3.0))
    assert total.shape == () and total == 3.0
    np.testing.assert_array_equal(doubled, [0.0, 2.0, 4.0])
    single = arignote.function([a], a.sum(), mode="NUMBA")
    (value,) = single.runner.run([np.arange(4.0)])  # the runner's own path (bare graph too)
    assert value.shape == () and value == 6.0
    assert numba_backend.linker.returns_bare(single.runner.fgraph)
