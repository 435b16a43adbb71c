"""The disk cache of native code: entries written once, shared by processes, repaired."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import arignote
import arignote.tensor as pt

cache = pytest.importorskip("arignote.link.numba.cache")

ROOT = Path(__file__).resolve().parents[2]

_SCRIPT = """
import sys, numpy as np, arignote, arignote.tensor as pt
x = pt.dvector("x")
f = arignote.function([x], [(pt.exp(x) * {scale}).sum(), x[1:] * 2], mode="NUMBA")
value = np.linspace(0.0, 1.0, 7)
result = f(value)
assert np.allclose(result[0], (np.exp(value) * {scale}).sum())
assert np.allclose(result[1], value[1:] * 2)
graph = f.runner.run.__globals__["graph"]
print(sum(graph.stats.cache_hits.values()), sum(graph.stats.cache_misses.values()))
"""


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ARIGNOTE_CACHE_DIR", str(tmp_path))
    return tmp_path


def _run(scale: float, env_dir: Path) -> subprocess.Popen:
    env = dict(os.environ, ARIGNOTE_CACHE_DIR=str(env_dir), PYTHONPATH=str(ROOT))
    return subprocess.Popen(
        [sys.executable, "-c", _SCRIPT.format(scale=scale)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _hits(process: subprocess.Popen) -> tuple[int, int]:
    out, err = process.communicate(timeout=600)
    assert process.returncode == 0, err
    hits, misses = out.split()
    return int(hits), int(misses)


def test_the_cache_directory_follows_the_environment(_private_cache):
    assert cache.cache_dir() == _private_cache / "numba"


def test_a_damaged_entry_is_discarded_and_rebuilt(_private_cache, rng):
    x = pt.dvector("x")
    out = pt.tanh(x) * 3 + 1
    arignote.function([x], out, mode="NUMBA")  # writes the entry
    entries = list((_private_cache / "numba").glob("arignote_*.py"))
    assert len(entries) == 1
    entries[0].write_text("this is not python (")  # a corrupt entry
    entries[0].with_suffix(".npz").write_bytes(b"truncated")
    # as in another process: the module is not loaded yet
    del sys.modules["arignote_numba_" + entries[0].stem.removeprefix("arignote_")]
    f = arignote.function([x], out, mode="NUMBA")
    value = rng.normal(size=5)
    np.testing.assert_allclose(f(value), np.tanh(value) * 3 + 1)
    assert "this is not python" not in entries[0].read_text()


def test_graphs_with_fallbacks_are_not_cached(_private_cache):
    x = pt.dmatrix("x")
    f = arignote.function([x], pt.linalg.expm(x), mode="NUMBA")  # no native kernel
    assert f.runner.fallbacks
    assert not list((_private_cache / "numba").glob("arignote_*.py"))


@pytest.mark.slow
def test_another_process_loads_the_machine_code(_private_cache):
    assert _hits(_run(1.5, _private_cache)) == (0, 1)
    assert _hits(_run(1.5, _private_cache)) == (1, 0)


@pytest.mark.slow
def test_concurrent_processes_share_entries_safely(_private_cache):
    processes = [_run(scale, _private_cache) for scale in (1.0, 2.0, 1.0, 2.0, 1.0, 2.0, 1.0, 2.0)]
    for process in processes:
        _hits(process)  # every process computed the right values
    assert len(list((_private_cache / "numba").glob("arignote_*.py"))) == 2
    for process in [_run(1.0, _private_cache), _run(2.0, _private_cache)]:
        assert _hits(process) == (1, 0)
