"""What the disk cache reaches: graphs whose kernels call numba helper functions or SciPy's C
entry points, graphs drawing random numbers, loops, and object-mode fallbacks are compiled by
one process and loaded by the next (numba's cache hit counters), with the same values."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.printing import Print

numba_backend = pytest.importorskip("arignote.link.numba")
cache_text = pytest.importorskip("arignote.link.numba.cache_text")

ROOT = Path(__file__).resolve().parents[2]

# Each graph prints: its name, the hits and misses of numba's cache for the graph function,
# and its values (repr, exact), so that the second process can be compared with the first.
_SCRIPT = """
import numpy as np, arignote, arignote.tensor as pt
from arignote.scan import scan
from arignote.printing import Print
x = pt.dvector("x")
value = np.array([0.25, 1.5, 3.0])
rng = arignote.shared(np.random.default_rng(7))
steps, _ = scan(lambda a, h: pt.tanh(a + 0.5 * h), sequences=[x], outputs_info=[pt.constant(0.0)])
graphs = {
    "elemwise": pt.exp(x) * 2 - x,
    "helper": pt.polygamma(1, x) + pt.gammaln(x) + pt.erfcx(x),
    "random": pt.random.normal(x, 1.0, rng=rng) + x,
    "scan": steps,
    "fallback": Print("p", global_fn=lambda op, v: None)(x) * 3,
}
for name, out in graphs.items():
    f = arignote.function([x], out, mode="NUMBA")
    result = f(value)
    graph = f.runner.native_call[0]
    hits, misses = sum(graph.stats.cache_hits.values()), sum(graph.stats.cache_misses.values())
    print(name, hits, misses, repr(np.asarray(result).tolist()))
"""


def _run(directory: Path) -> dict[str, tuple[int, int, str]]:
    env = dict(os.environ, ARIGNOTE_CACHE_DIR=str(directory), PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr
    rows = [line.split(" ", 3) for line in done.stdout.splitlines()]
    return {name: (int(hits), int(misses), values) for name, hits, misses, values in rows}


def test_a_second_process_loads_every_kind_of_graph_from_the_cache(tmp_path):
    first, second = _run(tmp_path), _run(tmp_path)
    assert set(first) == {"elemwise", "helper", "random", "scan", "fallback"}
    for name, (hits, misses, values) in second.items():
        assert first[name][:2] == (0, 1), (name, first[name])  # compiled
        assert (hits, misses) == (1, 0), (name, hits, misses)  # loaded, not compiled
        assert values == first[name][2], name  # same draws from the same seed, same values


def test_helpers_and_entry_points_are_imported_by_name_with_a_digest():
    x = pt.dvector("x")
    fn = arignote.function([x], pt.polygamma(1, x) + pt.erf(x), mode="NUMBA")
    fn(np.ones(2))
    path = Path(fn.runner.native_call[0].py_func.__code__.co_filename)
    written = path.read_text().splitlines()  # the cached module the graph was loaded from
    assert any("special_native import polygamma as" in line and "#" in line for line in written)
    assert any("scipy_special import sf_erf_1 as" in line for line in written)


def test_injected_objects_are_per_function_in_one_process():
    """Two functions of the same text but different object-mode callables each call their
    own (the module runs again per load with its own injected objects)."""
    seen: list[str] = []
    x = pt.dvector("x")
    functions = [
        arignote.function(
            [x], Print("p", global_fn=lambda op, v, tag=tag: seen.append(tag))(x), mode="NUMBA"
        )
        for tag in ("first", "second")
    ]
    for fn in functions:
        np.testing.assert_array_equal(fn(np.ones(2)), np.ones(2))
    assert seen == ["first", "second"]


def test_renaming_leaves_attributes_keywords_and_strings_alone():
    source = "def f(a):\n    b = a.inner(inner=1)\n    return inner(a, 'inner')\n"
    renamed = cache_text._renamed(source, {"inner": "f3"})
    assert renamed == "def f(a):\n    b = a.inner(inner=1)\n    return f3(a, 'inner')\n"


def test_a_ctypes_global_makes_a_graph_uncacheable():
    jitted = numba_backend.dispatch.compile_source(
        "def kernel(x):\n    return pointer(x)\n", "kernel", {"pointer": _CTYPES_FUNCTION}
    )
    assert cache_text.graph_module(jitted) is None


_CTYPES_FUNCTION = ctypes.CFUNCTYPE(None)()
