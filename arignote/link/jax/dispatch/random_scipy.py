"""JAX samplers for the distributions arignote draws through ``scipy.stats`` on the VM.

Each is built from ``jax.random`` primitives by the distribution's definition (JAX's numbers
differ from SciPy's, as every JAX draw differs from NumPy's). A symbolic ``default_rng`` is
not convertible: JAX keys come from the generator's value at compile time.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from arignote.link.jax.dispatch.basic import register_unsupported
from arignote.link.jax.dispatch.random import SAMPLERS


def _gengamma(key, shape, dtype, alpha, p, lambd):
    # X = lambd * G^(1/p) with G ~ Gamma(alpha / p): density ~ x^(alpha-1) exp(-(x/lambd)^p)
    return lambd * jax.random.gamma(key, alpha / p, shape, dtype) ** (1 / p)


def _truncexpon(key, shape, dtype, b, loc, scale):
    # inverse CDF of the exponential restricted to [0, b]: -log(1 - u (1 - e^-b))
    u = jax.random.uniform(key, shape, dtype)
    return loc + scale * -jnp.log1p(-u * -jnp.expm1(-b))


def _betabinom(key, shape, dtype, n, a, b):
    k1, k2 = jax.random.split(key)
    return jax.random.binomial(k2, n, jax.random.beta(k1, a, b, shape), shape)


SAMPLERS.update(
    {
        "beta_binomial": _betabinom,
        "gengamma": _gengamma,
        "invgamma": lambda key, shape, dtype, k, scale: (
            scale / jax.random.gamma(key, k, shape, dtype)
        ),
        "t": lambda key, shape, dtype, df, loc, scale: (
            loc + scale * jax.random.t(key, df, shape, dtype)
        ),
        "truncexpon": _truncexpon,
    }
)

register_unsupported(
    "arignote.tensor.random.scipy_rvs.DefaultGeneratorMakerOp",
    "a generator made from a symbolic seed inside the graph: JAX mode takes generators as "
    "inputs or shared variables (their keys are made when the function is called)",
)
