"""Random variables drawn with ``jax.random`` (``arignote/tensor/random/``).

A random variable node ``op(rng, size, *params) -> (next_rng, draw)`` becomes a function of a
JAX key: it splits the key, draws with one half and returns the other as the next state. A
shared generator variable therefore holds a JAX key once a JAX function has run, and its
``default_update`` advances that key on the device. A NumPy ``Generator`` given to a JAX
function is turned into a key seeded from a copy of it (:func:`generator_to_key`), so the
generator itself is never advanced.

The draws follow the same distributions as NumPy's but they are different numbers: JAX's
counter-based generator (threefry) and its sampling algorithms are not NumPy's PCG64 ones.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import jax
import jax.numpy as jnp
from arignote.graph.basic import Apply
from arignote.link.jax.dispatch.basic import (
    jax_funcify,
    jax_typify,
    register_unsupported,
    static_ints,
)
from arignote.tensor.random import multivariate as mv
from arignote.tensor.random.op import RandomVariable
from arignote.tensor.random.type import copy_generator


@jax_typify.register(np.random.Generator)
def generator_to_key(generator: np.random.Generator) -> jax.Array:
    """A JAX key seeded by a draw from a copy of ``generator`` (which is left unchanged)."""
    seed = int(copy_generator(generator).integers(0, 2**32 - 1))
    return jax.random.key(seed)


def _scaled(sample: Callable) -> Callable:
    """``loc + scale * sample(key, shape, dtype)`` for location-scale families."""

    def draw(key, shape, dtype, loc, scale):
        return loc + scale * sample(key, shape, dtype)

    return draw


def _numpy_pareto(key, shape, dtype, a):
    # NumPy's pareto is the Lomax distribution: the classical Pareto (x_m = 1) minus 1
    return jax.random.pareto(key, a, shape, dtype) - 1


def _negative_binomial(key, shape, dtype, n, p):
    # a gamma-Poisson mixture: Poisson(Gamma(n, (1 - p) / p))
    k1, k2 = jax.random.split(key)
    rate = jax.random.gamma(k1, n, shape) * (1 - p) / p
    return jax.random.poisson(k2, rate, shape)


# name of the Generator method -> draw(key, shape, dtype, *params)
SAMPLERS: dict[str, Callable] = {
    "normal": _scaled(jax.random.normal),
    "standard_normal": lambda key, shape, dtype: jax.random.normal(key, shape, dtype),
    "uniform": lambda key, shape, dtype, low, high: (
        low + (high - low) * jax.random.uniform(key, shape, dtype)
    ),
    "random": lambda key, shape, dtype: jax.random.uniform(key, shape, dtype),
    "beta": lambda key, shape, dtype, a, b: jax.random.beta(key, a, b, shape, dtype),
    "gamma": lambda key, shape, dtype, k, scale: jax.random.gamma(key, k, shape, dtype) * scale,
    "standard_gamma": lambda key, shape, dtype, k: jax.random.gamma(key, k, shape, dtype),
    "exponential": lambda key, shape, dtype, scale: (
        jax.random.exponential(key, shape, dtype) * scale
    ),
    "standard_exponential": lambda key, shape, dtype: jax.random.exponential(key, shape, dtype),
    "lognormal": lambda key, shape, dtype, mean, sigma: jnp.exp(
        mean + sigma * jax.random.normal(key, shape, dtype)
    ),
    "laplace": _scaled(jax.random.laplace),
    "logistic": _scaled(jax.random.logistic),
    "gumbel": _scaled(jax.random.gumbel),
    "cauchy": _scaled(jax.random.cauchy),
    "standard_cauchy": lambda key, shape, dtype: jax.random.cauchy(key, shape, dtype),
    "halfcauchy": _scaled(lambda key, shape, dtype: jnp.abs(jax.random.cauchy(key, shape, dtype))),
    "halfnormal": _scaled(lambda key, shape, dtype: jnp.abs(jax.random.normal(key, shape, dtype))),
    "chisquare": lambda key, shape, dtype, df: jax.random.chisquare(key, df, shape, dtype),
    "f": lambda key, shape, dtype, dfnum, dfden: jax.random.f(key, dfnum, dfden, shape, dtype),
    "standard_t": lambda key, shape, dtype, df: jax.random.t(key, df, shape, dtype),
    "pareto": _numpy_pareto,
    "weibull": lambda key, shape, dtype, a: jax.random.weibull_min(key, 1.0, a, shape, dtype),
    "power": lambda key, shape, dtype, a: jax.random.uniform(key, shape, dtype) ** (1 / a),
    "rayleigh": lambda key, shape, dtype, scale: jax.random.rayleigh(key, scale, shape, dtype),
    "triangular": lambda key, shape, dtype, left, mode, right: jax.random.triangular(
        key, left, mode, right, shape, dtype
    ),
    "binomial": lambda key, shape, dtype, n, p: jax.random.binomial(key, n, p, shape),
    "poisson": lambda key, shape, dtype, lam: jax.random.poisson(key, lam, shape),
    "geometric": lambda key, shape, dtype, p: jax.random.geometric(key, p, shape),
    "negative_binomial": _negative_binomial,
    "bernoulli": lambda key, shape, dtype, p: jax.random.bernoulli(key, p, shape),
}

_NOT_IN_JAX = "jax.random has no sampler for this distribution"
for _name in (
    "VonMisesRV",
    "NoncentralChiSquareRV",
    "NoncentralFRV",
    "HyperGeometricRV",
    "LogSeriesRV",
    "ZipfRV",
):
    register_unsupported(f"arignote.tensor.random.basic.{_name}", _NOT_IN_JAX)
register_unsupported(mv.MultivariateHypergeometricRV, _NOT_IN_JAX)


def _batch_shape(op: RandomVariable, params: list) -> tuple[int, ...]:
    """The broadcast of the parameters' batch shapes (their shapes less the core dims)."""
    shapes = [jnp.shape(p)[: len(jnp.shape(p)) - core] for p, core in zip(params, op.ndims_params)]
    return tuple(np.broadcast_shapes(*shapes)) if shapes else ()


def _draw_shape(op: RandomVariable, node: Apply, size: Any, params: list) -> tuple[int, ...]:
    if size is None:
        return _batch_shape(op, params)
    return tuple(static_ints(size, node, "size"))


def _sampler(op: RandomVariable, node: Apply) -> Callable:
    if op.name == "integers":
        endpoint = bool(getattr(op, "endpoint", False))
        return lambda key, shape, dtype, low, high: jax.random.randint(
            key, shape, low, high + 1 if endpoint else high, dtype
        )
    if op.name == "wald":
        return _wald
    return SAMPLERS[op.name]


def _wald(key, shape, dtype, mean, scale):
    # the inverse Gaussian IG(mean, scale) by Michael, Schucany and Haas (1976), the method
    # NumPy uses (jax.random.wald has a unit scale only)
    k1, k2 = jax.random.split(key)
    y = jax.random.normal(k1, shape, dtype) ** 2
    x = (
        mean
        + mean**2 * y / (2 * scale)
        - mean / (2 * scale) * jnp.sqrt(4 * mean * scale * y + mean**2 * y**2)
    )
    u = jax.random.uniform(k2, shape, dtype)
    return jnp.where(u <= mean / (mean + x), x, mean**2 / x)


@jax_funcify.register(RandomVariable)
def jax_funcify_RandomVariable(op: RandomVariable, node: Apply, **kwargs: Any) -> Callable:
    sample = _sampler(op, node)
    dtype = np.dtype(node.outputs[1].type.dtype)
    draw_dtype = dtype if dtype.kind == "f" else None

    def random_variable(key, size, *params):
        key, subkey = jax.random.split(key)
        shape = _draw_shape(op, node, size, list(params))
        params = [jnp.broadcast_to(p, shape) if shape else p for p in params]
        draw = sample(subkey, shape, draw_dtype, *params)
        return key, jnp.asarray(draw).astype(dtype)

    return random_variable


def _vector_rv(op: RandomVariable, node: Apply, draw: Callable) -> Callable:
    dtype = np.dtype(node.outputs[1].type.dtype)

    def random_variable(key, size, *params):
        key, subkey = jax.random.split(key)
        shape = _draw_shape(op, node, size, list(params))
        return key, jnp.asarray(draw(subkey, shape, *params)).astype(dtype)

    return random_variable


@jax_funcify.register(mv.MvNormalRV)
def jax_funcify_MvNormalRV(op: mv.MvNormalRV, node: Apply, **kwargs: Any) -> Callable:
    method = "eigh" if op.method == "eigh" else "svd" if op.method == "svd" else "cholesky"

    def draw(key, shape, mean, cov):
        # XLA's SVD on the CPU (LAPACK's gesdd) loops forever on an infinity: a covariance
        # with NaN or infinity is replaced by the identity and its draws by NaN
        finite = jnp.all(jnp.isfinite(cov), axis=(-2, -1))
        safe = jnp.where(finite[..., None, None], cov, jnp.eye(cov.shape[-1], dtype=cov.dtype))
        values = jax.random.multivariate_normal(key, mean, safe, shape, method=method)
        return jnp.where(finite[..., None], values, jnp.nan)

    return _vector_rv(op, node, draw)


@jax_funcify.register(mv.DirichletRV)
def jax_funcify_DirichletRV(op: mv.DirichletRV, node: Apply, **kwargs: Any) -> Callable:
    return _vector_rv(op, node, lambda key, shape, alpha: jax.random.dirichlet(key, alpha, shape))


@jax_funcify.register(mv.CategoricalRV)
def jax_funcify_CategoricalRV(op: mv.CategoricalRV, node: Apply, **kwargs: Any) -> Callable:
    return _vector_rv(
        op, node, lambda key, shape, p: jax.random.categorical(key, jnp.log(p), shape=shape)
    )


@jax_funcify.register(mv.MultinomialRV)
def jax_funcify_MultinomialRV(op: mv.MultinomialRV, node: Apply, **kwargs: Any) -> Callable:
    return _vector_rv(
        op,
        node,
        lambda key, shape, n, p: jax.random.multinomial(
            key, n, p, shape=(*shape, jnp.shape(p)[-1])
        ),
    )


def _population(a: Any, node: Apply) -> Any:
    """``a`` itself, or the int a 0-d ``a`` stands for (``range(a)``, static)."""
    return static_ints(a, node, "population size") if jnp.ndim(a) == 0 else a


@jax_funcify.register(mv.ChoiceRV)
def jax_funcify_ChoiceRV(op: mv.ChoiceRV, node: Apply, **kwargs: Any) -> Callable:
    dtype = np.dtype(node.outputs[1].type.dtype)
    replace, axis = op.replace, op.axis

    def choice(key, size, a, p):
        key, subkey = jax.random.split(key)
        shape = () if size is None else tuple(static_ints(size, node, "size"))
        draw = jax.random.choice(
            subkey, _population(a, node), shape, replace=replace, p=p, axis=axis
        )
        return key, jnp.asarray(draw).astype(dtype)

    return choice


@jax_funcify.register(mv.PermutationRV)
@jax_funcify.register(mv.PermutedRV)
def jax_funcify_PermutationRV(op: RandomVariable, node: Apply, **kwargs: Any) -> Callable:
    dtype = np.dtype(node.outputs[1].type.dtype)
    independent = isinstance(op, mv.PermutedRV)  # each slice shuffled on its own
    axis = op.axis

    def permutation(key, size, x):
        key, subkey = jax.random.split(key)
        x = _population(x, node)
        if axis is None:  # every entry shuffled: a permutation of the flattened array
            draw = jax.random.permutation(subkey, jnp.ravel(x)).reshape(jnp.shape(x))
        else:
            draw = jax.random.permutation(subkey, x, axis=axis, independent=independent)
        return key, jnp.asarray(draw).astype(dtype)

    return permutation
