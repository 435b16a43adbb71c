"""Edge cases of cumsum/cumprod, flip, repeat, tile, roll and the diagonal ops (the generic
checks are in tests/op_db/extra_ops.py)."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.testing import verify_grad


def _run(inputs, outputs, *values):
    return arignote.function(inputs, outputs)(*values)


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int32", "float16", "float32"])
@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_cumulative_dtype_follows_numpy(name, dtype, rng):
    value = rng.integers(0, 3, size=(3, 4)).astype(dtype)
    x = pt.tensor(dtype=dtype, shape=(None, None))
    out = getattr(pt, name)(x, axis=0)
    expected = getattr(np, name)(value, axis=0)
    assert out.type.dtype == expected.dtype.name
    np.testing.assert_allclose(_run([x], out, value), expected)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "bool", "float32"])
@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_cumulative_dtype_argument(name, dtype, rng):
    # int8/uint8 accumulations wrap around as NumPy's do; bool ones are or/and
    value = rng.integers(-40, 120, size=(3, 5))
    x = pt.lmatrix("x")
    out = getattr(pt, name)(x, axis=1, dtype=dtype)
    expected = getattr(np, name)(value, axis=1, dtype=dtype)
    assert out.type.dtype == expected.dtype.name
    np.testing.assert_array_equal(_run([x], out, value), expected)


def test_cumsum_flattens_without_axis():
    x = pt.tensor(shape=(2, 3))
    assert pt.cumsum(x).type.shape == (6,)
    with pytest.raises(ValueError, match="cumsum"):
        pt.cumsum(x, axis=2)


def test_empty_cumulative_ops():
    x = pt.matrix("x")
    got = _run([x], [pt.cumsum(x, 1), pt.cumprod(x)], np.zeros((3, 0)))
    assert got[0].shape == (3, 0) and got[1].shape == (0,)


def test_repeat_with_per_element_counts(rng):
    x = pt.matrix("x")
    counts = pt.lvector("counts")
    value = rng.normal(size=(3, 4))
    reps = np.array([0, 3, 1, 2])
    out = pt.repeat(x, counts, axis=1)
    np.testing.assert_array_equal(_run([x, counts], out, value, reps), np.repeat(value, reps, 1))
    weights = rng.normal(size=(3, reps.sum()))
    g = arignote.grad((out * weights).sum(), x)
    expected = np.zeros((3, 4))
    offsets = np.r_[0, np.cumsum(reps)]
    for j in range(4):
        expected[:, j] = weights[:, offsets[j] : offsets[j + 1]].sum(axis=1)
    np.testing.assert_allclose(_run([x, counts], g, value, reps), expected)


def test_repeat_count_errors():
    with pytest.raises(ValueError, match="non-negative"):
        pt.repeat(pt.vector(), -1)
    with pytest.raises(ValueError, match="repeat counts"):
        pt.repeat(pt.tensor(shape=(3,)), [1, 2])
    with pytest.raises(TypeError, match="integer"):
        pt.repeat(pt.vector(), 1.5)
    x, counts = pt.vector("x"), pt.lvector("counts")
    fn = arignote.function([x, counts], pt.repeat(x, counts))
    with pytest.raises(ValueError, match="Repeat"):
        fn(np.ones(3), np.array([1, 2]))
    with pytest.raises(ValueError, match="Repeat"):
        fn(np.ones(2), np.array([1, -2]))


def test_repeat_static_shapes():
    x = pt.tensor(shape=(3, None))
    assert pt.repeat(x, 2, axis=0).type.shape == (6, None)
    assert pt.repeat(x, [1, 0, 4], axis=0).type.shape == (5, None)
    assert pt.repeat(x, pt.lscalar(), axis=0).type.shape == (None, None)


def test_segment_sum_is_the_adjoint_of_repeat(rng):
    x, g = pt.matrix("x"), pt.matrix("g")
    sizes = np.array([2, 0, 1, 3])
    value, cotangent = rng.normal(size=(3, 4)), rng.normal(size=(3, 6))
    repeated, summed = _run(
        [x, g], [pt.Repeat(1)(x, sizes), pt.SegmentSum(1)(g, sizes)], value, cotangent
    )
    np.testing.assert_allclose(np.sum(repeated * cotangent), np.sum(value * summed))
    assert np.all(summed[:, 1] == 0)


def test_roll_symbolic_shift_and_empty_axis(rng):
    x, shift = pt.matrix("x"), pt.lscalar("shift")
    fn = arignote.function([x, shift], pt.roll(x, shift, axis=1))
    value = rng.normal(size=(2, 5))
    for s in (-12, -1, 0, 3, 5, 17):
        np.testing.assert_array_equal(fn(value, s), np.roll(value, s, axis=1))
    assert fn(np.zeros((2, 0)), 3).shape == (2, 0)
    with pytest.raises(TypeError, match="integer"):
        pt.roll(x, 1.5, axis=0)


def test_tile_with_symbolic_reps(rng):
    x, r = pt.matrix("x"), pt.lscalar("r")
    value = rng.normal(size=(2, 3))
    out = pt.tile(x, (r, 1, 2))
    np.testing.assert_array_equal(_run([x, r], out, value, 3), np.tile(value, (3, 1, 2)))
    assert pt.tile(pt.tensor(shape=(2, 3)), (2, 2)).type.shape == (4, 6)


def test_diagonal_errors_and_shapes():
    with pytest.raises(ValueError, match="same"):
        pt.diagonal(pt.matrix(), 0, 1, -1)
    with pytest.raises(ValueError, match="2 dimensions"):
        pt.diagonal(pt.vector())
    with pytest.raises(ValueError, match="vector or a matrix"):
        pt.diag(pt.tensor3())
    assert pt.diagonal(pt.tensor(shape=(3, 5)), 1).type.shape == (3,)
    assert pt.diagonal(pt.tensor(shape=(3, 5)), -4).type.shape == (0,)
    assert pt.diag(pt.tensor(shape=(3,)), -2).type.shape == (5, 5)


def test_diagonal_offsets_must_be_known_when_built():
    x, k = pt.matrix(), pt.lscalar("k")
    for build in (pt.diagonal, pt.trace, lambda m, o: pt.diag(m[0], o)):
        with pytest.raises(TypeError, match="offset must be an int known when the graph is built"):
            build(x, k)
    with pytest.raises(TypeError, match="offset must be an int"):
        pt.diagonal(x, 1.5)
    assert pt.diagonal(x, pt.constant(2)).owner.op.offset == 2


def test_alloc_diag_checks_the_diagonal_length():
    with pytest.raises(ValueError, match="does not fit"):
        pt.AllocDiag(0, 0, 1)(pt.tensor(shape=(3,)), 2, 5)
    d, n = pt.vector("d"), pt.lscalar("n")
    fn = arignote.function([d, n], pt.AllocDiag(1, 0, 1)(d, n, n))
    np.testing.assert_array_equal(fn(np.ones(2), 3), np.eye(3, k=1))
    with pytest.raises(ValueError, match="does not fit"):
        fn(np.ones(2), 4)


def test_trace_dtype_and_methods(rng):
    x = pt.tensor(dtype="int8", shape=(None, None))
    value = rng.integers(-5, 5, size=(3, 4)).astype("int8")
    out = x.trace(offset=1)
    assert out.type.dtype == np.trace(value, 1).dtype.name
    got = _run([x], [out, x.diagonal(-1), x.repeat(2, axis=0), x.swapaxes(0, 1)], value)
    np.testing.assert_array_equal(got[0], np.trace(value, 1))
    np.testing.assert_array_equal(got[1], np.diagonal(value, -1))
    np.testing.assert_array_equal(got[2], np.repeat(value, 2, axis=0))
    np.testing.assert_array_equal(got[3], value.T)


@pytest.mark.parametrize("dtype", ["bool", "int16", "float32"])
def test_tril_triu_keep_the_dtype(dtype, rng):
    x = pt.tensor(dtype=dtype, shape=(None, None, None))
    value = rng.integers(0, 3, size=(2, 3, 4)).astype(dtype)
    lower, upper = _run([x], [pt.tril(x, -1), pt.triu(x, 2)], value)
    assert lower.dtype == value.dtype and upper.dtype == value.dtype
    np.testing.assert_array_equal(lower, np.tril(value, -1))
    np.testing.assert_array_equal(upper, np.triu(value, 2))


def test_flip_is_its_own_gradient(rng):
    x = pt.matrix("x")
    weights = rng.normal(size=(3, 4))
    g = arignote.grad((pt.flip(x, 0) * weights).sum(), x)
    np.testing.assert_array_equal(_run([x], g, np.ones((3, 4))), weights[::-1])
    assert pt.flip(x, ()) is x


def _cumprod_jacobian(value):
    """d cumprod(value)_j / d value_i by brute force: the product of the others up to j."""
    n = len(value)
    rows = [
        [np.prod(np.delete(value[: j + 1], i)) if i <= j else 0.0 for i in range(n)]
        for j in range(n)
    ]
    return np.array(rows)


@pytest.mark.parametrize(
    "value",
    [[0.7, 0.0, -1.3, 0.0, 0.9], [0.0, 0.0, 2.0, 1.5, -1.0], [1.2, -0.5, 2.0, 1.5, 0.0]],
)
def test_cumprod_derivatives_are_exact_at_zeros(value, rng):
    value = np.array(value)
    x, v = pt.vector("x"), pt.vector("v")
    weights, tangent = rng.normal(size=5), rng.normal(size=5)
    out = pt.cumprod(x)
    g = arignote.grad((out * weights).sum(), x)
    jvp = arignote.gradient.Rop(out, x, v)
    got_g, got_jvp = _run([x, v], [g, jvp], value, tangent)
    np.testing.assert_allclose(got_g, weights @ _cumprod_jacobian(value))
    np.testing.assert_allclose(got_jvp, _cumprod_jacobian(value) @ tangent)


def test_cumprod_second_derivative(rng):
    # away from zeros (at a zero only the first derivative is exact, as for prod)
    weights = rng.normal(size=(2, 5))
    verify_grad(
        lambda x: arignote.grad((pt.cumprod(x, axis=1) * weights).sum(), x),
        [rng.uniform(0.5, 1.5, size=(2, 5))],
        rng=rng,
    )
