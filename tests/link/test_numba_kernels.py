"""Native kernels of reductions with an index, softmax, fused reductions, creation, sorting,
advanced indexing, linear algebra and SciPy's special functions: values against NumPy/SciPy
and the Python VM, error classes as ``perform``'s, and no object-mode node."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
import scipy.special

import arignote
import arignote.tensor as pt
from arignote.graph.codegen import CodeBuilder
from arignote.link.jit import JITRunner

numba_backend = pytest.importorskip("arignote.link.numba")


def _native(inputs, outputs):
    """A NUMBA function whose every node is native."""
    fn = arignote.function(inputs, outputs, mode="NUMBA", on_unused_input="ignore")
    assert isinstance(fn.runner, JITRunner)
    assert fn.runner.fallbacks == {}, numba_backend.native_report(fn.runner)
    return fn


def _check(got, expected, rtol=1e-12):
    got = got if isinstance(got, list) else [got]
    for g, e in zip(got, expected):
        e = np.asarray(e)
        assert g.dtype == e.dtype and g.shape == e.shape, (g.dtype, e.dtype, g.shape, e.shape)
        np.testing.assert_allclose(g, e, rtol=rtol)


def test_fused_reduction_is_one_kernel_and_matches_numpy(rng):
    x = pt.dmatrix("x")
    fn = _native([x], [pt.sum(pt.exp(x) * 2, axis=1), pt.max(pt.sin(x))])
    fused = numba_backend.dispatch.fused_reductions(fn.runner.fgraph)
    assert len(fused) == 2  # both reductions read their elementwise producer's inputs
    value = rng.normal(size=(3, 5))
    _check(fn(value), [np.sum(np.exp(value) * 2, axis=1), np.max(np.sin(value))])
    with pytest.raises(ValueError):
        fn(np.zeros((0, 4)))  # the maximum of no elements


def test_argmax_argmin_first_extreme_nan_first_and_several_axes(rng):
    x = pt.tensor3("x")
    fn = _native([x], [pt.argmax(x, axis=(0, 2)), pt.argmin(x, axis=1), pt.argmax(x)])
    value = rng.normal(size=(2, 3, 4))
    value[1, 2, 3] = np.nan
    value[0, 0, 1] = value[0, 0, 2] = -5.0
    grouped = value.transpose(1, 0, 2).reshape(3, 8)
    _check(fn(value), [np.argmax(grouped, axis=-1), np.argmin(value, axis=1), np.argmax(value)])
    with pytest.raises(ValueError):
        fn(np.zeros((2, 0, 4)))


def test_softmax_and_log_softmax_are_stable(rng):
    x = pt.dmatrix("x")
    fn = _native([x], [pt.special.softmax(x, axis=1), pt.special.log_softmax(x, axis=(0, 1))])
    value = rng.normal(size=(3, 4)) * 300
    value[0] = -np.inf
    with np.errstate(invalid="ignore"):
        expected = [scipy.special.softmax(value, axis=1), scipy.special.log_softmax(value)]
    _check(fn(value), expected)
    _check(fn(np.zeros((0, 4))), [np.zeros((0, 4)), np.zeros((0, 4))])


@pytest.mark.slow
def test_creation_and_extra_ops(rng):
    n, start, stop, step = pt.lscalar("n"), pt.dscalar("a"), pt.dscalar("b"), pt.dscalar("s")
    x = pt.dmatrix("x")
    outputs = [
        pt.eye(n, n + 1, 1),
        pt.arange(start, stop, step),
        pt.linspace(start, stop, n),
        pt.repeat(x, pt.arange(3), axis=0),
        pt.flip(x, axis=1),
        pt.diagonal(x, 1),
        *pt.split(x, [1, 3, 0], 3, axis=1),
    ]
    fn = _native([n, start, stop, step, x], outputs)
    value = rng.normal(size=(3, 4))
    expected = [
        np.eye(3, 4, 1),
        np.arange(0.5, 4.1, 0.7),
        np.linspace(0.5, 4.1, 3),
        np.repeat(value, np.arange(3), axis=0),
        np.flip(value, axis=1),
        np.diagonal(value, 1),
        *np.split(value, [1, 4], axis=1),
    ]
    _check(fn(3, 0.5, 4.1, 0.7, value), expected)
    with pytest.raises(ValueError):
        fn(3, 0.0, 1.0, 0.0, value)  # a zero step


@pytest.mark.slow
def test_sorting_searching_and_counting(rng):
    x, v, k = pt.dmatrix("x"), pt.dvector("v"), pt.lvector("k")
    outputs = [
        pt.sort(x, axis=0),
        pt.argsort(x, axis=1, kind="stable"),
        pt.searchsorted(pt.sort(v), x, side="right"),
        *pt.unique(x, return_index=True, return_inverse=True, return_counts=True),
        *pt.nonzero(x > 0),
        pt.bincount(k, minlength=7),
    ]
    fn = _native([x, v, k], outputs)
    value = rng.integers(-2, 3, size=(4, 5)).astype(float)  # ties
    value[1, 1] = value[2, 3] = np.nan
    grid, counts = rng.normal(size=6), rng.integers(0, 5, size=9)
    expected = [
        np.sort(value, axis=0),
        np.argsort(value, axis=1, kind="stable"),
        np.searchsorted(np.sort(grid), value, side="right"),
        *np.unique(value, return_index=True, return_inverse=True, return_counts=True),
        *np.nonzero(value > 0),
        np.bincount(counts, minlength=7),
    ]
    _check(fn(value, grid, counts), expected)
    with pytest.raises(ValueError):
        fn(value, grid, np.array([1, -1]))


def test_advanced_indexing_repeated_indices_accumulate(rng):
    x, y, i = pt.dmatrix("x"), pt.dmatrix("y"), pt.lvector("i")
    mask = pt.tensor("m", dtype="bool", shape=(None,))
    outputs = [
        x[i],
        pt.inc_subtensor(x[i], y),
        pt.set_subtensor(x[i], y),
        x[:, i],
        x[mask],
        pt.take_along_axis(x, pt.argsort(x, axis=1), axis=1),
    ]
    fn = _native([x, y, i, mask], outputs)
    value, update = rng.normal(size=(4, 3)), rng.normal(size=(5, 3))
    index = np.array([0, -1, 0, 2, 0])
    flags = np.array([True, False, True, True])
    added, written = value.copy(), value.copy()
    np.add.at(added, index, update)
    written[index] = update
    expected = [
        value[index],
        added,
        written,
        value[:, index],
        value[flags],
        np.sort(value, axis=1),
    ]
    got = fn(value, update, index, flags)
    _check(got, expected)
    with pytest.raises(IndexError):
        fn(value, update, np.array([0, 4, 0, 0, 0]), flags)


@pytest.mark.slow
def test_linear_algebra_and_its_errors(rng):
    x = pt.dtensor3("x")
    la = pt.linalg
    fn = _native([x], [la.det(x), *la.slogdet(x), la.inv(x), la.cholesky(x), la.pinv(x)])
    a = rng.normal(size=(2, 3, 3))
    spd = a @ a.transpose(0, 2, 1) + 3 * np.eye(3)
    sign, logdet = np.linalg.slogdet(spd)
    expected = [np.linalg.det(spd), sign, logdet, np.linalg.inv(spd)]
    expected += [np.linalg.cholesky(spd), np.linalg.pinv(spd)]
    _check(fn(spd), expected, rtol=1e-10)
    with pytest.raises(np.linalg.LinAlgError):
        fn(-spd)  # not positive definite: Cholesky refuses
    singular = _native([x], [la.det(x)])
    _check(singular(np.zeros((2, 3, 3))), [np.zeros(2)])


def test_cholesky_refuses_infinities_and_nans_as_scipy(rng):
    # numba's cholesky factored a NaN matrix into NaNs where perform (scipy.linalg.cholesky,
    # check_finite) raises ValueError: found by the hostile-input sweep (issue 14)
    x = pt.dmatrix("x")
    upper = _native([x], pt.linalg.cholesky(x, lower=False, on_error="raise"))
    quiet = _native([x], pt.linalg.cholesky(x, lower=False))  # on_error="nan"
    a = rng.normal(size=(3, 3))
    spd = a @ a.T + 3 * np.eye(3)
    np.testing.assert_allclose(upper(spd), np.linalg.cholesky(spd).T, rtol=1e-12)
    for bad in (np.nan, np.inf):
        spd[1, 2] = bad
        with pytest.raises(ValueError, match="infs or NaNs"):
            upper(spd)
        assert np.isnan(quiet(spd)).all()
    assert np.isnan(quiet(-np.eye(3))).all()


def test_scipy_special_functions_give_scipy_values(rng):
    x, y = pt.dvector("x"), pt.dvector("y")
    fn = _native([x, y], [pt.psi(x), pt.erfinv(y), pt.gammainc(x, y), pt.isclose(x, y)])
    a, b = rng.uniform(0.1, 3, size=7), rng.uniform(-0.9, 0.9, size=7)
    b[0] = a[0]
    expected = [scipy.special.psi(a), scipy.special.erfinv(b), scipy.special.gammainc(a, b)]
    _check(fn(a, b), [*expected, np.isclose(a, b)], rtol=0)


def test_kernels_are_generated_through_the_one_code_builder(monkeypatch):
    built = []
    original = CodeBuilder.build

    def build(self, function_name):
        built.append(self.filename)
        return original(self, function_name)

    monkeypatch.setattr(CodeBuilder, "build", build)
    kernel = importlib.import_module("arignote.link.numba.dispatch").compile_source(
        "def kernel(a):\n    return a * 2.0\n", "kernel", {}
    )
    assert built == ["<arignote.numba kernel>"]
    assert kernel(np.float64(1.5)) == 3.0
    assert kernel.arignote_source.startswith("def kernel(a):")  # the source kept


def test_special_function_kernels_give_scipy_values_for_every_native_entry(rng):
    x, y = pt.dvector("x"), pt.dvector("y")
    a, b = rng.uniform(0.2, 0.9, size=5), rng.uniform(0.5, 3.0, size=5)
    cases = [
        (pt.erf(x), scipy.special.erf(a)),
        (pt.gammaln(y), scipy.special.gammaln(b)),
        (pt.gamma(y), scipy.special.gamma(b)),
        (pt.logit(x), scipy.special.logit(a)),
        (pt.kv(y, x), scipy.special.kv(b, a)),
        (pt.owens_t(x, y), scipy.special.owens_t(a, b)),
        (pt.xlogy(x, y), scipy.special.xlogy(a, b)),
    ]
    fn = _native([x, y], [out for out, _ in cases])
    _check(fn(a, b), [want for _, want in cases], rtol=1e-15)


@pytest.mark.parametrize(
    ("left", "right"), [("int64", "int64"), ("int8", "uint16"), ("bool", "bool")]
)
def test_fmod_of_integers_takes_the_sign_of_the_dividend(left, right):
    # numba's np.fmod of integers computes Python's %, whose remainder has the divisor's sign
    a, b = pt.vector("a", dtype=left), pt.vector("b", dtype=right)
    fn = _native([a, b], pt.fmod(a, b))
    pairs = [(-8, 3), (8, -3), (-7, -2), (7, 2), (6, 3), (-6, 0), (0, -5), (5, 0)]
    x = np.array([p[0] for p in pairs]).astype(left, casting="unsafe")
    y = np.array([p[1] for p in pairs]).astype(right, casting="unsafe")
    with np.errstate(divide="ignore"):
        expected = np.fmod(x, y)
    got = fn(x, y)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)
