"""Tests of arignote.tensor.random.type: the generator type, its shared variables, NoneConst."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import arignote
from arignote.tensor.random.type import (
    NoneConst,
    NoneTypeT,
    RandomGeneratorConstant,
    RandomGeneratorSharedVariable,
    RandomGeneratorType,
    copy_generator,
    random_generator_type,
)

BIT_GENERATORS = [
    np.random.PCG64,
    np.random.PCG64DXSM,
    np.random.MT19937,
    np.random.Philox,
    np.random.SFC64,
]


def test_RandomGeneratorType_filter_accepts_generators_only():
    rng = np.random.default_rng(1)
    assert random_generator_type.filter(rng) is rng
    with pytest.raises(TypeError, match="RandomState objects are not supported"):
        random_generator_type.filter(np.random.RandomState(1))
    with pytest.raises(TypeError, match=r"expects a numpy\.random\.Generator"):
        random_generator_type.filter(np.zeros(3))
    assert not random_generator_type.is_valid_value(3)


def test_RandomGeneratorType_props_contract():
    assert RandomGeneratorType() == random_generator_type
    assert hash(RandomGeneratorType()) == hash(random_generator_type)
    assert pickle.loads(pickle.dumps(random_generator_type)) == random_generator_type
    assert str(random_generator_type) == "RandomGeneratorType"


@pytest.mark.parametrize("bit_generator", BIT_GENERATORS)
def test_RandomGeneratorType_values_eq_compares_states(bit_generator):
    a = np.random.Generator(bit_generator(5))
    b = np.random.Generator(bit_generator(5))
    assert random_generator_type.values_eq(a, b)
    a.normal()
    assert not random_generator_type.values_eq(a, b)
    b.normal()
    assert random_generator_type.values_eq(a, b)
    assert not random_generator_type.values_eq(a, np.random.Generator(bit_generator(6)))


def test_RandomGeneratorType_values_eq_different_kinds_and_values():
    pcg = np.random.Generator(np.random.PCG64(1))
    sfc = np.random.Generator(np.random.SFC64(1))
    assert not random_generator_type.values_eq(pcg, sfc)
    assert not random_generator_type.values_eq(pcg, 3)


def test_RandomGeneratorType_may_share_memory():
    a, b = np.random.default_rng(1), np.random.default_rng(1)
    assert random_generator_type.may_share_memory(a, a)
    assert random_generator_type.may_share_memory(a, np.random.Generator(a.bit_generator))
    assert not random_generator_type.may_share_memory(a, b)
    assert not random_generator_type.may_share_memory(a, np.zeros(2))


def test_RandomGeneratorType_data_signature_hashable_and_equal_for_equal_states():
    a, b = np.random.default_rng(3), np.random.default_rng(3)
    assert hash(random_generator_type.data_signature(a)) == hash(
        random_generator_type.data_signature(b)
    )
    mt = np.random.Generator(np.random.MT19937(1))  # state holds an array
    assert random_generator_type.data_signature(mt) == random_generator_type.data_signature(
        copy.deepcopy(mt)
    )
    a.random()
    assert random_generator_type.data_signature(a) != random_generator_type.data_signature(b)


@pytest.mark.parametrize("bit_generator", BIT_GENERATORS)
def test_copy_generator_is_independent_and_equal(bit_generator):
    rng = np.random.Generator(bit_generator(11))
    rng.standard_normal(3)  # leave a buffered value in some bit generators' state
    twin = copy_generator(rng)
    assert twin is not rng and twin.bit_generator is not rng.bit_generator
    assert random_generator_type.values_eq(twin, rng)
    expected = rng.normal(size=4)
    np.testing.assert_array_equal(twin.normal(size=4), expected)
    assert twin.bit_generator.seed_seq is rng.bit_generator.seed_seq


def test_shared_generator_constructor_copies_unless_borrow():
    rng = np.random.default_rng(4)
    var = arignote.shared(rng, name="r")
    assert isinstance(var, RandomGeneratorSharedVariable)
    assert var.type == random_generator_type and str(var) == "r"
    assert var.get_value(borrow=True) is not rng
    assert random_generator_type.values_eq(var.get_value(), rng)
    borrowed = arignote.shared(rng, borrow=True)
    assert borrowed.get_value(borrow=True) is rng


def test_shared_generator_get_value_is_a_deep_copy():
    var = arignote.shared(np.random.default_rng(4))
    value = var.get_value()
    value.normal(size=5)  # drawing from the copy leaves the stored generator as it was
    assert random_generator_type.values_eq(var.get_value(), np.random.default_rng(4))
    assert var.get_value(borrow=True) is var.get_value(borrow=True)


def test_shared_generator_set_value_copies_unless_borrow():
    var = arignote.shared(np.random.default_rng(4))
    new = np.random.default_rng(9)
    var.set_value(new)
    assert var.get_value(borrow=True) is not new
    new.normal()
    assert random_generator_type.values_eq(var.get_value(), np.random.default_rng(9))
    var.set_value(new, borrow=True)
    assert var.get_value(borrow=True) is new
    with pytest.raises(TypeError, match="Cannot set the value"):
        var.set_value(np.zeros(3))


def test_shared_generator_refuses_unknown_keywords():
    with pytest.raises(TypeError, match="No shared-variable constructor"):
        arignote.shared(np.random.default_rng(1), shape=(3,))


def test_shared_generator_pickles_with_its_state():
    var = arignote.shared(np.random.default_rng(12), name="rng")
    var.get_value(borrow=True).normal(size=3)
    restored = pickle.loads(pickle.dumps(var))
    assert isinstance(restored, RandomGeneratorSharedVariable) and restored.name == "rng"
    assert random_generator_type.values_eq(restored.get_value(), var.get_value())
    np.testing.assert_array_equal(
        restored.get_value().normal(size=4), var.get_value().normal(size=4)
    )


def test_generator_constant_keeps_its_own_copy():
    rng = np.random.default_rng(8)
    const = random_generator_type.make_constant(rng)
    assert isinstance(const, RandomGeneratorConstant)
    rng.normal(size=10)  # the caller's generator moves on, the constant does not
    assert random_generator_type.values_eq(const.data, np.random.default_rng(8))
    assert const.equals(random_generator_type.make_constant(np.random.default_rng(8)))
    assert not const.equals(random_generator_type.make_constant(np.random.default_rng(9)))
    assert "Generator(PCG64)" in str(const)


def test_NoneConst_holds_only_None():
    assert NoneConst.data is None and NoneConst.type == NoneTypeT()
    with pytest.raises(TypeError, match="only holds None"):
        NoneTypeT().filter(0)
    assert pickle.loads(pickle.dumps(NoneConst)).equals(NoneConst)
