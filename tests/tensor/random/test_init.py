"""The public names of arignote.tensor.random (``import arignote.tensor.random as ptr``)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import arignote.tensor as pt
import arignote.tensor.random as ptr

DISTRIBUTIONS = [
    "bernoulli",
    "beta",
    "binomial",
    "categorical",
    "cauchy",
    "chisquare",
    "choice",
    "dirichlet",
    "exponential",
    "f",
    "gamma",
    "geometric",
    "gumbel",
    "halfcauchy",
    "halfnormal",
    "hypergeometric",
    "integers",
    "laplace",
    "logistic",
    "lognormal",
    "logseries",
    "multinomial",
    "multivariate_hypergeometric",
    "multivariate_normal",
    "negative_binomial",
    "noncentral_chisquare",
    "noncentral_f",
    "normal",
    "pareto",
    "permutation",
    "permuted",
    "poisson",
    "power",
    "random",
    "rayleigh",
    "standard_cauchy",
    "standard_exponential",
    "standard_gamma",
    "standard_normal",
    "standard_t",
    "triangular",
    "uniform",
    "vonmises",
    "wald",
    "weibull",
    "zipf",
]
OTHER_NAMES = [
    "NoneConst",
    "RandomGeneratorSharedVariable",
    "RandomGeneratorType",
    "RandomStream",
    "RandomVariable",
    "normalize_size_param",
    "random_generator_type",
]
# NumPy's Generator methods that are not distributions (or modify their argument in place).
NOT_DISTRIBUTIONS = {"bit_generator", "bytes", "shuffle", "spawn"}


@pytest.mark.parametrize("module", [ptr, pt.random], ids=["ptr", "pt.random"])
def test_every_distribution_and_helper_is_exported(module):
    missing = [n for n in DISTRIBUTIONS + OTHER_NAMES if not hasattr(module, n)]
    assert missing == []
    assert len(DISTRIBUTIONS) >= 20


@pytest.mark.parametrize("name", DISTRIBUTIONS)
def test_distribution_has_an_op_instance_and_a_documented_function(name):
    fn = getattr(ptr, name)
    op = getattr(ptr, f"{name}_rv", None)
    assert op is None or isinstance(op, ptr.RandomVariable)
    doc = inspect.getdoc(fn)
    assert doc and "Parameters" in doc and "Returns" in doc and "rng :" in doc


def test_every_numpy_generator_method_has_a_distribution():
    methods = {n for n in dir(np.random.Generator) if not n.startswith("_")}
    assert methods - NOT_DISTRIBUTIONS <= set(DISTRIBUTIONS)


@pytest.mark.parametrize(
    "name", [n for n in DISTRIBUTIONS if hasattr(np.random.Generator, n) and n != "permutation"]
)
def test_functions_take_numpys_parameter_names_and_defaults(name):
    numpy_doc = getattr(np.random.Generator, name).__doc__.strip().splitlines()[0]
    ours = inspect.signature(getattr(ptr, name)).parameters
    numpy_text = numpy_doc.split("(", 1)[1].rstrip(")").replace("*,", "")
    for entry in (e.strip() for e in numpy_text.split(",")):
        if not entry or entry in ("out=None",):
            continue
        parameter, _, default = entry.partition("=")
        assert parameter in ours, f"{name} lacks {parameter}"
        if default and parameter != "dtype":
            expected = eval(default, {"np": np})  # NumPy's documented default
            assert ours[parameter].default == expected, f"{name}({parameter}=...)"
