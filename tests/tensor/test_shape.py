"""Edge cases of the dimension shuffles of shape.py (the generic checks are in
tests/op_db/shape.py)."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt


def _run(inputs, outputs, *values):
    return arignote.function(inputs, outputs)(*values)


def test_squeeze_removes_only_static_ones_by_default():
    x = pt.tensor(shape=(1, None, 1, 3))
    assert pt.squeeze(x).type.shape == (None, 3)


def test_squeeze_of_an_unknown_length_is_checked_at_run_time():
    x = pt.matrix("x")
    fn = arignote.function([x], pt.squeeze(x, axis=0))
    assert fn(np.ones((1, 3))).shape == (3,)
    with pytest.raises(AssertionError, match="SpecifyShape: dimension 0 has length 2, expected 1"):
        fn(np.ones((2, 3)))
    # without axis, a length 1 known only at run time stays (the result is still a matrix)
    assert _run([x], pt.squeeze(x), np.ones((1, 3))).shape == (1, 3)


def test_squeeze_of_a_known_length_other_than_one_raises():
    with pytest.raises(ValueError, match="squeeze"):
        pt.squeeze(pt.tensor(shape=(2, 3)), axis=0)
    with pytest.raises(ValueError, match="out of bounds"):
        pt.squeeze(pt.matrix(), axis=2)


@pytest.mark.parametrize(
    ("fn", "kwargs"),
    [
        (pt.expand_dims, {"axis": 3}),
        (pt.expand_dims, {"axis": (0, 0)}),
        (pt.transpose, {"axes": (0, 0)}),
        (pt.transpose, {"axes": (0,)}),
        (pt.moveaxis, {"source": (0, 1), "destination": 0}),
        (pt.moveaxis, {"source": 2, "destination": 0}),
        (pt.swapaxes, {"axis1": 0, "axis2": 2}),
    ],
)
def test_bad_axes_raise_when_built(fn, kwargs):
    with pytest.raises(ValueError):
        fn(pt.matrix(), **kwargs)


def test_atleast_static_shapes():
    assert pt.atleast_1d(pt.scalar()).type.shape == (1,)
    assert pt.atleast_2d(pt.tensor(shape=(4,))).type.shape == (1, 4)
    assert pt.atleast_3d(pt.tensor(shape=(4,))).type.shape == (1, 4, 1)
    assert pt.atleast_3d(pt.tensor(shape=(2, 5))).type.shape == (2, 5, 1)
    x = pt.tensor4()
    assert pt.atleast_3d(x) is x


def test_moveaxis_and_transpose_match_numpy(rng):
    value = rng.normal(size=(2, 3, 4, 5))
    x = pt.tensor4("x")
    cases = [
        (pt.moveaxis(x, (0, 1), (-1, 0)), np.moveaxis(value, (0, 1), (-1, 0))),
        (pt.moveaxis(x, (3, 0), (0, 3)), np.moveaxis(value, (3, 0), (0, 3))),
        (pt.permute_dims(x, (2, 0, 3, 1)), np.transpose(value, (2, 0, 3, 1))),
        (pt.expand_dims(x, (-1, 1)), np.expand_dims(value, (-1, 1))),
    ]
    for got, (_, expected) in zip(_run([x], [c for c, _ in cases], value), cases):
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("axis", [1.0, True, "a", (0, 1.5)])
@pytest.mark.parametrize(
    "build",
    [pt.sum, pt.argmax, pt.cumsum, pt.transpose, pt.squeeze, pt.flip, pt.take_along_axis],
    ids=lambda f: f.__name__,
)
def test_axes_must_be_integers_like_numpy(build, axis):
    x = pt.matrix()
    args = (x, pt.lmatrix()) if build is pt.take_along_axis else (x,)
    if build is pt.transpose:
        args, axis = (x,), (1, axis) if np.ndim(axis) == 0 else axis
    with pytest.raises(TypeError, match="must be an integer"):
        build(*args, axis)
    assert pt.sum(x, axis=np.array(1)).type.ndim == 1  # 0-d integer arrays are fine


def test_diff_order_must_be_an_integer():
    with pytest.raises(TypeError, match="the order n must be an integer"):
        pt.diff(pt.vector(), n=1.5)


AXIS_ERRORS = {
    "sum": lambda x: pt.sum(x, axis=2),
    "argmax": lambda x: pt.argmax(x, axis=-3),
    "cumsum": lambda x: pt.cumsum(x, axis=3),
    "sort": lambda x: pt.sort(x, axis=2),
    "concatenate": lambda x: pt.concatenate([x, x], axis=2),
    "stack": lambda x: pt.stack([x, x], axis=4),
    "expand_dims": lambda x: pt.expand_dims(x, 5),
    "squeeze": lambda x: pt.squeeze(x, axis=3),
    "take": lambda x: pt.take(x, [0], axis=2),
    "roll": lambda x: pt.roll(x, 1, axis=3),
    "repeat": lambda x: pt.repeat(x, 2, axis=2),
    "swapaxes": lambda x: pt.swapaxes(x, 0, 3),
    "diff": lambda x: pt.diff(x, axis=2),
    "norm": lambda x: pt.linalg.norm(x, axis=3),
}


@pytest.mark.parametrize("name", sorted(AXIS_ERRORS))
def test_an_axis_out_of_bounds_raises_numpys_axis_error(name):
    # np.exceptions.AxisError (a ValueError and an IndexError), as NumPy and PyTensor raise
    with pytest.raises(np.exceptions.AxisError, match="out of (bounds|range)"):
        AXIS_ERRORS[name](pt.dmatrix("x"))
