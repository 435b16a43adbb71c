"""Kernels shared within a process: a node whose kernel has the same source and the same
globals as an earlier one (the same op, parameters and input types) reuses its jitted
function, so numba compiles a repeated operation once."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest

import arignote
import arignote.tensor as pt

pytest.importorskip("numba")

from arignote.link.numba.dispatch import basic


def _cumsum_kernel(fn):
    (node,) = [n for n in fn.maker.fgraph.toposort() if type(n.op).__name__ == "CumOp"]
    return basic.kernel_for(node)


def test_a_repeated_kernel_is_compiled_once(rng, monkeypatch, tmp_path):
    monkeypatch.setattr(basic, "_SHARED", OrderedDict())  # not the kernels of earlier tests
    # without the disk cache (a file stands where its directory would be), each graph is
    # compiled from the kernels themselves
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("ARIGNOTE_CACHE_DIR", str(tmp_path / "file" / "cache"))
    x, y = pt.dmatrix("x"), pt.dmatrix("y")
    with pytest.warns(UserWarning, match="cannot be used"):  # the CacheWarning, once
        f = arignote.function([x], pt.cumsum(x, axis=1), mode="NUMBA")
    g = arignote.function([y], pt.cumsum(y, axis=1) * 2.0 + y, mode="NUMBA")
    a, b = rng.normal(size=(3, 5)), rng.normal(size=(4, 2))
    np.testing.assert_allclose(f(a), np.cumsum(a, axis=1))
    np.testing.assert_allclose(g(b), np.cumsum(b, axis=1) * 2 + b)
    (kernel, why), (again, _) = _cumsum_kernel(f), _cumsum_kernel(g)
    assert why is None and kernel is again and kernel.arignote_shared
    # both graphs called this very kernel: numba compiled it once, for the one argument type
    # both graphs give it
    assert len(kernel.signatures) == 1


def test_a_kernel_with_node_bound_globals_is_not_shared():
    x = pt.dvector("x")
    node = pt.exp(x).owner
    first, second = basic.objmode_kernel(node), basic.objmode_kernel(node)
    assert first is not second  # ``perform`` belongs to the node: no key
    source = "def kernel():\n    return c0\n"
    assert basic._sharing_key(source, "kernel", {"c0": np.ones(2)}) is None  # a constant


def test_the_shared_table_is_bounded(monkeypatch):
    monkeypatch.setattr(basic, "SHARED_KERNELS", 2)
    sources = [f"def kernel(a):\n    return a + {k}\n" for k in range(4)]
    kernels = [basic.compile_source(s, "kernel", {}) for s in sources]
    assert len(basic._SHARED) <= 2
    assert basic.compile_source(sources[-1], "kernel", {}) is kernels[-1]
    assert kernels[-1](1) == 4


def test_a_repeated_kernel_is_compiled_once_with_the_disk_cache(rng, monkeypatch, tmp_path):
    # The cached module of each graph writes out every kernel, but calls the process's shared
    # kernel: a new graph does not compile again a kernel this process already compiled.
    monkeypatch.setattr(basic, "_SHARED", OrderedDict())
    monkeypatch.setenv("ARIGNOTE_CACHE_DIR", str(tmp_path))
    x, y = pt.dmatrix("x"), pt.dmatrix("y")
    f = arignote.function([x], pt.cumsum(x, axis=1) + 0.25, mode="NUMBA")
    g = arignote.function([y], pt.cumsum(y, axis=1) * 2.0 - y, mode="NUMBA")
    a, b = rng.normal(size=(3, 5)), rng.normal(size=(4, 2))
    np.testing.assert_allclose(f(a), np.cumsum(a, axis=1) + 0.25)
    np.testing.assert_allclose(g(b), np.cumsum(b, axis=1) * 2 - b)
    kernel, _ = _cumsum_kernel(g)
    assert kernel.arignote_shared and len(kernel.signatures) == 1
    modules = sorted((tmp_path / "numba").glob("arignote_*.py"))
    assert len(modules) == 2  # both graphs were cached (written, and loaded from the module)
    for graph in (f.runner.native_call[0], g.runner.native_call[0]):
        assert graph.__module__.startswith("arignote_numba_")
        # the module's cumsum function is the shared kernel, never compiled as a copy
        callees = [v for v in graph.py_func.__globals__.values() if v is kernel]
        assert callees
