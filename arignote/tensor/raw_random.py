"""Theano's ``tensor.raw_random`` names: draws from an explicit generator, each returning
``(next_generator, draw)`` as Theano's did, over the random variables of
``arignote.tensor.random``."""

from __future__ import annotations

from typing import Any

from arignote.config import config
from arignote.tensor.random import basic
from arignote.tensor.random.op import RandomVariable
from arignote.tensor.shared_randomstreams import as_dtype, theano_size

RandomFunction = RandomVariable  # Theano's op of a random draw


def uniform(
    random_state: Any,
    size: Any = None,
    low: Any = 0.0,
    high: Any = 1.0,
    ndim: Any = None,
    dtype: Any = None,
):
    """``(next_state, draws)``: uniform on ``[low, high)`` from ``random_state``."""
    rng, draw = basic.uniform(
        low, high, size=theano_size(size), rng=random_state, return_next_rng=True
    )
    return rng, as_dtype(draw, dtype or config.floatX)


def normal(
    random_state: Any,
    size: Any = None,
    avg: Any = 0.0,
    std: Any = 1.0,
    ndim: Any = None,
    dtype: Any = None,
):
    """``(next_state, draws)``: normal of mean ``avg`` and deviation ``std``."""
    rng, draw = basic.normal(
        avg, std, size=theano_size(size), rng=random_state, return_next_rng=True
    )
    return rng, as_dtype(draw, dtype or config.floatX)


def binomial(
    random_state: Any,
    size: Any = None,
    n: Any = 1,
    p: Any = 0.5,
    ndim: Any = None,
    dtype: Any = "int64",
):
    """``(next_state, draws)``: binomial of ``n`` trials with probability ``p``."""
    rng, draw = basic.binomial(n, p, size=theano_size(size), rng=random_state, return_next_rng=True)
    return rng, as_dtype(draw, dtype)


def random_integers(
    random_state: Any,
    size: Any = None,
    low: Any = 0,
    high: Any = 1,
    ndim: Any = None,
    dtype: Any = "int64",
):
    """``(next_state, draws)``: integers uniform on ``[low, high]``."""
    rng, draw = basic.integers(
        low, high, size=theano_size(size), endpoint=True, rng=random_state, return_next_rng=True
    )
    return rng, as_dtype(draw, dtype)
