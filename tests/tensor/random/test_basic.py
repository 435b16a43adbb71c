"""Every scalar distribution of arignote.tensor.random against NumPy's Generator methods."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats

import arignote
import arignote.tensor as pt
import arignote.tensor.random as ptr
from arignote.tensor.random.type import random_generator_type

SEED = 1234

# name -> a function of a generator giving valid parameters of non-square, broadcasting shapes
PARAMETERS = {
    "normal": lambda r: (r.normal(size=(3, 4)), r.uniform(0.5, 2, size=(4,))),
    "uniform": lambda r: (r.uniform(-2, -1, size=(3, 4)), r.uniform(1, 2, size=(4,))),
    "beta": lambda r: (r.uniform(0.5, 3, size=(3, 4)), r.uniform(0.5, 3, size=(4,))),
    "gamma": lambda r: (r.uniform(0.5, 3, size=(3, 4)), r.uniform(0.5, 3, size=(4,))),
    "exponential": lambda r: (r.uniform(0.5, 3, size=(3, 4)),),
    "lognormal": lambda r: (r.normal(size=(3, 4)), r.uniform(0.5, 2, size=(4,))),
    "laplace": lambda r: (r.normal(size=(3, 4)), r.uniform(0.5, 2, size=(4,))),
    "logistic": lambda r: (r.normal(size=(3, 4)), r.uniform(0.5, 2, size=(4,))),
    "gumbel": lambda r: (r.normal(size=(3, 4)), r.uniform(0.5, 2, size=(4,))),
    "vonmises": lambda r: (r.normal(size=(3, 4)), r.uniform(0.5, 2, size=(4,))),
    "wald": lambda r: (r.uniform(0.5, 3, size=(3, 4)), r.uniform(0.5, 3, size=(4,))),
    "chisquare": lambda r: (r.uniform(0.5, 3, size=(3, 4)),),
    "noncentral_chisquare": lambda r: (r.uniform(1, 3, size=(3, 4)), r.uniform(0, 2, size=(4,))),
    "f": lambda r: (r.uniform(2, 6, size=(3, 4)), r.uniform(2, 6, size=(4,))),
    "noncentral_f": lambda r: (
        r.uniform(2, 6, size=(3, 4)),
        r.uniform(2, 6, size=(4,)),
        r.uniform(0, 2, size=(3, 1)),
    ),
    "standard_t": lambda r: (r.uniform(1, 5, size=(3, 4)),),
    "pareto": lambda r: (r.uniform(1, 5, size=(3, 4)),),
    "weibull": lambda r: (r.uniform(1, 5, size=(3, 4)),),
    "power": lambda r: (r.uniform(1, 5, size=(3, 4)),),
    "rayleigh": lambda r: (r.uniform(1, 5, size=(3, 4)),),
    "triangular": lambda r: (
        r.uniform(-2, -1, size=(3, 4)),
        np.zeros(4),
        r.uniform(1, 2, size=(3, 1)),
    ),
    "standard_gamma": lambda r: (r.uniform(0.5, 3, size=(3, 4)),),
    "binomial": lambda r: (r.integers(1, 30, size=(4,)), r.uniform(0.1, 0.9, size=(3, 4))),
    "poisson": lambda r: (r.uniform(0.5, 10, size=(3, 4)),),
    "geometric": lambda r: (r.uniform(0.1, 0.9, size=(3, 4)),),
    "hypergeometric": lambda r: (
        r.integers(5, 10, size=(3, 4)),
        r.integers(5, 10, size=(4,)),
        r.integers(1, 5, size=(3, 1)),
    ),
    "negative_binomial": lambda r: (r.integers(1, 10, size=(4,)), r.uniform(0.1, 0.9, (3, 4))),
    "logseries": lambda r: (r.uniform(0.1, 0.9, size=(3, 4)),),
    "zipf": lambda r: (r.uniform(1.5, 4, size=(3, 4)),),
}
NO_PARAMETER = ["standard_normal", "standard_exponential", "standard_cauchy", "random"]


def compiled_draw(name, args, **kwargs):
    """A function of the generator returning the draw of distribution ``name``."""
    rng = random_generator_type("rng")
    symbolic = [pt.as_tensor_variable(a) if np.ndim(a) == 0 else pt.constant(a) for a in args]
    return arignote.function([rng], getattr(ptr, name)(*symbolic, rng=rng, **kwargs))


def numpy_draw(name, args, **kwargs):
    return getattr(np.random.default_rng(SEED), name)(*args, **kwargs)


def assert_same_draws(got, expected):
    expected = np.asarray(expected)
    assert got.shape == expected.shape
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("name", sorted(PARAMETERS))
def test_distribution_matches_numpy_with_broadcast_parameters(name, rng):
    args = PARAMETERS[name](rng)
    got = compiled_draw(name, args)(np.random.default_rng(SEED))
    assert_same_draws(got, numpy_draw(name, args))


@pytest.mark.parametrize("name", sorted(PARAMETERS))
def test_distribution_matches_numpy_with_size(name, rng):
    args = PARAMETERS[name](rng)
    got = compiled_draw(name, args, size=(2, 3, 4))(np.random.default_rng(SEED))
    assert_same_draws(got, numpy_draw(name, args, size=(2, 3, 4)))


@pytest.mark.parametrize("name", sorted(PARAMETERS))
def test_distribution_matches_numpy_with_scalar_parameters(name, rng):
    args = tuple(np.asarray(a).reshape(-1)[0].item() for a in PARAMETERS[name](rng))
    draw = getattr(ptr, name)(*args, rng=np.random.default_rng(SEED))
    assert draw.type.shape == ()
    assert_same_draws(draw.eval(), numpy_draw(name, args))
    sized = getattr(ptr, name)(*args, size=5, rng=np.random.default_rng(SEED))
    assert_same_draws(sized.eval(), numpy_draw(name, args, size=5))


@pytest.mark.parametrize("name", NO_PARAMETER)
def test_parameterless_distribution_matches_numpy(name):
    got = compiled_draw(name, (), size=(3, 5))(np.random.default_rng(SEED))
    assert_same_draws(got, numpy_draw(name, (), size=(3, 5)))
    scalar = getattr(ptr, name)(rng=np.random.default_rng(SEED)).eval()
    assert_same_draws(scalar, numpy_draw(name, ()))


@pytest.mark.parametrize("name", ["standard_normal", "standard_exponential", "random"])
def test_float32_stream_is_numpys_float32_stream(name):
    draw = getattr(ptr, name)(size=(4, 3), dtype="float32", rng=np.random.default_rng(SEED))
    assert draw.type.dtype == "float32"
    assert_same_draws(draw.eval(), numpy_draw(name, (), size=(4, 3), dtype=np.float32))


def test_standard_exponential_inverse_cdf_method():
    draw = ptr.standard_exponential(size=4, method="inv", rng=np.random.default_rng(SEED))
    assert_same_draws(draw.eval(), numpy_draw("standard_exponential", (), size=4, method="inv"))
    with pytest.raises(ValueError, match="'zig' or 'inv'"):
        ptr.standard_exponential(method="other")


def test_standard_gamma_float32_and_floatX():
    draw = ptr.standard_gamma(2.0, size=3, dtype="float32", rng=np.random.default_rng(SEED))
    assert_same_draws(draw.eval(), numpy_draw("standard_gamma", (2.0,), size=3, dtype="float32"))
    with arignote.config.change_flags(floatX="float32"):
        floatx = ptr.standard_normal(size=2, rng=np.random.default_rng(SEED))
    assert floatx.type.dtype == "float32" and floatx.owner.op.dtype == "float32"
    with pytest.raises(TypeError, match="float32 or float64"):
        ptr.standard_normal(size=2, dtype="int64", rng=np.random.default_rng(SEED))


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        ((10,), {"size": (3, 4)}),
        ((3, 17), {"size": 6}),
        ((np.array([0, 5, 10]), 20), {}),
        ((0, np.array([[3], [7]])), {"size": (4, 2, 3)}),
        ((5,), {"size": 4, "dtype": "int32"}),
        ((0, 255), {"size": 7, "dtype": "uint8", "endpoint": True}),
        ((2,), {"size": 5, "dtype": "bool"}),
        ((1, 6), {"size": (2, 5), "endpoint": True}),
    ],
)
def test_integers_matches_numpy(args, kwargs):
    draw = ptr.integers(*args, rng=np.random.default_rng(SEED), **kwargs)
    assert_same_draws(draw.eval(), numpy_draw("integers", args, **kwargs))


def test_integers_refuses_float_dtypes():
    with pytest.raises(TypeError, match="integer or bool"):
        ptr.integers(5, dtype="float64")


def test_bernoulli_is_binomial_with_one_trial(rng):
    p = rng.uniform(size=(3, 4))
    draw = ptr.bernoulli(p, rng=np.random.default_rng(SEED))
    assert_same_draws(draw.eval(), np.random.default_rng(SEED).binomial(1, p))
    sized = ptr.bernoulli(0.3, size=(2, 5), rng=np.random.default_rng(SEED))
    assert_same_draws(sized.eval(), np.random.default_rng(SEED).binomial(1, 0.3, size=(2, 5)))


def test_halfnormal_matches_scipy(rng):
    loc, scale = rng.normal(size=(3, 4)), rng.uniform(0.5, 2, size=(4,))
    draw = ptr.halfnormal(loc, scale, rng=np.random.default_rng(SEED))
    expected = scipy.stats.halfnorm.rvs(loc, scale, random_state=np.random.default_rng(SEED))
    np.testing.assert_array_equal(draw.eval(), expected)
    sized = ptr.halfnormal(1.0, 2.0, size=(2, 5), rng=np.random.default_rng(SEED))
    expected = scipy.stats.halfnorm.rvs(1.0, 2.0, (2, 5), random_state=np.random.default_rng(SEED))
    np.testing.assert_array_equal(sized.eval(), expected)


@pytest.mark.parametrize(("name", "transform"), [("cauchy", lambda z: z), ("halfcauchy", np.abs)])
def test_cauchy_distributions_transform_standard_cauchy(name, transform, rng):
    loc, scale = rng.normal(size=(3, 4)), rng.uniform(0.5, 2, size=(4,))
    draw = getattr(ptr, name)(loc, scale, rng=np.random.default_rng(SEED))
    expected = loc + scale * transform(np.random.default_rng(SEED).standard_cauchy((3, 4)))
    np.testing.assert_array_equal(draw.eval(), expected)
    sized = getattr(ptr, name)(1.0, 2.0, size=(2, 5), rng=np.random.default_rng(SEED))
    expected = 1.0 + 2.0 * transform(np.random.default_rng(SEED).standard_cauchy((2, 5)))
    np.testing.assert_array_equal(sized.eval(), expected)


@pytest.mark.parametrize("name", ["halfnormal", "cauchy", "halfcauchy", "normal", "laplace"])
def test_negative_scale_is_a_run_time_error_naming_the_node(name):
    scale = pt.dscalar("scale")
    f = arignote.function([scale], getattr(ptr, name)(0.0, scale, rng=np.random.default_rng(0)))
    with pytest.raises(ValueError, match=rf"(?s)scale < 0.*{name}_rv"):
        f(-1.0)


@pytest.mark.parametrize(
    ("name", "args", "match"),
    [
        ("binomial", (5, 1.5), "p > 1"),
        ("poisson", (-1.0,), "lam < 0"),
        ("beta", (0.0, 1.0), "a <= 0"),
        ("uniform", (2.0, 1.0), "high - low < 0"),
    ],
)
def test_bad_parameter_values_raise_numpys_errors(name, args, match):
    f = arignote.function([], getattr(ptr, name)(*args, rng=np.random.default_rng(0)))
    with pytest.raises(ValueError, match=rf"(?s){match}.*{name}_rv"):
        f()


def test_distribution_classes_are_distinct_op_types():
    classes = {type(getattr(ptr, f"{name}_rv", None)) for name in ("normal", "gamma", "beta")}
    assert classes == {ptr.NormalRV, ptr.GammaRV, ptr.BetaRV}
    assert isinstance(ptr.normal(rng=np.random.default_rng(0)).owner.op, ptr.NormalRV)


@pytest.mark.parametrize("name", sorted(PARAMETERS) + NO_PARAMETER)
def test_shared_generator_advances_exactly_as_numpy_over_three_calls(name, rng):
    """Two chained draws per call (broadcast parameters and a size) from a shared generator,
    three calls: the numbers and the final state are those of one NumPy generator making the
    same six calls. The compiled graph draws in place; the function input version of the
    same graph must leave its generator untouched."""
    args = PARAMETERS[name](rng) if name in PARAMETERS else ()
    size = (2, 3, 4)
    shared = arignote.shared(np.random.default_rng(SEED))
    first = getattr(ptr, name)(*args, size=size, rng=shared)
    second = getattr(ptr, name)(*args, rng=first.owner.outputs[0], size=size)
    shared.default_update = second.owner.outputs[0]
    f = arignote.function([], [first, second])
    reference = np.random.default_rng(SEED)
    for _ in range(3):
        got_first, got_second = f()
        assert_same_draws(got_first, getattr(reference, name)(*args, size=size))
        assert_same_draws(got_second, getattr(reference, name)(*args, size=size))
    assert random_generator_type.values_eq(shared.get_value(), reference)

    rng_in = random_generator_type("rng")
    first = getattr(ptr, name)(*args, size=size, rng=rng_in)
    second = getattr(ptr, name)(*args, rng=first.owner.outputs[0], size=size)
    g = arignote.function([rng_in], [first, second])
    value = np.random.default_rng(SEED)
    once, twice = g(value), g(value)
    assert random_generator_type.values_eq(value, np.random.default_rng(SEED))
    for a, b in zip(once, twice):
        np.testing.assert_array_equal(a, b)


def test_wald_defaults_to_mean_and_scale_one():
    # PyTensor's wald(mean=1.0, scale=1.0, size=None)
    draw = ptr.wald(size=(2, 5), rng=np.random.default_rng(SEED))
    assert_same_draws(draw.eval(), np.random.default_rng(SEED).wald(1.0, 1.0, size=(2, 5)))


def test_gamma_takes_pytensors_rate_keyword():
    draw = ptr.gamma(2.0, rate=4.0, size=(2, 5), rng=np.random.default_rng(SEED))
    expected = np.random.default_rng(SEED).gamma(2.0, 0.25, size=(2, 5))
    assert_same_draws(draw.eval(), expected)
    default = ptr.gamma(2.0, size=(3,), rng=np.random.default_rng(SEED))
    assert_same_draws(default.eval(), np.random.default_rng(SEED).gamma(2.0, 1.0, size=(3,)))
    with pytest.raises(ValueError, match="not both"):
        ptr.gamma(2.0, 3.0, rate=2.0)
