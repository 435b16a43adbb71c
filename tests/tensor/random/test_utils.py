"""Tests of RandomStream: reproducible streams of shared generators."""

from __future__ import annotations

import pickle
import types

import numpy as np
import pytest

import arignote
import arignote.tensor.random as ptr
from arignote.tensor.random.basic import normal_rv
from arignote.tensor.random.type import random_generator_type
from arignote.tensor.random.utils import RandomStream


def child_generators(seed, n):
    """The generators a RandomStream(seed) makes for its first n draws."""
    return [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(n)]


def test_RandomStream_draws_from_children_of_the_seed():
    srng = RandomStream(42)
    x = srng.normal(0, 1, size=(2, 3))
    y = srng.uniform(-1.0, 1.0, size=4)
    f = arignote.function([], [x, y])
    gx, gy = child_generators(42, 2)
    for _ in range(3):  # the generators advance between calls
        got_x, got_y = f()
        np.testing.assert_array_equal(got_x, gx.normal(0, 1, size=(2, 3)))
        np.testing.assert_array_equal(got_y, gy.uniform(-1.0, 1.0, size=4))


def test_RandomStream_same_seed_same_draws_different_seed_different_draws():
    def sample(seed):
        srng = RandomStream(seed)
        return arignote.function([], [srng.normal(size=5), srng.poisson(3.0, size=5)])()

    first, second, other = sample(7), sample(7), sample(8)
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(first[0], other[0])


def test_RandomStream_seed_resets_every_generator():
    srng = RandomStream(3)
    f = arignote.function([], [srng.normal(size=3), srng.gamma(2.0, size=3)])
    first = f()
    f()
    srng.seed()
    for a, b in zip(f(), first):
        np.testing.assert_array_equal(a, b)


def test_RandomStream_seed_with_a_new_seed_equals_a_new_stream():
    srng = RandomStream(3)
    f = arignote.function([], [srng.normal(size=3), srng.beta(2.0, 3.0, size=3)])
    f()
    srng.seed(11)
    fresh = RandomStream(11)
    expected = arignote.function([], [fresh.normal(size=3), fresh.beta(2.0, 3.0, size=3)])()
    for a, b in zip(f(), expected):
        np.testing.assert_array_equal(a, b)
    # draws made after reseeding continue the new seed's children
    z = srng.exponential(size=2)
    np.testing.assert_array_equal(
        arignote.function([], z)(), child_generators(11, 3)[2].exponential(size=2)
    )


def test_RandomStream_gen_with_an_op_or_a_function():
    srng = RandomStream(5)
    from_op = srng.gen(normal_rv, 0.0, 2.0, size=3)
    from_function = srng.gen(ptr.laplace, 1.0, size=2)
    f = arignote.function([], [from_op, from_function])
    g0, g1 = child_generators(5, 2)
    got_op, got_function = f()
    np.testing.assert_array_equal(got_op, g0.normal(0.0, 2.0, size=3))
    np.testing.assert_array_equal(got_function, g1.laplace(1.0, size=2))
    with pytest.raises(TypeError, match="supplies the rng"):
        srng.gen(normal_rv, rng=np.random.default_rng())


def test_RandomStream_records_updates():
    srng = RandomStream(1)
    x = srng.normal()
    next_rng, y = srng.normal(return_next_rng=True)
    updates = srng.updates()
    assert [u for _, u in updates] == [x.owner.outputs[0], next_rng]
    assert all(isinstance(r, ptr.RandomGeneratorSharedVariable) for r, _ in updates)
    assert all(r.default_update is u for r, u in updates)
    assert y.owner.inputs[0] is updates[1][0]


def test_RandomStream_knows_every_distribution():
    srng = RandomStream(0)
    for name in ptr.basic.__all__ + ptr.multivariate.__all__:
        if name.endswith("_rv") or name[0].isupper():
            continue
        assert callable(getattr(srng, name)), name
    assert srng.choice.__doc__ == ptr.choice.__doc__
    with pytest.raises(AttributeError, match="no distribution named 'nope'"):
        srng.nope  # noqa: B018
    with pytest.raises(AttributeError):
        srng.RandomVariable  # noqa: B018  (not a distribution function)


def test_RandomStream_multivariate_draws():
    srng = RandomStream(9)
    x = srng.multivariate_normal(np.zeros(2), np.eye(2), size=3)
    c = srng.choice(5, size=4, replace=False)
    got_x, got_c = arignote.function([], [x, c])()
    g0, g1 = child_generators(9, 2)
    np.testing.assert_array_equal(got_x, g0.multivariate_normal(np.zeros(2), np.eye(2), size=3))
    np.testing.assert_array_equal(got_c, g1.choice(5, size=4, replace=False))


def test_RandomStream_namespace_comes_first():
    def double_normal(*args, rng=None, **kwargs):
        return 2 * ptr.normal(*args, rng=rng, **kwargs)

    namespace = types.SimpleNamespace(normal=double_normal)
    srng = RandomStream(4, namespace=namespace)
    value = arignote.function([], srng.normal(size=3))()
    np.testing.assert_array_equal(value, 2 * child_generators(4, 1)[0].normal(size=3))
    assert callable(srng.gamma)  # the built-in distributions remain


def test_RandomStream_rng_ctor():
    def mersenne(seed_sequence):
        return np.random.Generator(np.random.MT19937(seed_sequence))

    srng = RandomStream(2, rng_ctor=mersenne)
    x = srng.normal(size=3)
    rng = x.owner.inputs[0].get_value()
    assert isinstance(rng.bit_generator, np.random.MT19937)
    expected = mersenne(np.random.SeedSequence(2).spawn(1)[0]).normal(size=3)
    np.testing.assert_array_equal(arignote.function([], x)(), expected)


def test_RandomStream_without_seed_is_random():
    a = arignote.function([], RandomStream().normal(size=4))()
    b = arignote.function([], RandomStream().normal(size=4))()
    assert not np.array_equal(a, b)


def test_RandomStream_shared_generators_are_values_of_the_generator_type():
    srng = RandomStream(0)
    x = srng.normal()
    rng = x.owner.inputs[0]
    assert rng.type == random_generator_type
    assert random_generator_type.values_eq(rng.get_value(), child_generators(0, 1)[0])


def test_RandomStream_gen_refuses_functions_that_ignore_the_rng():
    with pytest.raises(ValueError, match="did not draw"):
        RandomStream(0).gen(lambda rng: ptr.normal(rng=np.random.default_rng(0)))


def test_RandomStream_pickles_and_continues_its_sequence():
    namespace = ptr.basic
    srng = RandomStream(3, namespace=namespace)
    f = arignote.function([], [srng.normal(size=3), srng.gamma(2.0, size=2)])
    f()
    restored = pickle.loads(pickle.dumps(srng))
    assert restored.namespaces == [namespace]
    # the restored stream spawns the children that come next, from the same seed sequence
    z = restored.normal(size=2)
    expected = child_generators(3, 3)[2].normal(size=2)
    np.testing.assert_array_equal(arignote.function([], z)(), expected)
    # and its generators are in the state they had: one call made
    (rng, _), _ = restored.updates()[:2]
    reference = child_generators(3, 1)[0]
    reference.normal(size=3)
    assert random_generator_type.values_eq(rng.get_value(), reference)
    restored.seed()
    assert random_generator_type.values_eq(rng.get_value(), child_generators(3, 1)[0])
