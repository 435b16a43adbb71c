"""Hand-written tests of advanced indexing: NumPy's placement rules, errors, repeated indices."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import arignote
import arignote.tensor as pt
from arignote.compile.mode import Mode
from arignote.tensor.advanced_subtensor import WriteWinners
from arignote.tensor.index_spec import ARRAY, FULL_SLICE, MASK
from arignote.testing import verify_grad

NO_REWRITES = Mode(linker="vm", optimizer=None)
SHAPE = (3, 4, 5)


def _run(inputs, outputs, *values, mode=None):
    return arignote.function(inputs, outputs, mode=mode, on_unused_input="ignore")(*values)


# -- random indices against NumPy ------------------------------------------------------------


def _int_array(draw):
    shape = draw(st.sampled_from([(0,), (1,), (2,), (3,), (2, 1), (1, 3), (2, 3), ()]))
    size = int(np.prod(shape))
    entries = draw(st.lists(st.integers(-5, 4), min_size=size, max_size=size))
    dtype = draw(st.sampled_from(["int64", "int32", "int8", "uint8"]))
    # uint8 wraps the negative entries to large ones: NumPy then raises, and so must we
    return np.asarray(entries).astype(dtype).reshape(shape)


def _mask(draw):
    shape = draw(st.sampled_from([(3,), (4,), (5,), (3, 4), (4, 5)]))
    size = int(np.prod(shape))
    return np.asarray(draw(st.lists(st.booleans(), min_size=size, max_size=size))).reshape(shape)


@st.composite
def _index_items(draw):
    """A valid-looking index for a (3, 4, 5) array: NumPy decides whether it is valid."""
    n_items = draw(st.integers(0, 5))
    items, used_ellipsis = [], False
    for _ in range(n_items):
        kind = draw(st.sampled_from(["int", "slice", "none", "ellipsis", "array", "mask", "bool"]))
        if kind == "ellipsis" and not used_ellipsis:
            used_ellipsis = True
            items.append(Ellipsis)
        elif kind == "int":
            items.append(draw(st.integers(-6, 5)))
        elif kind == "slice":
            bounds = st.one_of(st.none(), st.integers(-7, 7))
            step = draw(st.one_of(st.none(), st.sampled_from([1, 2, 3, -1, -2, -4])))
            items.append(slice(draw(bounds), draw(bounds), step))
        elif kind == "none":
            items.append(None)
        elif kind == "array":
            items.append(_int_array(draw))
        elif kind == "mask":
            items.append(_mask(draw))
        elif kind == "bool":
            items.append(draw(st.booleans()))
    return tuple(items)


def _numpy_result(value, index):
    try:
        return value[index], None
    except IndexError as err:
        return None, err


def _scalar_input(value, symbols, values):
    var = pt.lscalar()
    symbols.append(var)
    values.append(np.int64(value))
    return var


def _symbolic_index(index, scalars=False):
    """The index with its arrays (and, with ``scalars``, its ints and slice bounds) replaced
    by symbolic inputs."""
    symbols, values, items = [], [], []
    for item in index:
        if isinstance(item, np.ndarray):
            var = pt.tensor(dtype=item.dtype, shape=(None,) * item.ndim)
            symbols.append(var)
            values.append(item)
            items.append(var)
        elif scalars and isinstance(item, slice):
            bounds = (item.start, item.stop, item.step)
            items.append(
                slice(*[b if b is None else _scalar_input(b, symbols, values) for b in bounds])
            )
        elif scalars and isinstance(item, int) and not isinstance(item, bool):
            items.append(_scalar_input(item, symbols, values))
        else:
            items.append(item)
    return symbols, values, tuple(items)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(index=_index_items())
def test_getitem_matches_numpy_on_random_indices(index):
    value = np.arange(np.prod(SHAPE), dtype="float64").reshape(SHAPE)
    expected, error = _numpy_result(value, index)
    x = pt.tensor(dtype="float64", shape=(None, None, None))
    for inputs, args, idx in [
        ([x], [value], index),
        *[
            ([x, *symbols], [value, *arrays], symbolic_index)
            for symbols, arrays, symbolic_index in [
                _symbolic_index(index),
                _symbolic_index(index, scalars=True),
            ]
        ],
    ]:
        if error is not None:
            with pytest.raises(IndexError):
                _run(inputs, x[idx], *args)
            continue
        out = x[idx]
        got, shape = _run(inputs, [out, out.shape], *args)
        np.testing.assert_array_equal(got, expected)
        assert tuple(shape) == expected.shape
        assert out.type.ndim == expected.ndim
        assert all(s is None or s == e for s, e in zip(out.type.shape, expected.shape))


def _broadcastable_to(draw, shape):
    """A shape that broadcasts to ``shape``: fewer leading dimensions, some lengths 1."""
    kept = shape[draw(st.integers(0, len(shape))) :]
    return tuple(1 if draw(st.booleans()) else s for s in kept)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(index=_index_items(), data=st.data())
# repeated positions, broadcast along them, mixed with a slice and a mask
@example(index=(np.array([-3, 0, 2, 0]),), data=None)
@example(index=(slice(None), np.array([[1, 1], [-3, 2]]), slice(None, None, -2)), data=None)
@example(index=(np.array([True, False, True]), np.array([1, 1])), data=None)
def test_set_and_inc_match_numpy_on_random_indices(index, data):
    value = np.arange(np.prod(SHAPE), dtype="float64").reshape(SHAPE)
    target, error = _numpy_result(value, index)
    if error is not None:
        return
    # y broadcasts to the indexed part; repeated positions keep NumPy's last write for set
    # and accumulate (np.add.at) for inc
    if data is None:  # an explicit example: y broadcasts along the indexed dimension
        y_shape = (1, *target.shape[1:])
    else:
        y_shape = _broadcastable_to(data.draw, target.shape)
    y = np.arange(int(np.prod(y_shape)), dtype="float64").reshape(y_shape) + 100
    expected_set, expected_inc = value.copy(), value.copy()
    expected_set[index] = y
    np.add.at(expected_inc, index, y)
    x = pt.tensor(dtype="float64", shape=(None, None, None))
    scalars = data is not None and data.draw(st.booleans())
    symbols, arrays, symbolic_index = _symbolic_index(index, scalars=scalars)
    yv = pt.tensor(dtype="float64", shape=tuple(1 if s == 1 else None for s in y.shape))
    outputs = [
        pt.set_subtensor(x[symbolic_index], yv),
        pt.inc_subtensor(x[symbolic_index], yv),
    ]
    got = _run([x, yv, *symbols], outputs, value, y, *arrays)
    np.testing.assert_array_equal(got[0], expected_set)
    np.testing.assert_array_equal(got[1], expected_inc)


# -- placement of the advanced dimensions -----------------------------------------------------


@pytest.mark.parametrize(
    "index",
    [
        (slice(None), [0, 1, 2], None, [1, 1, 1]),
        (slice(None), [0, 1, 2], Ellipsis, [1, 1, 1]),
        (slice(None), 1, None, [1, 1, 1]),
        (1, slice(None), [1, 2, 3]),
        (slice(None), 0, [1, 2]),
        (Ellipsis, [0, 1]),
        ([True, False],),
        (slice(None), True, [0, 1]),
        (False,),
    ],
)
def test_AdvancedSubtensor_dimension_order(index):
    value = np.arange(24.0).reshape(2, 3, 4)
    x = pt.tensor3("x")
    out = x[index]
    np.testing.assert_array_equal(_run([x], out, value), value[index])


def test_AdvancedSubtensor1_is_used_for_one_vector_on_axis_0():
    x = pt.matrix("x")
    assert isinstance(x[[0, 2]].owner.op, pt.AdvancedSubtensor1)
    assert isinstance(x[[0, 2], :].owner.op, pt.AdvancedSubtensor1)
    assert isinstance(x[[0, 2], ...].owner.op, pt.AdvancedSubtensor1)
    assert isinstance(x[[[0, 2]]].owner.op, pt.AdvancedSubtensor)
    assert isinstance(x[:, [0, 2]].owner.op, pt.AdvancedSubtensor)


def test_constant_masks_become_static_index_arrays():
    x = pt.tensor(dtype="float64", shape=(3, 4))
    out = x[np.array([True, False, True])]
    assert isinstance(out.owner.op, pt.AdvancedSubtensor1)
    assert out.type.shape == (2, 4)
    unknown = pt.matrix("unknown")
    kept = unknown[np.array([True, False, True])]
    assert kept.owner.op.idx_list == (MASK,)  # the length of x is unknown: keep NumPy's check


def test_AdvancedSubtensor_static_shapes():
    x = pt.tensor(dtype="float64", shape=(3, None, 5))
    assert x[:, [0, 1, 1]].type.shape == (3, 3, 5)
    assert x[[0, 1], :, [[1], [2], [3]]].type.shape == (3, 2, None)
    mask = pt.tensor(dtype="bool", shape=(3, None))
    assert x[mask].type.shape == (None, 5)
    assert x[None, ..., [2]].type.shape == (1, 3, None, 1)


@pytest.mark.parametrize(
    ("index", "match"),
    [
        (([0, 3],), "out of bounds"),
        ((slice(None), [-6]), "out of bounds"),
        (([0, 1], [0, 1, 2]), "could not be broadcast"),
        ((np.ones((2, 5), dtype=bool),), "boolean index did not match"),
        ((np.array([0.5]),), "integer \\(or boolean\\)"),
        (([0], [0], [0]), "too many indices"),
    ],
)
def test_AdvancedSubtensor_static_errors(index, match):
    x = pt.tensor(dtype="float64", shape=(3, 5))
    with pytest.raises(IndexError, match=match):
        x[index]


def test_AdvancedSubtensor_errors_at_run_time_name_the_node(rng):
    x, i = pt.matrix("x"), pt.lvector("i")
    fn = arignote.function([x, i], x[:, i])
    with pytest.raises(IndexError, match="out of bounds") as info:
        fn(rng.normal(size=(3, 4)), np.array([0, 4]))
    assert "AdvancedSubtensor" in str(info.value)
    mask = pt.bmatrix("mask").astype("bool")
    fn = arignote.function([x, mask.owner.inputs[0]], x[mask])
    with pytest.raises(IndexError, match="boolean index did not match"):
        fn(rng.normal(size=(3, 4)), np.ones((3, 3), dtype="int8"))


def test_symbolic_mask_indexing_and_its_shape(rng):
    x = pt.matrix("x")
    value = rng.normal(size=(4, 3))
    out = x[x > 0]
    got, shape = _run([x], [out, out.shape], value)
    np.testing.assert_array_equal(got, value[value > 0])
    assert tuple(shape) == (int((value > 0).sum()),)


# -- set / inc with repeated indices ------------------------------------------------------------


def test_inc_subtensor_accumulates_repeated_indices(rng):
    x, y = pt.vector("x"), pt.vector("y")
    value, inc = rng.normal(size=(5,)), rng.normal(size=(4,))
    index = np.array([1, 3, 1, 1])
    got = _run([x, y], pt.inc_subtensor(x[index], y), value, inc)
    expected = value.copy()
    np.add.at(expected, index, inc)
    np.testing.assert_allclose(got, expected)
    ignored = _run([x, y], pt.inc_subtensor(x[index], y, ignore_duplicates=True), value, inc)
    buffered = value.copy()
    buffered[index] += inc
    np.testing.assert_allclose(ignored, buffered)


def test_set_subtensor_last_write_wins(rng):
    x, y = pt.matrix("x"), pt.vector("y")
    value, written = rng.normal(size=(3, 4)), np.array([1.0, 2.0, 3.0])
    got = _run([x, y], pt.set_subtensor(x[[2, 0, 2], [1, 1, 1]], y), value, written)
    assert got[2, 1] == 3.0 and got[0, 1] == 2.0


def test_WriteWinners_marks_the_last_write():
    x = pt.vector("x")
    op = WriteWinners((ARRAY,))
    out = op(x, pt.constant(np.array([1, 3, 1, 1, -4])))
    np.testing.assert_array_equal(
        _run([x], out, np.zeros(5)),
        [False, True, False, False, True],  # -4 is 1 again
    )
    assert out.type.dtype == "bool"
    assert str(op) == "WriteWinners{array}"


@pytest.mark.parametrize("set_instead_of_inc", [False, True])
def test_grad_with_repeated_indices_matches_finite_differences(rng, set_instead_of_inc):
    def build(a, b):
        return pt.inc_subtensor(a[[0, 2, 0, 0]], b, set_instead_of_inc=set_instead_of_inc) ** 2

    verify_grad(build, [rng.normal(size=(4, 3)), rng.normal(size=(4, 3))], rng=rng)

    def build_general(a, b):
        sub = a[[1, 1, 0], :, [2, 2, 2]]
        return pt.inc_subtensor(sub, b, set_instead_of_inc=set_instead_of_inc) ** 2

    verify_grad(build_general, [rng.normal(size=(2, 3, 4)), rng.normal(size=(1, 3))], rng=rng)


def test_grad_of_broadcast_write_with_repeats(rng):
    """A broadcast y written twice at one position counts once for set, twice for inc."""
    x, y = pt.vector("x"), pt.tensor(dtype="float64", shape=(1,), name="y")
    for set_instead_of_inc, expected in [(True, 1.0), (False, 2.0)]:
        out = pt.inc_subtensor(x[[0, 0]], y, set_instead_of_inc=set_instead_of_inc)
        g = arignote.grad(out.sum(), y)
        np.testing.assert_allclose(_run([x, y], g, np.zeros(3), np.ones(1)), [expected])


def test_ignore_duplicates_grad(rng):
    def build(a, b):
        return pt.inc_subtensor(a[[1, 1, 2]], b, ignore_duplicates=True) ** 2

    verify_grad(build, [rng.normal(size=(4,)), rng.normal(size=(3,))], rng=rng)


def test_AdvancedIncSubtensor_props_str_and_inplace(rng):
    idx_list = (FULL_SLICE, ARRAY)
    op = pt.AdvancedIncSubtensor(idx_list, set_instead_of_inc=True, inplace=True)
    assert op.destroy_map == {0: [0]}
    assert str(op) == "AdvancedSetSubtensor{:, array}{inplace}"
    assert str(pt.AdvancedIncSubtensor1(ignore_duplicates=True)) == (
        "AdvancedIncSubtensor1{ignore_duplicates}"
    )
    assert pt.AdvancedIncSubtensor1().destroy_map == {}
    x, y = pt.matrix("x"), pt.tensor(dtype="float64", shape=(1,), name="y")
    node = op.make_node(x, y, pt.constant(np.array([0, 2])))
    value = np.zeros((2, 3))
    cell = [None]
    op.perform(node, [value, np.array([5.0]), np.array([0, 2])], [cell])
    assert cell[0] is value
    np.testing.assert_array_equal(value, [[5, 0, 5], [5, 0, 5]])
    with pytest.raises(ValueError, match="integer or boolean array"):
        pt.AdvancedSubtensor((FULL_SLICE,))


def test_advanced_runtime_broadcast_needs_static_length_one(rng):
    x, y = pt.matrix("x"), pt.matrix("y")
    fn = arignote.function([x, y], pt.inc_subtensor(x[[0, 1]], y))
    with pytest.raises(ValueError, match="runtime broadcasting is not allowed"):
        fn(rng.normal(size=(3, 4)), rng.normal(size=(1, 4)))
    fn = arignote.function([x, y], pt.set_subtensor(x[:, [0, 1]], y))
    with pytest.raises(ValueError, match="does not broadcast"):
        fn(rng.normal(size=(3, 4)), rng.normal(size=(3, 3)))


def test_advanced_infer_shape_uses_mask_values(rng):
    x, m = pt.tensor3("x"), pt.matrix("m")
    out = x[:, m > 0, None]
    fn = arignote.function([x, m], out.shape)
    assert not any(isinstance(n.op, pt.AdvancedSubtensor) for n in fn.maker.fgraph.toposort())
    xv, mv = rng.normal(size=(2, 3, 4)), rng.normal(size=(3, 4))
    assert tuple(fn(xv, mv)) == xv[:, mv > 0, None].shape
