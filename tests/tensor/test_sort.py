"""Hand-written tests of sort, argsort, searchsorted and unique: options, NaN, errors, grads."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.testing import verify_grad


def _run(inputs, outputs, *values):
    return arignote.function(inputs, outputs, on_unused_input="ignore")(*values)


def test_sort_nan_and_methods(rng):
    x = pt.matrix("x")
    value = rng.normal(size=(3, 4))
    value[1, 2] = np.nan
    got = _run([x], [x.sort(axis=0), x.argsort(axis=-1), pt.sort(x, stable=True)], value)
    np.testing.assert_array_equal(got[0], np.sort(value, axis=0))
    np.testing.assert_array_equal(got[1], np.argsort(value, axis=-1))
    np.testing.assert_array_equal(got[2], np.sort(value, kind="stable"))


def test_sort_errors():
    x = pt.matrix("x")
    with pytest.raises(ValueError, match="kind"):
        pt.sort(x, kind="bubble")
    with pytest.raises(ValueError, match="out of bounds"):
        pt.sort(x, axis=2)
    with pytest.raises(ValueError, match="no fields"):
        pt.argsort(x, order="a")
    with pytest.raises(ValueError, match="conflicts"):
        pt.argsort(x, kind="heapsort", stable=True)


def test_sort_grad_second_order(rng):
    """The gradient of sort is itself differentiable (through AddAlongAxis/TakeAlongAxis)."""
    values = rng.permutation(12).reshape(3, 4) * 0.5 + 0.1

    def grad_of_sorted_cubes(a):
        cost = (pt.sort(a, axis=1) ** 3 * pt.constant(np.arange(4.0))).sum()
        return arignote.grad(cost, a)

    verify_grad(grad_of_sorted_cubes, [values], rng=rng)


def test_argsort_grad_is_zero(rng):
    x = pt.vector("x")
    cost = (pt.argsort(x) * x).sum()
    g = arignote.grad(cost, x)
    value = rng.normal(size=(4,))
    np.testing.assert_allclose(_run([x], g, value), np.argsort(value))


def test_searchsorted_grads_and_errors(rng):
    a, v = pt.vector("a"), pt.vector("v")
    out = pt.searchsorted(a, v, side="right")
    ga, gv = arignote.grad((out * v).sum(), [a, v])
    sorted_a, points = np.sort(rng.normal(size=(5,))), rng.normal(size=(3,))
    got = _run([a, v], [ga, gv], sorted_a, points)
    np.testing.assert_array_equal(got[0], np.zeros(5))
    np.testing.assert_array_equal(got[1], np.searchsorted(sorted_a, points, side="right"))
    assert a.searchsorted(v).owner.op == pt.SearchSorted("left")
    with pytest.raises(ValueError, match="vector"):
        pt.searchsorted(pt.matrix(), v)
    with pytest.raises(ValueError, match="side"):
        pt.searchsorted(a, v, side="middle")
    with pytest.raises(TypeError, match="sorter"):
        pt.searchsorted(a, v, sorter=pt.dvector())


def test_unique_nan_handling():
    x = pt.vector("x")
    value = np.array([np.nan, 1.0, np.nan, 1.0])
    collapsed, kept = _run([x], [pt.unique(x), pt.unique(x, equal_nan=False)], value)
    np.testing.assert_array_equal(collapsed, np.unique(value))
    np.testing.assert_array_equal(kept, np.unique(value, equal_nan=False))


def test_unique_outputs_and_shape_graph(rng):
    x = pt.lmatrix("x")
    value = rng.integers(0, 3, size=(4, 5))
    outputs = pt.unique(x, return_index=True, return_inverse=True, return_counts=True)
    assert [o.type.shape for o in outputs] == [(None,), (None,), (None, None), (None,)]
    fn = arignote.function([x], [o.shape for o in outputs])
    assert not any(isinstance(n.op, pt.Unique) for n in fn.maker.fgraph.toposort())
    expected = np.unique(value, return_index=True, return_inverse=True, return_counts=True)
    for shape, e in zip(fn(value), expected):
        assert tuple(shape) == e.shape
    values, inverse = _run([x], [outputs[0], outputs[2]], value)
    np.testing.assert_array_equal(np.take(values, inverse), value)


def test_unique_grad_goes_to_first_occurrences():
    x = pt.vector("x")
    g = arignote.grad((pt.unique(x) * pt.constant(np.array([1.0, 2.0]))).sum(), x)
    np.testing.assert_array_equal(_run([x], g, np.array([3.0, 1.0, 3.0])), [2.0, 1.0, 0.0])


def test_unique_errors():
    with pytest.raises(ValueError, match="out of bounds"):
        pt.unique(pt.matrix(), axis=2)


def test_UniqueCount_props_and_value():
    op = pt.UniqueCount(axis=0, equal_nan=False)
    assert pickle.loads(pickle.dumps(op)) == op
    x = pt.matrix("x")
    value = np.array([[1.0, 2.0], [1.0, 2.0], [0.0, 2.0]])
    assert _run([x], op(x), value) == 2


def test_unique_accepts_sorted_false(rng):
    x = pt.vector("x")
    value = rng.integers(0, 5, size=9).astype("float64")
    got = arignote.function([x], pt.unique(x, sorted=False))(value)
    np.testing.assert_array_equal(got, np.unique(value, sorted=False))
