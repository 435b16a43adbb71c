"""Run-time checks: ``Assert``, ``CheckAndRaise``, ``assert_op`` and the removal of proven ones."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.raise_op import Assert, CheckAndRaise, assert_op
from arignote.testing import verify_grad


class NegativeInput(ValueError):
    pass


def test_assert_passes_the_value_through_or_raises_assertion_error_naming_the_check():
    x = pt.dvector("x")
    f = arignote.function([x], Assert("x is too long")(x, pt.lt(x.shape[0], 3)) * 2)
    np.testing.assert_allclose(f([1.0, 2.0]), [2.0, 4.0])
    with pytest.raises(AssertionError, match="x is too long") as info:
        f([1.0, 2.0, 3.0])
    assert "Assert{msg='x is too long'}" in str(info.value)


def test_check_and_raise_raises_the_given_exception_class():
    x = pt.dvector("x")
    check = CheckAndRaise(NegativeInput, "x has a negative entry")
    f = arignote.function([x], check(x, pt.all(pt.ge(x, 0))).sum())
    assert float(f([1.0, 2.0])) == 3.0
    with pytest.raises(NegativeInput, match="negative entry"):
        f([1.0, -2.0])


def test_every_condition_must_hold():
    x = pt.dscalar("x")
    f = arignote.function([x], assert_op(x, pt.gt(x, 0), pt.lt(x, 10)))
    assert float(f(5.0)) == 5.0
    for bad in (-1.0, 11.0):
        with pytest.raises(AssertionError):
            f(bad)


def test_conditions_are_cast_to_bool_and_must_be_scalars():
    x = pt.dvector("x")
    node = assert_op(x, x.shape[0]).owner
    assert node.inputs[1].type.dtype == "bool"
    with pytest.raises(TypeError, match="scalar"):
        assert_op(x, pt.gt(x, 0))


def test_exc_type_must_be_an_exception_class():
    with pytest.raises(ValueError, match="Exception subclass"):
        CheckAndRaise(int, "no")


def test_props_printing_and_pickling():
    assert Assert("a") == Assert("a") and Assert("a") != Assert("b")
    assert CheckAndRaise(ValueError, "m") != CheckAndRaise(TypeError, "m")
    assert str(CheckAndRaise(ValueError, "m")) == "CheckAndRaise{raises=ValueError, msg='m'}"
    assert str(Assert("x" * 40)).endswith("...'}")
    assert pickle.loads(pickle.dumps(Assert("p"))) == Assert("p")
    x = pt.dvector("x")
    f = arignote.function([x], Assert("p")(x, pt.gt(x.shape[0], 1)))
    g = pickle.loads(pickle.dumps(f))
    with pytest.raises(AssertionError, match="p"):
        g([1.0])


def test_gradient_passes_through_to_the_value(rng):
    verify_grad(
        lambda x: assert_op(x, pt.gt(x.shape[0], 0)) ** 2, [rng.normal(size=(3, 2))], rng=rng
    )
    x = pt.dvector("x")
    g = arignote.grad(assert_op(x, pt.all(pt.gt(x, 0))).sum(), x)
    np.testing.assert_allclose(g.eval({x: np.array([1.0, 2.0])}), [1.0, 1.0])


def test_shape_needs_no_check():
    x = pt.dmatrix("x")
    out = assert_op(pt.exp(x), pt.all(pt.gt(x, 0)))
    f = arignote.function([x], out.shape)
    assert not any(isinstance(n.op, CheckAndRaise) for n in f.maker.fgraph.apply_nodes)
    assert tuple(f(-np.ones((2, 3)))) == (2, 3)  # the failing check is not needed for shapes


def test_checks_proven_true_are_removed_when_compiling():
    x = pt.dvector("x")
    f = arignote.function([x], assert_op(x * 2, pt.constant(True), pt.gt(pt.constant(3), 1)))
    assert not any(isinstance(n.op, CheckAndRaise) for n in f.maker.fgraph.apply_nodes)
    partly = arignote.function([x], assert_op(x * 2, pt.constant(True), pt.gt(x.shape[0], 1)))
    (check,) = [n for n in partly.maker.fgraph.apply_nodes if isinstance(n.op, CheckAndRaise)]
    assert len(check.inputs) == 2
    with pytest.raises(AssertionError):
        partly([1.0])


def test_a_check_proven_false_still_raises_at_run_time():
    x = pt.dvector("x")
    f = arignote.function([x], Assert("never")(x, pt.constant(False)))
    with pytest.raises(AssertionError, match="never"):
        f([1.0])
    with pytest.raises(AssertionError, match="never"):
        Assert("never")(pt.constant(np.ones(2)), pt.constant(False)).eval()


def test_unsafe_mode_removes_every_assert():
    x = pt.dvector("x")
    mode = arignote.get_mode("FAST_RUN").including("unsafe")
    f = arignote.function([x], Assert("never")(x, pt.gt(x.shape[0], 5)), mode=mode)
    np.testing.assert_allclose(f([1.0]), [1.0])
