"""``function()``: updates, givens, In/Out, output forms, argument binding, copy, free."""

from __future__ import annotations

import warnings
import weakref

import numpy as np
import pytest

import arignote
import arignote.scalar as ps
import arignote.tensor as pt
from arignote import In, Mode, Out, function, shared
from arignote.compile.function import UnusedInputError
from arignote.tensor.elemwise import Elemwise

# -- the tutorial examples --------------------------------------------------------------------


def test_accumulator_example():
    state = shared(0, name="state")
    inc = pt.iscalar("inc")
    accumulator = function([inc], state, updates=[(state, state + inc)])
    assert accumulator(1) == 0
    assert state.get_value() == 1
    assert accumulator(300) == 1
    assert state.get_value() == 301
    state.set_value(-1)
    assert accumulator(3) == -1
    assert state.get_value() == 2
    decrementor = function([inc], state, updates=[(state, state - inc)])
    assert decrementor(2) == 2
    assert state.get_value() == 0


def test_givens_example():
    state = shared(0, name="state")
    inc = pt.iscalar("inc")
    fn_of_state = state * 2 + inc
    foo = pt.scalar(dtype=state.dtype)
    skip_shared = function([inc, foo], fn_of_state, givens=[(state, foo)])
    assert skip_shared(1, 3) == 7
    assert state.get_value() == 0


def test_in_defaults_and_keyword_calls():
    x, y, w = pt.dscalars("x", "y", "w")
    z = (x + y) * w
    f = function([x, In(y, value=1), In(w, value=2, name="w_by_name")], z)
    assert f(33) == 68.0
    assert f(33, 2) == 70.0
    assert f(33, 0, 1) == 33.0
    assert f(33, w_by_name=1) == 34.0
    assert f(33, w_by_name=1, y=0) == 33.0
    assert f(x=1, y=1, w_by_name=1) == 2.0
    assert f(33) == 68.0  # defaults come back after calls that overrode them


def test_swap_through_simultaneous_updates():
    a = shared(np.array([1.0, 2.0]), name="a")
    b = shared(np.array([3.0, 4.0]), name="b")
    swap = function([], [], updates=[(a, b), (b, a)])
    swap()
    np.testing.assert_array_equal(a.get_value(), [3.0, 4.0])
    np.testing.assert_array_equal(b.get_value(), [1.0, 2.0])
    swap()
    np.testing.assert_array_equal(a.get_value(), [1.0, 2.0])
    assert not np.shares_memory(a.get_value(borrow=True), b.get_value(borrow=True))


def test_updates_see_values_from_before_the_call():
    a, b = shared(1, name="a"), shared(1, name="b")
    step = function([], [a, b], updates={a: b, b: a + b})  # Fibonacci
    values = [tuple(int(v) for v in step()) for _ in range(5)]
    assert values == [(1, 1), (1, 2), (2, 3), (3, 5), (5, 8)]


def test_outputs_are_computed_before_updates():
    s = shared(np.float64(1.0), name="s")
    f = function([], [s, s * 2], updates=[(s, s + 10)])
    assert [float(v) for v in f()] == [1.0, 2.0]
    assert [float(v) for v in f()] == [11.0, 22.0]


def test_update_of_an_unused_shared_variable():
    x = pt.dscalar("x")
    s = shared(0.0, name="s")
    f = function([x], x * 2, updates=[(s, x)])
    assert f(3.0) == 6.0
    assert s.get_value() == 3.0


def test_update_from_an_argument_does_not_alias_it(rng):
    x = pt.dvector("x")
    s = shared(np.zeros(3), name="s")
    f = function([x], [], updates=[(s, x)])
    value = rng.normal(size=3)
    f(value)
    value[0] = 99.0
    assert s.get_value()[0] != 99.0


def test_update_errors():
    x = pt.dvector("x")
    s = shared(np.zeros(3), name="s")
    with pytest.raises(TypeError, match="not a shared variable"):
        function([x], x, updates=[(x, x + 1)])
    with pytest.raises(ValueError, match="updated twice"):
        function([x], x, updates=[(s, x), (s, x + 1)])
    with pytest.raises(TypeError, match="The update of s"):
        function([x], x, updates=[(s, pt.dmatrix())])
    with pytest.raises(TypeError, match="pairs"):
        function([x], x, updates=[s])


# -- givens -------------------------------------------------------------------------------


def test_givens_with_a_value_makes_it_shared():
    x = pt.dvector("x")
    y = pt.dvector("y")
    f = function([x], x + y, givens={y: np.array([1.0, 2.0])})
    np.testing.assert_array_equal(f([1.0, 1.0]), [2.0, 3.0])


def test_givens_errors():
    x, y = pt.dvectors("x", "y")
    with pytest.raises(RuntimeError, match="input of the function"):  # PyTensor's class
        function([x], x * 2, givens={x: y})
    z = pt.dvector("z")
    with pytest.raises(ValueError, match="depends on x"):
        function([z], x + y, givens=[(y, x), (x, z + 1)])
    with pytest.raises(TypeError, match="rebuild_strict=False"):
        function([x], x + y, givens={y: pt.dmatrix()})
    with pytest.raises(TypeError, match="givens keys must be variables"):
        function([x], x, givens={"y": x})


def test_givens_with_rebuild_strict_false_changes_types():
    x = pt.dvector("x")
    y = pt.dvector("y")
    m = pt.dmatrix("m")
    f = function([m], (x + y).sum(), givens={x: m, y: m}, rebuild_strict=False)
    assert f(np.ones((2, 3))) == 12.0


def test_givens_apply_to_updates():
    s = shared(0.0, name="s")
    x = pt.dscalar("x")
    y = pt.dscalar("y")
    f = function([y], [], updates=[(s, s + x)], givens={x: y * 10})
    f(2.0)
    assert s.get_value() == 20.0


# -- outputs ---------------------------------------------------------------------------------


def test_output_forms():
    x = pt.dscalar("x")
    assert function([x], x * 2)(1.0) == 2.0
    assert [float(v) for v in function([x], [x * 2, x + 1])(1.0)] == [2.0, 2.0]
    assert [float(v) for v in function([x], (x * 2,))(1.0)] == [2.0]
    result = function([x], {"double": x * 2, "next": x + 1})(1.0)
    assert result == {"double": 2.0, "next": 2.0}
    assert function([x], [], on_unused_input="ignore")(1.0) == []
    assert function([x], None, on_unused_input="ignore")(1.0) == []
    with pytest.raises(TypeError, match="must be a Variable or Out"):
        function([x], [x, 3])


def test_outputs_never_alias_each_other_or_inputs(rng):
    x = pt.dvector("x")
    f = function([x], [x, x * 2, x * 2, pt.constant(np.ones(2))])
    value = rng.normal(size=2)
    same, first, second, const = f(value)
    assert not np.shares_memory(same, value)
    assert not np.shares_memory(first, second)
    const[0] = 5.0  # constants come back as writable copies
    assert f(value)[3][0] == 1.0


def test_borrowed_output_of_borrowed_input_may_alias(rng):
    x = pt.dvector("x")
    f = function([In(x, borrow=True)], Out(x, borrow=True))
    value = rng.normal(size=3)
    assert f(value) is value
    g = function([x], Out(x, borrow=True))  # the input is not borrowed: still a copy
    assert not np.shares_memory(g(value), value)


def test_returned_outputs_are_not_overwritten_by_later_calls(rng):
    x = pt.dvector("x")
    with arignote.config.change_flags(allow_gc=False):
        f = function([x], [pt.exp(x), (x * 2).dimshuffle("x", 0)])
    first = f(np.zeros(2))
    second = f(np.ones(2))
    np.testing.assert_array_equal(first[0], [1.0, 1.0])
    np.testing.assert_array_equal(first[1], [[0.0, 0.0]])
    assert not np.shares_memory(first[1], second[1])


# -- In ------------------------------------------------------------------------------------------


def test_in_with_update_carries_state():
    s = pt.lscalar("s")
    count = function([In(s, value=0, update=s + 1)], s * 10)
    assert [int(count()) for _ in range(3)] == [0, 10, 20]
    assert count["s"] == 3
    count["s"] = 10
    assert count() == 100
    assert count(s=0) == 0  # giving the argument sets the state
    assert count["s"] == 1


def test_in_options_validated():
    x = pt.dvector("x")
    with pytest.raises(ValueError, match="mutable=True with borrow=False"):
        In(x, mutable=True, borrow=False)
    assert In(x, mutable=True).borrow is True
    with pytest.raises(TypeError, match="Constant"):
        In(pt.constant(1.0))
    with pytest.raises(TypeError, match="not compatible"):
        In(x, update=pt.dmatrix())
    assert In(x, name="other").name == "other"
    assert In(x, autoname=False).name is None


def test_in_objects_given_by_the_user_are_not_changed():
    x = pt.dvector("x")
    spec = In(x)
    function([spec], x * 2, allow_input_downcast=True)
    assert spec.allow_downcast is None


def test_getitem_and_setitem_of_defaults():
    x, y = pt.dscalars("x", "y")
    f = function([x, In(y, value=1.0)], x + y)
    assert f["y"] == 1.0
    assert f[1] == 1.0
    assert f[y] == 1.0
    f["y"] = 5.0
    assert f(1.0) == 6.0
    assert "y" in f and "nope" not in f
    with pytest.raises(KeyError, match="no input 'nope'"):
        f["nope"]
    with pytest.raises(TypeError, match="Bad argument for input 'y'"):
        f["y"] = "text"


# -- argument errors ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "kwargs", "match"),
    [
        ((), {}, r"f\(x, y, z=<default>\) is missing the argument for input 'x'"),
        ((1.0,), {}, r"missing the argument for input 'y' \(position 1\)"),
        ((1.0, 2.0, 3.0, 4.0), {}, r"f\(x, y, z=<default>\) takes 3 arguments, got 4"),
        ((1.0, 2.0), {"q": 1.0}, r"f\(x, y, z=<default>\) got an unexpected keyword argument 'q'"),
        ((1.0, 2.0), {"x": 1.0}, r"got multiple values for argument 'x'"),
    ],
)
def test_wrong_arguments_raise_type_error_with_signature(args, kwargs, match):
    x, y, z = pt.dscalars("x", "y", "z")
    f = function([x, y, In(z, value=0.0)], x + y + z, name="f")
    with pytest.raises(TypeError, match=match):
        f(*args, **kwargs)
    assert f(1.0, 2.0) == 3.0  # a failed call leaves the function usable


def test_duplicate_names_cannot_be_used_as_keywords():
    a = pt.dscalar("v")
    b = pt.dscalar("v")
    f = function([a, b], a - b)
    assert f(3.0, 1.0) == 2.0
    with pytest.raises(TypeError, match="belongs to several inputs"):
        f(v=1.0)


def test_input_list_errors():
    x = pt.dvector("x")
    s = shared(np.zeros(2))
    with pytest.raises(TypeError, match="shared variable"):
        function([s], s * 2)
    with pytest.raises(TypeError, match="Constant"):
        function([pt.constant(1.0)], x)
    with pytest.raises(ValueError, match="given twice"):
        function([x, x], x)
    with pytest.raises(TypeError, match="must be a list"):
        function(x, x)
    with pytest.raises(TypeError, match="must be a Variable or In"):
        function([3], x)


def test_unused_inputs():
    x, y = pt.dvectors("x", "y")
    with pytest.raises(UnusedInputError, match="Input 1 \\(y\\)"):
        function([x, y], x * 2)
    with pytest.warns(UserWarning, match="not used"):
        function([x, y], x * 2, on_unused_input="warn")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        function([x, y], x * 2, on_unused_input="ignore")
        with arignote.config.change_flags(on_unused_input="ignore"):
            function([x, y], x * 2)
    with pytest.raises(ValueError, match="on_unused_input must be"):
        function([x, y], x * 2, on_unused_input="sometimes")


def test_in_place_ops_need_accept_inplace():
    x = pt.dvector("x")
    add_inplace = Elemwise(ps.add, inplace_pattern={0: 0})
    with pytest.raises(TypeError, match="accept_inplace=True"):
        function([x], add_inplace(x, x))
    f = function([x], add_inplace(x, x), accept_inplace=True)
    np.testing.assert_array_equal(f([1.0, 2.0]), [2.0, 4.0])


def test_allow_input_downcast():
    x = pt.fvector("x")
    value = np.array([0.1, 0.2])
    with pytest.raises(TypeError, match="allow_input_downcast"):
        function([x], x * 2)(value)
    out = function([x], x * 2, allow_input_downcast=True)(value)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, value * 2, rtol=1e-6)


# -- copy, free, trust_input ------------------------------------------------------------------


def test_copy_shares_shared_variables():
    state = shared(0, name="state")
    inc = pt.iscalar("inc")
    acc = function([inc], state, updates=[(state, state + inc)], name="acc")
    twin = acc.copy()
    assert twin.name == "acc copy"
    twin(5)
    acc(1)
    assert state.get_value() == 6
    assert twin.maker.fgraph is not acc.maker.fgraph


def test_copy_with_swap_uses_another_shared_variable():
    state = shared(0, name="state")
    other = shared(100, name="other")
    inc = pt.iscalar("inc")
    acc = function([inc], state, updates=[(state, state + inc)])
    swapped = acc.copy(swap={state: other}, name="swapped")
    assert swapped(1) == 100
    assert other.get_value() == 101
    assert state.get_value() == 0
    assert swapped.name == "swapped"
    with pytest.raises(TypeError, match="cannot replace"):
        acc.copy(swap={state: shared(np.zeros(2))})
    with pytest.raises(ValueError, match="not used by this function"):
        acc.copy(swap={shared(1): other})


def test_copy_with_delete_updates():
    state = shared(0, name="state")
    inc = pt.iscalar("inc")
    acc = function([inc], state + inc, updates=[(state, state + inc)])
    peek = acc.copy(delete_updates=True)
    assert peek(5) == 5
    assert state.get_value() == 0
    acc(5)
    assert state.get_value() == 5


def test_copy_share_memory_is_accepted_and_copies_are_independent(rng):
    x = pt.dvector("x")
    with arignote.config.change_flags(allow_gc=False):
        f = function([x], pt.exp(x).sum() * 2)
    g = f.copy(share_memory=True)  # intermediates live in each call's frame: nothing to share
    h = f.copy()
    value = rng.normal(size=4)
    assert g(value) == f(value) == h(value)
    assert g.runner is not f.runner and g.maker.fgraph is not f.maker.fgraph


def test_copy_keeps_defaults_and_copies_states():
    s = pt.lscalar("s")
    x = pt.lscalar("x")
    f = function([In(x, value=3), In(s, value=0, update=s + x)], s)
    f()
    g = f.copy()
    assert g["s"] == 3 and g["x"] == 3
    g()
    assert (f["s"], g["s"]) == (3, 6)


def test_no_value_outlives_its_call_and_free_is_harmless(rng):
    x = pt.dvector("x")
    with arignote.config.change_flags(allow_gc=False):
        f = function([x], [pt.exp(x) + pt.log(x), pt.exp(x)], mode=Mode("vm_nogc"))
    value = rng.uniform(1, 2, size=3)
    first, second = f(value)
    refs = [weakref.ref(first), weakref.ref(second)]
    del first, second
    assert all(ref() is None for ref in refs)  # the function kept no reference to its results
    f.free()
    np.testing.assert_allclose(f(value)[0], np.exp(value) + np.log(value))


def test_trust_input_skips_checks(rng):
    x = pt.dvector("x")
    f = function([x], x * 2, trust_input=True)
    value = rng.normal(size=3)
    np.testing.assert_array_equal(f(value), value * 2)
    f.trust_input = False
    with pytest.raises(TypeError, match="Bad argument"):
        f("nope")
    f.trust_input = True
    # With trust_input the caller is responsible: a list is passed through to the ops as is.
    with pytest.raises(AttributeError):
        f([1.0, 2.0])


def test_get_shared_and_str():
    s = shared(np.zeros(2), name="s")
    x = pt.dvector("x")
    f = function([x], x + s, name="adder")
    assert f.get_shared() == [s]
    assert str(f) == "<arignote.Function adder(x)>"


def test_eval_uses_function():
    x = pt.dvector("x")
    np.testing.assert_array_equal((x * 3).eval({x: [1.0, 2.0]}), [3.0, 6.0])


def test_copy_with_delete_updates_protects_formerly_updated_state():
    """An update computed in place in the shared variable's memory must not survive the copy."""
    state = shared(np.zeros(2), name="state")
    inc = pt.dvector("inc")
    add_inplace = Elemwise(ps.add, inplace_pattern={0: 0})
    total = add_inplace(state, inc)
    acc = function([inc], total * 2, updates=[(state, total)], accept_inplace=True)
    np.testing.assert_array_equal(acc(np.ones(2)), [2.0, 2.0])
    np.testing.assert_array_equal(state.get_value(), [1.0, 1.0])
    peek = acc.copy(delete_updates=True)
    np.testing.assert_array_equal(peek(np.ones(2)), [4.0, 4.0])
    np.testing.assert_array_equal(state.get_value(), [1.0, 1.0])


# -- updates and aliasing, on both call paths -----------------------------------------------------


def test_swap_through_the_general_call_path():
    """The generated call and the general one (keywords) both apply updates simultaneously."""
    a = shared(np.array([1.0, 2.0]), name="a")
    b = shared(np.array([3.0, 4.0]), name="b")
    x = pt.dscalar("x")
    swap = function([x], x * 1, updates=[(a, b * 1), (b, a * 1)])
    swap(x=0.0)  # a keyword: the general path
    np.testing.assert_array_equal(a.get_value(), [3.0, 4.0])
    np.testing.assert_array_equal(b.get_value(), [1.0, 2.0])
    swap(0.0)  # positional ndarray-free call: the general path converts the float
    np.testing.assert_array_equal(a.get_value(), [1.0, 2.0])
    np.testing.assert_array_equal(b.get_value(), [3.0, 4.0])


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE"])
def test_output_equal_to_an_update_is_not_overwritten_by_the_next_call(mode):
    s = shared(np.zeros(3), name="s")
    new = s + 1.0
    f = function([], [new, s], updates=[(s, new)], mode=mode)
    results = [f() for _ in range(20)]  # also after the VM switches to generated code
    for i, (value, before) in enumerate(results):
        np.testing.assert_array_equal(value, np.full(3, i + 1.0))
        np.testing.assert_array_equal(before, np.full(3, float(i)))
        assert not np.shares_memory(value, s.get_value(borrow=True))
    np.testing.assert_array_equal(s.get_value(), np.full(3, 20.0))


def test_two_shared_variables_updated_from_one_source_do_not_alias():
    a, c = shared(np.zeros(2), name="a"), shared(np.zeros(2), name="c")
    b = shared(np.ones(2), name="b")
    f = function([], [], updates=[(a, b), (c, b), (b, b * 2)])
    f()
    assert not np.shares_memory(a.get_value(borrow=True), c.get_value(borrow=True))
    np.testing.assert_array_equal(a.get_value(), [1.0, 1.0])
    np.testing.assert_array_equal(b.get_value(), [2.0, 2.0])
    f()
    np.testing.assert_array_equal(c.get_value(), [2.0, 2.0])


def test_trusted_fast_path_sees_set_value(rng):
    w = shared(np.ones(3), name="w")
    x = pt.dvector("x")
    f = function([x], (x * w).sum(), trust_input=True)
    value = rng.normal(size=3)
    for _ in range(20):  # past the VM's warm-up
        assert f(value) == pytest.approx(value.sum())
    w.set_value(np.full(3, 2.0))
    assert f(value) == pytest.approx(2 * value.sum())
    replacement = np.full(3, 3.0)
    w.set_value(replacement, borrow=True)
    assert f(value) == pytest.approx(3 * value.sum())
    replacement[:] = 4.0  # borrowed: the caller's later changes are seen
    assert f(value) == pytest.approx(4 * value.sum())


def test_in_with_update_but_no_initial_value_keeps_its_state():
    x = pt.dvector("x")
    f = function([In(x, update=x + 1)], x * 10, name="f")
    with pytest.raises(TypeError, match=r"f\(x=<state>\) is missing the argument for input 'x'"):
        f()  # no state yet
    np.testing.assert_array_equal(f(np.ones(2)), [10.0, 10.0])
    np.testing.assert_array_equal(f["x"], [2.0, 2.0])  # the update was kept
    np.testing.assert_array_equal(f(), [20.0, 20.0])  # and is used when the argument is omitted
    np.testing.assert_array_equal(f["x"], [3.0, 3.0])
