"""Edges of interp/interpolate1d and of pack/unpack/join_dims/split_dims."""

import numpy as np
import pytest

import arignote
import arignote.tensor as pt


@pytest.fixture
def rng():
    return np.random.default_rng(7)


def test_interp_at_the_data_points_and_the_ends_matches_numpy(rng):
    xp, fp = np.sort(rng.uniform(0, 5, 6)), rng.normal(size=6)
    x = np.concatenate([xp, [xp[0] - 1, xp[-1] + 1]])
    got = pt.interp(x, xp, fp).eval()
    np.testing.assert_allclose(got, np.interp(x, xp, fp))
    assert got.dtype == np.float64


def test_interp_complex_values_and_zero_period(rng):
    xp, fp = np.sort(rng.uniform(0, 5, 6)), rng.normal(size=6) + 1j * rng.normal(size=6)
    x = rng.uniform(-1, 6, 4)
    np.testing.assert_allclose(pt.interp(x, xp, fp).eval(), np.interp(x, xp, fp))
    with pytest.raises(ValueError):
        pt.interp(x, xp, fp.real, period=0)


@pytest.mark.parametrize("method", ["first", "last"])
def test_interpolate1d_steps_take_the_left_or_right_neighbour(method):
    x, y = np.array([0.0, 1.0, 2.0]), np.array([10.0, 20.0, 30.0])
    x_new = np.array([-1.0, 0.0, 0.5, 1.0, 2.5])
    got = pt.interpolate1d(x, y, method=method)(x_new).eval()
    # searchsorted(x, x_new) = [0, 0, 1, 1, 3]: "first" reads y[i-1], "last" y[i] (clipped)
    want = {"first": [10, 10, 10, 10, 30], "last": [10, 10, 20, 20, 30]}[method]
    np.testing.assert_allclose(got, want)


def test_interpolate1d_pads_without_extrapolation():
    x, y = np.array([2.0, 0.0, 1.0]), np.array([30.0, 10.0, 20.0])  # unsorted data
    f = pt.interpolate1d(x, y, left_pad=-1.0, right_pad=99.0, extrapolate=False)
    np.testing.assert_allclose(f(np.array([-3.0, 0.5, 7.0])).eval(), [-1.0, 15.0, 99.0])
    with pytest.raises(ValueError):
        pt.interpolate1d(x, y, method="cubic")


def test_pack_unpack_round_trip_with_front_and_back_axes(rng):
    a, b = rng.normal(size=(2, 3, 4, 5)), rng.normal(size=(2, 7, 5))
    x, y = pt.tensor4(), pt.tensor3()
    packed, shapes = pt.pack(x, y, keep_axes=[0, -1])
    outs = arignote.function([x, y], [packed, *pt.unpack(packed, shapes, keep_axes=[0, -1])])(a, b)
    assert outs[0].shape == (2, 12 + 7, 5)
    np.testing.assert_array_equal(outs[1], a)
    np.testing.assert_array_equal(outs[2], b)


def test_pack_refuses_axes_that_are_not_at_the_ends():
    with pytest.raises(ValueError):
        pt.pack(pt.tensor3(), keep_axes=[1])
    with pytest.raises(ValueError):
        pt.pack(pt.matrix(), keep_axes=[0, 1, -1])


def test_static_shapes_follow_pytensor():
    x = pt.tensor(shape=(2, 3, 4, 5))
    assert pt.join_dims(x).type.shape == (120,)
    assert pt.join_dims(x, 1).type.shape == (2, 60)
    assert pt.join_dims(x, 1, 0).type.shape == (2, 1, 3, 4, 5)
    assert pt.split_dims(pt.tensor(shape=(6, 4, 6)), (2, 3), axis=-1).type.shape == (6, 4, 2, 3)
    packed, _ = pt.pack(pt.tensor(shape=(2, 3)), pt.tensor(shape=(2, 5, 6)), keep_axes=0)
    assert packed.type.shape == (2, 33)


def test_xlogx_is_zero_at_zero_with_a_finite_gradient_there():
    x = pt.vector()
    f = arignote.function([x], [pt.xlogx.xlogx(x), arignote.grad(pt.xlogx.xlogx(x).sum(), x)])
    value, grad = f(np.array([0.0, 1.0, np.e]))
    np.testing.assert_allclose(value, [0.0, 0.0, np.e])
    np.testing.assert_allclose(grad[1:], [1.0, 2.0])
    assert np.isfinite(grad[0])
