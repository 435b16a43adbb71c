"""Native samplers numba lacks (``dispatch/random_samplers.py``, ``random_picks.py``,
``random_vector.py``) against NumPy and the Python VM.

The samplers themselves are compared with ``Generator`` methods over many seeds and
parameters (one compiled loop); the graph kernels are compared with the VM: same numbers, same
dtype and shape, the same next generator state (the next draw from it matches too), inputs
left alone, and no object-mode node. Numba compiles slowly: the default run compiles a few
functions, the sweeps over every layout are slow-marked.
"""

from __future__ import annotations

import warnings

import numba
import numpy as np
import pytest

import arignote
import arignote.tensor as pt
import arignote.tensor.random as ptr
from arignote.tensor.random.type import copy_generator, random_generator_type

numba_backend = pytest.importorskip("arignote.link.numba")
samplers = pytest.importorskip("arignote.link.numba.dispatch.random_samplers")
picks = pytest.importorskip("arignote.link.numba.dispatch.random_picks")


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba's performance hints
        yield


# -- the samplers against Generator methods ---------------------------------------------------


@numba.njit
def _draw_scalars(rng, which, a, b, c, count):
    out = np.empty(count)
    bitgen = rng.bit_generator
    for i in range(count):
        if which == 0:
            out[i] = samplers.gumbel(bitgen, a, b)
        elif which == 1:
            out[i] = samplers.wald(bitgen, a, b)
        elif which == 2:
            out[i] = samplers.vonmises(bitgen, a, b)
        else:
            out[i] = samplers.hypergeometric(bitgen, np.int64(a), np.int64(b), np.int64(c))
    return out


#: method: parameter sets covering every branch of NumPy's algorithm
SCALAR_CASES = {
    "gumbel": [(0.3, 2.0), (-1.0, 0.0), (5.0, 1e-3)],
    "wald": [(1.5, 2.0), (0.1, 30.0), (100.0, 0.01)],
    "vonmises": [(0.5, 3.0), (-3.0, 1e-9), (2.0, 1e-6), (1.0, 2e6), (3.0, 0.5), (0.0, 700.0)],
    "hypergeometric": [(5, 8, 4), (100, 200, 50), (1000, 30, 900), (3, 3, 6), (20, 0, 10)]
    + [(50000, 70000, 300), (300, 200, 250)],
}


def test_scalar_samplers_give_numpy_s_numbers_and_next_state():
    for which, (name, cases) in enumerate(SCALAR_CASES.items()):
        for params in cases:
            for seed in range(12):
                ours, numpy_s = np.random.default_rng(seed), np.random.default_rng(seed)
                padded = [float(v) for v in params] + [0.0] * (3 - len(params))
                got = _draw_scalars(ours, which, *padded, 150)
                expected = getattr(numpy_s, name)(*params, size=150)
                np.testing.assert_array_equal(got, expected, err_msg=f"{name}{params}")
                assert ours.bit_generator.state == numpy_s.bit_generator.state, name


@numba.njit
def _draw_picks(rng, population, count, shuffle, p, weighted):
    if weighted:
        return picks.weighted_distinct_indices(rng.bit_generator, p, count)
    return picks.distinct_indices(rng.bit_generator, population, count, shuffle)


def test_choice_without_replacement_follows_numpy_s_three_algorithms():
    """Floyd's algorithm (with and without the final shuffle), the tail shuffle of a large
    population, and the weighted rounds."""
    cases = [(7, 5, True), (40, 12, False), (20000, 3000, True), (20000, 100, True)]
    cases += [(12000, 700, False), (1, 1, True)]
    for seed in range(8):
        weights = np.random.default_rng(seed).dirichlet(np.full(15, 0.3))
        for population, count, shuffle in cases:
            ours, numpy_s = np.random.default_rng(seed), np.random.default_rng(seed)
            got = _draw_picks(ours, population, count, shuffle, weights, False)
            expected = numpy_s.choice(population, count, replace=False, shuffle=shuffle)
            np.testing.assert_array_equal(got, expected)
            assert ours.bit_generator.state == numpy_s.bit_generator.state
        ours, numpy_s = np.random.default_rng(seed), np.random.default_rng(seed)
        got = _draw_picks(ours, 15, 9, True, weights, True)
        np.testing.assert_array_equal(got, numpy_s.choice(15, 9, replace=False, p=weights))
        assert ours.bit_generator.state == numpy_s.bit_generator.state


# -- graph kernels against the VM ---------------------------------------------------------------


def _symbols(values):
    return [pt.tensor(dtype=np.asarray(v).dtype, shape=(None,) * np.ndim(v)) for v in values]


#: compiled (native, VM) pairs by case name, shared across tests (numba compiles slowly)
_COMPILED: dict = {}


def _functions(build, values, key=None):
    if key is not None and key in _COMPILED:
        return _COMPILED[key]
    rng = random_generator_type("rng")
    params = _symbols(values)
    next_rng, draw = build(rng, *params)
    inputs, outputs = [rng, *params], [next_rng, draw]
    native = arignote.function(inputs, outputs, mode="NUMBA")
    vm = arignote.function(inputs, outputs, mode="VM")
    if key is not None:
        _COMPILED[key] = native, vm
    return native, vm


def check_same_draws(native, vm, values, seeds=(0, 1, 2)):
    """Both draw the same numbers twice in a row (the second time from the generator the
    first call returned), leave their inputs alone, and run without object-mode nodes."""
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


def _draw(name, **kwargs):
    def build(rng, *params):
        return getattr(ptr, name)(*params, rng=rng, return_next_rng=True, **kwargs)

    return build


def _weighted_choice(**kwargs):
    def build(rng, a, p):
        return ptr.choice(a, p=p, rng=rng, return_next_rng=True, **kwargs)

    return build


def _integers(dtype, **kwargs):
    def build(rng, low, high):
        draw = ptr.integers(low, high, dtype=dtype, rng=rng, **kwargs)
        return draw.owner.outputs[0], draw

    return build


def _g():
    return np.random.default_rng(77)


#: (id, build, parameter values): every sampler, with broadcasting, size and batches
GRAPH_CASES = [
    ("gumbel_bc", _draw("gumbel"), lambda g: [g.normal(size=(3, 4)), g.uniform(1, 2, (4,))]),
    ("wald_size", _draw("wald", size=(2, 5)), lambda g: [np.asarray(1.5), np.asarray(2.0)]),
    ("vonmises_bs", _draw("vonmises", size=(3, 5)), lambda g: [g.normal(size=5), np.asarray(2.0)]),
    (
        "hypergeometric_bc",
        _draw("hypergeometric"),
        lambda g: [g.integers(5, 40, (3, 4)), g.integers(5, 40, (4,)), np.asarray(12)],
    ),
    ("invgamma_bc", _draw("invgamma"), lambda g: [g.uniform(0.5, 3, (3, 4)), g.uniform(1, 3, 4)]),
    (
        "t_loc_scale",
        _draw("t", size=(2, 3, 4)),
        lambda g: [g.uniform(0.5, 9, (4,)), g.normal(size=(3, 4)), np.asarray(2.0)],
    ),
    ("dirichlet_single", _draw("dirichlet"), lambda g: [g.uniform(0.5, 3, 4)]),
    ("dirichlet_small", _draw("dirichlet", size=(2, 3)), lambda g: [g.uniform(0.01, 0.09, 4)]),
    ("dirichlet_batch", _draw("dirichlet"), lambda g: [g.uniform(0.01, 3, (3, 4))]),
    ("dirichlet_batch_size", _draw("dirichlet", size=(2, 3)), lambda g: [g.uniform(1, 3, (3, 4))]),
    (
        "multinomial_batch",
        _draw("multinomial"),
        lambda g: [g.integers(5, 50, (3,)), g.dirichlet(np.ones(4), 3)],
    ),
    (
        "multinomial_size",
        _draw("multinomial", size=(2, 5)),
        lambda g: [np.asarray(100), g.dirichlet(np.ones(4))],
    ),
    ("categorical_size", _draw("categorical", size=(3, 5)), lambda g: [g.dirichlet(np.ones(4))]),
    ("categorical_batch", _draw("categorical"), lambda g: [g.dirichlet(np.ones(4), (2, 3))]),
    ("categorical_one", _draw("categorical"), lambda g: [g.dirichlet(np.ones(6))]),
    (
        "mvhg_marginals",
        _draw("multivariate_hypergeometric", size=(2, 3)),
        lambda g: [g.integers(2, 9, (4,)), np.asarray(16)],
    ),
    (
        "mvhg_count_size",
        _draw("multivariate_hypergeometric", size=(2, 3), method="count"),
        lambda g: [g.integers(2, 9, (4,)), np.asarray(6)],
    ),
    (
        "mvhg_count_batch",
        _draw("multivariate_hypergeometric", method="count"),
        lambda g: [g.integers(2, 30, (4,)), g.integers(0, 8, (2, 3))],
    ),
    ("permutation_int", _draw("permutation"), lambda g: [np.asarray(9)]),
    ("permutation_matrix", _draw("permutation"), lambda g: [g.normal(size=(5, 3))]),
    ("permutation_axis1", _draw("permutation", axis=1), lambda g: [g.normal(size=(3, 4))]),
    ("permuted_flat", _draw("permuted"), lambda g: [g.normal(size=(3, 4))]),
    ("permuted_axis1", _draw("permuted", axis=1), lambda g: [g.normal(size=(3, 4, 2))]),
    ("choice_rows", _draw("choice", size=(2, 3)), lambda g: [g.normal(size=(6, 4))]),
    ("choice_axis1", _draw("choice", size=(2,), axis=1), lambda g: [g.normal(size=(3, 5))]),
    ("choice_scalar", _draw("choice"), lambda g: [np.asarray(20)]),
    (
        "choice_distinct",
        _draw("choice", size=(5,), replace=False),
        lambda g: [g.normal(size=(7,))],
    ),
    (
        "choice_weighted",
        _weighted_choice(size=(4, 2)),
        lambda g: [np.asarray(9), g.dirichlet(np.ones(9))],
    ),
    (
        "choice_weighted_distinct",
        _weighted_choice(size=(4,), replace=False),
        lambda g: [np.asarray(9), g.dirichlet(np.ones(9))],
    ),
    (
        "choice_tail_shuffle",
        _draw("choice", size=(3000,), replace=False),
        lambda g: [np.asarray(20000)],
    ),
]

#: integers: NumPy's array path (one 32-bit buffer per call for bool, 8 and 16 bits), float
#: bounds (compared as floats, then truncated), uint64 draws
INTEGER_CASES = [
    (
        f"integers_{dtype}_{layout}",
        _integers(dtype, endpoint=endpoint, size=size),
        lambda g, top=top, layout=layout: {
            "array": [g.integers(0, top // 2, (3, 4)), np.asarray(top)],
            "floats": [g.uniform(0, top / 2, (3, 4)), np.asarray(top - 0.5)],
            "scalar_floats": [np.asarray(0.7), np.asarray(top - 0.5)],
        }[layout],
    )
    for dtype, top in [("bool", 2), ("int8", 100), ("uint8", 255), ("int16", 1000)]
    + [("uint16", 65535), ("int32", 10**6), ("uint32", 10**9), ("int64", 10**12)]
    + [("uint64", 2**62)]
    for layout, endpoint, size in [
        ("array", False, None),
        ("floats", False, None),
        ("scalar_floats", False, (3, 7)),
    ]
] + [
    (
        "integers_uint8_full_range",
        _integers("uint8", endpoint=True),
        lambda g: [np.asarray(0), np.full(50, 255)],
    ),
]

#: a representative default subset (a few compiled functions)
DEFAULT = {
    "dirichlet_small",
    "categorical_batch",
    "choice_distinct",
    "permuted_axis1",
    "integers_int8_array",
}


def _case_params(cases):
    return [
        pytest.param(name, build, make, id=name, marks=() if name in DEFAULT else pytest.mark.slow)
        for name, build, make in cases
    ]


@pytest.mark.parametrize(("name", "build", "make"), _case_params(GRAPH_CASES + INTEGER_CASES))
def test_native_draws_are_the_vm_s(name, build, make):
    values = make(_g())
    native, vm = _functions(build, values, key=name)
    check_same_draws(native, vm, values)


def test_parameters_numpy_refuses_raise_numpy_s_error():
    """Invalid values go to perform, which raises NumPy's error (as on the VM); a float
    binomial count is NumPy 2's TypeError."""
    native, vm = _functions(_draw("dirichlet", size=(2, 3)), [np.full(4, 0.05)], "dirichlet_small")
    for fn in (native, vm):
        with pytest.raises(ValueError, match="alpha < 0"):
            fn(np.random.default_rng(0), np.array([0.5, -1.0, 0.2, 0.1]))
    values = [np.asarray(3.0), np.asarray(0.5)]
    native, vm = _functions(_draw("binomial", size=(3,)), values)
    assert native.runner.fallbacks == {}
    for fn in (native, vm):
        with pytest.raises(TypeError, match="Cannot cast"):
            fn(np.random.default_rng(0), *values)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [3, 4])
def test_more_seeds_and_parameters(seed):
    g = np.random.default_rng(seed)
    values = [g.integers(0, 60, (2, 3)), g.dirichlet(np.full(5, 0.7), 3)]
    check_same_draws(*_functions(_draw("multinomial"), values), values, seeds=range(10))
    values = [g.uniform(0.02, 0.2, (4, 6))]  # some rows below 0.1 (beta sticks), some not
    check_same_draws(*_functions(_draw("dirichlet"), values), values, seeds=range(10))
    values = [g.integers(0, 400, (3,)), g.integers(0, 400, (3,)), g.integers(0, 300, (3,))]
    values[2] = np.minimum(values[2], values[0] + values[1])
    check_same_draws(*_functions(_draw("hypergeometric"), values), values, seeds=range(10))
