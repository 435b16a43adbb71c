"""Numba function ids are unique across processes (``link/numba/unique_ids.py``).

With numba's own counter, two processes compiling the same functions give them the same
mangled names; the disk cache then loads two bodies under one symbol (CI saw "missing
Environment" for ``copy_rng`` after a test run loaded entries an earlier run had written).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import pytest

pytest.importorskip("numba")

from numba.core.bytecode import FunctionIdentity

from arignote.link.numba import cache, unique_ids

# Compiles the same generated function as every other process running it, like our kernels.
_CHILD = """
import arignote.link.numba
from arignote.link.numba.dispatch.basic import compile_source
source = "def kernel(x):\\n    return x + 1\\n"
kernel = compile_source(source, "kernel", {})
kernel(1.5)
(overload,) = kernel.overloads.values()
print(overload.fndesc.mangled_name)
"""


def _mangled_name_in_fresh_process() -> str:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD], capture_output=True, text=True, check=True, timeout=300
    )
    return done.stdout.strip().splitlines()[-1]


def test_two_processes_name_the_same_generated_function_differently():
    first, second = _mangled_name_in_fresh_process(), _mangled_name_in_fresh_process()
    assert "kernel" in first and "kernel" in second
    assert first != second


# Each graph first in its own process: with counter ids, their functions get the same names.
_GRAPHS = """
import sys, numpy as np
import arignote, arignote.tensor as at
x = at.dvector("x")
graphs = {"a": at.exp(x) + 1, "b": at.log1p(x) * 3}
functions = {name: arignote.function([x], graphs[name], mode="NUMBA") for name in sys.argv[1]}
v = np.linspace(0.1, 1.0, 4)
expected = {"a": np.exp(v) + 1, "b": np.log1p(v) * 3}
print(all(np.allclose(f(v), expected[name]) for name, f in functions.items()))
"""


def _run_graphs(names: str, cache_dir) -> str:
    env = {**os.environ, "ARIGNOTE_CACHE_DIR": str(cache_dir)}
    done = subprocess.run(
        [sys.executable, "-c", _GRAPHS, names],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
        env=env,
    )
    return done.stdout.strip().splitlines()[-1]


def test_a_process_loading_entries_of_two_processes_runs_each_graph(tmp_path):
    # without unique ids the third process ran graph a's code for graph b (wrong numbers)
    assert _run_graphs("a", tmp_path) == "True"
    assert _run_graphs("b", tmp_path) == "True"
    assert _run_graphs("ab", tmp_path) == "True"


def test_ids_are_installed_and_distinct_within_a_process():
    assert isinstance(FunctionIdentity._unique_ids, unique_ids.RandomIds)
    ids = unique_ids.RandomIds()
    drawn = [next(ids) for _ in range(5000)]
    assert len(set(drawn)) == len(drawn)
    assert all(0 < uid < 2**64 for uid in drawn)


def test_ids_drawn_from_many_threads_are_distinct():
    ids = unique_ids.RandomIds()
    drawn: list[int] = []

    def draw() -> None:
        drawn.extend(next(ids) for _ in range(500))

    threads = [threading.Thread(target=draw) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(drawn)) == 8 * 500


def test_install_keeps_the_ids_already_drawn():
    before = FunctionIdentity._unique_ids
    unique_ids.install()
    assert FunctionIdentity._unique_ids is before


def test_entries_written_with_counter_ids_are_not_reused(monkeypatch):
    key = cache.entry_key("def graph():\n    pass\n", {})
    monkeypatch.setattr(cache, "_FORMAT", cache._FORMAT - 1)
    assert cache.entry_key("def graph():\n    pass\n", {}) != key
