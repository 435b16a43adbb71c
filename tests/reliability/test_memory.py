"""Memory (issue 14, point 5): calls keep memory flat, and a deleted function frees its storage.

``tracemalloc`` counts the bytes Python allocated and has not freed: after a warm-up (the
generated code, caches and the interpreter's free lists settle), many calls of a function
with updates must leave that count where it was, within a small bound. The slow tests make
10^6 calls on the VM and on the Numba backend.
"""

from __future__ import annotations

import gc
import tracemalloc
import weakref

import numpy as np
import pytest

import arignote
import arignote.tensor as pt

#: Growth allowed over all the measured calls: a few stray objects, never a per-call leak
#: (one leaked 8-byte float per call would be 8 MB over 10^6 calls).
BOUND = 64 * 1024
WARM_UP = 5_000


def _stepper(mode):
    """A training-like step: a shared vector and counter updated on every call."""
    x = pt.dvector("x")
    w = arignote.shared(np.zeros(4), name="w")
    calls = arignote.shared(np.int64(0), name="calls")
    loss = ((w - x) ** 2).sum()
    updates = [(w, w - 0.1 * (w - x)), (calls, calls + 1)]
    return arignote.function([x], loss, updates=updates, mode=mode), calls


def _growth(mode, n_calls: int) -> int:
    """Bytes still allocated after ``n_calls`` calls, beyond those after the warm-up."""
    f, calls = _stepper(mode)
    value = np.arange(4.0)
    for _ in range(WARM_UP):
        f(value)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(n_calls):
            f(value)
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert int(calls.get_value()) == WARM_UP + n_calls  # every update was applied
    return after - before


MODES = ["VM", "NUMBA"]


def _mode(name: str):
    if name == "NUMBA":
        pytest.importorskip("numba")
        return "NUMBA"
    return arignote.Mode(linker="vm", optimizer="fast_run")


@pytest.mark.parametrize("name", MODES)
def test_calls_keep_memory_flat(name):
    assert _growth(_mode(name), 10_000) < BOUND


@pytest.mark.slow
@pytest.mark.parametrize("name", MODES)
def test_a_million_calls_keep_memory_flat(name):
    growth = _growth(_mode(name), 1_000_000)
    print(f"{name}: {growth} bytes more after 10^6 calls")
    assert growth < BOUND


@pytest.mark.parametrize("name", MODES)
def test_deleting_a_function_frees_its_storage(name):
    x = pt.dvector("x")
    w = arignote.shared(np.ones(1000), name="w")
    f = arignote.function([x], (x * w).sum(), updates=[(w, w * 0.5)], mode=_mode(name))
    f(np.ones(1000))
    refs = [weakref.ref(obj) for obj in (f, f.runner, f.maker, f.maker.fgraph)]
    out = f.output_storage[0]
    del f
    gc.collect()
    assert [r() for r in refs] == [None] * len(refs)
    del out
    # the shared value belongs to ``w`` (still alive), not to the deleted function
    np.testing.assert_array_equal(w.get_value(), np.full(1000, 0.5))


def test_deleted_functions_do_not_accumulate():
    x = pt.dvector("x")
    gc.collect()
    tracemalloc.start()
    try:
        for _ in range(5):  # warm-up: caches of the rewriter and linker
            arignote.function([x], pt.exp(x).sum())(np.ones(3))
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(50):
            arignote.function([x], pt.exp(x).sum())(np.ones(3))
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert after - before < 50 * 4096  # well under a compiled function's size each


def test_deleting_a_native_function_frees_its_native_code(tmp_path, monkeypatch):
    # compiled for this function alone (no usable disk cache: a file stands where the cache
    # directory would be), the jitted graph and its machine code handles go with the function
    # (a graph loaded from the disk cache goes with its last function, beyond the recently
    # used ones kept loaded: see test_freeing.py, which covers every path)
    pytest.importorskip("numba")
    blocker = tmp_path / "not_a_directory"
    blocker.write_text("")
    monkeypatch.setenv("ARIGNOTE_CACHE_DIR", str(blocker / "cache"))
    x = pt.dvector("x")
    with pytest.warns(UserWarning, match="cannot be used"):  # the CacheWarning
        f = arignote.function([x], pt.tanh(x).sum() * 3.0, mode="NUMBA")
        assert f(np.zeros(3)) == 0.0
    graph = weakref.ref(f.runner.native_call[0])
    del f
    gc.collect()
    assert graph() is None
