"""Tiered execution, the default: the VM first, native code once a function is hot."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from arignote.tensor.optimize import root_scalar

import arignote
import arignote.tensor as pt
from arignote.compile.mode import Mode
from arignote.config import config
from arignote.link import hot_index, tiered
from arignote.link.tiered import TieredLinker, TieredRunner
from arignote.link.vm import VMRunner

numba_tiered = pytest.importorskip("arignote.link.numba.tiered")

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ARIGNOTE_CACHE_DIR", str(tmp_path))


def _mode(hot_calls: int = 20, hot_seconds: float = 1e9) -> Mode:
    return Mode(TieredLinker(hot_calls=hot_calls, hot_seconds=hot_seconds), "fast_run")


def _logp():
    x, mu = pt.dvector("x"), pt.dscalar("mu")
    return [x, mu], (-0.5 * (x - mu) ** 2).sum() + pt.log1p(pt.exp(-(x**2))).sum()


def _logp_value(x, mu):
    return (-0.5 * (x - mu) ** 2).sum() + np.log1p(np.exp(-(x**2))).sum()


def test_the_default_mode_is_tiered_and_fast_run_too():
    inputs, out = _logp()
    for mode in (None, "FAST_RUN"):
        assert isinstance(arignote.function(inputs, out, mode=mode).runner, TieredRunner)
    assert type(arignote.function(inputs, out, mode="VM").runner) is VMRunner
    with config.change_flags(tiered=False):
        assert type(arignote.function(inputs, out).runner) is VMRunner


def test_import_and_cold_functions_never_import_numba():
    script = (
        "import sys, numpy as np, arignote, arignote.tensor as pt\n"
        "x = pt.dvector('x')\n"
        "f = arignote.function([x], pt.exp(x).sum())\n"
        "for _ in range(100): f(np.ones(3))\n"
        "assert not f.runner.is_hot\n"
        "print('numba' in sys.modules, 'scipy.stats' in sys.modules)\n"
        "print(pt.random.basic.stats.t is __import__('scipy.stats').stats.t)\n"
    )
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    # scipy.stats (half of the import time) is imported when first used, not before
    assert done.stdout.split() == ["False", "False", "True"]


def test_a_function_goes_native_after_the_call_threshold(rng):
    inputs, out = _logp()
    f = arignote.function(inputs, out, mode=_mode(hot_calls=20))
    values = [(rng.normal(size=6), rng.normal()) for _ in range(40)]
    results = [f(x, mu) for x, mu in values[:19]]
    assert not f.runner.is_hot and f.runner.run == f.runner._counting
    results += [f(x, mu) for x, mu in values[19:21]]
    assert f.runner.is_hot
    assert f.runner.wait(300), f.runner.native_error
    assert f.runner.fallbacks == {}
    results += [f(x, mu) for x, mu in values[21:]]
    for result, (x, mu) in zip(results, values):
        np.testing.assert_allclose(result, _logp_value(x, mu), rtol=1e-12)
        assert result.dtype == np.float64 and result.ndim == 0


def test_a_slow_function_goes_native_on_time_before_the_call_threshold(rng):
    inputs, out = _logp()
    f = arignote.function(inputs, out, mode=_mode(hot_calls=10**9, hot_seconds=1e-9))
    f(rng.normal(size=3), 0.5)
    assert f.runner.is_hot  # the first (timed) call already spent more than hot_seconds
    assert f.runner.wait(300), f.runner.native_error


def test_concurrent_callers_across_the_swap_get_right_results(rng):
    inputs, out = _logp()
    f = arignote.function(inputs, out, mode=_mode(hot_calls=50))
    failures: list = []

    def caller(seed: int) -> None:
        local = np.random.default_rng(seed)
        for _ in range(400):
            x, mu = local.normal(size=5), local.normal()
            got = f(x, mu)
            if not np.isclose(got, _logp_value(x, mu), rtol=1e-12, atol=0):
                failures.append((x, mu, got))

    threads = [threading.Thread(target=caller, args=(seed,)) for seed in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert f.runner.wait(300), f.runner.native_error


def test_trust_input_and_updates_survive_the_swap(rng):
    x = pt.dvector("x")
    total = arignote.shared(np.zeros(3), name="total")
    f = arignote.function([x], (x * 2).sum(), updates={total: total + x}, mode=_mode(15))
    f.trust_input = True
    values = [rng.normal(size=3) for _ in range(60)]
    for k, value in enumerate(values):
        np.testing.assert_allclose(f(value), (value * 2).sum(), rtol=1e-12)
        if k == 20:
            assert f.runner.wait(300), f.runner.native_error
    np.testing.assert_allclose(total.get_value(), np.sum(values, axis=0), rtol=1e-12)


def test_in_place_graphs_run_natively_out_of_place(rng):
    a = pt.dmatrix("a")
    out = pt.exp(a).sum(axis=0) * pt.exp(a).sum(axis=0).max()
    f = arignote.function([a], out, mode=_mode(2))
    assert any(getattr(n.op, "destroy_map", None) for n in f.maker.fgraph.apply_nodes)
    value = rng.normal(size=(4, 3))
    kept = value.copy()
    expected = arignote.function([a], out, mode="VM")(value)
    f(value), f(value)
    assert f.runner.wait(300), f.runner.native_error
    np.testing.assert_allclose(f(value), expected, rtol=1e-12)
    np.testing.assert_array_equal(value, kept)  # inputs never written


def test_graphs_that_cannot_be_compiled_whole_stay_on_the_vm(rng):
    a = pt.dscalar("a")
    x = pt.ones((), dtype="float64")
    # SciPy's root finder has no native kernel (see arignote/link/numba/dispatch/fallbacks.py)
    solved = root_scalar(x**2 - (1 + pt.exp(a)), x, method="newton", jac=True)[0]
    f = arignote.function([a], solved, mode=_mode(2))
    value = rng.normal()
    for _ in range(3):
        np.testing.assert_allclose(f(value), np.sqrt(1 + np.exp(value)), rtol=1e-7)
    assert not f.runner.wait(300)
    assert "without a native kernel" in f.runner.native_error
    assert f.runner.run == f.runner.vm.run  # no wrapper left on the call path
    # float16 values have no data model in numba: the whole graph stays on the VM
    h = pt.vector("h", dtype="float16")
    half = arignote.function([h], pt.exp(h), mode=_mode(2))
    for _ in range(3):
        half(np.ones(3, dtype="float16"))
    assert not half.runner.wait(300) and "whole graph" in half.runner.native_error


def test_checking_modes_and_profiling_stay_on_the_vm():
    inputs, out = _logp()
    for mode in ("DebugMode", "NanGuardMode", "FAST_COMPILE"):
        assert not isinstance(arignote.function(inputs, out, mode=mode).runner, TieredRunner)
    assert isinstance(arignote.function(inputs, out, profile=True).runner, VMRunner)


def test_native_results_must_match_the_vm_to_be_swapped_in():
    same = [np.array([1.0, np.nan]), np.array(3)]
    assert numba_tiered.first_mismatch(same, [np.array([1.0, np.nan]), np.array(3)]) is None
    assert numba_tiered.first_mismatch(same, [same[0], np.array(4)]) == 1
    assert numba_tiered.first_mismatch(same, [same[0] + 1e-6, same[1]]) == 0
    assert numba_tiered.first_mismatch(same, [same[0].astype("float32"), same[1]]) == 0


def test_the_thresholds_are_the_documented_ones():
    linker = TieredLinker()
    assert (linker.hot_calls, linker.hot_seconds) == (tiered.HOT_CALLS, tiered.HOT_SECONDS)
    assert linker.clone().hot_calls == tiered.HOT_CALLS
    assert str(linker) == "auto"


def test_a_hot_call_compiles_in_its_caller_unless_hot_at_the_first_call(rng):
    # A background thread competes with the caller for the GIL (the swap then took 3x longer
    # on W9): the call that makes a function hot compiles it; other threads keep the VM.
    inputs, out = _logp()
    f = arignote.function(inputs, out, mode=_mode(hot_calls=3))
    for _ in range(3):
        f(rng.normal(size=4), 0.5)
    assert f.runner.is_native and f.runner._thread is None
    assert not TieredLinker().background and not TieredLinker(hot_calls=5).clone().background
    # hot at the first call (mode "TIERED"): compiled beside it, the first call stays instant
    assert TieredLinker(hot_calls=1).background and TieredLinker(hot_calls=1).clone().background
    g = arignote.function(inputs, out, mode=_mode(hot_calls=1))
    x = rng.normal(size=4)
    np.testing.assert_allclose(g(x, 0.5), _logp_value(x, 0.5), rtol=1e-12)
    assert g.runner.wait(300), g.runner.native_error
    assert g.runner._thread is not None


def test_a_graph_that_went_native_before_goes_native_at_the_warm_call(rng):
    inputs, out = _logp()
    x = rng.normal(size=5)
    first = arignote.function(inputs, out, mode=_mode(hot_calls=3))
    for _ in range(3):
        first(x, 0.5)
    assert first.runner.is_native
    assert hot_index.went_native(hot_index.graph_hash(first.runner.fgraph))
    again = arignote.function(inputs, out, mode=_mode(hot_calls=10**9))  # never hot by count
    for _ in range(tiered.WARM_CALLS - 1):
        again(x, 0.5)
    assert not again.runner.is_hot
    np.testing.assert_allclose(again(x, 0.5), _logp_value(x, 0.5), rtol=1e-12)
    assert again.runner.is_native, again.runner.native_error
    other = arignote.function(inputs, out * 2, mode=_mode(hot_calls=10**9))
    for _ in range(tiered.WARM_CALLS + 1):
        other(x, 0.5)
    assert not other.runner.is_hot  # a graph never native here waits for the threshold


def test_the_graph_hash_tells_graphs_apart_and_clear_forgets_them():
    x = pt.dvector("x")

    def graph(out):
        return arignote.function([x], out, mode="VM").maker.fgraph

    same = [hot_index.graph_hash(graph(pt.exp(x * 2.0).sum())) for _ in range(2)]
    assert same[0] == same[1]
    different = {
        hot_index.graph_hash(graph(pt.exp(x * 3.0).sum())),  # another constant
        hot_index.graph_hash(graph(pt.exp(x * 2.0).sum(dtype="float32"))),  # another prop
        hot_index.graph_hash(graph(pt.log(x * 2.0).sum())),  # another op in the fused loop
    }
    assert len(different | {same[0]}) == 4
    hot_index.record_native(same[0])
    assert hot_index.went_native(same[0])
    numba_cache = pytest.importorskip("arignote.link.numba.cache")
    numba_cache.clear()
    assert not hot_index.went_native(same[0])
