"""Native ``betabinom``, ``truncexpon``, ``gengamma`` (``dispatch/random_scipy.py``) and
``multivariate_normal`` (``dispatch/random_mvnormal.py``) against the Python VM.

Each graph case draws twice in a row from several seeds natively and on the VM: the same
numbers, dtype and shape, and the same next generator state; no object-mode node, and (where
the native path is meant to draw) no call of ``perform`` at all. Numba compiles slowly: the
default run compiles a few functions, the other layouts are slow-marked.
"""

from __future__ import annotations

import warnings

import numba
import numpy as np
import pytest

import arignote
import arignote.tensor as pt
import arignote.tensor.random as ptr
from arignote.tensor.random.op import RandomVariable
from arignote.tensor.random.type import copy_generator, random_generator_type

numba_backend = pytest.importorskip("arignote.link.numba")
scipy_draws = pytest.importorskip("arignote.link.numba.dispatch.random_scipy")
mvnormal = pytest.importorskip("arignote.link.numba.dispatch.random_mvnormal")


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", numba.NumbaPerformanceWarning)
        yield


@pytest.fixture
def performs(monkeypatch):
    """The op classes whose ``perform`` ran (the VM's calls, and any native fallback)."""
    calls: list[str] = []
    original = RandomVariable.perform

    def counting(self, node, inputs, output_storage):
        calls.append(type(self).__name__)
        return original(self, node, inputs, output_storage)

    monkeypatch.setattr(RandomVariable, "perform", counting)
    return calls


# -- NumPy's power loop ------------------------------------------------------------------------


def test_numpy_power_is_numpy_s_float64_power_number_for_number():
    g = np.random.default_rng(0)
    x = g.standard_gamma(g.uniform(0.1, 10, 20000))
    y = 1.0 / g.uniform(0.2, 5, 20000)
    np.testing.assert_array_equal(scipy_draws.numpy_power(x, y, False), np.power(x, y))
    for exponent in (2.0, 0.5, -1.0, 1.0, 1 / 3):
        # a NumPy scalar exponent: the loop's fast forms (x * x, sqrt, 1 / x) where they apply
        got = scipy_draws.numpy_power(x, np.full(1, exponent), True)
        np.testing.assert_array_equal(got, x ** np.float64(exponent))
        # the same exponent along an array: the general power (SVML's, on AVX512 CPUs)
        along = np.full_like(x, exponent)
        np.testing.assert_array_equal(scipy_draws.numpy_power(x, along, False), x**along)


# -- graph kernels against the VM --------------------------------------------------------------


def _symbols(values):
    """Tensors for ``values``, declaring their length-1 dimensions broadcastable."""
    return [
        pt.tensor(dtype=np.asarray(v).dtype, shape=tuple(1 if n == 1 else None for n in v.shape))
        for v in map(np.asarray, values)
    ]


def _functions(name, values, **kwargs):
    rng = random_generator_type("rng")
    params = _symbols(values)
    next_rng, draw = getattr(ptr, name)(*params, rng=rng, return_next_rng=True, **kwargs)
    inputs, outputs = [rng, *params], [next_rng, draw]
    native = arignote.function(inputs, outputs, mode="NUMBA")
    vm = arignote.function(inputs, outputs, mode="VM")
    return native, vm


def check_same_draws(native, vm, values, seeds=(0, 1, 2)):
    """Same numbers twice in a row (the second time from the generator the first call
    returned), same dtype, shape and next state; inputs left alone; no object-mode node."""
    assert native.runner.fallbacks == {}, numba_backend.native_report(native.runner)
    kept = [np.array(v, copy=True) for v in values]
    for seed in seeds:
        given = np.random.default_rng(seed)
        state_native, state_vm = copy_generator(given), copy_generator(given)
        for _ in range(2):
            next_native, got = native(state_native, *values)
            next_vm, expected = vm(state_vm, *values)
            np.testing.assert_array_equal(got, expected)
            assert got.dtype == expected.dtype and got.shape == expected.shape
            assert random_generator_type.values_eq(next_native, next_vm)
            state_native, state_vm = next_native, next_vm
        assert random_generator_type.values_eq(given, np.random.default_rng(seed))
    for value, copy in zip(values, kept):
        np.testing.assert_array_equal(value, copy)


def _cov(g, k, batch=()):
    factor = g.normal(size=(*batch, k, k))
    return factor @ np.swapaxes(factor, -1, -2) + 0.5 * np.eye(k)


#: (id, distribution, keyword arguments, parameter values, whether perform draws natively too)
CASES = [
    (
        "betabinom_bc",
        "betabinom",
        {},
        lambda g: [g.integers(3, 40, (5, 4)), g.uniform(0.2, 3, 4), g.uniform(0.2, 3, (5, 1))],
    ),
    ("betabinom_size", "betabinom", {"size": (30, 7)}, lambda g: [10, 2.0, 0.4]),
    ("betabinom_btpe", "betabinom", {"size": (40,)}, lambda g: [1000, 0.6, 30.0]),
    (
        "truncexpon_bc",
        "truncexpon",
        {},
        lambda g: [g.uniform(0.1, 5, (5, 4)), g.normal(size=4), g.uniform(0.5, 2, (5, 1))],
    ),
    ("truncexpon_size", "truncexpon", {"size": (30, 7)}, lambda g: [2.0, 0.5, 1.5]),
    (
        "truncexpon_float32",
        "truncexpon",
        {},
        lambda g: [
            g.uniform(0.1, 5, (5, 4)).astype("float32"),
            g.normal(size=4).astype("float32"),
            np.asarray(2),
        ],
    ),
    (
        "gengamma_bc",
        "gengamma",
        {},
        lambda g: [g.uniform(0.1, 5, (5, 4)), g.uniform(0.3, 4, 4), g.uniform(0.5, 2, (5, 1))],
    ),
    ("gengamma_size", "gengamma", {"size": (30, 7)}, lambda g: [2.0, 1.5, 3.0]),
    ("gengamma_square", "gengamma", {"size": (30, 7)}, lambda g: [2.0, 0.5, 3.0]),
    ("gengamma_root", "gengamma", {}, lambda g: [2.0, 2.0, 3.0]),
    (
        "gengamma_float32",
        "gengamma",
        {},
        lambda g: [
            g.uniform(0.1, 5, (5, 4)).astype("float32"),
            g.uniform(0.3, 4, 4).astype("float32"),
            np.asarray(2.0, "float32"),
        ],
    ),
    *[
        case
        for method in ("svd", "eigh", "cholesky")
        for case in [
            (
                f"mvnormal_{method}_size",
                "multivariate_normal",
                {"size": (2, 5), "method": method},
                lambda g: [g.normal(size=4), _cov(g, 4)],
            ),
            (
                f"mvnormal_{method}_one",
                "multivariate_normal",
                {"method": method},
                lambda g: [g.normal(size=5), _cov(g, 5)],
            ),
            (
                f"mvnormal_{method}_batch",
                "multivariate_normal",
                {"method": method},
                lambda g: [g.normal(size=(2, 1, 3)), _cov(g, 3, (4,))],
            ),
            (
                f"mvnormal_{method}_batch_size",
                "multivariate_normal",
                {"size": (3, 2), "method": method},
                lambda g: [g.normal(size=3), _cov(g, 3, (2,))],
            ),
            (
                f"mvnormal_{method}_scalar",
                "multivariate_normal",
                {"size": (6,), "method": method},
                lambda g: [g.normal(size=1), _cov(g, 1)],
            ),
            (
                f"mvnormal_{method}_large",
                "multivariate_normal",
                {"size": (200,), "method": method},
                lambda g: [g.normal(size=40), _cov(g, 40)],
            ),
        ]
    ],
]

DEFAULT = {"betabinom_bc", "truncexpon_bc", "gengamma_square", "mvnormal_svd_size"}


def _case_params():
    return [
        pytest.param(*case, id=case[0], marks=() if case[0] in DEFAULT else pytest.mark.slow)
        for case in CASES
    ]


@pytest.mark.parametrize(("name", "dist", "kwargs", "make"), _case_params())
def test_native_draws_are_the_vm_s(performs, name, dist, kwargs, make):
    values = [np.asarray(v) for v in make(np.random.default_rng(77))]
    native, vm = _functions(dist, values, **kwargs)
    check_same_draws(native, vm, values)
    assert len(performs) == 6  # the VM's draws alone: the native ones never ran perform


def test_a_special_exponent_along_arrays_goes_to_perform(performs):
    """An exponent of 0.5 broadcast inside NumPy's power loop may take a fast form that the
    kernel does not repeat: perform draws it (the same numbers either way)."""
    g = np.random.default_rng(3)
    values = [g.uniform(0.5, 3, (3, 4)), np.full(4, 2.0), g.uniform(0.5, 2, (3, 1))]
    native, vm = _functions("gengamma", values)
    check_same_draws(native, vm, values, seeds=(0,))
    assert len(performs) == 4


def test_invalid_parameters_raise_the_vm_s_errors():
    native, vm = _functions("betabinom", [np.asarray(4.0), 1.0, 2.0], size=(3,))
    for fn in (native, vm):
        with pytest.raises(TypeError, match="Cannot cast"):
            fn(np.random.default_rng(0), np.asarray(4.0), np.asarray(1.0), np.asarray(2.0))
    values = [np.asarray(1.0), np.asarray(0.0), np.asarray(2.0)]
    native, vm = _functions("truncexpon", values, size=(3,))
    for fn in (native, vm):
        with pytest.raises(ValueError, match="Domain error"):
            fn(np.random.default_rng(0), np.asarray(-1.0), *values[1:])
        # every scale 0: SciPy returns loc without drawing
        _, draw = fn(np.random.default_rng(0), values[0], np.asarray(0.5), np.asarray(0.0))
        np.testing.assert_array_equal(draw, np.full(3, 0.5))


_INDEFINITE = np.array([[1.0, 2.0], [2.0, 1.0]])


def test_multivariate_normal_warns_and_raises_as_numpy_does():
    mean = np.zeros(2)
    native, vm = _functions("multivariate_normal", [mean, _INDEFINITE], size=(3,))
    assert native.runner.fallbacks == {}
    for fn in (native, vm):
        with pytest.warns(RuntimeWarning, match="positive-semidefinite"):
            fn(np.random.default_rng(0), mean, _INDEFINITE)
        with pytest.raises(np.linalg.LinAlgError, match="NaN or infinity"):
            fn(np.random.default_rng(0), mean, np.array([[1.0, np.inf], [0.0, 1.0]]))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("method", "error"),
    [("svd", ValueError), ("eigh", ValueError), ("cholesky", np.linalg.LinAlgError)],
)
def test_multivariate_normal_refuses_what_numpy_refuses(method, error):
    mean, kwargs = np.zeros(2), {"size": (3,), "method": method, "check_valid": "raise"}
    native, vm = _functions("multivariate_normal", [mean, _INDEFINITE], **kwargs)
    assert native.runner.fallbacks == {}
    for fn in (native, vm):
        with pytest.raises(error):
            fn(np.random.default_rng(0), mean, _INDEFINITE)


@pytest.fixture(scope="module")
def direct_draws():
    """Jitted one-call draws of every method (factor, then the BLAS product)."""
    draw_into = mvnormal._draw_function()

    def make(factor_into):
        @numba.njit
        def draw(rng, mean, cov, count):
            factor = np.empty(cov.shape)
            ok = factor_into(cov, factor, True, 1e-8)
            out = np.empty((count, mean.shape[0]))
            draw_into(rng.bit_generator, mean, factor, out)
            return ok, out

        return draw

    return {method: make(build()) for method, build in mvnormal._FACTORS.items()}


def test_many_covariances_give_numpy_s_draws(direct_draws):
    g = np.random.default_rng(1)
    for trial in range(40):
        k, count = int(g.integers(1, 9)), int(g.choice([1, 2, 7]))
        cov, mean = _cov(g, k) * g.uniform(0.1, 10), g.normal(size=k)
        for method, draw in direct_draws.items():
            ours, numpy_s = np.random.default_rng(trial), np.random.default_rng(trial)
            ok, got = draw(ours, mean, cov, count)
            expected = numpy_s.multivariate_normal(mean, cov, size=count, method=method)
            assert ok
            np.testing.assert_array_equal(got, expected, err_msg=f"{method} {k} {count}")
            assert ours.bit_generator.state == numpy_s.bit_generator.state


def test_the_semidefiniteness_check_never_says_yes_when_numpy_says_no(direct_draws):
    """Covariances at NumPy's tolerance: a native draw only where NumPy's check passes."""
    g = np.random.default_rng(2)
    outcomes = set()
    for _ in range(60):
        cov = _cov(g, 3)
        cov[0, 1] += g.uniform(-1e-7, 1e-7)  # an asymmetry around NumPy's tolerance
        ok, _ = direct_draws["svd"](np.random.default_rng(0), np.zeros(3), cov, 1)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            np.random.default_rng(0).multivariate_normal(np.zeros(3), cov)
        assert not (ok and caught)
        outcomes.add(bool(caught))
    assert outcomes == {True, False}  # both sides of the tolerance were tried
