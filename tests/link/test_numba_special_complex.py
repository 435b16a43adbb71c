"""SciPy's complex erf, erfc, erfcx, gamma and psi, and the complex64 angle, in native code.

The special functions call SciPy's complex128 C entry points (``double complex`` by value, two
floating-point registers each way on x86-64 System V): the values must be SciPy's bit for bit,
for complex128 and for complex64 (which SciPy computes through complex128 and rounds), at random
points of every magnitude, at non-finite parts and at the poles of gamma and psi. Where the
calling convention is not verified, the registry must list these ops with that reason.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.special as sp

import arignote
import arignote.tensor as pt

numba_backend = pytest.importorskip("arignote.link.numba")
scipy_special = pytest.importorskip("arignote.link.numba.dispatch.scipy_special")

ROOT = Path(__file__).resolve().parents[2]
KEYS = ["Erf", "Erfc", "Erfcx", "Gamma", "Psi"]
FUNCTIONS = [(pt.erf, sp.erf), (pt.erfc, sp.erfc), (pt.erfcx, sp.erfcx)]
FUNCTIONS += [(pt.gamma, sp.gamma), (pt.psi, sp.psi)]

native_platform = pytest.mark.skipif(
    not scipy_special.COMPLEX_CALLS, reason=scipy_special.COMPLEX_CALLS_REASON
)


def _points(rng) -> np.ndarray:
    """Random points with magnitudes from 1e-300 to 1e300 in every direction, moderate random
    points, the poles of gamma and psi (0, -1, -2, ... with both signed zero imaginary parts and
    just off them), signed zeros, and every mix of finite, infinite and NaN parts."""
    magnitude = 10.0 ** rng.uniform(-300, 300, size=400)
    direction = np.exp(1j * rng.uniform(-np.pi, np.pi, size=400))
    moderate = rng.normal(scale=6.0, size=400) + 1j * rng.normal(scale=6.0, size=400)
    poles = -np.arange(0.0, 12.0)
    near = np.concatenate([poles + 0j, poles - 0j, poles + 1e-9j, poles - 1e-300 + 0j])
    parts = np.array([0.0, -0.0, 1.5, -2.0, np.inf, -np.inf, np.nan, 1e308, -1e-320])
    re, im = np.meshgrid(parts, parts)
    special = re.ravel() + 0j
    special.imag = im.ravel()  # built part by part: 1j * inf would make NaN real parts
    return np.concatenate([magnitude * direction, moderate, near, special])


def _native(inputs, outputs):
    fn = arignote.function(inputs, outputs, mode="NUMBA")
    assert fn.runner.fallbacks == {}, numba_backend.native_report(fn.runner)
    return fn


def _assert_same_bits(got: np.ndarray, want: np.ndarray) -> None:
    assert got.dtype == want.dtype
    same = got.view(np.uint8).reshape(got.size, -1) == want.view(np.uint8).reshape(want.size, -1)
    # NaN payloads and signs aside, every value is SciPy's own, signed zeros included
    differ = ~same.all(axis=1) & ~(np.isnan(got) & np.isnan(want))
    assert not differ.any(), (got[differ][:5], want[differ][:5])


@native_platform
@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_complex_special_functions_are_scipys_bit_for_bit(rng, dtype):
    z = pt.tensor("z", dtype=dtype, shape=(None,))
    fn = _native([z], [ours(z) for ours, _ in FUNCTIONS])
    with np.errstate(over="ignore"):  # the largest magnitudes overflow complex64: inf
        points = _points(rng).astype(dtype)
    with np.errstate(all="ignore"):
        expected = [theirs(points) for _, theirs in FUNCTIONS]
    for got, want in zip(fn(points), expected, strict=True):
        _assert_same_bits(got, want)


@native_platform
def test_complex_functions_fuse_with_complex_arithmetic(rng):
    z = pt.zvector("z")
    fn = _native([z], pt.gamma(z) * pt.erf(z) + pt.psi(z) - z)
    points = rng.normal(size=31) + 1j * rng.normal(size=31)
    want = sp.gamma(points) * sp.erf(points) + sp.psi(points) - points
    np.testing.assert_allclose(fn(points), want, rtol=1e-13)
    kinds = [type(node.op.scalar_op).__name__ for node in fn.maker.fgraph.toposort()]
    assert kinds == ["Composite"]  # one fused loop, native


def test_complex64_angle_is_the_float64_angle_rounded_once(rng):
    z = pt.tensor("z", dtype="complex64", shape=(None,))
    fn = _native([z], pt.angle(z))
    with np.errstate(over="ignore"):
        points = _points(rng).astype(np.complex64)
    got = fn(points)
    assert got.dtype == np.float32
    exact = np.angle(points.astype(np.complex128)).astype(np.float32)
    np.testing.assert_array_equal(got, exact)
    # NumPy's own vectorised float32 atan2 is a few ulps off at most: float32 tolerance
    np.testing.assert_allclose(got, np.angle(points), rtol=1e-6, atol=1e-7)


def test_the_registry_lists_these_ops_exactly_where_the_calls_are_not_native():
    listed = {key: numba_backend.FALLBACKS.get(key) for key in KEYS}
    if scipy_special.COMPLEX_CALLS:
        assert listed == dict.fromkeys(KEYS)
        assert "Angle" not in numba_backend.FALLBACKS
    else:
        assert listed == dict.fromkeys(KEYS, scipy_special.COMPLEX_CALLS_REASON)
        z = pt.zvector("z")
        fn = arignote.function([z], pt.erf(z), mode="NUMBA")
        assert {why.key for why in fn.runner.fallbacks.values()} == {"Erf"}


def test_native_report_shows_the_complex_nodes_native():
    z = pt.tensor("z", dtype="complex64", shape=(None,))
    fn = arignote.function([z], [pt.erfcx(z), pt.angle(z)], mode="NUMBA")
    report = numba_backend.native_report(fn.runner)
    lines = [line for line in report.splitlines() if "erfcx" in line or "angle" in line]
    assert len(lines) == 2
    native = scipy_special.COMPLEX_CALLS
    assert all(line.endswith(": native") for line in lines if native or "angle" in line)


@native_platform
def test_the_cached_graph_imports_the_complex_entry_points_by_name():
    z = pt.zvector("z")
    fn = _native([z], pt.gamma(z) + pt.erf(z))
    fn(np.ones(2, dtype=complex))
    path = Path(fn.runner.native_call[0].py_func.__code__.co_filename)
    written = path.read_text()  # the cached module the graph was loaded from
    assert "scipy_special import sfc_gamma_1 as" in written
    assert "scipy_special import sfc_erf_1 as" in written


_SCRIPT = """
import numpy as np, arignote, arignote.tensor as pt
z = pt.tensor("z", dtype="complex64", shape=(None,))
f = arignote.function([z], pt.psi(z) * pt.erfcx(z), mode="NUMBA")
result = f(np.array([-2.5 + 0.75j, 3.0 - 1.0j], dtype=np.complex64))
graph = f.runner.native_call[0]
hits, misses = sum(graph.stats.cache_hits.values()), sum(graph.stats.cache_misses.values())
print(hits, misses, repr(result.tolist()))
"""


@pytest.mark.slow
@native_platform
def test_a_second_process_loads_the_complex_calls_from_the_disk_cache(tmp_path):
    # the entry points are registered with LLVM by name when the cached module imports them
    env = dict(os.environ, ARIGNOTE_CACHE_DIR=str(tmp_path), PYTHONPATH=str(ROOT))
    runs = [
        subprocess.run(
            [sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True, timeout=600
        )
        for _ in range(2)
    ]
    first, second = (run.stdout.split(" ", 2) for run in runs)
    assert first[:2] == ["0", "1"], runs[0].stderr  # compiled
    assert second[:2] == ["1", "0"], runs[1].stderr  # loaded, not compiled
    assert second[2] == first[2]
