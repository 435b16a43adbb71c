"""Pooling: argument checks, static shapes, ties, and the old paths."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.tensor.signal import downsample, pool


def test_static_output_shape_from_static_input():
    x = pt.tensor("x", dtype="float64", shape=(2, 3, 7, 6))
    assert pool.pool_2d(x, (2, 2)).type.shape == (2, 3, 3, 3)
    assert pool.pool_2d(x, (3, 2), ignore_border=False, stride=(2, 1)).type.shape == (2, 3, 3, 5)
    assert pool.pool_2d(x, (3, 3), pad=(1, 1)).type.shape == (2, 3, 3, 2)


def test_bad_parameters_are_refused():
    x = pt.dtensor4("x")
    with pytest.raises(ValueError, match="ignore_border"):
        pool.pool_2d(x, (2, 2), ignore_border=False, pad=(1, 1))
    with pytest.raises(ValueError, match="smaller than ws"):
        pool.pool_2d(x, (2, 2), pad=(2, 0))
    with pytest.raises(ValueError, match="mode"):
        pool.pool_2d(x, (2, 2), mode="median")
    with pytest.raises(TypeError, match="last 2 axes"):
        pool.pool_2d(pt.dvector("v"), (2, 2))


def test_max_pool_gradient_goes_to_every_tied_maximum():
    x = pt.dmatrix("x")
    g = arignote.grad(pool.pool_2d(x, (2, 2)).sum(), x)
    out = arignote.function([x], g)(np.array([[1.0, 1.0], [0.0, -1.0]]))
    np.testing.assert_array_equal(out, [[1.0, 1.0], [0.0, 0.0]])


def test_old_names_and_the_max_pool_rop(rng):
    x = pt.dtensor4("x")
    xv = rng.normal(size=(1, 2, 5, 5))
    old = downsample.max_pool_2d(x, (2, 2))  # ignore_border=None means False
    assert arignote.function([x], old)(xv).shape == (1, 2, 3, 3)
    v = pt.dtensor4("v")
    y = pool.pool_2d(x, (2, 2))
    jvp = arignote.Rop(y, x, v)
    vv = rng.normal(size=xv.shape)
    eps = 1e-6
    fd = (arignote.function([x], y)(xv + eps * vv) - arignote.function([x], y)(xv - eps * vv)) / (
        2 * eps
    )
    np.testing.assert_allclose(arignote.function([x, v], jvp)(xv, vv), fd, rtol=1e-6, atol=1e-8)


def test_max_pool_with_padding_pads_with_zeros_as_theano():
    x = pt.dmatrix("x")
    out = arignote.function([x], pool.pool_2d(x, (2, 2), pad=(1, 1)))(-np.ones((2, 2)))
    np.testing.assert_array_equal(out, np.zeros((2, 2)))
