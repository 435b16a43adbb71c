"""Edge cases of Join and Split (the generic checks are in tests/op_db/join.py)."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt


def _run(inputs, outputs, *values):
    return arignote.function(inputs, outputs)(*values)


def test_join_static_shape_and_dtype():
    a = pt.tensor(dtype="int32", shape=(2, None))
    b = pt.tensor(dtype="float32", shape=(3, 4))
    out = pt.concatenate([a, b], axis=0)
    assert out.type.shape == (5, 4)
    assert out.type.dtype == np.result_type(np.int32, np.float32).name


@pytest.mark.parametrize(
    ("shapes", "axis"),
    [(((2, 3), (2, 4)), 0), (((2, 3), (2, 3)), 2), (((2, 3), (2, 3)), -3)],
)
def test_join_bad_inputs_raise_when_built(shapes, axis):
    tensors = [pt.tensor(shape=s) for s in shapes]
    with pytest.raises(ValueError, match=r"(?i)join|axis|dimensions"):
        pt.concatenate(tensors, axis=axis)


def test_join_of_different_ranks_is_a_type_error():
    # as in PyTensor: a mismatch of types (number of dimensions) is a TypeError
    with pytest.raises(TypeError, match="same number of dimensions"):
        pt.concatenate([pt.tensor(shape=(2, 3)), pt.tensor(shape=(3,))], axis=0)


def test_join_mismatch_at_run_time_names_the_op():
    x, y = pt.matrix("x"), pt.matrix("y")
    fn = arignote.function([x, y], pt.concatenate([x, y], axis=0))
    with pytest.raises(ValueError, match="Join"):
        fn(np.ones((2, 3)), np.ones((2, 4)))


def test_concatenate_of_scalars_raises():
    with pytest.raises(ValueError, match="zero-dimensional"):
        pt.concatenate([pt.scalar(), pt.scalar()])


def test_stack_needs_equal_ndims_and_a_sequence():
    with pytest.raises(TypeError, match="same number of dimensions"):
        pt.stack([pt.vector(), pt.matrix()])
    with pytest.raises(TypeError, match="sequence"):
        pt.stack(pt.vector())
    with pytest.raises(ValueError, match="axis"):
        pt.stack([pt.vector(), pt.vector()], axis=3)


def test_as_tensor_variable_stacks_lists_of_tensors(rng):
    x, y = pt.matrix("x"), pt.matrix("y")
    nested = pt.as_tensor_variable([[x, y], [y, x]])
    assert nested.type.ndim == 4
    a, b = rng.normal(size=(2, 3)), rng.normal(size=(2, 3))
    np.testing.assert_allclose(_run([x, y], nested, a, b), np.array([[a, b], [b, a]]))


def test_split_with_uneven_and_empty_pieces(rng):
    x = pt.matrix("x")
    value = rng.normal(size=(6, 2))
    pieces = pt.split(x, [0, 4, 2], 3)
    assert [p.type.shape for p in pieces] == [(0, None), (4, None), (2, None)]
    for got, expected in zip(_run([x], pieces, value), np.split(value, [0, 4], axis=0)):
        np.testing.assert_array_equal(got, expected)


def test_split_sizes_must_add_up():
    with pytest.raises(ValueError, match="add up"):
        pt.split(pt.tensor(shape=(5,)), [2, 2], 2)
    with pytest.raises(ValueError, match="n_splits"):
        pt.split(pt.vector(), [2, 2], 3)
    x, n = pt.vector("x"), pt.lscalar("n")
    fn = arignote.function([x, n], pt.split(x, [n, 2], 2))
    assert [p.shape for p in fn(np.ones(5), 3)] == [(3,), (2,)]
    with pytest.raises(ValueError, match="Split"):
        fn(np.ones(5), 2)
    with pytest.raises(ValueError, match="Split"):
        fn(np.ones(5), -1)  # a negative piece length


def test_split_into_equal_sections():
    # a plain int is np.split's number of sections
    assert [o.type.shape for o in pt.split(pt.tensor(shape=(2, 6)), 3, axis=1)] == [(2, 2)] * 3
    with pytest.raises(ValueError, match="equal sections"):
        pt.split(pt.tensor(shape=(2, 6)), 4, axis=1)
    with pytest.raises(ValueError, match="positive"):
        pt.split(pt.matrix(), 0)
    x = pt.matrix("x")
    fn = arignote.function([x], pt.split(x, 2, axis=0))
    assert [p.shape for p in fn(np.zeros((4, 3)))] == [(2, 3), (2, 3)]
    with pytest.raises(ValueError, match="cannot split an axis of length 5"):
        fn(np.zeros((5, 3)))


def test_split_gradient_when_only_one_piece_is_used(rng):
    x = pt.vector("x")
    _, second = pt.split(x, [2, 3], 2)
    weights = rng.normal(size=3)
    g = arignote.grad((second * weights).sum(), x)
    np.testing.assert_allclose(_run([x], g, np.ones(5)), np.r_[0.0, 0.0, weights])


def test_join_gradient_of_integer_input_is_zero():
    x = pt.vector("x")
    k = pt.vector("k", dtype="int32")
    out = pt.concatenate([x, k]).sum()
    gx = arignote.grad(out, x)
    np.testing.assert_array_equal(_run([x, k], gx, np.ones(2), np.ones(3, "int32")), [1.0, 1.0])


def test_hstack_vstack_of_vectors(rng):
    a, b = pt.vector("a"), pt.vector("b")
    va, vb = rng.normal(size=3), rng.normal(size=3)
    h, v = _run([a, b], [pt.hstack([a, b]), pt.vstack([a, b])], va, vb)
    np.testing.assert_array_equal(h, np.hstack([va, vb]))
    np.testing.assert_array_equal(v, np.vstack([va, vb]))


def test_split_by_a_symbolic_vector_of_lengths_with_n_splits(rng):
    # PyTensor's documented split(x, splits_size, n_splits, axis) with splits_size symbolic
    x, sizes = pt.dmatrix("x"), pt.lvector("sizes")
    pieces = pt.split(x, sizes, n_splits=2, axis=1)
    value = rng.normal(size=(3, 4))
    got = arignote.function([x, sizes], pieces)(value, np.array([1, 3]))
    np.testing.assert_array_equal(got[0], value[:, :1])
    np.testing.assert_array_equal(got[1], value[:, 1:])
