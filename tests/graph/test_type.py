"""Type: filtering values, converting variables, making variables and constants; NullType."""

from __future__ import annotations

import pytest

from arignote.graph.basic import Constant, Variable
from arignote.graph.null_type import NullType
from tests.graph.toy import ToyType, toy


def test_filter_converts_or_refuses():
    assert toy.filter(3) == 3.0 and isinstance(toy.filter(3), float)
    with pytest.raises(TypeError):
        toy.filter("3")
    with pytest.raises(TypeError):
        toy.filter(3, strict=True)


def test_is_valid_value_is_strict_by_default():
    assert toy.is_valid_value(3.0)
    assert not toy.is_valid_value(3)
    assert toy.is_valid_value(3, strict=False)


def test_call_and_make_variable_create_ownerless_variables():
    v = toy("v")
    assert isinstance(v, Variable) and v.owner is None and v.name == "v" and v.type is toy
    assert toy.make_variable().type is toy
    assert v.tag.trace and v.tag.trace[0][0].endswith("test_type.py")  # where the user made it


def test_make_constant_and_filter_variable_of_raw_values():
    c = toy.filter_variable(2)
    assert isinstance(c, Constant) and c.data == 2.0
    assert toy.make_constant(1.5).data == 1.5


def test_filter_variable_refuses_other_types():
    with pytest.raises(TypeError, match="Cannot convert"):
        toy.filter_variable(ToyType("int")())


def test_convert_variable_accepts_subtypes_only():
    v = toy()
    assert toy.convert_variable(v) is v
    assert toy.convert_variable(ToyType("int")()) is None


def test_values_eq_and_approx():
    assert toy.values_eq(1.0, 1.0) and not toy.values_eq(1.0, 2.0)
    assert toy.values_eq_approx(1.0, 1.0)


def test_types_with_props_compare_by_value():
    assert ToyType("int") == ToyType("int") and hash(ToyType("int")) == hash(ToyType("int"))
    assert ToyType("int") != ToyType("float")


def test_null_type_has_no_values():
    null = NullType("because")
    with pytest.raises(ValueError, match="because"):
        null.filter(1)
    assert str(null) == "NullType"
    assert isinstance(null(), Variable)
