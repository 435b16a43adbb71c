"""TensorType: static shapes, filtering values at the boundary, constructors."""

from __future__ import annotations

import numpy as np
import pytest

import arignote.tensor as pt
from arignote.config import config
from arignote.tensor.type import TensorType


def test_shape_and_broadcastable():
    t = TensorType("float32", shape=(None, 1, 3))
    assert t.ndim == 3 and t.broadcastable == (False, True, False)
    assert TensorType("int8", broadcastable=(True, False)).shape == (1, None)
    assert str(t) == "TensorType(float32, (?, 1, 3))"
    assert str(TensorType("float64", (None,))) == "TensorType(float64, (?,))"


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"dtype": "float64"}, TypeError),
        ({"dtype": "float64", "shape": (True, False)}, TypeError),
        ({"dtype": "float64", "shape": (-1,)}, ValueError),
        ({"dtype": "object", "shape": ()}, TypeError),
        ({"dtype": "float64", "shape": (2,), "broadcastable": (True,)}, TypeError),
    ],
)
def test_bad_type_arguments(kwargs, error):
    with pytest.raises(error):
        TensorType(**kwargs)


def test_equality_and_hash_by_dtype_and_shape():
    assert TensorType("float64", (None, 2)) == TensorType("float64", (None, 2))
    assert hash(TensorType("float64", (None, 2))) == hash(TensorType("float64", (None, 2)))
    assert TensorType("float64", (None, 2)) != TensorType("float64", (None, None))
    assert TensorType("float64", (None,)) != TensorType("float32", (None,))


def test_is_super_and_convert_variable():
    general, specific = TensorType("float64", (None, None)), TensorType("float64", (None, 3))
    assert general.is_super(specific) and not specific.is_super(general)
    x = specific()
    assert general.convert_variable(x) is x
    y = general()
    converted = specific.convert_variable(y)
    assert converted.type == specific  # a SpecifyShape makes the length known
    assert TensorType("float32", (None, None)).convert_variable(y) is None


@pytest.mark.parametrize(
    ("value", "dtype", "shape", "expected"),
    [
        ([1, 2, 3], "float64", (None,), np.array([1.0, 2.0, 3.0])),
        (2, "float32", (), np.float32(2)),
        (np.arange(3, dtype="int32"), "int64", (None,), np.arange(3)),
        (0.5, "float64", (), 0.5),
    ],
)
def test_filter_accepts_and_converts(value, dtype, shape, expected):
    out = TensorType(dtype, shape).filter(value)
    assert isinstance(out, np.ndarray) and out.dtype == dtype
    np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize(
    ("value", "dtype", "shape", "error", "message"),
    [
        (np.ones(3), "float64", (None, None), TypeError, "Wrong number of dimensions"),
        (np.ones(4), "float64", (3,), TypeError, "not compatible"),
        (np.ones(3), "float32", (None,), TypeError, "loss of precision"),
        ([1.5], "int64", (None,), TypeError, "changing its value"),
        ("abc", "float64", (), TypeError, "numeric"),
        (None, "float64", (), TypeError, "numeric"),
        ([[1, 2], [3]], "float64", (None, None), TypeError, "cannot interpret"),
        (np.array(["a"]), "float64", (None,), TypeError, "numeric"),
        (1 + 2j, "float64", (), TypeError, "complex"),
    ],
)
def test_filter_refuses_with_clear_errors(value, dtype, shape, error, message):
    with pytest.raises(error, match=message):
        TensorType(dtype, shape).filter(value)


def test_filter_downcast_only_when_allowed():
    t = TensorType("float32", (None,))
    assert t.filter(np.ones(2), allow_downcast=True).dtype == "float32"
    with pytest.raises(TypeError):
        t.filter(np.ones(2))


def test_filter_strict_wants_the_exact_array():
    t = TensorType("float64", (None,))
    with pytest.raises(TypeError, match="numpy.ndarray"):
        t.filter([1.0], strict=True)
    with pytest.raises(TypeError, match="dtype float64"):
        t.filter(np.ones(1, dtype="float32"), strict=True)


def test_values_eq_approx_uses_dtype_tolerance_and_nan():
    t = TensorType("float64", (None,))
    assert t.values_eq_approx(np.array([1.0, np.nan]), np.array([1.0 + 1e-12, np.nan]))
    assert not t.values_eq_approx(np.array([1.0]), np.array([1.1]))
    assert not t.values_eq(np.array([np.nan]), np.array([np.nan]))


def test_constructors_use_floatx_and_prefixes():
    assert pt.matrix().type == TensorType(config.floatX, (None, None))
    assert pt.dmatrix.dtype == "float64" and pt.fvector.dtype == "float32"
    assert pt.irow.shape == (1, None) and pt.lcol.shape == (None, 1)
    assert pt.btensor3.dtype == "int8" and pt.wscalar.dtype == "int16"
    assert pt.cmatrix.dtype == "complex64" and pt.zvector.dtype == "complex128"
    with config.change_flags(floatX="float32"):
        assert pt.vector().type.dtype == "float32"
    a, b, c = pt.dmatrices("a", "b", "c")
    assert [v.name for v in (a, b, c)] == ["a", "b", "c"]
    assert [v.name for v in pt.fscalars("u, v")] == ["u", "v"]
    assert len(pt.vectors(3)) == 3
    assert pt.tensor("float32", shape=(2, None)).type == TensorType("float32", (2, None))
    assert pt.tensor(dtype="int8", shape=(None,), name="k").name == "k"
    # a name that spells a NumPy dtype ("i8" is int64) does not override dtype=
    named = pt.tensor("i8", dtype="int8", shape=(None,))
    assert named.type.dtype == "int8" and named.name == "i8"
    assert pt.matrix("m", dtype="int32").type.dtype == "int32"


def test_typed_constructors_take_a_more_specific_shape():
    # PyTensor's dmatrix("x", shape=(2, 3)): the shape may fix lengths the type leaves open
    x = pt.dmatrix("x", shape=(2, None))
    assert x.type.shape == (2, None) and x.type.dtype == "float64" and x.name == "x"
    assert pt.lvector(shape=(3,)).type.shape == (3,)
    assert pt.dmatrix("y").type.shape == (None, None)


@pytest.mark.parametrize("make, shape", [("dmatrix", (2,)), ("drow", (2, 3)), ("fvector", ())])
def test_typed_constructors_refuse_an_incompatible_shape(make, shape):
    with pytest.raises(ValueError, match="incompatible"):
        getattr(pt, make)("x", shape=shape)
