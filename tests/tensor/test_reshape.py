"""Edge cases of reshape, flatten and ravel (the generic checks are in tests/op_db/reshape.py)."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.testing import InferShapeTester


def test_reshape_static_checks():
    x = pt.tensor(shape=(3, 4))
    assert pt.reshape(x, (2, -1)).type.shape == (2, 6)
    with pytest.raises(ValueError, match="reshape"):
        pt.reshape(x, (5, 2))
    with pytest.raises(ValueError, match="-1"):
        pt.reshape(x, (-1, -1))
    with pytest.raises(ValueError, match="invalid"):
        pt.reshape(x, (-2, 6))


def test_reshape_to_a_shape_vector_of_another_tensor(rng):
    x, y = pt.vector("x"), pt.matrix("y")
    out = pt.reshape(x, y.shape, ndim=2)
    fn = arignote.function([x, y], [out, out.shape])
    value, shape = fn(np.arange(6.0), np.zeros((2, 3)))
    np.testing.assert_array_equal(value, np.arange(6.0).reshape(2, 3))
    assert tuple(shape) == (2, 3)


def test_reshape_runtime_mismatch_raises():
    x, n = pt.vector("x"), pt.lscalar("n")
    fn = arignote.function([x, n], pt.reshape(x, (n, 2)))
    with pytest.raises(ValueError, match="reshape"):
        fn(np.ones(5), 2)


def test_flatten_and_ravel(rng):
    value = rng.normal(size=(2, 3, 4))
    x = pt.tensor3("x")
    got = arignote.function([x], [pt.ravel(x), pt.flatten(x, 2), x.ravel()])(value)
    np.testing.assert_array_equal(got[0], value.ravel())
    np.testing.assert_array_equal(got[1], value.reshape(2, 12))
    np.testing.assert_array_equal(got[2], value.ravel())
    with pytest.raises(ValueError, match="flatten"):
        pt.flatten(x, 4)


def _shape_cases():
    x, s = pt.tensor3("x"), pt.lvector("s")
    flat = x.flatten()
    return [
        ([x], [pt.reshape(x, (-1,))], "minus-one-vector"),
        ([x], [pt.reshape(x, [x.shape[0] * x.shape[1] * x.shape[2]], ndim=1)], "computed-length"),
        ([x], [pt.reshape(x, x.shape[::-1], ndim=3)], "reversed-shape-vector"),
        ([x], [pt.reshape(flat, flat.shape, ndim=1)], "own-shape-vector"),
        ([x], [pt.reshape(x, pt.stack([pt.prod(x.shape)]), ndim=1)], "stacked-vector"),
        ([x, s], [pt.reshape(x, s, ndim=1)], "input-vector-1d"),
        ([x, s], [pt.reshape(x, s, ndim=2)], "input-vector-2d"),
    ]


@pytest.mark.parametrize("case", range(7))
def test_infer_shape_of_1d_targets_and_computed_shape_vectors(case):
    """The shape graph never computes the reshape itself, whatever form the shape takes
    (one entry; a vector computed from shapes; a vector given at run time)."""
    inputs, outputs, _ = _shape_cases()[case]
    values = [np.arange(24.0).reshape(2, 3, 4)]
    if len(inputs) == 2:
        values.append(np.array([24]) if outputs[0].type.ndim == 1 else np.array([-1, 6]))
    InferShapeTester()._compile_and_check(inputs, outputs, values, pt.Reshape, warn=False)
