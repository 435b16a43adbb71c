"""Deleting a compiled function frees what it owns (issue 14, point 5), on every path.

A function owns its runner, its rewritten graph, its storage (the VM's program and cells),
and on the native backend its jitted graph function with numba's compiled versions (their
``CodeLibrary`` objects) and, when the code came from the disk cache, the cache's
:class:`~arignote.link.numba.cache.Lease` on the loaded module. Each is watched through a
weak reference; after ``del f`` and one garbage collection none may be left.

What numba never frees is outside this: the machine code itself stays in LLVM's
process-wide execution engine (numba does not remove modules from it), and the kernels
shared by graphs of this process (:data:`~arignote.link.numba.dispatch.basic.SHARED_KERNELS`
of them at most) stay for reuse. ``test_compile_and_delete_keeps_process_memory_bounded``
measures what that costs per compiled graph.
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import textwrap
import weakref
from collections import OrderedDict
from pathlib import Path

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.compile.compiled import Function
from arignote.ifelse import ifelse
from arignote.link.tiered import TieredLinker
from arignote.scan import scan

try:
    from arignote.link.numba import cache as numba_cache
except ImportError:  # no numba: the native tests skip
    numba_cache = None

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    """A private disk cache, and no recently used entries kept loaded: an entry goes with its
    last function (``test_recent_entries_stay_loaded_within_a_bound`` checks the default)."""
    monkeypatch.setenv("ARIGNOTE_CACHE_DIR", str(tmp_path))
    if numba_cache is not None:
        monkeypatch.setattr(numba_cache, "KEPT_ENTRIES", 0)
        monkeypatch.setattr(numba_cache, "_KEPT", OrderedDict())
    return tmp_path


def _handles(f) -> dict[str, object]:
    """The objects ``f`` owns, by name (see the module docstring)."""
    runner = f.runner
    owned = {"function": f, "runner": runner, "maker": f.maker, "fgraph": f.maker.fgraph}
    vm = getattr(runner, "vm", runner)  # a tiered runner's VM
    if getattr(vm, "program", None) is not None:
        owned["program"] = vm.program
        owned.update(_step_handles(vm.program.steps))
    native = getattr(runner, "native", None) or runner  # a tiered runner's native half
    if getattr(native, "native_call", None) is not None:
        owned.update(_native_handles(native))
    return owned


def _step_handles(steps) -> dict[str, object]:
    """The thunks and kernels of the VM's steps (the storage cells are their closures')."""
    owned = {}
    for k, step in enumerate(steps):
        for label in ("thunk", "kernel"):
            value = getattr(step, label)
            if value is not None and type(value).__weakrefoffset__:
                owned[f"{label} {k}"] = value
    return owned


def _native_handles(native) -> dict[str, object]:
    graph = native.native_call[0]
    owned = {"native runner": native, "boundary": native.run}
    if not getattr(graph, "arignote_shared", False):  # a shared graph stays for reuse
        owned["jitted graph"] = graph
        for k, compiled in enumerate(graph.overloads.values()):
            owned[f"code library {k}"] = compiled.library
    lease = native.run.__globals__.get("lease")
    if lease is not None:
        owned["cache lease"] = lease
        owned["cached module"] = lease.module
    return owned


def check_freed(build, expect: tuple[str, ...] = ()) -> None:
    """Build a function with ``build()`` (nothing else holds it), delete it and collect once:
    every handle must be gone. ``expect``: handles that must be among them (the path under
    test)."""
    refs = _watch(build(), expect)
    gc.collect()
    alive = sorted(name for name, ref in refs.items() if ref() is not None)
    assert alive == []


def _watch(f, expect: tuple[str, ...]) -> dict[str, weakref.ref]:
    handles = _handles(f)
    for name in expect:
        assert name in handles, f"{name} not found: {sorted(handles)}"
    return {name: weakref.ref(obj) for name, obj in handles.items()}


def _stepper(mode, scale: float = 0.5):
    x = pt.dvector("x")
    w = arignote.shared(np.ones(3), name="w")
    # an array constant of its own: the graph function is not one of the shared kernels
    out = (pt.tanh(x) * w * np.array([scale, 2.0, 3.0])).sum()
    f = arignote.function([x], out, updates=[(w, w * 0.5)], mode=mode)
    assert np.isfinite(f(np.zeros(3)))
    return f


def _numba():
    return pytest.importorskip("numba")


def test_vm_function_is_freed():
    check_freed(lambda: _stepper(arignote.Mode(linker="vm")), expect=("program",))


def _uncached(scale: float):
    with pytest.warns(UserWarning, match="cannot be used"):  # the CacheWarning
        f = _stepper("NUMBA", scale)
    assert f.runner.run.__globals__.get("lease") is None
    return f


def test_fresh_native_function_is_freed(tmp_path, monkeypatch):
    _numba()
    blocker = tmp_path / "file"  # no usable cache directory: compiled in memory
    blocker.write_text("")
    monkeypatch.setenv("ARIGNOTE_CACHE_DIR", str(blocker / "cache"))
    check_freed(lambda: _uncached(0.25), expect=("jitted graph", "code library 0"))


def test_native_function_compiled_into_the_cache_is_freed():
    _numba()
    check_freed(lambda: _stepper("NUMBA", 0.375), expect=("jitted graph", "cache lease"))


def _cache_hits(f) -> int:
    return sum(f.runner.native_call[0].stats.cache_hits.values())


def _loaded(scale: float):
    f = _stepper("NUMBA", scale)
    assert _cache_hits(f) == 1  # numba's machine code came from the disk
    return f


def test_native_function_loaded_from_the_cache_is_freed():
    _numba()
    check_freed(lambda: _stepper("NUMBA", 0.625))  # compiles and writes the entry
    # the second compilation loads the entry (module and numba's machine code) again
    expect = ("jitted graph", "code library 0", "cache lease", "cached module")
    check_freed(lambda: _loaded(0.625), expect=expect)


def test_functions_sharing_a_loaded_entry_free_it_with_the_last():
    _numba()
    first, second = _stepper("NUMBA", 0.875), _stepper("NUMBA", 0.875)
    lease = first.runner.run.__globals__["lease"]
    assert lease is second.runner.run.__globals__["lease"]  # one load, shared
    watched = weakref.ref(lease)
    module = lease.module.__name__
    del lease, first
    gc.collect()
    assert watched() is not None and module in sys.modules  # the second still calls it
    expected = np.tanh(1.0) * 0.5 * (0.875 + 5.0)  # w halved by the first call
    assert second(np.ones(3)) == pytest.approx(expected)
    del second
    gc.collect()
    assert watched() is None and module not in sys.modules


def test_recent_entries_stay_loaded_within_a_bound(monkeypatch):
    _numba()
    monkeypatch.setattr(numba_cache, "KEPT_ENTRIES", 2)
    leases = [_lease_of_a_dropped_function(scale) for scale in (1.0625, 1.1875, 1.3125)]
    gc.collect()
    # the two most recently used stay loaded (and are reused), the first went
    assert [lease() is not None for lease in leases] == [False, True, True]
    f = _stepper("NUMBA", 1.1875)
    assert f.runner.run.__globals__["lease"] is leases[1]()
    assert _cache_hits(f) == 0  # numba's machine code was not loaded again


def _lease_of_a_dropped_function(scale: float) -> weakref.ref:
    return weakref.ref(_stepper("NUMBA", scale).runner.run.__globals__["lease"])


_FRESH_PROCESS = """
import gc, sys, weakref, numpy as np, arignote, arignote.tensor as pt
from arignote.link.numba import cache
cache.KEPT_ENTRIES = 0  # the entry goes with its function
x = pt.dvector("x")
f = arignote.function([x], (pt.exp(x) * np.array([1.5, 2.5])).sum(), mode="NUMBA")
assert abs(f(np.zeros(2)) - 4.0) < 1e-12
graph = f.runner.native_call[0]
hits = sum(graph.stats.cache_hits.values())
lease = f.runner.run.__globals__.get("lease")
refs = [weakref.ref(o) for o in (f, f.runner, graph, lease, lease.module)]
refs += [weakref.ref(c.library) for c in graph.overloads.values()]
del f, graph, lease
gc.collect()
loaded = sum(name.startswith("arignote_numba") for name in sys.modules)
print(hits, sum(r() is not None for r in refs), loaded)
"""


@pytest.mark.slow
def test_a_fresh_process_loading_from_the_cache_frees_the_function(_private_cache):
    _numba()
    env = dict(os.environ, ARIGNOTE_CACHE_DIR=str(_private_cache), PYTHONPATH=str(ROOT))
    runs = [
        subprocess.run([sys.executable, "-c", _FRESH_PROCESS], env=env, capture_output=True)
        for _ in range(2)
    ]
    assert [r.returncode for r in runs] == [0, 0], runs[-1].stderr
    # first process: compiled (0 hits); second: loaded (1 hit); both: nothing left alive
    assert [r.stdout.decode().split() for r in runs] == [["0", "0", "0"], ["1", "0", "0"]]


def _tiered_stepper():
    mode = arignote.Mode(TieredLinker(hot_calls=3, hot_seconds=1e9), "fast_run")
    f = _stepper(mode, 1.125)
    for _ in range(3):
        f(np.zeros(3))
    assert f.runner.wait(300), f.runner.native_error
    assert f.runner.is_native
    return f


def test_tiered_function_is_freed_after_the_native_swap():
    _numba()
    check_freed(_tiered_stepper, expect=("program", "native runner", "cache lease"))


def test_jax_function_is_freed():
    pytest.importorskip("jax", reason="the JAX backend needs jax")
    check_freed(lambda: _stepper("JAX", 1.25), expect=("runner", "fgraph"))


def _scan_function(mode):
    x = pt.dvector("x")
    steps, _ = scan(
        lambda a, h: pt.tanh(a + 0.5 * h), sequences=[x], outputs_info=[pt.constant(0.0)]
    )
    f = arignote.function([x], steps.sum() * 1.375, mode=mode)
    assert np.isfinite(f(np.linspace(0.0, 1.0, 4)))
    return f


def _ifelse_function(mode):
    a, x = pt.dscalar("a"), pt.dvector("x")
    out = ifelse(pt.gt(a, 0), (pt.exp(x) * 1.625).sum(), (x * 2.0).sum())
    f = arignote.function([a, x], out, mode=mode)
    assert np.isfinite(f(1.0, np.ones(3)))
    return f


def test_a_scan_inner_function_is_freed_on_the_vm():
    f = _scan_function(arignote.Mode(linker="vm"))
    (inner,) = _inner_functions(f)  # compiled once per outer function, in make_thunk
    refs = _watch(inner, expect=("program",))
    refs.update(_watch(f, expect=("program",)))
    del f, inner
    gc.collect()
    assert sorted(name for name, ref in refs.items() if ref() is not None) == []


def test_an_ifelse_function_is_freed_on_the_vm():
    check_freed(lambda: _ifelse_function(arignote.Mode(linker="vm")), expect=("program",))


def _inner_functions(f) -> list[Function]:
    """The compiled inner functions the VM's thunks hold (in their ``perform`` closure)."""
    found = []
    for step in f.runner.program.steps:
        perform = getattr(step.thunk, "perform", None)
        for cell in getattr(perform, "__closure__", None) or ():
            if isinstance(cell.cell_contents, Function):
                found.append(cell.cell_contents)
    return found


@pytest.mark.parametrize("build", [_scan_function, _ifelse_function], ids=["scan", "ifelse"])
def test_inner_graph_functions_are_freed_natively(build):
    _numba()
    check_freed(lambda: build("NUMBA"), expect=("jitted graph", "cache lease"))


_CYCLES = """
import gc, os, sys, numpy as np, arignote, arignote.tensor as pt
from arignote.link.numba import cache
cache.KEPT_ENTRIES = int(sys.argv[3])
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
x = pt.dvector("x")
n, same = int(sys.argv[1]), sys.argv[2] == "same"
def cycle(k):
    f = arignote.function([x], (pt.tanh(x) * (1.5 if same else 1.5 + k)).sum(), mode="NUMBA")
    f(np.zeros(3))
for k in range(50):  # warm-up
    cycle(k)
gc.collect()
before = rss()
for k in range(50, 50 + n):
    cycle(k)
gc.collect()
print((rss() - before) / n, sum(m.startswith("arignote_numba") for m in sys.modules))
"""


def _per_cycle(directory: Path, cycles: int, kind: str, kept: int) -> tuple[float, int]:
    env = dict(os.environ, ARIGNOTE_CACHE_DIR=str(directory), PYTHONPATH=str(ROOT))
    command = [sys.executable, "-c", textwrap.dedent(_CYCLES), str(cycles), kind, str(kept)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=3600)
    assert done.returncode == 0, done.stderr
    per_cycle, modules = done.stdout.split()
    return float(per_cycle), int(modules)


@pytest.mark.slow
def test_compile_and_delete_keeps_process_memory_bounded(_private_cache):
    """Compile+delete cycles: 2,000 of the same graph, with the recent entries kept (the
    default) and without (loaded from the disk cache each time), and 200 of distinct graphs.
    No loaded module is left beyond the kept ones; the resident memory per cycle is numba's
    engine's, which keeps every machine code it loads (see the module docstring)."""
    _numba()
    kept, kept_modules = _per_cycle(_private_cache, 2000, "same", 16)
    same, same_modules = _per_cycle(_private_cache, 2000, "same", 0)
    distinct, distinct_modules = _per_cycle(_private_cache, 200, "distinct", 0)
    print(
        f"RSS per cycle: same graph {kept / 1024:.1f} KiB (kept), {same / 1024:.1f} KiB "
        f"(reloaded); distinct graphs {distinct / 1024:.1f} KiB"
    )
    assert (kept_modules, same_modules, distinct_modules) == (1, 0, 0)
    assert kept < 4 * 1024  # the function itself leaves nothing
    assert same < 64 * 1024  # a reload costs numba's engine a little
    assert distinct < 4 * 2**20  # LLVM keeps each new graph's machine code (about 1 MiB)
