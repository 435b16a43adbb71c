"""op_db entries: random variables (arignote.tensor.random).

Each entry draws from a constant generator seeded with ``SEED``; the reference is the NumPy
``Generator`` method of the same name called on a generator with the same seed, so values must
match exactly. Draws have no gradient (``grad=False``).
"""

from __future__ import annotations

import numpy as np

import arignote.tensor.random as ptr
from tests.op_db.core import OpInfo, Sample, register

SEED = 20240611


def _draw(name):
    def build(*args, **kwargs):
        return getattr(ptr, name)(*args, rng=np.random.default_rng(SEED), **kwargs)

    return build


def _numpy(name):
    def ref(*args, **kwargs):
        return getattr(np.random.default_rng(SEED), name)(*args, **kwargs)

    return ref


def _entry(name, samples, ref=None):
    return OpInfo(
        name=f"random.{name}",
        build=_draw(name),
        ref=ref or _numpy(name),
        samples=samples,
        op_class=ptr.RandomVariable,
        grad=False,
        rop=False,
    )


def _positive(rng, shape, low=0.5, high=3.0):
    return rng.uniform(low, high, size=shape)


def _two_positive(low=0.5, high=3.0):
    """Samples for two positive parameters: broadcasting, 0-d with size, a size over batches."""

    def samples(rng):
        return [
            Sample((_positive(rng, (3, 4), low, high), _positive(rng, (4,), low, high)), name="bc"),
            Sample((np.asarray(1.5), np.asarray(2.0)), {"size": (2, 5)}, name="size"),
            Sample((_positive(rng, (5,), low, high), np.asarray(1.2)), {"size": (3, 5)}, name="bs"),
        ]

    return samples


def _location_scale(rng):
    return [
        Sample((rng.normal(size=(3, 4)), _positive(rng, (4,))), name="bc"),
        Sample((np.asarray(0.3), np.asarray(2.0)), {"size": (2, 5)}, name="size"),
        Sample((rng.normal(size=(5,)), np.asarray(1.5)), {"size": (3, 5)}, name="bs"),
    ]


def _interval(rng):
    return [
        Sample((rng.uniform(-2, -1, size=(3, 4)), _positive(rng, (4,))), name="bc"),
        Sample((np.asarray(0.3), np.asarray(2.0)), {"size": (2, 5)}, name="size"),
    ]


def _one_positive(low=0.5, high=3.0):
    def samples(rng):
        return [
            Sample((_positive(rng, (2, 5), low, high),), name="matrix"),
            Sample((np.asarray(1.7),), {"size": (4, 3)}, name="size"),
        ]

    return samples


def _no_parameter(rng):
    return [Sample((), {"size": (3, 4)}, name="size"), Sample((), name="scalar")]


def _probability(rng):
    return [
        Sample((rng.uniform(0.1, 0.9, size=(3, 4)),), name="matrix"),
        Sample((np.asarray(0.3),), {"size": (2, 5)}, name="size"),
    ]


def _binomial(rng):
    return [
        Sample((rng.integers(1, 20, size=(4,)), rng.uniform(0.1, 0.9, size=(3, 4))), name="bc"),
        Sample((np.asarray(7), np.asarray(0.4)), {"size": (2, 5)}, name="size"),
    ]


def _triangular(rng):
    left = rng.uniform(-2, -1, size=(3, 4))
    return [
        Sample((left, np.asarray(0.0), rng.uniform(1, 2, size=(4,))), name="bc"),
        Sample((np.asarray(-1.0), np.asarray(0.5), np.asarray(2.0)), {"size": (5, 2)}, name="sz"),
    ]


def _counts(low, high, n):
    def samples(rng):
        return [
            Sample(tuple(rng.integers(low, high, size=(3, 4)) for _ in range(n)), name="matrix"),
            Sample(tuple(np.asarray(low + 2) for _ in range(n)), {"size": (2, 5)}, name="size"),
        ]

    return samples


def _integers(rng):
    return [
        Sample((rng.integers(0, 5, size=(4,)), np.asarray(20)), {"size": (3, 4)}, name="size"),
        Sample((np.asarray(2), rng.integers(10, 30, size=(2, 5))), name="bc"),
    ]


def _hypergeometric(rng):
    return [
        Sample(
            (rng.integers(5, 10, size=(3, 4)), rng.integers(5, 10, size=(4,)), np.asarray(4)),
            name="bc",
        ),
        Sample((np.asarray(6), np.asarray(8), np.asarray(5)), {"size": (2, 5)}, name="size"),
    ]


def _derived(transform, numpy_method):
    """Reference for derived distributions: loc + scale * transform(numpy draw)."""

    def ref(loc, scale, size=None):
        shape = size if size is not None else np.broadcast_shapes(np.shape(loc), np.shape(scale))
        draw = getattr(np.random.default_rng(SEED), numpy_method)(shape)
        return loc + scale * transform(draw)

    return ref


def _three_positive(rng):
    return [
        Sample(
            (_positive(rng, (3, 4), 2, 6), _positive(rng, (4,), 2, 6), _positive(rng, (3, 1))),
            name="bc",
        ),
        Sample((np.asarray(3.0), np.asarray(5.0), np.asarray(1.5)), {"size": (2, 5)}, name="sz"),
    ]


def _mv_hypergeometric(rng):
    return [
        Sample((rng.integers(2, 9, size=(4,)), np.asarray(6)), {"size": (2, 3)}, name="size"),
        Sample((rng.integers(2, 9, size=(3,)), np.asarray(4)), name="single"),
    ]


def _mvnormal(rng):
    factor = rng.normal(size=(3, 3))
    cov = factor @ factor.T + 3 * np.eye(3)
    return [
        Sample((rng.normal(size=(3,)), cov), {"size": (2, 5)}, name="size"),
        Sample((rng.normal(size=(3,)), cov), name="single"),
    ]


def _dirichlet(rng):
    return [
        Sample((_positive(rng, (4,)),), {"size": (2, 5)}, name="size"),
        Sample((_positive(rng, (3,)),), name="single"),
    ]


def _multinomial(rng):
    pvals = rng.dirichlet(np.ones(4), size=3)
    return [
        Sample((rng.integers(5, 20, size=(3,)), pvals), name="batched"),
        Sample((np.asarray(10), pvals[0]), {"size": (2, 5)}, name="size"),
    ]


def _categorical(rng):
    return [Sample((rng.dirichlet(np.ones(4)),), {"size": (3, 5)}, name="size")]


def _choice(rng):
    return [
        Sample((rng.normal(size=(6, 4)),), {"size": (2, 3)}, name="array"),
        Sample((rng.normal(size=(7,)),), {"size": (5,), "replace": False}, name="noreplace"),
        Sample((rng.normal(size=(3, 5)),), {"size": (2,), "axis": 1}, name="axis1"),
    ]


def _permutation(rng):
    return [
        Sample((rng.normal(size=(5, 3)),), name="matrix"),
        Sample((rng.normal(size=(3, 4)),), {"axis": 1}, name="axis1"),
    ]


register(
    _entry("normal", _location_scale),
    _entry("uniform", _interval),
    _entry("laplace", _location_scale),
    _entry("logistic", _location_scale),
    _entry("gumbel", _location_scale),
    _entry("lognormal", _location_scale),
    _entry("vonmises", _location_scale),
    _entry("beta", _two_positive()),
    _entry("gamma", _two_positive()),
    _entry("wald", _two_positive()),
    _entry("f", _two_positive(2.0, 6.0)),
    _entry("noncentral_chisquare", _two_positive()),
    _entry("exponential", _one_positive()),
    _entry("chisquare", _one_positive()),
    _entry("standard_t", _one_positive()),
    _entry("pareto", _one_positive()),
    _entry("weibull", _one_positive()),
    _entry("power", _one_positive()),
    _entry("rayleigh", _one_positive()),
    _entry("standard_gamma", _one_positive()),
    _entry("poisson", _one_positive()),
    _entry("zipf", _one_positive(1.5, 4.0)),
    _entry("triangular", _triangular),
    _entry("standard_normal", _no_parameter),
    _entry("standard_exponential", _no_parameter),
    _entry("standard_cauchy", _no_parameter),
    _entry("random", _no_parameter),
    _entry("binomial", _binomial),
    _entry("negative_binomial", _binomial),
    _entry("geometric", _probability),
    _entry("logseries", _probability),
    _entry("hypergeometric", _hypergeometric),
    _entry("integers", _integers),
    _entry("multivariate_normal", _mvnormal),
    _entry("dirichlet", _dirichlet),
    _entry("multinomial", _multinomial),
    _entry("noncentral_f", _three_positive),
    _entry("multivariate_hypergeometric", _mv_hypergeometric),
    _entry("choice", _choice),
    _entry("permutation", _permutation),
    _entry("permuted", _permutation),
    _entry("bernoulli", _probability, ref=lambda p, size=None: _numpy("binomial")(1, p, size)),
    _entry("halfnormal", _location_scale, ref=_derived(np.abs, "standard_normal")),
    _entry("cauchy", _location_scale, ref=_derived(lambda z: z, "standard_cauchy")),
    _entry("halfcauchy", _location_scale, ref=_derived(np.abs, "standard_cauchy")),
    _entry(
        "categorical",
        _categorical,
        ref=lambda p, size=None: _numpy("choice")(len(p), size=size, p=p),
    ),
)
