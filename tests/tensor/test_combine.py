"""Edges of concat_with_broadcast, batched_tensordot, permute_row_elements, slice_at_axis and
get_unique_constant_value."""

import numpy as np
import pytest

import arignote.tensor as pt
from arignote.tensor.variable import get_unique_constant_value


def test_concat_with_broadcast_refuses_mixed_ranks():
    with pytest.raises(TypeError):
        pt.concat_with_broadcast([pt.matrix(), pt.vector()])


def test_batched_tensordot_refuses_the_batch_axis_and_unpaired_axes():
    x, y = pt.tensor3(), pt.tensor3()
    with pytest.raises(ValueError):
        pt.batched_tensordot(x, y, [[0], [1]])
    with pytest.raises(ValueError):
        pt.batched_tensordot(x, y, [[1, 2], [1]])


def test_permute_row_elements_inverse_undoes_the_permutation(rng):
    x = rng.normal(size=(4, 6))
    perm = np.stack([rng.permutation(6) for _ in range(4)])
    forward = pt.permute_row_elements(x, perm)
    back = pt.permute_row_elements(forward, perm, inverse=True).eval()
    np.testing.assert_array_equal(back, x)
    with pytest.raises(TypeError):
        pt.permute_row_elements(x, perm.astype(float))


def test_slice_at_axis_indexes_like_numpy(rng):
    x = rng.normal(size=(2, 3, 4))
    np.testing.assert_array_equal(x[pt.slice_at_axis(slice(1, 3), 2)], x[:, :, 1:3])


def test_unique_constant_value():
    assert get_unique_constant_value(pt.constant(np.full((2, 3), 2.5))) == 2.5
    assert get_unique_constant_value(pt.constant([1.0, 2.0])) is None
    assert get_unique_constant_value(pt.dvector()) is None
    assert get_unique_constant_value(pt.constant(np.zeros((0,)))) is None
