"""Scalar distributions: one ``RandomVariable`` subclass, op instance and function each.

Each function has the parameter names and defaults of the ``numpy.random.Generator`` method of
the same name and gives exactly its numbers for a generator in the same state. The few
distributions NumPy lacks (``bernoulli``, ``cauchy``, ``halfnormal``, ``halfcauchy``) are derived
from a NumPy draw, and their docstrings say how.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from arignote.config import config
from arignote.graph.basic import Apply
from arignote.tensor.math import true_div
from arignote.tensor.random.op import RandomVariable, draw_function

# -- op classes: draws by the Generator method of the same name ------------------------------


def _scalar_rv(class_name: str, method: str, n_params: int, dtype: str, doc: str) -> type:
    """A RandomVariable subclass for ``Generator.<method>`` with scalar parameters."""
    attributes = {
        "__doc__": doc,
        "__module__": __name__,
        "name": method,
        "ndim_supp": 0,
        "ndims_params": (0,) * n_params,
        "dtype": dtype,
    }
    return type(class_name, (RandomVariable,), attributes)


# Table of the scalar distributions NumPy draws directly: (class, method, parameters, dtype).
NormalRV = _scalar_rv("NormalRV", "normal", 2, "floatX", "Normal draws, N(loc, scale**2).")
UniformRV = _scalar_rv("UniformRV", "uniform", 2, "floatX", "Uniform draws on [low, high).")
BetaRV = _scalar_rv("BetaRV", "beta", 2, "floatX", "Beta(a, b) draws.")
GammaRV = _scalar_rv("GammaRV", "gamma", 2, "floatX", "Gamma draws (shape, scale).")
ExponentialRV = _scalar_rv("ExponentialRV", "exponential", 1, "floatX", "Exponential draws.")
LogNormalRV = _scalar_rv("LogNormalRV", "lognormal", 2, "floatX", "exp(N(mean, sigma**2)).")
LaplaceRV = _scalar_rv("LaplaceRV", "laplace", 2, "floatX", "Laplace draws.")
LogisticRV = _scalar_rv("LogisticRV", "logistic", 2, "floatX", "Logistic draws.")
GumbelRV = _scalar_rv("GumbelRV", "gumbel", 2, "floatX", "Gumbel draws.")
VonMisesRV = _scalar_rv("VonMisesRV", "vonmises", 2, "floatX", "Von Mises draws on [-pi, pi].")
WaldRV = _scalar_rv("WaldRV", "wald", 2, "floatX", "Wald (inverse Gaussian) draws.")
ChiSquareRV = _scalar_rv("ChiSquareRV", "chisquare", 1, "floatX", "Chi-square draws.")
NoncentralChiSquareRV = _scalar_rv(
    "NoncentralChiSquareRV", "noncentral_chisquare", 2, "floatX", "Noncentral chi-square draws."
)
FRV = _scalar_rv("FRV", "f", 2, "floatX", "F (Fisher-Snedecor) draws.")
NoncentralFRV = _scalar_rv("NoncentralFRV", "noncentral_f", 3, "floatX", "Noncentral F draws.")
StudentTRV = _scalar_rv("StudentTRV", "standard_t", 1, "floatX", "Student's t draws.")
ParetoRV = _scalar_rv("ParetoRV", "pareto", 1, "floatX", "Pareto II (Lomax) draws.")
WeibullRV = _scalar_rv("WeibullRV", "weibull", 1, "floatX", "Weibull draws.")
PowerRV = _scalar_rv("PowerRV", "power", 1, "floatX", "Power-function draws on [0, 1].")
RayleighRV = _scalar_rv("RayleighRV", "rayleigh", 1, "floatX", "Rayleigh draws.")
TriangularRV = _scalar_rv("TriangularRV", "triangular", 3, "floatX", "Triangular draws.")
StandardCauchyRV = _scalar_rv(
    "StandardCauchyRV", "standard_cauchy", 0, "floatX", "Cauchy(0, 1) draws."
)
BinomialRV = _scalar_rv("BinomialRV", "binomial", 2, "int64", "Binomial(n, p) draws.")
PoissonRV = _scalar_rv("PoissonRV", "poisson", 1, "int64", "Poisson(lam) draws.")
GeometricRV = _scalar_rv("GeometricRV", "geometric", 1, "int64", "Geometric draws (>= 1).")
HyperGeometricRV = _scalar_rv(
    "HyperGeometricRV", "hypergeometric", 3, "int64", "Hypergeometric draws."
)
NegativeBinomialRV = _scalar_rv(
    "NegativeBinomialRV", "negative_binomial", 2, "int64", "Negative binomial draws."
)
LogSeriesRV = _scalar_rv("LogSeriesRV", "logseries", 1, "int64", "Logarithmic series draws.")
ZipfRV = _scalar_rv("ZipfRV", "zipf", 1, "int64", "Zipf draws.")


class _FloatDtypeRV(RandomVariable):
    """Methods taking ``dtype=`` (float32 or float64): NumPy draws that dtype's own stream.

    ``"floatX"`` is resolved when the node is built, so that ``perform`` passes a concrete
    dtype to NumPy.
    """

    def make_node(self, rng: Any, size: Any, *params: Any) -> Apply:
        if self.dtype == "floatX":
            return self.clone_with(dtype=config.floatX).make_node(rng, size, *params)
        if self.dtype not in ("float32", "float64"):
            raise TypeError(f"{self}: dtype must be float32 or float64, got {self.dtype}")
        return super().make_node(rng, size, *params)

    def rng_fn(self, rng, *args):
        *params, size = args
        return getattr(rng, self.name)(*params, size=size, dtype=self.dtype)


class StandardNormalRV(_FloatDtypeRV):
    """N(0, 1) draws: ``Generator.standard_normal(size, dtype)``."""

    name = "standard_normal"


class StandardExponentialRV(_FloatDtypeRV):
    """Exponential(1) draws: ``Generator.standard_exponential(size, dtype, method)``."""

    __props__ = ("name", "ndim_supp", "ndims_params", "dtype", "inplace", "method")
    name = "standard_exponential"

    def __init__(self, *args: Any, method: str = "zig", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if method not in ("zig", "inv"):
            raise ValueError(f"method must be 'zig' or 'inv', got {method!r}")
        self.method = method

    def rng_fn(self, rng, size):
        return rng.standard_exponential(size=size, dtype=self.dtype, method=self.method)


class StandardGammaRV(_FloatDtypeRV):
    """Gamma(shape, 1) draws: ``Generator.standard_gamma(shape, size, dtype)``."""

    name = "standard_gamma"
    ndims_params = (0,)


class RandomRV(_FloatDtypeRV):
    """Uniform draws on [0, 1): ``Generator.random(size, dtype)``."""

    name = "random"


class IntegersRV(RandomVariable):
    """Integers in [low, high) (or [low, high] with ``endpoint``): ``Generator.integers``."""

    __props__ = ("name", "ndim_supp", "ndims_params", "dtype", "inplace", "endpoint")
    name = "integers"
    ndims_params = (0, 0)
    dtype = "int64"

    def __init__(self, *args: Any, endpoint: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.endpoint = bool(endpoint)
        if self.dtype not in ("bool", "int8", "int16", "int32", "int64") and not (
            self.dtype.startswith("uint")
        ):
            raise TypeError(f"{self}: dtype must be an integer or bool dtype, got {self.dtype}")

    def rng_fn(self, rng, low, high, size):
        return rng.integers(low, high, size=size, dtype=self.dtype, endpoint=self.endpoint)


# -- derived distributions: NumPy has no method of that name ----------------------------------


def _draw_shape(size: tuple | None, *params: Any) -> tuple:
    """The shape of one draw per parameter entry: ``size``, or the parameters' broadcast."""
    return size if size is not None else np.broadcast_shapes(*[np.shape(p) for p in params])


def _check_scale(op: RandomVariable, scale: Any) -> None:
    if np.any(np.asarray(scale) < 0):
        raise ValueError(f"{op}: scale < 0")


class BernoulliRV(RandomVariable):
    """Bernoulli(p) draws, 0 or 1: the numbers of ``Generator.binomial(1, p, size)``."""

    name = "bernoulli"
    ndims_params = (0,)
    dtype = "int64"

    def rng_fn(self, rng, p, size):
        return rng.binomial(1, p, size=size)


class CauchyRV(RandomVariable):
    """Cauchy draws: ``loc + scale * Generator.standard_cauchy(shape)``."""

    name = "cauchy"
    ndims_params = (0, 0)

    def rng_fn(self, rng, loc, scale, size):
        _check_scale(self, scale)
        return loc + scale * rng.standard_cauchy(_draw_shape(size, loc, scale))


class HalfCauchyRV(RandomVariable):
    """Half-Cauchy draws: ``loc + scale * |Generator.standard_cauchy(shape)|``."""

    name = "halfcauchy"
    ndims_params = (0, 0)

    def rng_fn(self, rng, loc, scale, size):
        _check_scale(self, scale)
        return loc + scale * np.abs(rng.standard_cauchy(_draw_shape(size, loc, scale)))


class HalfNormalRV(RandomVariable):
    """Half-normal draws: ``loc + scale * |Generator.standard_normal(shape)|``."""

    name = "halfnormal"
    ndims_params = (0, 0)

    def rng_fn(self, rng, loc, scale, size):
        _check_scale(self, scale)
        return loc + scale * np.abs(rng.standard_normal(_draw_shape(size, loc, scale)))


# -- op instances -------------------------------------------------------------------------------

normal_rv = NormalRV()
uniform_rv = UniformRV()
beta_rv = BetaRV()
gamma_rv = GammaRV()
exponential_rv = ExponentialRV()
lognormal_rv = LogNormalRV()
laplace_rv = LaplaceRV()
logistic_rv = LogisticRV()
gumbel_rv = GumbelRV()
vonmises_rv = VonMisesRV()
wald_rv = WaldRV()
chisquare_rv = ChiSquareRV()
noncentral_chisquare_rv = NoncentralChiSquareRV()
f_rv = FRV()
noncentral_f_rv = NoncentralFRV()
standard_t_rv = StudentTRV()
pareto_rv = ParetoRV()
weibull_rv = WeibullRV()
power_rv = PowerRV()
rayleigh_rv = RayleighRV()
triangular_rv = TriangularRV()
standard_cauchy_rv = StandardCauchyRV()
binomial_rv = BinomialRV()
poisson_rv = PoissonRV()
geometric_rv = GeometricRV()
hypergeometric_rv = HyperGeometricRV()
negative_binomial_rv = NegativeBinomialRV()
logseries_rv = LogSeriesRV()
zipf_rv = ZipfRV()
standard_normal_rv = StandardNormalRV()
standard_exponential_rv = StandardExponentialRV()
standard_gamma_rv = StandardGammaRV()
random_rv = RandomRV()
integers_rv = IntegersRV()
bernoulli_rv = BernoulliRV()
cauchy_rv = CauchyRV()
halfcauchy_rv = HalfCauchyRV()
halfnormal_rv = HalfNormalRV()


# -- user functions: NumPy's names and defaults ------------------------------------------------


@draw_function
def normal(loc=0.0, scale=1.0, size=None, **kwargs):
    """Normal (Gaussian) draws, ``Generator.normal``.

    Parameters
    ----------
    loc : array_like
        Mean.
    scale : array_like
        Standard deviation (non-negative).
    """
    return normal_rv(loc, scale, size=size, **kwargs)


@draw_function
def standard_normal(size=None, dtype="floatX", **kwargs):
    """Draws from N(0, 1), ``Generator.standard_normal`` (its float32 stream for float32).

    Parameters
    ----------
    dtype : str
        "float64" or "float32" ("floatX": the configured float dtype).
    """
    return standard_normal_rv(size=size, dtype=dtype, **kwargs)


@draw_function
def uniform(low=0.0, high=1.0, size=None, **kwargs):
    """Uniform draws on ``[low, high)``, ``Generator.uniform``.

    Parameters
    ----------
    low, high : array_like
        Bounds of the interval.
    """
    return uniform_rv(low, high, size=size, **kwargs)


@draw_function
def random(size=None, dtype="floatX", **kwargs):
    """Uniform draws on ``[0, 1)``, ``Generator.random``.

    Parameters
    ----------
    dtype : str
        "float64" or "float32" ("floatX": the configured float dtype).
    """
    return random_rv(size=size, dtype=dtype, **kwargs)


@draw_function
def integers(low, high=None, size=None, dtype="int64", endpoint=False, **kwargs):
    """Random integers, ``Generator.integers``: ``[low, high)``, or ``[0, low)`` without high.

    Parameters
    ----------
    low, high : array_like of int
        Bounds; with ``high=None`` the draws lie in ``[0, low)`` (exactly NumPy's numbers).
    dtype : str
        Integer (or bool) dtype of the draws; NumPy's algorithm depends on it.
    endpoint : bool
        Include ``high`` in the range.
    """
    if high is None:
        low, high = 0, low
    op = (
        integers_rv
        if (dtype, endpoint) == ("int64", False)
        else IntegersRV(dtype=dtype, endpoint=endpoint)
    )
    return op(low, high, size=size, **kwargs)


@draw_function
def bernoulli(p, size=None, **kwargs):
    """Bernoulli draws (1 with probability ``p``); the numbers are ``Generator.binomial(1, p)``.

    Parameters
    ----------
    p : array_like
        Probability of a 1, in [0, 1].
    """
    return bernoulli_rv(p, size=size, **kwargs)


@draw_function
def binomial(n, p, size=None, **kwargs):
    """Binomial draws, ``Generator.binomial``.

    Parameters
    ----------
    n : array_like of int
        Number of trials (non-negative).
    p : array_like
        Probability of success, in [0, 1].
    """
    return binomial_rv(n, p, size=size, **kwargs)


@draw_function
def poisson(lam=1.0, size=None, **kwargs):
    """Poisson draws, ``Generator.poisson``.

    Parameters
    ----------
    lam : array_like
        Expected number of events (non-negative).
    """
    return poisson_rv(lam, size=size, **kwargs)


@draw_function
def gamma(shape, scale=1.0, size=None, *, rate=None, **kwargs):
    """Gamma draws, ``Generator.gamma`` (density ~ x**(shape-1) exp(-x/scale)).

    Parameters
    ----------
    shape : array_like
        Shape (k > 0).
    scale : array_like
        Scale (theta > 0, default 1); the rate is ``1 / scale``.
    rate : array_like
        PyTensor's alternative to ``scale`` (keyword only, deprecated there): ``1 / scale``.
        Give one of them, not both.
    """
    if rate is None:
        return gamma_rv(shape, scale, size=size, **kwargs)
    if not (isinstance(scale, float) and scale == 1.0):  # anything but the default
        raise ValueError("gamma: give scale or rate, not both")
    return gamma_rv(shape, true_div(1.0, rate), size=size, **kwargs)


@draw_function
def standard_gamma(shape, size=None, dtype="floatX", **kwargs):
    """Gamma(shape, 1) draws, ``Generator.standard_gamma``.

    Parameters
    ----------
    shape : array_like
        Shape (k > 0).
    dtype : str
        "float64" or "float32" ("floatX": the configured float dtype).
    """
    return standard_gamma_rv(shape, size=size, dtype=dtype, **kwargs)


@draw_function
def beta(a, b, size=None, **kwargs):
    """Beta draws, ``Generator.beta``.

    Parameters
    ----------
    a, b : array_like
        Positive shape parameters.
    """
    return beta_rv(a, b, size=size, **kwargs)


@draw_function
def exponential(scale=1.0, size=None, **kwargs):
    """Exponential draws, ``Generator.exponential``.

    Parameters
    ----------
    scale : array_like
        Scale (the inverse of the rate), non-negative.
    """
    return exponential_rv(scale, size=size, **kwargs)


@draw_function
def standard_exponential(size=None, dtype="floatX", method="zig", **kwargs):
    """Exponential(1) draws, ``Generator.standard_exponential``.

    Parameters
    ----------
    dtype : str
        "float64" or "float32" ("floatX": the configured float dtype).
    method : {"zig", "inv"}
        NumPy's algorithm: ziggurat or inverse CDF (it changes the numbers).
    """
    op = standard_exponential_rv if method == "zig" else StandardExponentialRV(method=method)
    return op(size=size, dtype=dtype, **kwargs)


@draw_function
def lognormal(mean=0.0, sigma=1.0, size=None, **kwargs):
    """Log-normal draws, ``Generator.lognormal``: ``exp`` of N(mean, sigma**2).

    Parameters
    ----------
    mean, sigma : array_like
        Mean and standard deviation of the underlying normal distribution.
    """
    return lognormal_rv(mean, sigma, size=size, **kwargs)


@draw_function
def laplace(loc=0.0, scale=1.0, size=None, **kwargs):
    """Laplace (double exponential) draws, ``Generator.laplace``.

    Parameters
    ----------
    loc, scale : array_like
        Location and (non-negative) scale.
    """
    return laplace_rv(loc, scale, size=size, **kwargs)


@draw_function
def logistic(loc=0.0, scale=1.0, size=None, **kwargs):
    """Logistic draws, ``Generator.logistic``.

    Parameters
    ----------
    loc, scale : array_like
        Location and (non-negative) scale.
    """
    return logistic_rv(loc, scale, size=size, **kwargs)


@draw_function
def gumbel(loc=0.0, scale=1.0, size=None, **kwargs):
    """Gumbel draws, ``Generator.gumbel``.

    Parameters
    ----------
    loc, scale : array_like
        Location (mode) and (non-negative) scale.
    """
    return gumbel_rv(loc, scale, size=size, **kwargs)


@draw_function
def vonmises(mu, kappa, size=None, **kwargs):
    """Von Mises draws on ``[-pi, pi]``, ``Generator.vonmises``.

    Parameters
    ----------
    mu : array_like
        Mode (an angle).
    kappa : array_like
        Concentration (non-negative).
    """
    return vonmises_rv(mu, kappa, size=size, **kwargs)


@draw_function
def wald(mean=1.0, scale=1.0, size=None, **kwargs):
    """Wald (inverse Gaussian) draws, ``Generator.wald``.

    Parameters
    ----------
    mean, scale : array_like
        Positive mean and scale (both 1 by default, as in PyTensor).
    """
    return wald_rv(mean, scale, size=size, **kwargs)


@draw_function
def chisquare(df, size=None, **kwargs):
    """Chi-square draws, ``Generator.chisquare``.

    Parameters
    ----------
    df : array_like
        Degrees of freedom (positive).
    """
    return chisquare_rv(df, size=size, **kwargs)


@draw_function
def noncentral_chisquare(df, nonc, size=None, **kwargs):
    """Noncentral chi-square draws, ``Generator.noncentral_chisquare``.

    Parameters
    ----------
    df : array_like
        Degrees of freedom (positive).
    nonc : array_like
        Non-centrality (non-negative).
    """
    return noncentral_chisquare_rv(df, nonc, size=size, **kwargs)


@draw_function
def f(dfnum, dfden, size=None, **kwargs):
    """F (Fisher-Snedecor) draws, ``Generator.f``.

    Parameters
    ----------
    dfnum, dfden : array_like
        Degrees of freedom of the numerator and denominator (positive).
    """
    return f_rv(dfnum, dfden, size=size, **kwargs)


@draw_function
def noncentral_f(dfnum, dfden, nonc, size=None, **kwargs):
    """Noncentral F draws, ``Generator.noncentral_f``.

    Parameters
    ----------
    dfnum, dfden : array_like
        Degrees of freedom of the numerator and denominator (positive).
    nonc : array_like
        Non-centrality (non-negative).
    """
    return noncentral_f_rv(dfnum, dfden, nonc, size=size, **kwargs)


@draw_function
def standard_t(df, size=None, **kwargs):
    """Student's t draws, ``Generator.standard_t``.

    Parameters
    ----------
    df : array_like
        Degrees of freedom (positive).
    """
    return standard_t_rv(df, size=size, **kwargs)


@draw_function
def pareto(a, size=None, **kwargs):
    """Pareto II (Lomax) draws, ``Generator.pareto``.

    Parameters
    ----------
    a : array_like
        Shape (positive).
    """
    return pareto_rv(a, size=size, **kwargs)


@draw_function
def weibull(a, size=None, **kwargs):
    """Weibull draws, ``Generator.weibull``.

    Parameters
    ----------
    a : array_like
        Shape (non-negative).
    """
    return weibull_rv(a, size=size, **kwargs)


@draw_function
def power(a, size=None, **kwargs):
    """Power-function draws on ``[0, 1]``, ``Generator.power``.

    Parameters
    ----------
    a : array_like
        Exponent (positive).
    """
    return power_rv(a, size=size, **kwargs)


@draw_function
def rayleigh(scale=1.0, size=None, **kwargs):
    """Rayleigh draws, ``Generator.rayleigh``.

    Parameters
    ----------
    scale : array_like
        Scale (mode), non-negative.
    """
    return rayleigh_rv(scale, size=size, **kwargs)


@draw_function
def triangular(left, mode, right, size=None, **kwargs):
    """Triangular draws on ``[left, right]`` peaking at ``mode``, ``Generator.triangular``.

    Parameters
    ----------
    left, mode, right : array_like
        ``left <= mode <= right`` and ``left < right``.
    """
    return triangular_rv(left, mode, right, size=size, **kwargs)


@draw_function
def standard_cauchy(size=None, **kwargs):
    """Cauchy(0, 1) draws, ``Generator.standard_cauchy``.

    Parameters
    ----------
    """
    return standard_cauchy_rv(size=size, **kwargs)


@draw_function
def cauchy(loc=0.0, scale=1.0, size=None, **kwargs):
    """Cauchy draws: ``loc + scale * standard_cauchy`` (NumPy has no ``cauchy`` method).

    The numbers are ``loc + scale * rng.standard_cauchy(shape)``, with ``shape`` the size or the
    broadcast shape of the parameters (``scipy.stats.cauchy.rvs``, which inverts the CDF of a
    uniform draw, gives other numbers from the same generator).

    Parameters
    ----------
    loc, scale : array_like
        Location (median) and (non-negative) scale.
    """
    return cauchy_rv(loc, scale, size=size, **kwargs)


@draw_function
def halfcauchy(loc=0.0, scale=1.0, size=None, **kwargs):
    """Half-Cauchy draws: ``loc + scale * |standard_cauchy|`` (NumPy has no such method).

    The numbers are ``loc + scale * abs(rng.standard_cauchy(shape))``, with ``shape`` the size
    or the broadcast shape of the parameters.

    Parameters
    ----------
    loc, scale : array_like
        Location (the minimum) and (non-negative) scale.
    """
    return halfcauchy_rv(loc, scale, size=size, **kwargs)


@draw_function
def halfnormal(loc=0.0, scale=1.0, size=None, **kwargs):
    """Half-normal draws: ``loc + scale * |standard_normal|`` (NumPy has no such method).

    The numbers are ``loc + scale * abs(rng.standard_normal(shape))``, with ``shape`` the size
    or the broadcast shape of the parameters: the same as ``scipy.stats.halfnorm.rvs``.

    Parameters
    ----------
    loc, scale : array_like
        Location (the minimum) and (non-negative) scale.
    """
    return halfnormal_rv(loc, scale, size=size, **kwargs)


@draw_function
def geometric(p, size=None, **kwargs):
    """Geometric draws (number of trials up to the first success), ``Generator.geometric``.

    Parameters
    ----------
    p : array_like
        Probability of success, in (0, 1].
    """
    return geometric_rv(p, size=size, **kwargs)


@draw_function
def hypergeometric(ngood, nbad, nsample, size=None, **kwargs):
    """Hypergeometric draws, ``Generator.hypergeometric``.

    Parameters
    ----------
    ngood, nbad : array_like of int
        Numbers of good and bad items (non-negative).
    nsample : array_like of int
        Number of items drawn, at most ``ngood + nbad``.
    """
    return hypergeometric_rv(ngood, nbad, nsample, size=size, **kwargs)


@draw_function
def negative_binomial(n, p, size=None, **kwargs):
    """Negative binomial draws (failures before ``n`` successes), ``Generator.negative_binomial``.

    Parameters
    ----------
    n : array_like
        Number of successes (positive).
    p : array_like
        Probability of success, in (0, 1].
    """
    return negative_binomial_rv(n, p, size=size, **kwargs)


@draw_function
def logseries(p, size=None, **kwargs):
    """Logarithmic series draws, ``Generator.logseries``.

    Parameters
    ----------
    p : array_like
        Shape, in [0, 1).
    """
    return logseries_rv(p, size=size, **kwargs)


@draw_function
def zipf(a, size=None, **kwargs):
    """Zipf draws, ``Generator.zipf``.

    Parameters
    ----------
    a : array_like
        Exponent (greater than 1).
    """
    return zipf_rv(a, size=size, **kwargs)


__all__ = [
    "FRV",
    "BernoulliRV",
    "BetaRV",
    "BinomialRV",
    "CauchyRV",
    "ChiSquareRV",
    "ExponentialRV",
    "GammaRV",
    "GeometricRV",
    "GumbelRV",
    "HalfCauchyRV",
    "HalfNormalRV",
    "HyperGeometricRV",
    "IntegersRV",
    "LaplaceRV",
    "LogNormalRV",
    "LogSeriesRV",
    "LogisticRV",
    "NegativeBinomialRV",
    "NoncentralChiSquareRV",
    "NoncentralFRV",
    "NormalRV",
    "ParetoRV",
    "PoissonRV",
    "PowerRV",
    "RandomRV",
    "RayleighRV",
    "StandardCauchyRV",
    "StandardExponentialRV",
    "StandardGammaRV",
    "StandardNormalRV",
    "StudentTRV",
    "TriangularRV",
    "UniformRV",
    "VonMisesRV",
    "WaldRV",
    "WeibullRV",
    "ZipfRV",
    "bernoulli",
    "bernoulli_rv",
    "beta",
    "beta_rv",
    "binomial",
    "binomial_rv",
    "cauchy",
    "cauchy_rv",
    "chisquare",
    "chisquare_rv",
    "exponential",
    "exponential_rv",
    "f",
    "f_rv",
    "gamma",
    "gamma_rv",
    "geometric",
    "geometric_rv",
    "gumbel",
    "gumbel_rv",
    "halfcauchy",
    "halfcauchy_rv",
    "halfnormal",
    "halfnormal_rv",
    "hypergeometric",
    "hypergeometric_rv",
    "integers",
    "integers_rv",
    "laplace",
    "laplace_rv",
    "logistic",
    "logistic_rv",
    "lognormal",
    "lognormal_rv",
    "logseries",
    "logseries_rv",
    "negative_binomial",
    "negative_binomial_rv",
    "noncentral_chisquare",
    "noncentral_chisquare_rv",
    "noncentral_f",
    "noncentral_f_rv",
    "normal",
    "normal_rv",
    "pareto",
    "pareto_rv",
    "poisson",
    "poisson_rv",
    "power",
    "power_rv",
    "random",
    "random_rv",
    "rayleigh",
    "rayleigh_rv",
    "standard_cauchy",
    "standard_cauchy_rv",
    "standard_exponential",
    "standard_exponential_rv",
    "standard_gamma",
    "standard_gamma_rv",
    "standard_normal",
    "standard_normal_rv",
    "standard_t",
    "standard_t_rv",
    "triangular",
    "triangular_rv",
    "uniform",
    "uniform_rv",
    "vonmises",
    "vonmises_rv",
    "wald",
    "wald_rv",
    "weibull",
    "weibull_rv",
    "zipf",
    "zipf_rv",
]


def __getattr__(name: str) -> Any:
    # ``stats``: scipy.stats, as in PyTensor, imported at first use (see random.scipy_rvs)
    if name == "stats":
        return importlib.import_module("scipy.stats")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
