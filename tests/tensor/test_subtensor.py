"""Hand-written tests of ``x[index]``, Subtensor and IncSubtensor, and the public names."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.compile.mode import Mode
from arignote.tensor import basic as tensor_basic
from arignote.tensor.index_spec import ARRAY, FULL_SLICE, INT, MASK, SliceSpec
from arignote.testing import verify_grad

NO_REWRITES = Mode(linker="vm", optimizer=None)


def _run(inputs, outputs, *values, mode=None):
    return arignote.function(inputs, outputs, mode=mode, on_unused_input="ignore")(*values)


@pytest.mark.parametrize(
    "index",
    [
        (slice(3, 1),),
        (slice(None), slice(10, None)),
        (slice(-1, -5),),
        (slice(0, 0), 1),
        (slice(None, None, -1), slice(-2, None, -2)),
        (slice(-100, 100, 3),),
    ],
    ids=[
        "reversed_bounds",
        "past_end",
        "negative_empty",
        "empty_then_int",
        "negative_steps",
        "huge",
    ],
)
def test_Subtensor_slices_match_numpy(rng, index):
    x = pt.matrix("x")
    value = rng.normal(size=(4, 5))
    out = x[index]
    got, shape = _run([x], [out, out.shape], value)
    np.testing.assert_array_equal(got, value[index])
    assert tuple(shape) == value[index].shape


def test_Subtensor_symbolic_slice_lengths_match_python(rng):
    """The same formula, as a graph, for every sign of a symbolic step."""
    start, stop, step = pt.lscalars("start", "stop", "step")
    x = pt.vector("x")
    out = x[start:stop:step]
    fn = arignote.function([x, start, stop, step], [out, out.shape])
    value = rng.normal(size=(5,))
    for bounds in [(0, 5, 1), (-1, -6, -1), (4, 0, -3), (7, -9, -2), (1, 4, 2), (3, 3, 1)]:
        got, shape = fn(value, *bounds)
        np.testing.assert_array_equal(got, value[slice(*bounds)])
        assert tuple(shape) == value[slice(*bounds)].shape


def test_Subtensor_static_shapes():
    x = pt.tensor(dtype="float64", shape=(5, None, 3))
    assert x[1:3].type.shape == (2, None, 3)
    assert x[::-1, 2:, None].type.shape == (5, None, 1, 3)
    assert x[-1, :, 0].type.shape == (None,)
    assert x[..., 1:].type.shape == (5, None, 2)
    assert x[1 : 3 : 0 + 1].type.shape == (2, None, 3)
    i = pt.lscalar("i")
    assert x[i:].type.shape == (None, None, 3)


def test_Subtensor_is_a_view_and_keeps_dtype(rng):
    x = pt.imatrix("x")
    out = x[1:, ::2]
    assert out.owner.op.view_map == {0: [0]}
    value = rng.integers(0, 9, size=(3, 4)).astype("int32")
    got = _run([x], out, value, mode=NO_REWRITES)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, value[1:, ::2])


@pytest.mark.parametrize(
    ("index", "error"),
    [
        ((3,), IndexError),
        ((0, -5), IndexError),
        ((0, 0, 0), IndexError),
        ((Ellipsis, Ellipsis), IndexError),
        ((1.0,), IndexError),
        (("a",), IndexError),
        ((slice(None, None, 0),), ValueError),
        ((slice(0.5, None),), TypeError),
    ],
    ids=[
        "int_past_end",
        "negative_past_start",
        "too_many",
        "two_ellipses",
        "float",
        "str",
        "zero_step",
        "float_bound",
    ],
)
def test_Subtensor_static_errors(index, error):
    x = pt.tensor(dtype="float64", shape=(3, 4))
    with pytest.raises(error):
        x[index]


def test_Subtensor_out_of_bounds_at_run_time_names_the_node(rng):
    x = pt.matrix("x")
    out = x[2, 5]
    fn = arignote.function([x], out)
    with pytest.raises(IndexError, match="out of bounds") as info:
        fn(rng.normal(size=(3, 4)))
    assert "Subtensor" in str(info.value)
    assert "Apply node" in str(info.value)


def test_Subtensor_symbolic_zero_step_raises_at_run_time(rng):
    x, step = pt.vector("x"), pt.lscalar("step")
    fn = arignote.function([x, step], x[::step])
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        fn(rng.normal(size=(3,)), 0)


def test_Subtensor_symbolic_integer_index_casts_to_int64(rng):
    x, i = pt.vector("x"), pt.bscalar("i")
    out = x[i]
    assert all(inp.type.dtype == "int64" for inp in out.owner.inputs[1:])
    value = rng.normal(size=(6,))
    assert _run([x, i], out, value, np.int8(-2)) == value[-2]


def test_Subtensor_props_and_str():
    op = pt.Subtensor((INT, SliceSpec(True, False, True), None, FULL_SLICE))
    assert op == pt.Subtensor([INT, (True, False, True), None, (False, False, False)])
    assert str(op) == "Subtensor{int, s::s, newaxis, :}"
    with pytest.raises(ValueError):
        pt.Subtensor(("array",))
    with pytest.raises(TypeError, match="takes 3 index inputs"):
        op(pt.tensor3("x"), 1, 2)


def test_Subtensor_grad_scatters_back(rng):
    verify_grad(lambda x: x[1:, ::-2] * 2, [rng.normal(size=(4, 5))], rng=rng)
    verify_grad(lambda x: x[-1, None, 1:3], [rng.normal(size=(3, 4))], rng=rng)


def test_Subtensor_grad_of_int_input_is_float(rng):
    x = pt.lvector("x")
    y = pt.dscalar("y")
    cost = (x[1:] * y).sum()
    g = arignote.grad(cost, y)
    assert _run([x, y], g, np.arange(4), 2.0) == 6.0


# -- IncSubtensor ----------------------------------------------------------------------------


def test_IncSubtensor_basic_values(rng):
    x, y = pt.matrix("x"), pt.vector("y")
    value, row = rng.normal(size=(3, 4)), rng.normal(size=(4,))
    set_out = pt.set_subtensor(x[1], y)
    inc_out = pt.inc_subtensor(x[::-1][0], y)  # an index of an index: the inner view is updated
    expected_set, expected_inc = value.copy(), value[::-1].copy()
    expected_set[1] = row
    expected_inc[0] += row
    got_set, got_inc = _run([x, y], [set_out, inc_out], value, row)
    np.testing.assert_allclose(got_set, expected_set)
    np.testing.assert_allclose(got_inc, expected_inc)


def test_IncSubtensor_does_not_modify_its_input(rng):
    x = pt.vector("x")
    fn = arignote.function([x], pt.inc_subtensor(x[1:3], 1.0), mode=NO_REWRITES)
    value = rng.normal(size=(5,))
    original = value.copy()
    fn(value)
    np.testing.assert_array_equal(value, original)


def test_IncSubtensor_inplace_declares_and_overwrites(rng):
    op = pt.IncSubtensor((SliceSpec(True, False, False),), inplace=True)
    assert op.destroy_map == {0: [0]}
    assert pt.IncSubtensor((INT,)).destroy_map == {}
    assert op != pt.IncSubtensor((SliceSpec(True, False, False),))
    x = pt.vector("x")
    node = op.make_node(x, pt.constant(np.asarray(1.0)), pt.constant(np.int64(2)))
    value = np.zeros(4)
    cell = [None]
    op.perform(node, [value, np.asarray(1.0), np.int64(2)], [cell])
    assert cell[0] is value
    np.testing.assert_array_equal(value, [0, 0, 1, 1])


def test_IncSubtensor_value_checks():
    x = pt.tensor(dtype="float64", shape=(4, 5))
    with pytest.raises(ValueError, match="broadcast"):
        pt.set_subtensor(x[1:3], pt.tensor(dtype="float64", shape=(3, 5)))
    with pytest.raises(TypeError, match="2-d value into a 1-d subtensor"):
        pt.set_subtensor(x[0], pt.matrix())
    with pytest.raises(TypeError, match="same_kind"):
        pt.inc_subtensor(pt.lvector()[0], 1.5)
    with pytest.raises(TypeError, match="indexing a tensor"):
        pt.set_subtensor(x, 1.0)
    with pytest.raises(TypeError, match="immutable"):
        x[0] = 1.0


def test_IncSubtensor_runtime_broadcast_needs_static_length_one(rng):
    x, y = pt.matrix("x"), pt.matrix("y")
    fn = arignote.function([x, y], pt.inc_subtensor(x[1:], y))
    with pytest.raises(ValueError, match="runtime broadcasting is not allowed"):
        fn(rng.normal(size=(3, 4)), rng.normal(size=(1, 4)))
    row = pt.row("row")
    out = _run([x, row], pt.inc_subtensor(x[1:], row), np.zeros((3, 4)), np.ones((1, 4)))
    np.testing.assert_array_equal(out, [[0] * 4, [1] * 4, [1] * 4])


def test_set_subtensor_casts_like_numpy(rng):
    x = pt.lvector("x")
    out = _run([x], pt.set_subtensor(x[1], 2.7), np.arange(3))
    np.testing.assert_array_equal(out, [0, 2, 2])
    f = pt.fvector("f")
    out = pt.inc_subtensor(f[0], 1.5)
    assert out.type.dtype == "float32"
    d = pt.dvector("d")
    assert pt.inc_subtensor(f[1:], d[1:]).type.dtype == "float32"  # same-kind downcast


def test_IncSubtensor_grads(rng):
    x, y = rng.normal(size=(4, 5)), rng.normal(size=(2, 5))
    verify_grad(lambda a, b: pt.set_subtensor(a[1:3], b), [x, y], rng=rng)
    verify_grad(lambda a, b: pt.inc_subtensor(a[::-2], b), [x, y], rng=rng)
    row = rng.normal(size=(1, 5))
    verify_grad(lambda a, b: pt.set_subtensor(a[:, ::2], b[:, :3]), [x, row], rng=rng)
    verify_grad(lambda a, b: pt.inc_subtensor(a[2, 1:], b[0, 1:]), [x, row], rng=rng)


def test_IncSubtensor_infer_shape_drops_the_op(rng):
    x, y = pt.matrix("x"), pt.vector("y")
    out = pt.set_subtensor(x[0], y)
    fn = arignote.function([x, y], out.shape)
    assert not any(isinstance(n.op, pt.IncSubtensor) for n in fn.maker.fgraph.toposort())
    assert tuple(fn(rng.normal(size=(3, 4)), rng.normal(size=(4,)))) == (3, 4)


def test_Subtensor_constant_value_rule():
    x = pt.tensor(dtype="float64", shape=(3, None))
    assert pt.get_scalar_constant_value(x.shape[0]) == 3
    with pytest.raises(pt.NotScalarConstantError):
        pt.get_scalar_constant_value(x.shape[1])
    assert pt.get_scalar_constant_value(pt.constant(np.array([4, 5, 6]))[-1]) == 6


# -- reading Python indices, names, hooks -------------------------------------------------------

PUBLIC_NAMES = [
    "Subtensor",
    "IncSubtensor",
    "AdvancedSubtensor1",
    "AdvancedIncSubtensor1",
    "AdvancedSubtensor",
    "AdvancedIncSubtensor",
    "set_subtensor",
    "inc_subtensor",
    "take",
    "take_along_axis",
    "TakeAlongAxis",
    "nonzero",
    "Nonzero",
    "where",
    "sort",
    "Sort",
    "argsort",
    "Argsort",
    "searchsorted",
    "SearchSorted",
    "unique",
    "Unique",
    "bincount",
    "BinCount",
    "diff",
    "choose",
    "Choose",
]


@pytest.mark.parametrize("name", PUBLIC_NAMES)
def test_public_name_exists(name):
    assert callable(getattr(pt, name))


@pytest.mark.parametrize(
    ("index", "idx_list"),
    [
        (np.int64(1), (INT,)),
        (np.array(1), (INT,)),
        ([], None),
        ([True, False, True], None),
        (np.array([[0, 1]]), (ARRAY,)),
        ((slice(None), [0, 2]), None),
    ],
)
def test_getitem_python_index_kinds(rng, index, idx_list):
    x = pt.matrix("x")
    value = rng.normal(size=(3, 4))
    out = x[index]
    if idx_list is not None:
        assert out.owner.op.idx_list == idx_list
    np.testing.assert_array_equal(_run([x], out, value), value[index])


def test_getitem_with_symbolic_pieces(rng):
    x = pt.matrix("x")
    i, j = pt.lscalars("i", "j")
    mask = pt.tensor(dtype="bool", shape=(None,), name="mask")
    value = rng.normal(size=(3, 4))
    mask_value = np.array([True, False, True, True])
    outs = [x[[i, j]], x[i, j], x[:, mask], x[pt.as_tensor_variable([i, 2]), 1:]]
    got = _run([x, i, j, mask], outs, value, 2, -1, mask_value)
    expected = [value[[2, -1]], value[2, -1], value[:, mask_value], value[[2, 2], 1:]]
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)
    assert x[:, mask].owner.op.idx_list[-1] == MASK


def test_getitem_rejects_float_tensors():
    x, f = pt.matrix("x"), pt.dvector("f")
    with pytest.raises(IndexError, match="integer \\(or boolean\\)"):
        x[f]
    with pytest.raises(TypeError, match="slice indices"):
        x[: pt.dscalar()]


def test_iteration_and_methods(rng):
    v = pt.tensor(dtype="float64", shape=(3,), name="v")
    value = rng.normal(size=(3,))
    a, b, c = v
    np.testing.assert_allclose(_run([v], [a, b, c], value), value)
    x = pt.matrix("x")
    updated = x[0].set(1.0)
    increased = x[1, [0, 0]].inc(1.0)
    ones = np.ones((2, 3))
    got = _run([x], [updated, increased], ones)
    np.testing.assert_array_equal(got[0][0], [1, 1, 1])
    np.testing.assert_array_equal(got[1][1], [3, 1, 1])


def test_vector_element_hook_is_registered():
    assert tensor_basic._vector_element is not None
    v = pt.lvector("v")
    element = tensor_basic._vector_element(v, 1)
    assert isinstance(element.owner.op, pt.Subtensor)


def test_MakeVector_grad_through_the_hook(rng):
    a, b = pt.dscalars("a", "b")
    vec = pt.make_vector(a, b * 2.0, a * b)
    cost = (vec * pt.constant(np.array([1.0, 2.0, 3.0]))).sum()
    ga, gb = arignote.grad(cost, [a, b])
    got = _run([a, b], [ga, gb], 2.0, 5.0)
    np.testing.assert_allclose(got, [1.0 + 3.0 * 5.0, 4.0 + 3.0 * 2.0])
    f = pt.fscalar("f")
    g = arignote.grad(pt.make_vector(f, f, dtype="float32").sum(), f)
    assert g.type.dtype == "float32"
    assert _run([f], g, np.float32(1.0)) == 2.0


def test_Reshape_infer_shape_with_a_computed_shape_vector(rng):
    x, y = pt.matrix("x"), pt.tensor3("y")
    target = y.shape[1:]  # a computed vector of static length 2
    out = x.reshape(target, ndim=2)
    fn = arignote.function([x, y], out.shape)
    assert not any(isinstance(n.op, pt.Reshape) for n in fn.maker.fgraph.toposort())
    got = fn(rng.normal(size=(3, 4)), rng.normal(size=(5, 2, 6)))
    assert tuple(got) == (2, 6)
