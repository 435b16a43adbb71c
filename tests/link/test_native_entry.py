"""A native function's entry point calls the jitted graph itself (no runner frame between)."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.compile.mode import Mode
from arignote.link.tiered import TieredLinker

pytest.importorskip("arignote.link.numba")


def _graph():
    a, b = pt.dscalar("a"), pt.dvector("b")
    total = (a * b + pt.exp(a)).sum()
    return [a, b], [total, b * a, pt.cast(total, "float32"), b.shape[0]]


def test_the_entry_point_calls_the_graph_and_keeps_dtypes_and_kinds(rng):
    inputs, outputs = _graph()
    a, b = np.array(0.3), rng.normal(size=4)
    expected = arignote.function(inputs, outputs, mode="VM")(a, b)
    for trust in (False, True):
        f = arignote.function(inputs, outputs, mode="NUMBA", trust_input=trust)
        assert "graph(*args)" in f._entry.source and "runner.run" not in f._entry.source
        got = f(a, b)
        assert isinstance(got, list) and len(got) == 4
        for g, e in zip(got, expected):
            assert type(g) is np.ndarray and g.dtype == e.dtype and g.shape == e.shape
            np.testing.assert_allclose(g, e, rtol=1e-12)
    single = arignote.function(inputs, outputs[0], mode="NUMBA")
    assert single(a, b).shape == () and single(a, b).dtype == np.float64
    named = arignote.function(inputs, {"total": outputs[0], "n": outputs[3]}, mode="NUMBA")
    result = named(a, b)
    assert sorted(result) == ["n", "total"] and result["n"] == expected[3]
    # the native sum may add in another order than NumPy's (vectorised): equal to rounding
    np.testing.assert_allclose(result["total"], expected[0], rtol=1e-13)


def test_the_entry_point_keeps_the_checks_and_the_error_notes(rng):
    inputs, outputs = _graph()
    f = arignote.function(inputs, outputs[1], mode="NUMBA")
    with pytest.raises(TypeError):
        f(np.array(0.3), np.ones((2, 2)))  # wrong ndim: the general path says why
    np.testing.assert_allclose(f(0.5, [1.0, 2.0]), [0.5, 1.0])  # converted there
    x, y = pt.dvector("x"), pt.dvector("y")
    add = arignote.function([x, y], x + y, mode="NUMBA")
    with pytest.raises(Exception) as raised:
        add(np.ones(3), np.ones(4))  # raised by native code: described by the runner
    assert any("compiled from the whole graph" in note for note in raised.value.__notes__)


def test_a_tiered_function_calls_native_code_from_its_entry_after_the_swap(rng):
    inputs, outputs = _graph()
    mode = Mode(TieredLinker(hot_calls=3), "fast_run")
    f = arignote.function(inputs, outputs[0], mode=mode)
    dropped = arignote.function(inputs, outputs[0], mode=mode)
    del dropped  # its runner's listener is a weak method: gone with it
    gc.collect()
    a, b = np.array(0.3), rng.normal(size=5)
    assert "runner.run" in f._entry.source
    results = [f(a, b) for _ in range(5)]
    assert f.runner.is_native, f.runner.native_error
    assert "graph(*args)" in f._entry.source
    expected = (0.3 * b + np.exp(0.3)).sum()
    for result in results:
        assert result.shape == () and result.dtype == np.float64
        np.testing.assert_allclose(result, expected, rtol=1e-12)
