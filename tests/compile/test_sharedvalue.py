"""Shared variables: construction, the get/set memory contract, the fixed type, default updates."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.compile.sharedvalue import SharedVariable, shared
from arignote.graph.shared import ObjectType
from arignote.tensor.sharedvar import TensorSharedVariable


def test_shared_array_keeps_dtype_and_ndim_and_copies(rng):
    value = rng.normal(size=(3, 4))
    s = shared(value, name="s")
    assert isinstance(s, TensorSharedVariable)
    assert (s.type.dtype, s.type.shape) == ("float64", (None, None))
    value[0, 0] = 100.0  # the caller's array is not the stored one
    assert s.get_value()[0, 0] != 100.0


def test_shared_borrow_keeps_the_callers_array(rng):
    value = rng.normal(size=(3, 4))
    s = shared(value, borrow=True)
    value[0, 0] = 100.0
    assert s.get_value()[0, 0] == 100.0


@pytest.mark.parametrize(
    ("value", "dtype"),
    [
        (1.5, "float64"),
        (3, "int64"),
        (True, "bool"),
        (2 + 1j, "complex128"),
        (np.float32(2), "float32"),
    ],
)
def test_shared_python_and_numpy_scalars(value, dtype):
    s = shared(value)
    assert s.type.dtype == dtype
    assert s.type.ndim == 0
    assert s.get_value() == value


def test_python_float_shared_is_float64_whatever_floatx():
    with arignote.config.change_flags(floatX="float32"):
        assert shared(0.5).dtype == "float64"


def test_get_value_copies_unless_borrowed(rng):
    s = shared(rng.normal(size=5))
    copy = s.get_value()
    copy[0] = 42.0
    assert s.get_value()[0] != 42.0
    internal = s.get_value(borrow=True)
    assert internal is s.get_value(borrow=True)
    assert s.get_value(borrow=True, return_internal_type=True) is internal
    internal[0] = 42.0
    assert s.get_value()[0] == 42.0


def test_set_value_copies_unless_borrowed(rng):
    s = shared(np.zeros(4))
    new = rng.normal(size=4)
    s.set_value(new)
    new[0] = 7.0
    assert s.get_value()[0] != 7.0
    s.set_value(new, borrow=True)
    new[1] = 9.0
    assert s.get_value()[1] == 9.0


def test_set_value_copies_views_too(rng):
    s = shared(np.zeros(3))
    base = rng.normal(size=6)
    s.set_value(base[::2])
    base[0] = 55.0
    assert s.get_value()[0] != 55.0


def test_set_value_is_seen_by_compiled_functions():
    s = shared(np.ones(2))
    f = arignote.function([], s * 2)
    np.testing.assert_array_equal(f(), [2.0, 2.0])
    s.set_value(np.array([3.0, 4.0]))
    np.testing.assert_array_equal(f(), [6.0, 8.0])


def test_set_value_accepts_values_that_convert_exactly():
    s = shared(np.zeros(3))
    s.set_value([1, 2, 3])  # Python ints: exact in float64
    np.testing.assert_array_equal(s.get_value(), [1.0, 2.0, 3.0])
    assert s.get_value().dtype == np.float64
    i = shared(np.zeros(2, dtype="int32"))
    i.set_value(np.array([1, 2], dtype="int8"))  # a safe upcast
    assert i.get_value().dtype == np.int32


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
@pytest.mark.parametrize(
    ("initial", "new", "error", "match"),
    [
        (np.zeros(3), np.zeros((3, 1)), TypeError, "Wrong number of dimensions"),
        (np.zeros(3), np.zeros(3, dtype="complex128"), TypeError, "loss of precision"),
        (np.zeros(3, dtype="int64"), np.array([1.5, 2.0]), TypeError, "loss of precision"),
        (np.zeros(3, dtype="float32"), np.zeros(3), TypeError, "loss of precision"),
        (np.zeros(3), "abc", TypeError, "numeric data"),
        (np.zeros(3), None, TypeError, "numeric data"),
        (np.zeros(3), [[1.0], [2.0, 3.0]], TypeError, "cannot interpret"),
        (1.5, 2 + 1j, TypeError, "complex"),
    ],
)
def test_set_value_refuses_incompatible_values(initial, new, error, match):
    s = shared(initial, name="weights")
    before = s.get_value()
    with pytest.raises(error, match=match) as info:
        s.set_value(new)
    message = str(info.value)
    assert "weights" in message
    assert str(s.type) in message
    np.testing.assert_array_equal(s.get_value(), before)


def test_static_shape_is_enforced():
    s = shared(np.zeros((2, 3)), shape=(None, 3), name="w")
    assert s.type.shape == (None, 3)
    s.set_value(np.ones((5, 3)))
    with pytest.raises(TypeError, match="not compatible"):
        s.set_value(np.ones((5, 4)))
    with pytest.raises(TypeError, match="not compatible"):
        shared(np.zeros((2, 3)), shape=(2, 4))
    with pytest.raises(ValueError, match="has 1 dimensions but the value has 2"):
        shared(np.zeros((2, 3)), shape=(2,))


def test_broadcastable_spelling():
    s = shared(np.zeros((1, 3)), broadcastable=(True, False))
    assert s.type.shape == (1, None)


def test_allow_downcast_and_strict():
    loose = shared(np.zeros(2, dtype="float32"), allow_downcast=True)
    loose.set_value(np.array([0.1, 0.2]))  # float64 -> float32 accepted
    assert loose.get_value().dtype == np.float32
    strict = shared(np.zeros(2), strict=True)
    with pytest.raises(TypeError, match=r"numpy\.ndarray"):
        strict.set_value([1.0, 2.0])


def test_shared_of_symbolic_variable_is_refused():
    with pytest.raises(TypeError, match="not a symbolic variable"):
        shared(pt.dvector())


def test_numpy_generator_shared_keeps_its_class_and_state():
    rng = np.random.default_rng(3)
    s = shared(rng, name="rng")
    assert isinstance(s, SharedVariable)
    # A more specific type may be registered for generators (tensor.random); either way the
    # stored value is a Generator and stays one.
    assert isinstance(s.get_value(borrow=True), np.random.Generator)
    with pytest.raises(TypeError):
        s.set_value(np.zeros(2))
    first = s.get_value().normal()
    again = s.get_value().normal()
    assert first == again  # get_value returns copies: the stored state is not advanced
    assert first == np.random.default_rng(3).normal()
    rng.normal()  # the caller's generator is independent of the stored copy
    assert s.get_value().normal() == first


def test_object_shared_type_is_fixed():
    s = shared([1, 2, 3])
    assert isinstance(s.type, ObjectType)
    s.set_value([4])
    assert s.get_value() == [4]
    with pytest.raises(TypeError, match="expects an instance of list"):
        s.set_value((1, 2))


def test_unused_shared_variables_apply_no_default_update():
    a = shared(0, name="a")
    a.default_update = a + 1
    arignote.function([], [])()
    assert a.get_value() == 0


def test_default_update_is_applied_unless_disabled():
    counter = shared(0, name="counter")
    counter.default_update = counter + 1
    f = arignote.function([], counter * 10)
    assert f() == 0
    assert f() == 10
    assert counter.get_value() == 2
    g = arignote.function([], counter * 10, no_default_updates=True)
    assert g() == 20
    assert counter.get_value() == 2
    h = arignote.function([], counter * 10, no_default_updates=[counter])
    h()
    assert counter.get_value() == 2


def test_no_default_updates_list_only_skips_listed():
    a, b = shared(0, name="a"), shared(0, name="b")
    a.default_update = a + 1
    b.default_update = b + 1
    f = arignote.function([], a + b, no_default_updates=[a])
    f()
    assert (a.get_value(), b.get_value()) == (0, 1)
    with pytest.raises(TypeError, match="no_default_updates"):
        arignote.function([], a + b, no_default_updates="a")


def test_explicit_update_wins_over_default_update():
    a = shared(0, name="a")
    a.default_update = a + 1
    f = arignote.function([], a, updates=[(a, a + 100)])
    f()
    assert a.get_value() == 100


def test_default_update_type_is_checked():
    a = shared(np.zeros(2), name="a")
    with pytest.raises(TypeError, match="default_update of shared variable a"):
        a.default_update = pt.dmatrix()
    a.default_update = None
    assert a.default_update is None


def test_default_update_reaching_another_shared_variable():
    step = shared(np.float64(1.0), name="step")
    total = shared(np.float64(0.0), name="total")
    total.default_update = total + step
    step.default_update = step * 2
    f = arignote.function([], total)  # uses total, whose default update uses step
    f()
    f()
    assert total.get_value() == 3.0  # 0 + 1, then + 2
    assert step.get_value() == 4.0


def test_clone_shares_the_container():
    s = shared(np.zeros(2), name="s")
    c = s.clone()
    c.set_value(np.ones(2))
    np.testing.assert_array_equal(s.get_value(), np.ones(2))
    assert c.name == "s"


def test_zero():
    s = shared(np.arange(3.0))
    s.zero()
    np.testing.assert_array_equal(s.get_value(), np.zeros(3))


def test_object_shared_copies_unless_borrowed():
    value = [1, [2, 3]]
    s = shared(value, name="items")
    value[1].append(4)  # the caller's (nested) list is not the stored one
    assert s.get_value() == [1, [2, 3]]
    borrowed = shared(value, borrow=True)
    assert borrowed.get_value(borrow=True) is value
    assert repr(s.type) == "ObjectType(list)"


def test_set_value_errors_name_the_switch_of_shared():
    s = shared(np.zeros(2, dtype="float32"), name="w")
    with pytest.raises(TypeError, match=r"shared variable w: .*allow_downcast=True to shared\(\)"):
        s.set_value(np.ones(2))
    with pytest.raises(TypeError, match=r"Cannot create a shared variable: .*not compatible"):
        shared(np.zeros(3), shape=(4,))


def test_downcasting_shared_variable_still_refuses_out_of_bounds_integers():
    s = shared(np.zeros(2, dtype="int8"), name="small", allow_downcast=True)
    s.set_value([1.7, -2.2])  # a lossy but representable conversion is allowed
    np.testing.assert_array_equal(s.get_value(), [1, -2])
    with pytest.raises(TypeError, match="out of bounds for int8"):
        s.set_value([300, 1])  # NumPy refuses it too; it must not wrap around to 44
    np.testing.assert_array_equal(s.get_value(), [1, -2])
