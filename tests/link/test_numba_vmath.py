"""The vectorisable transcendental functions of native elementwise loops (``vmath``).

Values against NumPy in ulps over wide ranges and at special values (inf, nan, +-0,
denormal arguments and results, the edges of overflow), float32 through arignote functions,
the C-library fallback of sin and cos for large arguments, and that LLVM vectorises a loop
calling them.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import arignote
import arignote.tensor as pt

numba = pytest.importorskip("numba")
vmath = pytest.importorskip("arignote.link.numba.dispatch.vmath")
llvm = pytest.importorskip("llvmlite.binding")

NAMES = ["exp", "expm1", "log", "log1p", "sin", "cos", "tanh", "cosh"]
#: Largest error in ulps against NumPy (NumPy's own error, up to ~1 ulp, included).
BOUND = {"exp": 2, "expm1": 3, "log": 2, "log1p": 2, "sin": 3, "cos": 3, "tanh": 4, "cosh": 2}


def _loop(name: str):
    fn = getattr(vmath, name)

    @numba.njit
    def apply(x):
        out = np.empty_like(x)
        for j in range(x.shape[0]):
            out[j] = fn(x[j])
        return out

    return apply


_LOOPS = {}


def _apply(name: str, x: np.ndarray) -> np.ndarray:
    if name not in _LOOPS:
        _LOOPS[name] = _loop(name)
    return _LOOPS[name](x)


def _arguments(name: str) -> np.ndarray:
    rng = np.random.default_rng(sum(map(ord, name)))
    wide = {
        "exp": rng.uniform(-745, 709.7, 4000),
        "expm1": rng.uniform(-60, 709.7, 4000),
        "log": np.exp(rng.uniform(-744, 709, 4000)),
        "log1p": np.concatenate([np.exp(rng.uniform(-744, 709, 2000)), -rng.uniform(0, 1, 2000)]),
        "sin": rng.uniform(-vmath.TRIG_LIMIT, vmath.TRIG_LIMIT, 4000),
        "cos": rng.uniform(-vmath.TRIG_LIMIT, vmath.TRIG_LIMIT, 4000),
        "tanh": rng.uniform(-30, 30, 4000),
        "cosh": rng.uniform(-710.47, 710.47, 4000),  # cosh overflows near 710.476
    }[name]
    near = np.concatenate([rng.normal(size=2000), rng.uniform(-1e-8, 1e-8, 500)])
    if name == "log":
        near = np.abs(near) + np.array(1e-300)
    if name == "log1p":
        near = np.maximum(near, -0.99)
    return np.concatenate([wide, near])


def _ulps(got: np.ndarray, expected: np.ndarray) -> np.ndarray:
    scale = np.spacing(np.maximum(np.abs(expected), np.finfo(np.float64).tiny))
    return np.abs(got - expected) / scale


@pytest.mark.parametrize("name", NAMES)
def test_close_to_numpy_in_ulps(name):
    x = _arguments(name)
    expected = getattr(np, name)(x)
    assert np.max(_ulps(_apply(name, x), expected)) <= BOUND[name]


SPECIAL = np.array(
    [0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 1e-310, -1e-310, 2.2250738585072014e-308,
     709.782712893384, 709.7827128933841, 710.0, -745.1332191019411, -745.2, -740.0, 1e300,
     -1e300, -1.0, -1.0000000000000002, -0.9999999999999999, 1e-17, -1e-17, 1.0, 2.0, 0.5]
)  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
def test_special_values(name):
    x = SPECIAL
    if name in ("sin", "cos"):
        x = x[np.abs(x) <= vmath.TRIG_LIMIT]  # the others go through the C library
    with np.errstate(all="ignore"):
        expected = getattr(np, name)(x)
    got = _apply(name, x)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
    finite = np.isfinite(expected)
    np.testing.assert_array_equal(got[~finite & ~np.isnan(got)], expected[~finite & ~np.isnan(got)])
    assert np.all(_ulps(got[finite], expected[finite]) <= BOUND[name])
    zero = expected == 0
    np.testing.assert_array_equal(np.signbit(got[zero]), np.signbit(expected[zero]))


@pytest.mark.parametrize("name", NAMES)
def test_float32_through_a_function(name):
    x = _arguments(name)
    x = x[np.abs(x) < 80].astype("float32")  # float32 overflows beyond
    v = pt.fvector("v")
    f = arignote.function([v], getattr(pt, name)(v), mode="NUMBA")
    got = f(x)
    assert got.dtype == np.float32
    with np.errstate(all="ignore"):
        expected = getattr(np, name)(x)
    np.testing.assert_allclose(got, expected, rtol=4e-7, atol=1e-37)


def test_large_trig_arguments_take_the_c_library():
    rng = np.random.default_rng(5)
    x = rng.normal(size=1000) * 3
    x[[3, 500, 999]] = [1e6, -3e15, np.inf]
    y = rng.normal(size=1000)
    v, w = pt.dvectors("v", "w")
    f = arignote.function([v, w], pt.sin(v) * pt.cos(w) + pt.exp(w), mode="NUMBA")
    with np.errstate(invalid="ignore"):
        expected = np.sin(x) * np.cos(y) + np.exp(y)
    np.testing.assert_allclose(f(x, y), expected, rtol=1e-14, atol=1e-15)
    assert np.isnan(f(x, y)[999])


def test_fused_loop_values_and_strided_inputs():
    rng = np.random.default_rng(6)
    x, y, z = (rng.normal(size=(40, 30)) for _ in range(3))
    a, b, c = pt.dmatrices("a", "b", "c")
    out = pt.exp(-(a**2)) * pt.sin(b) + pt.log1p(abs(c)) + pt.tanh(a) - pt.expm1(c / 4)
    f = arignote.function([a, b, c], out, mode="NUMBA")
    for args in ((x, y, z), (x.T, y.T, z.T), (x[::2], y[::2], z[::2])):
        expected = (
            np.exp(-(args[0] ** 2)) * np.sin(args[1])
            + np.log1p(np.abs(args[2]))
            + np.tanh(args[0])
            - np.expm1(args[2] / 4)
        )
        np.testing.assert_allclose(f(*args), expected, rtol=1e-13, atol=1e-15)


def _host_has_simd() -> bool:
    features = llvm.get_host_cpu_features()
    return bool(features.get("avx2", False))


@pytest.mark.skipif(not _host_has_simd(), reason="the host CPU has no AVX2 to vectorise with")
@pytest.mark.parametrize("name", NAMES)
def test_the_loop_vectorises(name):
    x = np.linspace(0.1, 2.0, 64)
    loop = _loop(name)
    loop(x)
    asm = loop.inspect_asm(loop.signatures[0])
    # packed double operations on 256- or 512-bit registers (no call left in the loop body)
    assert re.search(r"v\w+pd\s+[^\n]*%[yz]mm", asm), f"{name}: the loop was not vectorised"


@pytest.mark.parametrize(
    ("shape", "axis"), [((60, 37), 1), ((6, 5, 11), (1, 2)), ((30, 7), 0), ((4, 0), 1)]
)
def test_logsumexp_kernels_match_the_vm(shape, axis):
    rng = np.random.default_rng(8)
    value = 1000 + rng.normal(size=shape)
    if value.size:
        value[0] = -np.inf  # a slice starting with -inf
        value[1] = np.inf  # a slice with inf (shifted by 0, as perform does)
        value[2].flat[3] = np.nan
        value[3] = -np.inf  # all -inf: -inf
    x = pt.tensor("float64", shape=(None,) * len(shape))
    native = arignote.function([x], pt.logsumexp(x, axis=axis), mode="NUMBA")
    vm = arignote.function([x], pt.logsumexp(x, axis=axis), mode="VM")
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(native(value), vm(value), rtol=1e-14, equal_nan=True)


def test_fused_sum_of_fast_functions():
    rng = np.random.default_rng(9)
    value = rng.normal(size=(300, 7))
    x = pt.dmatrix("x")
    f = arignote.function(
        [x], [pt.sum(pt.exp(x) * pt.tanh(x)), pt.sum(pt.log1p(x**2), axis=0)], mode="NUMBA"
    )
    total, columns = f(value)
    np.testing.assert_allclose(total, np.sum(np.exp(value) * np.tanh(value)), rtol=1e-13)
    np.testing.assert_allclose(columns, np.sum(np.log1p(value**2), axis=0), rtol=1e-13)
