"""Tests of ``x[index]`` reading Python indices, the public names, and the vector-element hook."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.tensor import basic as tensor_basic
from arignote.tensor.subtensor import ARRAY, INT, MASK

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


def _run(inputs, outputs, *values):
    return arignote.function(inputs, outputs, on_unused_input="ignore")(*values)


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
