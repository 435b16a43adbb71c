"""Hand-written tests of take, take_along_axis, nonzero, where, bincount, diff and choose."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.testing import verify_grad


def _run(inputs, outputs, *values):
    return arignote.function(inputs, outputs, on_unused_input="ignore")(*values)


def test_take_errors(rng):
    x = pt.matrix("x")
    with pytest.raises(ValueError, match="mode"):
        pt.take(x, [0], mode="bogus")
    with pytest.raises(ValueError, match="out of bounds"):
        pt.take(x, [0], axis=2)
    with pytest.raises(TypeError, match="integer"):
        pt.take(x, pt.dvector())
    fn = arignote.function([x], pt.take(x, [5], axis=1))
    with pytest.raises(IndexError, match="out of bounds"):
        fn(rng.normal(size=(2, 3)))


def test_take_method_and_negative_axis(rng):
    x = pt.tensor3("x")
    value = rng.normal(size=(2, 3, 4))
    got = _run([x], x.take([3, -1, 0], axis=-1), value)
    np.testing.assert_array_equal(got, np.take(value, [3, -1, 0], axis=-1))


def test_take_along_axis_with_argsort_and_errors(rng):
    x = pt.matrix("x")
    value = rng.normal(size=(3, 5))
    got = _run([x], pt.take_along_axis(x, pt.argsort(x, axis=1), axis=1), value)
    np.testing.assert_array_equal(got, np.sort(value, axis=1))
    with pytest.raises(ValueError, match="same number of dimensions"):
        pt.take_along_axis(x, pt.lvector())
    with pytest.raises(ValueError, match="must be a vector"):
        pt.take_along_axis(x, pt.lmatrix(), axis=None)
    with pytest.raises(ValueError, match="Incompatible"):
        pt.take_along_axis(pt.tensor(shape=(3, 4)), pt.tensor(dtype="int64", shape=(2, 4)), 1)


def test_take_along_axis_grad_accumulates_repeats(rng):
    indices = np.array([[0, 0, 2], [1, 1, 1]])
    verify_grad(
        lambda a: pt.take_along_axis(a, pt.constant(indices), 1) ** 2,
        [rng.normal(size=(2, 4))],
        rng=rng,
    )


def test_nonzero_and_where(rng):
    x = pt.matrix("x")
    value = np.array([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]])
    rows, cols = x.nonzero()
    got = _run([x], [rows, cols, x[pt.nonzero(x)]], value)
    np.testing.assert_array_equal(got[0], np.nonzero(value)[0])
    np.testing.assert_array_equal(got[1], np.nonzero(value)[1])
    np.testing.assert_array_equal(got[2], value[np.nonzero(value)])
    (positions,) = pt.where(x[0] > 1.0)
    np.testing.assert_array_equal(_run([x], positions, value), [1])
    np.testing.assert_array_equal(_run([x], pt.where(x > 0, x, -x), value), np.abs(value))
    with pytest.raises(ValueError, match="both or neither"):
        pt.where(x > 0, x)
    with pytest.raises(ValueError, match="0d arrays"):
        pt.nonzero(pt.scalar())


def test_nonzero_grad_is_zero():
    x = pt.vector("x")
    (positions,) = pt.nonzero(x)
    g = arignote.grad(x[positions].sum(), x)
    np.testing.assert_array_equal(_run([x], g, np.array([0.0, 2.0, 3.0])), [0, 1, 1])


def test_bincount_edge_cases(rng):
    x = pt.lvector("x")
    np.testing.assert_array_equal(_run([x], pt.bincount(x), np.zeros(0, dtype="int64")), [])
    fn = arignote.function([x], pt.bincount(x))
    with pytest.raises(ValueError, match="negative"):
        fn(np.array([1, -1]))
    with pytest.raises(TypeError, match="integers"):
        pt.bincount(pt.dvector())
    u = pt.vector("u", dtype="uint64")  # NumPy counts uint64 values too
    counts = np.array([1, 4, 4], dtype="uint64")
    np.testing.assert_array_equal(_run([u], pt.bincount(u), counts), np.bincount(counts))
    with pytest.raises(ValueError, match="minlength"):
        pt.bincount(x, minlength=-1)
    weights = pt.fvector("w")
    assert pt.bincount(x, weights).type.dtype == "float64"


def test_bincount_shape_is_computed_without_counting(rng):
    x = pt.lvector("x")
    out = pt.bincount(x, minlength=2)
    fn = arignote.function([x], out.shape)
    ops = {type(n.op) for n in fn.maker.fgraph.toposort()}
    assert pt.BinCount not in ops and pt.BincountLength in ops
    assert tuple(fn(np.array([4, 0]))) == (5,)
    assert tuple(fn(np.zeros(0, dtype="int64"))) == (2,)


def test_diff_errors_and_uint_wraparound():
    x = pt.vector("x", dtype="uint8")
    np.testing.assert_array_equal(
        _run([x], pt.diff(x), np.array([3, 1], dtype="uint8")), np.diff(np.array([3, 1], "uint8"))
    )
    with pytest.raises(ValueError, match="non-negative"):
        pt.diff(x, n=-1)
    with pytest.raises(ValueError, match="at least one dimensional"):
        pt.diff(pt.scalar())


def test_diff_prepend_append(rng):
    x = pt.matrix("x")
    value = rng.normal(size=(3, 4))
    # n=0 returns x untouched, as NumPy does (the edges are ignored)
    assert pt.diff(x, n=0, prepend=1.0) is x
    # NumPy does not broadcast a 1-d prepend to a matrix: both refuse the mismatch
    with pytest.raises(ValueError):
        np.diff(value, axis=0, prepend=np.ones(4))
    with pytest.raises(TypeError, match="Join"):  # a rank mismatch: TypeError, as in PyTensor
        pt.diff(x, axis=0, prepend=np.ones(4))
    expected = np.diff(value, axis=0, prepend=np.ones((1, 4)), append=0)
    got = _run([x], pt.diff(x, axis=0, prepend=np.ones((1, 4)), append=0), value)
    np.testing.assert_allclose(got, expected)
    with pytest.raises(TypeError):  # a 3-d edge for a matrix: a rank mismatch
        pt.diff(pt.tensor(shape=(3, 4)), prepend=np.ones((2, 1, 1)))


def test_choose_errors_and_tensor_choices(rng):
    a = pt.lvector("a")
    stacked = pt.tensor(dtype="float64", shape=(2, None), name="stacked")
    value = rng.normal(size=(2, 3))
    got = _run([a, stacked], a.choose(stacked), np.array([1, 0, 1]), value)
    np.testing.assert_array_equal(got, np.choose([1, 0, 1], value))
    fn = arignote.function([a, stacked], pt.choose(a, stacked))
    with pytest.raises(ValueError, match="invalid entry in choice array"):
        fn(np.array([2, 0, 0]), value)
    with pytest.raises(TypeError, match="number of choices"):
        pt.choose(a, pt.matrix())
    with pytest.raises(TypeError, match="integer"):
        pt.choose(pt.vector(), [pt.vector()])
    with pytest.raises(ValueError, match="mode"):
        pt.choose(a, [a], mode="nope")
    constant_choices = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    np.testing.assert_array_equal(
        _run([a], pt.choose(a, constant_choices), np.array([0, 1, 0])), [1.0, 5.0, 3.0]
    )


@pytest.mark.parametrize(
    "op",
    [pt.AddAlongAxis(1), pt.BincountLength(3), pt.TakeAlongAxis(0), pt.Choose("clip")],
    ids=str,
)
def test_helper_ops_props_contract(op):
    twin = pickle.loads(pickle.dumps(op))
    assert twin == op and hash(twin) == hash(op)
    assert copy.copy(op) == op


def test_AddAlongAxis_accumulates_and_checks_values(rng):
    arr, values = pt.matrix("arr"), pt.matrix("values")
    indices = np.array([[0, 0], [2, 1]])
    out = pt.AddAlongAxis(1)(arr, pt.constant(indices), values)
    got = _run([arr, values], out, np.zeros((2, 3)), np.ones((2, 2)))
    np.testing.assert_array_equal(got, [[2, 0, 0], [0, 1, 1]])
    with pytest.raises(TypeError, match="cannot be added"):
        pt.AddAlongAxis(1)(arr, pt.constant(indices), pt.fmatrix())
    verify_grad(
        lambda a, v: pt.AddAlongAxis(1)(a, pt.constant(indices), v) ** 2,
        [rng.normal(size=(2, 3)), rng.normal(size=(2, 2))],
        rng=rng,
    )


def test_nonzero_return_matrix():
    # PyTensor's nonzero(a, return_matrix=True): the index vectors as the rows of a matrix
    x, v = pt.lmatrix("x"), pt.lvector("v")
    both = pt.nonzero(x, return_matrix=True), pt.nonzero(v, return_matrix=True)
    assert both[0].type.shape == (2, None) and both[1].type.shape == (1, None)
    xv, vv = np.array([[0, 1, 2], [3, 0, 0]]), np.array([0, 4, 0, 5])
    got = arignote.function([x, v], list(both))(xv, vv)
    np.testing.assert_array_equal(got[0], np.array(np.nonzero(xv)))
    np.testing.assert_array_equal(got[1], np.array(np.nonzero(vv)))


def test_bincount_accepts_pytensor_keywords():
    x = pt.lvector("x")
    out = pt.bincount(x, minlength=None, assert_nonneg=True)
    np.testing.assert_array_equal(arignote.function([x], out)(np.array([1, 1, 3])), [0, 2, 0, 1])
    with pytest.raises(ValueError):
        arignote.function([x], out)(np.array([1, -1]))
