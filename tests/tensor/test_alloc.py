"""Edge cases of the creation ops (the generic checks are in tests/op_db/alloc.py)."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.config import config
from arignote.graph.basic import Constant


def _run(inputs, outputs, *values):
    return arignote.function(inputs, outputs)(*values)


def _nodes_of(fn, op_class):
    return [n for n in fn.maker.fgraph.toposort() if isinstance(n.op, op_class)]


# -- static shapes and dtypes ---------------------------------------------------------------


def test_static_shapes_from_constant_sizes():
    n = pt.lscalar("n")
    assert pt.zeros((3, 4)).type.shape == (3, 4)
    assert pt.ones((n, 4)).type.shape == (None, 4)
    assert pt.alloc(pt.vector("v", shape=(4,)), n, 4).type.shape == (None, 4)
    assert pt.alloc(pt.vector("v"), 2, n).type.shape == (2, None)
    assert pt.eye(3, 5).type.shape == (3, 5)
    assert pt.arange(2, 11, 3).type.shape == (3,)
    assert pt.arange(n).type.shape == (None,)
    assert pt.linspace(0, 1, 7).type.shape == (7,)
    assert pt.full_like(pt.tensor(shape=(2, None)), 1.0).type.shape == (2, None)


def test_value_length_fixes_an_unknown_requested_length():
    # a non-broadcastable dimension of the value must equal the requested length
    n = pt.lscalar("n")
    out = pt.alloc(pt.tensor(shape=(3, 1)), n, 2, 3, 5)
    assert out.type.shape == (None, 2, 3, 5)


@pytest.mark.parametrize(
    ("fn", "dtype"),
    [(pt.zeros, None), (pt.ones, "int8"), (pt.empty, "float32"), (pt.zeros, "bool")],
)
def test_creation_dtypes(fn, dtype):
    out = fn((2, 3), dtype=dtype)
    expected = np.zeros((2, 3), dtype=dtype or config.floatX).dtype
    assert out.type.dtype == expected.name
    assert _run([], out).dtype == expected


@pytest.mark.parametrize(
    "value", [1, 2.5, np.float32(2.5), np.int16(3), True, np.array([1, 2, 3], "uint8")]
)
def test_full_dtype_follows_the_fill_value(value):
    out = pt.full((2, 3), value)
    result = _run([], out)
    expected = np.full((2, 3), value)
    assert result.dtype == expected.dtype
    np.testing.assert_array_equal(result, expected)


def test_full_like_casts_the_value_like_numpy():
    x = pt.tensor(dtype="int32", shape=(None, None))
    value = np.arange(6, dtype="int32").reshape(2, 3)
    np.testing.assert_array_equal(_run([x], pt.full_like(x, 2.7), value), np.full_like(value, 2.7))


def test_empty_has_the_requested_shape_and_dtype():
    n = pt.lscalar("n")
    out = _run([n], [pt.empty((n, 3), dtype="int16"), pt.empty_like(pt.zeros((2, n)))], 4)
    assert out[0].shape == (4, 3) and out[0].dtype == np.int16
    assert out[1].shape == (2, 4)


# -- arange / linspace ----------------------------------------------------------------------

ARANGE_DTYPES = ["int8", "int32", "uint8", "uint64", "float16", "float32", "float64"]


@pytest.mark.parametrize("dtype", ARANGE_DTYPES)
def test_arange_dtype_follows_numpy(dtype):
    start = pt.scalar("start", dtype=dtype)
    out = pt.arange(start, 9)
    expected = np.arange(np.asarray(1, dtype=dtype)[()], 9)
    assert out.type.dtype == expected.dtype.name
    np.testing.assert_array_equal(_run([start], out, np.asarray(1, dtype=dtype)), expected)


@pytest.mark.parametrize(
    ("start", "stop", "step"),
    [(0, 10, 3), (10, 0, -3), (5, 5, 1), (5, 2, 1), (-7, 4, 2), (0.5, 3.0, 0.25), (3, -2.5, -0.8)],
)
def test_arange_with_symbolic_bounds(start, stop, step):
    dtype = "float64" if any(isinstance(v, float) for v in (start, stop, step)) else "int64"
    bounds = [pt.scalar(dtype=dtype) for _ in range(3)]
    out = pt.arange(*bounds)
    fn = arignote.function(bounds, [out, out.shape])
    value, shape = fn(start, stop, step)
    np.testing.assert_allclose(value, np.arange(start, stop, step))
    assert tuple(shape) == value.shape


def test_arange_zero_step_raises():
    with pytest.raises(ValueError, match="step"):
        pt.arange(0, 5, 0)
    step = pt.lscalar("step")
    fn = arignote.function([step], pt.arange(0, 5, step))
    with pytest.raises(ValueError, match="step"):
        fn(0)


def test_linspace_dtype_and_retstep():
    start = pt.scalar("start", dtype="float32")
    samples, step = pt.linspace(start, 2, 5, retstep=True)
    assert samples.type.dtype == "float32"
    assert pt.linspace(pt.lscalar(), 2, 5).type.dtype == "float64"
    got, got_step = _run([start], [samples, step], np.float32(-1))
    expected, expected_step = np.linspace(np.float32(-1), 2, 5, retstep=True)
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    np.testing.assert_allclose(got_step, expected_step)
    assert got_step.dtype == np.asarray(expected_step).dtype == step.type.dtype


@pytest.mark.parametrize(
    ("num", "endpoint", "dtype"),
    [(1, True, None), (0, True, None), (1, False, None), (4, True, "int32")],
)
def test_linspace_step_matches_numpy(num, endpoint, dtype):
    n = pt.lscalar("n")
    _, step = pt.linspace(np.float64(1.5), 9, n, endpoint=endpoint, retstep=True, dtype=dtype)
    expected = np.linspace(1.5, 9, num, endpoint=endpoint, retstep=True, dtype=dtype)[1]
    np.testing.assert_array_equal(_run([n], step, num), expected)  # NaN when no spacing exists


def test_linspace_refuses_runtime_broadcasting():
    start, stop = pt.vector("start"), pt.vector("stop")
    fn = arignote.function([start, stop], pt.linspace(start, stop, 3))
    with pytest.raises(ValueError, match="static length 1"):
        fn(np.zeros(1), np.ones(4))


# -- Alloc ----------------------------------------------------------------------------------


def test_alloc_refuses_runtime_broadcasting_of_a_non_broadcastable_dim():
    v = pt.vector("v")
    fn = arignote.function([v], pt.alloc(v, 3, 4))
    np.testing.assert_array_equal(fn(np.arange(4.0)), np.tile(np.arange(4.0), (3, 1)))
    with pytest.raises(ValueError, match=r"Alloc.*broadcastable"):
        fn(np.ones(1))
    with pytest.raises(ValueError, match="Alloc"):
        fn(np.ones(5))


@pytest.mark.parametrize(
    ("value_shape", "shape"), [((3,), (2, 4)), ((2, 3), (3,)), ((2, 3), (5, 3))]
)
def test_alloc_incompatible_static_shapes_raise_when_built(value_shape, shape):
    with pytest.raises(ValueError, match=r"Alloc|broadcast_to"):
        pt.broadcast_to(pt.tensor(shape=value_shape), shape)


@pytest.mark.parametrize("bad", [-1, 2.0, True, np.zeros((2,), "int64")])
def test_bad_lengths_raise_when_built(bad):
    with pytest.raises((TypeError, ValueError)):
        pt.zeros((3, bad))


def test_alloc_folds_small_constants_but_not_big_ones():
    small = arignote.function([], pt.zeros((3, 4)) + 1)
    assert not _nodes_of(small, pt.Alloc)
    assert all(isinstance(i, Constant) for n in small.maker.fgraph.apply_nodes for i in n.inputs)
    big_size = config.max_constant_fold_size + 1
    big = arignote.function([], pt.zeros((big_size,)))
    assert len(_nodes_of(big, pt.Alloc)) == 1
    assert big().shape == (big_size,)


def test_alloc_constant_folding_decision():
    node = pt.zeros((3, 4)).owner
    assert node.op.do_constant_folding(None, node)
    node = pt.zeros((10**4, 10**4)).owner
    assert not node.op.do_constant_folding(None, node)


def test_alloc_reuses_an_output_cell_of_the_right_shape():
    node = pt.alloc(pt.vector("v"), 2, 3).owner
    cell = [np.full((2, 3), 99.0)]
    node.op.perform(node, [np.arange(3.0), np.int64(2), np.int64(3)], [cell])
    np.testing.assert_array_equal(cell[0], np.tile(np.arange(3.0), (2, 1)))
    cell = [np.zeros((5, 5))]  # wrong shape: replaced
    node.op.perform(node, [np.arange(3.0), np.int64(2), np.int64(3)], [cell])
    assert cell[0].shape == (2, 3)


def test_alloc_gradient_sums_over_broadcast_dims(rng):
    v = pt.tensor("v", shape=(1, 4))
    out = pt.alloc(v, 2, 3, 4)
    weights = rng.normal(size=(2, 3, 4))
    g = arignote.grad((out * weights).sum(), v)
    np.testing.assert_allclose(_run([v], g, np.ones((1, 4))), weights.sum(axis=(0, 1))[None])


# -- broadcasting helpers -------------------------------------------------------------------


def test_broadcast_arrays_keeps_tensors_that_need_nothing():
    x, y = pt.matrix("x"), pt.tensor(shape=(1, None))
    bx, by = pt.broadcast_arrays(x, y)
    assert bx is x and by is not y
    got = _run([x, y], [bx, by], np.ones((3, 4)), np.arange(4.0)[None])
    np.testing.assert_array_equal(got[1], np.broadcast_to(np.arange(4.0), (3, 4)))


def test_broadcast_shape_of_statically_one_dims():
    shape = pt.broadcast_shape(pt.tensor(shape=(1, 3)), pt.tensor(shape=(1, 1)))
    assert [int(pt.get_scalar_constant_value(s)) for s in shape] == [1, 3]
    with pytest.raises(ValueError, match="Incompatible"):
        pt.broadcast_shape(pt.tensor(shape=(2,)), pt.tensor(shape=(3,)))


def test_identity_like_and_tri():
    x = pt.tensor(dtype="int32", shape=(None, None))
    value = np.zeros((3, 5), dtype="int32")
    got = _run([x], [pt.identity_like(x), pt.tri(3, 5, -1, dtype="int8")], value)
    np.testing.assert_array_equal(got[0], np.eye(3, 5, dtype="int32"))
    assert got[0].dtype == np.int32
    np.testing.assert_array_equal(got[1], np.tri(3, 5, -1, dtype="int8"))
    with pytest.raises(ValueError, match="matrix"):
        pt.identity_like(pt.vector())


def test_shapes_given_as_int_vectors():
    lengths = pt.tensor("lengths", shape=(2,), dtype="int64")
    x = pt.matrix("x")
    outs = [pt.zeros(lengths), pt.full(x.shape, 2.0), pt.tile(x, lengths), pt.ones(x.shape[::-1])]
    fn = arignote.function([lengths, x], outs + [o.shape for o in outs])
    values = fn(np.array([2, 6]), np.ones((3, 4)))
    expected = [(2, 6), (3, 4), (6, 24), (4, 3)]
    assert [v.shape for v in values[:4]] == expected
    assert [tuple(s) for s in values[4:]] == expected
    with pytest.raises(ValueError, match="length of the shape vector"):
        pt.zeros(pt.lvector())


def test_full_of_an_out_of_range_python_int_raises_like_numpy():
    with pytest.raises(OverflowError, match="300"):
        pt.full_like(pt.tensor(dtype="int8", shape=(None,)), 300)
    with pytest.raises(OverflowError, match="-1"):
        pt.full((2,), -1, dtype="uint8")
    # in range, or a float: cast as NumPy does
    np.testing.assert_array_equal(pt.full((2,), 2.7, dtype="int8").eval(), np.full(2, 2.7, "int8"))
    assert pt.full_like(pt.tensor(dtype="int8", shape=(3,)), -128).eval().tolist() == [-128] * 3


def test_arange_zero_step_raises_numpys_zero_division_error():
    with pytest.raises(ZeroDivisionError):
        pt.arange(0, 5, 0)
    step = pt.dscalar("step")
    with pytest.raises(ZeroDivisionError):
        arignote.function([step], pt.arange(0.0, 5.0, step), mode="FAST_COMPILE")(0.0)
