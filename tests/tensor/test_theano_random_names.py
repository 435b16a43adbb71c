"""Theano's ``shared_randomstreams.RandomStreams`` and ``raw_random`` names over today's
random variables."""

from __future__ import annotations

import numpy as np

import arignote
import arignote.tensor as pt
from arignote.tensor import raw_random
from arignote.tensor.shared_randomstreams import RandomStreams


def test_random_streams_take_theano_signatures():
    srng = RandomStreams(seed=234)
    x = pt.dmatrix("x")
    mask = srng.binomial(size=x.shape, n=1, p=0.75, dtype="float64")
    noise = srng.normal(size=(500,), avg=2.0, std=0.5)
    u = srng.uniform(size=(500,), low=-1.0, high=1.0)
    ints = srng.random_integers(size=(500,), low=1, high=3)
    fn = arignote.function([x], [mask * x, noise, u, ints])
    masked, nv, uv, iv = fn(np.ones((40, 50)))
    assert masked.dtype == np.float64 and set(np.unique(masked)) == {0.0, 1.0}
    assert abs(masked.mean() - 0.75) < 0.03
    assert abs(nv.mean() - 2.0) < 0.1 and abs(nv.std() - 0.5) < 0.05
    assert uv.min() >= -1 and uv.max() < 1 and set(np.unique(iv)) == {1, 2, 3}
    assert not np.array_equal(fn(np.ones((40, 50)))[1], nv)  # the default updates advance


def test_raw_random_returns_the_next_state_and_the_draw():
    rng = arignote.shared(np.random.default_rng(3))
    next_rng, draw = raw_random.normal(rng, size=(3,), avg=1.0, std=0.0)
    fn = arignote.function([], draw, updates=[(rng, next_rng)])
    np.testing.assert_allclose(fn(), np.ones(3))
    assert raw_random.RandomFunction is pt.random.RandomVariable
