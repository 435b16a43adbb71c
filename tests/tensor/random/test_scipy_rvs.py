"""The scipy.stats-backed distributions and the symbolic default_rng."""

import numpy as np
import pytest
import scipy.stats

import arignote
import arignote.tensor as pt
import arignote.tensor.random as ptr
from arignote.tensor.random import basic


def test_draws_restore_dimensions_scipy_drops():
    rng = arignote.shared(np.random.default_rng(1))
    draw = ptr.t(np.full((1, 3), 4.0), np.zeros((2, 1)), 1.0, rng=rng)
    value = arignote.function([], draw)()
    assert value.shape == (2, 3) == draw.type.shape
    want = scipy.stats.t.rvs(
        np.full((1, 3), 4.0), loc=np.zeros((2, 1)), scale=1.0, random_state=np.random.default_rng(1)
    )
    np.testing.assert_array_equal(value, want)


def test_shared_generator_advances_between_calls():
    rng = arignote.shared(np.random.default_rng(2))
    f = arignote.function([], ptr.truncexpon(2.0, size=3, rng=rng))
    reference = np.random.default_rng(2)
    for _ in range(2):
        want = scipy.stats.truncexpon.rvs(2.0, size=3, random_state=reference)
        np.testing.assert_array_equal(f(), want)


def test_names_at_pytensor_paths():
    assert basic.t is ptr.t and basic.stats is scipy.stats
    assert isinstance(ptr.betabinom(5, 1.0, 1.0).owner.op, ptr.ScipyRandomVariable)
    assert ptr.betabinom(5, 1.0, 1.0).type.dtype == "int64"


def test_symbolic_default_rng_gives_numpys_generator_for_the_seed():
    seed = pt.lscalar()
    draw = ptr.normal(size=4, rng=ptr.default_rng(seed))
    f = arignote.function([seed], draw)
    np.testing.assert_array_equal(f(11), np.random.default_rng(11).normal(size=4))
    with pytest.raises(TypeError):
        ptr.default_rng(pt.dscalar())
