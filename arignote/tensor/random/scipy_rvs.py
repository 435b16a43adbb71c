"""Distributions that NumPy's ``Generator`` lacks, drawn through ``scipy.stats``.

Each draws with ``scipy.stats.<dist>.rvs(..., random_state=rng)`` and so gives exactly SciPy's
numbers for a generator in the same state (``invgamma`` alone is a NumPy draw, as in PyTensor:
``1 / Generator.gamma(shape, 1 / scale)``). SciPy returns a NumPy scalar or drops broadcast
dimensions for some parameter shapes; :class:`ScipyRandomVariable` restores the shape NumPy's
rules give.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
import scipy

from arignote.graph.basic import Apply
from arignote.graph.grad_types import grad_undefined
from arignote.graph.op import Op
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.random.op import RandomVariable, draw_function
from arignote.tensor.random.type import random_generator_type


def __getattr__(name: str) -> Any:
    # ``stats`` is scipy.stats (PyTensor's random.basic exposes it under this name), imported
    # at first use: importing it takes about as long as the rest of ``import arignote``
    # together (its docstrings are parsed at import); the draws below reach it through
    # ``scipy.stats``, which SciPy resolves lazily too.
    if name == "stats":
        return importlib.import_module("scipy.stats")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class ScipyRandomVariable(RandomVariable):
    """A scalar distribution drawn by SciPy: subclasses give ``rng_fn_scipy``."""

    ndim_supp = 0

    def rng_fn_scipy(self, rng, *args):  # pragma: no cover - every subclass overrides it
        raise TypeError(f"{type(self).__name__} does not define rng_fn_scipy")

    def rng_fn(self, rng, *args):
        *params, size = args
        draw = np.asarray(self.rng_fn_scipy(rng, *params, size))
        if size is None:  # SciPy may drop length-1 broadcast dimensions
            shape = np.broadcast_shapes(*[np.shape(p) for p in params])
            if draw.shape != shape:
                draw = np.broadcast_to(draw, shape).copy()
        return draw


class BetaBinomialRV(ScipyRandomVariable):
    """Beta-binomial draws: ``scipy.stats.betabinom.rvs(n, a, b)``."""

    name = "beta_binomial"
    ndims_params = (0, 0, 0)
    dtype = "int64"

    def rng_fn_scipy(self, rng, n, a, b, size):
        return scipy.stats.betabinom.rvs(n, a, b, size=size, random_state=rng)


class GenGammaRV(ScipyRandomVariable):
    """Generalized gamma draws with density proportional to ``x^(alpha-1) exp(-(x/lambd)^p)``:
    ``scipy.stats.gengamma.rvs(alpha / p, p, scale=lambd)``."""

    name = "gengamma"
    ndims_params = (0, 0, 0)
    dtype = "floatX"

    def rng_fn_scipy(self, rng, alpha, p, lambd, size):
        return scipy.stats.gengamma.rvs(alpha / p, p, scale=lambd, size=size, random_state=rng)


class InvGammaRV(RandomVariable):
    """Inverse-gamma draws: ``1 / Generator.gamma(shape, 1 / scale)``."""

    name = "invgamma"
    ndims_params = (0, 0)
    dtype = "floatX"

    def rng_fn(self, rng, shape, scale, size):
        return 1 / rng.gamma(shape, 1 / np.asarray(scale, dtype=float), size)


class StudentTLocScaleRV(ScipyRandomVariable):
    """Student's t draws with location and scale: ``scipy.stats.t.rvs(df, loc, scale)``.

    (``StudentTRV`` is the one-parameter ``standard_t`` of NumPy.)
    """

    name = "t"
    ndims_params = (0, 0, 0)
    dtype = "floatX"

    def rng_fn_scipy(self, rng, df, loc, scale, size):
        return scipy.stats.t.rvs(df, loc=loc, scale=scale, size=size, random_state=rng)


class TruncExponentialRV(ScipyRandomVariable):
    """Exponential draws truncated to ``[loc, loc + b * scale]``: ``scipy.stats.truncexpon``."""

    name = "truncexpon"
    ndims_params = (0, 0, 0)
    dtype = "floatX"

    def rng_fn_scipy(self, rng, b, loc, scale, size):
        return scipy.stats.truncexpon.rvs(b, loc=loc, scale=scale, size=size, random_state=rng)


betabinom_rv = BetaBinomialRV()
gengamma_rv = GenGammaRV()
invgamma_rv = InvGammaRV()
t_rv = StudentTLocScaleRV()
truncexpon_rv = TruncExponentialRV()


@draw_function
def betabinom(n, a, b, size=None, **kwargs):
    """Beta-binomial draws, ``scipy.stats.betabinom``.

    Parameters
    ----------
    n : array_like of int
        Number of trials.
    a, b : array_like
        The parameters of the beta distribution of the success probability (positive).
    """
    return betabinom_rv(n, a, b, size=size, **kwargs)


@draw_function
def gengamma(alpha=1.0, p=1.0, lambd=1.0, size=None, **kwargs):
    """Generalized gamma draws (density ``~ x^(alpha-1) exp(-(x/lambd)^p)``), SciPy's numbers.

    Parameters
    ----------
    alpha, p, lambd : array_like
        Shape, power and scale (positive).
    """
    return gengamma_rv(alpha, p, lambd, size=size, **kwargs)


@draw_function
def invgamma(shape, scale, size=None, **kwargs):
    """Inverse-gamma draws, ``1 / Generator.gamma(shape, 1 / scale)``.

    Parameters
    ----------
    shape, scale : array_like
        Positive shape and scale.
    """
    return invgamma_rv(shape, scale, size=size, **kwargs)


@draw_function
def t(df, loc=0.0, scale=1.0, size=None, **kwargs):
    """Student's t draws with location and scale, ``scipy.stats.t``.

    Parameters
    ----------
    df : array_like
        Degrees of freedom (positive).
    loc, scale : array_like
        Location and (positive) scale.
    """
    return t_rv(df, loc, scale, size=size, **kwargs)


@draw_function
def truncexpon(b, loc=0.0, scale=1.0, size=None, **kwargs):
    """Truncated exponential draws on ``[loc, loc + b * scale]``, ``scipy.stats.truncexpon``.

    Parameters
    ----------
    b : array_like
        The truncation point in units of ``scale`` (positive).
    loc, scale : array_like
        Location and (positive) scale.
    """
    return truncexpon_rv(b, loc, scale, size=size, **kwargs)


class DefaultGeneratorMakerOp(Op):
    """``numpy.random.default_rng(seed)`` as a graph operation (a generator from a seed)."""

    __props__ = ()

    def make_node(self, seed):
        seed = as_tensor_variable(seed)
        if seed.type.ndim > 1 or seed.type.dtype[:3] not in ("int", "uin"):
            raise TypeError(
                f"default_rng takes an integer seed or vector of seeds, got {seed.type}"
            )
        return Apply(self, [seed], [random_generator_type()])

    def perform(self, node, inputs, output_storage):
        seed = inputs[0]
        # a 0-d array is not a valid seed for NumPy: pass it as a Python int
        output_storage[0][0] = np.random.default_rng(int(seed) if seed.ndim == 0 else seed)

    def L_op(self, inputs, outputs, output_grads):
        return [grad_undefined(self, 0, inputs[0], "a generator has no derivative")]


def default_rng(seed) -> Any:
    """A symbolic ``numpy.random.default_rng(seed)``: a generator variable made from a seed.

    Parameters
    ----------
    seed : int or vector of int (symbolic or not)
        The seed (entropy) of the generator.
    """
    return DefaultGeneratorMakerOp()(seed)


__all__ = [
    "BetaBinomialRV",
    "DefaultGeneratorMakerOp",
    "GenGammaRV",
    "InvGammaRV",
    "ScipyRandomVariable",
    "StudentTLocScaleRV",
    "TruncExponentialRV",
    "betabinom",
    "default_rng",
    "gengamma",
    "invgamma",
    "t",
    "truncexpon",
]
