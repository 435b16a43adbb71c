"""DimShuffle and Elemwise: structure, static shapes, broadcasting, dtypes, perform."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import arignote
import arignote.tensor as pt
from arignote import scalar as ps
from arignote.tensor.elemwise import DimShuffle, Elemwise


def evaluate(outputs, inputs, values):
    return arignote.function(inputs, outputs, mode=arignote.Mode(optimizer=None))(*values)


@pytest.mark.parametrize(
    ("shape", "order", "expected"),
    [
        ((2, 3), (1, 0), (3, 2)),
        ((2, 3), ("x", 0, "x", 1), (1, 2, 1, 3)),
        ((2, 1, 3), (2, 0), (3, 2)),
        ((1,), (), ()),
        ((), ("x", "x"), (1, 1)),
        ((4, 1, 2), (2, "x", 0), (2, 1, 4)),
    ],
)
def test_DimShuffle_matches_numpy(shape, order, expected, rng):
    value = rng.normal(size=shape)
    x = pt.tensor(dtype="float64", shape=tuple(1 if s == 1 else None for s in shape))
    out = evaluate(x.dimshuffle(*order), [x], [value])
    assert out.shape == expected
    np.testing.assert_array_equal(out, numpy_dimshuffle(value, order))


def numpy_dimshuffle(value, order):
    """Reference semantics: drop unlisted (length-1) dims, permute, insert new length-1 dims."""
    kept = [d for d in order if d != "x"]
    dropped = tuple(d for d in range(value.ndim) if d not in kept)
    squeezed = np.squeeze(value, axis=dropped)
    remaining = [d for d in range(value.ndim) if d not in dropped]
    moved = np.transpose(squeezed, [remaining.index(d) for d in kept])
    return moved.reshape([1 if d == "x" else value.shape[d] for d in order])


def test_DimShuffle_is_a_declared_view():
    x = pt.dmatrix()
    assert x.T.owner.op.view_map == {0: [0]}
    assert str(x.T.owner.op) == "InplaceDimShuffle{1,0}"


def test_DimShuffle_errors():
    with pytest.raises(ValueError, match="static length"):
        pt.tensor(dtype="float64", shape=(2, None)).dimshuffle(1)
    # an unknown length may be dropped (PyTensor 3): checked at run time, see
    # tests/differential/test_issue_samples.py
    assert pt.dmatrix().dimshuffle(1).type.shape == (None,)
    with pytest.raises(ValueError, match="repeats"):
        DimShuffle(2, (0, 0))
    with pytest.raises(ValueError, match="input dimensions"):
        DimShuffle(2, (0, 2))
    with pytest.raises(TypeError, match="2-d input"):
        DimShuffle(2, (1, 0))(pt.dvector())


def test_Elemwise_pads_dimensions_and_broadcasts_static_shapes():
    x = pt.tensor(dtype="float64", shape=(None, 3))
    y = pt.tensor(dtype="float64", shape=(3,))
    z = x + y
    assert z.type.shape == (None, 3)
    assert isinstance(z.owner.inputs[1].owner.op, DimShuffle)
    assert (pt.tensor(dtype="float64", shape=(1, 1)) + pt.dscalar()).type.shape == (1, 1)


def test_Elemwise_incompatible_static_shapes():
    with pytest.raises(ValueError, match="Incompatible static shapes"):
        pt.tensor(dtype="float64", shape=(2,)) + pt.tensor(dtype="float64", shape=(3,))


def test_runtime_broadcasting_needs_a_static_one():
    x, y = pt.dmatrix("x"), pt.dmatrix("y")
    f = arignote.function([x, y], x + y)
    with pytest.raises(ValueError, match="Runtime broadcasting is not allowed"):
        f(np.ones((2, 3)), np.ones((1, 3)))
    row = pt.tensor(dtype="float64", shape=(1, None))
    g = arignote.function([x, row], x + row)
    np.testing.assert_array_equal(g(np.ones((2, 3)), np.ones((1, 3))), np.full((2, 3), 2.0))


def test_mismatched_runtime_shapes_name_the_node():
    x, y = pt.dvector("x"), pt.dvector("y")
    f = arignote.function([x, y], x * y)
    with pytest.raises(ValueError, match="Apply node that caused the error") as info:
        f(np.ones(2), np.ones(3))
    assert "Inputs shapes" in str(info.value)


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("float32", 2.0),
        ("int8", 3),
        ("int32", 2.5),
        ("uint8", 1),
        ("float32", "float64"),
        ("int16", "int32"),
        ("bool", 1),
        ("int64", "float32"),
    ],
)
def test_dtype_promotion_follows_numpy(left, right):
    x = pt.tensor(dtype=left, shape=(None,))
    if isinstance(right, str):
        other = pt.tensor(dtype=right, shape=(None,))
        expected = np.result_type(np.dtype(left), np.dtype(right))
    else:
        other = right
        expected = (np.zeros(1, dtype=left) * right).dtype
    assert (x * other).type.dtype == expected.name


def test_python_integer_out_of_range_overflows_like_numpy():
    with pytest.raises(OverflowError):
        pt.tensor(dtype="uint8", shape=(None,)) + (-1)


def test_Elemwise_perform_returns_arrays_of_the_declared_dtype(rng):
    x = pt.tensor(dtype="int8", shape=())
    y = pt.exp(x)
    out = evaluate(y, [x], [np.int8(2)])
    assert isinstance(out, np.ndarray) and out.dtype == y.type.dtype == np.exp(np.int8(2)).dtype


def test_Elemwise_inplace_pattern_writes_into_the_input(rng):
    op = Elemwise(ps.add, {0: 0})
    assert op.destroy_map == {0: [0]} and str(op) == "Elemwise{add}[(0, 0)]"
    a, b = rng.normal(size=3), rng.normal(size=3)
    node = op.make_node(pt.dvector(), pt.dvector())
    storage = [[None]]
    expected = a + b
    op.perform(node, [a, b], storage)
    np.testing.assert_allclose(storage[0][0], expected)
    assert storage[0][0] is a


def test_Elemwise_inplace_pattern_requires_matching_types():
    with pytest.raises(TypeError, match="cannot overwrite"):
        Elemwise(ps.add, {0: 0})(pt.fvector(), pt.dvector())


def test_Elemwise_equality_and_names():
    assert pt.add == Elemwise(ps.add) and hash(pt.add) == hash(Elemwise(ps.add))
    assert pt.add != pt.mul
    assert pt.add.name == "Elemwise{add,no_inplace}"


def test_Elemwise_wrong_arity():
    with pytest.raises(TypeError, match="takes 2 inputs"):
        pt.sub(pt.dvector())


def test_comparisons_are_symbolic_but_equality_is_identity():
    x = pt.dvector()
    assert (x < 1).type.dtype == "bool"
    assert (x == x) is True
    with pytest.raises(TypeError, match="no truth value"):
        bool(x > 0)


# -- property: broadcasting, dtypes and values of binary elementwise ops against NumPy -----------

_BINARY = [
    (pt.add, np.add),
    (pt.mul, np.multiply),
    (pt.true_div, np.true_divide),
    (pt.maximum, np.maximum),
    (pt.arctan2, np.arctan2),
    (pt.lt, np.less),
    (pt.logaddexp, np.logaddexp),
    (pt.hypot, np.hypot),
]
_PROPERTY_DTYPES = ["bool", "int8", "uint16", "int64", "float16", "float32", "float64"]


@st.composite
def _broadcastable_pair(draw):
    """Two shapes that broadcast (length-1 dims on either side, fewer dims on either side)."""
    ndim = draw(st.integers(0, 3))
    full = draw(st.lists(st.integers(0, 3), min_size=ndim, max_size=ndim))
    shapes = []
    for _ in range(2):
        dropped = draw(st.integers(0, ndim))
        shapes.append(tuple(1 if draw(st.booleans()) else s for s in full[dropped:]))
    return shapes


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    shapes=_broadcastable_pair(),
    op_index=st.integers(0, len(_BINARY) - 1),
    dtypes=st.tuples(st.sampled_from(_PROPERTY_DTYPES), st.sampled_from(_PROPERTY_DTYPES)),
    seed=st.integers(0, 2**16),
)
def test_binary_elemwise_broadcasts_like_numpy(shapes, op_index, dtypes, seed):
    op, ref = _BINARY[op_index]
    rng = np.random.default_rng(seed)
    values = [
        (rng.uniform(-3, 3, size=shape) * 10).astype(dtype)
        if dtype != "bool"
        else rng.random(size=shape) > 0.5
        for shape, dtype in zip(shapes, dtypes)
    ]
    with np.errstate(all="ignore"):
        try:
            expected = ref(*values)
        except TypeError:
            with pytest.raises(TypeError):
                op(*[pt.tensor(dtype=v.dtype, shape=v.shape) for v in values])
            return
    # static 1s stay broadcastable, other lengths are unknown until run time
    inputs = [
        pt.tensor(dtype=v.dtype, shape=tuple(1 if s == 1 else None for s in v.shape))
        for v in values
    ]
    out = op(*inputs)
    assert out.type.dtype == expected.dtype.name
    with np.errstate(all="ignore"):
        got = evaluate(out, inputs, values)
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)
