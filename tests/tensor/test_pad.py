"""Edge cases of pad (the generic checks are in tests/op_db/pad.py)."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt


def _run(inputs, outputs, *values):
    return arignote.function(inputs, outputs)(*values)


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect"])
@pytest.mark.parametrize("length", [1, 2, 3])
@pytest.mark.parametrize("width", [(0, 1), (2, 0), (3, 7)])
def test_pad_short_vectors(mode, length, width, rng):
    value = rng.normal(size=length)
    symbolic, static = pt.vector("x"), pt.tensor("s", shape=(length,))
    fn = arignote.function(
        [symbolic, static], [pt.pad(symbolic, width, mode), pt.pad(static, width, mode)]
    )
    for got in fn(value, value):
        np.testing.assert_allclose(got, np.pad(value, width, mode))


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect"])
def test_pad_with_symbolic_widths(mode, rng):
    x = pt.matrix("x")
    before, after = pt.lscalar("before"), pt.lscalar("after")
    out = pt.pad(x, ((before, 1), (0, after)), mode)
    fn = arignote.function([x, before, after], [out, out.shape])
    value = rng.normal(size=(3, 4))
    for b, a in [(0, 0), (2, 1), (5, 9)]:
        got, shape = fn(value, b, a)
        np.testing.assert_allclose(got, np.pad(value, ((b, 1), (0, a)), mode))
        assert tuple(shape) == got.shape


def test_pad_constant_value_is_cast_like_numpy():
    x = pt.tensor(dtype="int16", shape=(None,))
    value = np.arange(3, dtype="int16")
    got = _run([x], pt.pad(x, 2, constant_values=(7.9, -1.5)), value)
    expected = np.pad(value, 2, constant_values=(7.9, -1.5))
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


def test_pad_static_shape():
    out = pt.pad(pt.tensor(shape=(3, 4)), ((1, 2), (0, 3)), "reflect")
    assert out.type.shape == (6, 7)
    assert pt.pad(pt.tensor(shape=(3, None)), 2, "edge").type.shape == (7, None)


def test_pad_errors():
    x = pt.matrix()
    with pytest.raises(ValueError, match="mode"):
        pt.pad(x, 1, "wrap")
    with pytest.raises(ValueError, match="negative"):
        pt.pad(x, -1)
    with pytest.raises(ValueError, match="broadcast"):
        pt.pad(x, (1, 2, 3))
    with pytest.raises(ValueError, match="broadcast"):
        pt.pad(x, ((1, 2), (3, 4), (5, 6)))
    with pytest.raises(ValueError, match="reflect_type"):
        pt.pad(x, 1, "reflect", reflect_type="odd")
    fn = arignote.function([x], pt.pad(x, 1, "edge"))
    with pytest.raises(ValueError):
        fn(np.zeros((0, 3)))  # NumPy cannot extend an empty axis either


def test_pad_of_empty_with_constant():
    x = pt.matrix("x")
    got = _run([x], pt.pad(x, ((1, 0), (2, 2)), constant_values=5.0), np.zeros((0, 3)))
    np.testing.assert_array_equal(
        got, np.pad(np.zeros((0, 3)), ((1, 0), (2, 2)), constant_values=5.0)
    )


def test_pad_gradient_accumulates_reflected_elements(rng):
    x = pt.vector("x")
    weights = rng.normal(size=3 + 2 + 4)
    g = arignote.grad((pt.pad(x, (2, 4), "reflect") * weights).sum(), x)
    # each padded position i reads x[source[i]]: the gradient adds the weights per source
    source = np.pad(np.arange(3), (2, 4), "reflect")
    np.testing.assert_allclose(_run([x], g, np.ones(3)), np.bincount(source, weights))
