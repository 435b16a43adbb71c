"""Theano's old names and signatures: ``flatten(outdim=)``, and ``shared_randomstreams`` /
``raw_random`` over today's random variables."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.tensor import extra_ops, raw_random
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


def test_flatten_takes_theano_outdim(rng):
    x = pt.dtensor4("x")
    xv = rng.normal(size=(2, 3, 4, 5))
    flat = arignote.function([x], [pt.flatten(x, outdim=2), x.flatten(outdim=3)])(xv)
    np.testing.assert_array_equal(flat[0], xv.reshape(2, 60))
    np.testing.assert_array_equal(flat[1], xv.reshape(2, 3, 20))


def test_floatx_inputs_take_float64_data_with_allow_input_downcast():
    with arignote.config.change_flags(floatX="float32"):
        x = pt.matrix("x")  # floatX
        w = arignote.shared(np.ones((3, 2), dtype=arignote.config.floatX))
        fn = arignote.function([x], pt.dot(x, w), allow_input_downcast=True)
    assert x.type.dtype == "float32"
    out = fn(np.ones((4, 3)))  # float64 data, as Theano programs pass
    assert out.dtype == np.float32 and np.all(out == 3.0)


def test_grad_consider_constant_and_the_old_casts():
    x = pt.dscalar("x")
    y = x**2
    g = arignote.grad(y * x, x, consider_constant=[y])
    assert arignote.function([x], g)(3.0) == 9.0  # y held constant: d(y x)/dx = y
    clipped = pt.clip(pt.cast(x, "int32"), 0, 2)
    assert arignote.function([x], clipped)(3.7) == 2


def test_python_values_of_symbolic_variables_are_refused_with_the_fix():
    x = pt.dmatrix("x")
    with pytest.raises(TypeError, match="scan"):
        range(x.shape[0])
    with pytest.raises(TypeError, match="cast"):
        int(x.shape[0])
    with pytest.raises(TypeError, match="cast"):
        float(x.sum())
    with pytest.raises(TypeError, match="switch"):
        bool(x.sum() > 0)


def test_extra_ops_keeps_theano_names():
    assert extra_ops.squeeze is pt.squeeze and extra_ops.bincount is pt.bincount
    with pytest.raises(TypeError, match="integer vector"):
        extra_ops.to_one_hot(pt.dvector(), 3)


def test_a_variable_is_truthy_but_a_symbolic_condition_is_refused():
    # Theano programs test optional variables with ``if persistent:`` (the RBM tutorial);
    # only boolean variables, whose truth is decided at run time, refuse a truth value.
    chain = arignote.shared(np.zeros((2, 3)))
    x = pt.dmatrix("x")
    assert chain and x and x.sum() and pt.constant(0.0)
    with pytest.raises(TypeError, match="switch"):
        bool(x < 1)
    with pytest.raises(TypeError, match="switch"):
        bool(pt.and_(x > 0, x < 1))
    with pytest.raises(TypeError, match="switch"):
        _ = 0 < x < 1
