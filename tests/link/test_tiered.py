"""Tiered execution, the default: the VM first, native code once a function is hot."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.compile.mode import Mode
from arignote.config import config
from arignote.link import tiered
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
        "print('numba' in sys.modules)\n"
    )
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


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
    x = pt.dmatrix("x")
    # eig has no native kernel (see arignote/link/numba/dispatch/fallbacks.py)
    f = arignote.function([x], pt.linalg.eig(pt.exp(x))[0], mode=_mode(2))
    value = rng.normal(size=(3, 3))
    for _ in range(3):
        np.testing.assert_allclose(f(value), np.linalg.eigvals(np.exp(value)))
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
