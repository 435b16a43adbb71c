"""Machine code cached by one process runs right in another.

Numba function ids are unique across processes (``link/numba/unique_ids.py``): with numba's
own counter, two processes compiling the same functions gave them the same mangled names, and
a process loading both ran one's body for the other. And cached code never links a
``<dynamic>`` function entering object mode (``copy_rng``): numba does not cache such a
function's Environment, so another process found it unset ("missing Environment", seen in CI).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import pytest

pytest.importorskip("numba")

from numba.core.bytecode import FunctionIdentity

from arignote.link.numba import cache, cache_text, unique_ids
from arignote.link.numba.dispatch.basic import compile_source
from arignote.link.numba.dispatch.random import copy_rng

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


def _run(script: str, names: str, cache_dir) -> str:
    """The last line ``script`` prints in a fresh process (its error output if it fails)."""
    env = {**os.environ, "ARIGNOTE_CACHE_DIR": str(cache_dir)}
    done = subprocess.run(
        [sys.executable, "-c", script, names],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    return done.stdout.strip().splitlines()[-1] if done.returncode == 0 else done.stderr[-2000:]


def test_a_process_loading_entries_of_two_processes_runs_each_graph(tmp_path):
    # without unique ids the third process ran graph a's code for graph b (wrong numbers)
    assert _run(_GRAPHS, "a", tmp_path) == "True"
    assert _run(_GRAPHS, "b", tmp_path) == "True"
    assert _run(_GRAPHS, "ab", tmp_path) == "True"


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


# Graph a compiles the random kernel; graph b, in another process, calls the process's shared
# copy of it (same kernel, other inputs); a third process loads both from the cache.
_DRAWS = """
import sys, numpy as np
import arignote, arignote.tensor as at
def graphs(rng):
    x = at.dvector("x")
    a = at.random.vonmises(x, 2.0, rng=rng).sum()
    b = (at.random.vonmises(x * 2, 3.0, rng=rng) ** 2).max()
    return x, {"a": a, "b": b}
values = {}
for mode in ("NUMBA", "FAST_RUN"):
    rng = arignote.shared(np.random.default_rng(3))
    x, outs = graphs(rng)
    fs = {name: arignote.function([x], outs[name], mode=mode) for name in sys.argv[1]}
    values[mode] = [fs[name](np.ones(3)) for name in sys.argv[1] for _ in range(2)]
print(np.array_equal(values["NUMBA"], values["FAST_RUN"]))
"""


def test_cached_random_kernels_run_in_a_process_that_did_not_compile_them(tmp_path):
    assert _run(_DRAWS, "a", tmp_path) == "True"
    assert _run(_DRAWS, "b", tmp_path) == "True"
    assert _run(_DRAWS, "ab", tmp_path) == "True"
    # no cached code holds a <dynamic> copy_rng, whose Environment numba does not cache
    numba_files = (tmp_path / "numba" / "__pycache__").glob("*.nbc")
    assert not [f for f in numba_files if b"_3cdynamic_3e8copy_rng" in f.read_bytes()]


def test_kernels_entering_object_mode_are_not_shared_into_cached_modules():
    # a shared kernel calling copy_rng (object mode) and a plain shared kernel, both called
    # by a graph: only the plain one may be the process's copy in the loaded module
    draws = compile_source(
        "def kernel(rng):\n    return copy_rng(rng)\n", "kernel", {"copy_rng": copy_rng}
    )
    plain = compile_source("def kernel(x):\n    return x + 1.0\n", "kernel", {})
    graph = compile_source(
        "def graph(rng, x):\n    return draws(rng), plain(x)\n",
        "graph",
        {"draws": draws, "plain": plain},
    )
    module = cache_text.graph_module(graph)
    assert draws.arignote_shared and plain.arignote_shared
    assert list(module.shared.values()) == [plain]
