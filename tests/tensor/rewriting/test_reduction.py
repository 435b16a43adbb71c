"""Rewrites of reductions: length-1 axes, reductions of reductions."""

from __future__ import annotations

import pytest

import arignote.tensor as pt
from arignote.tensor.elemwise import DimShuffle
from arignote.tensor.reduction import Max, Sum
from tests.tensor.rewriting.utils import assert_not_fired, assert_rewrites_to, rewrite

m = pt.dmatrix("m")
c = pt.dcol("c")  # shape (?, 1)
t = pt.tensor("t", dtype="float64", shape=(None, 1, None))


@pytest.mark.parametrize("phase", ["canonicalize", "specialize"])
def test_sum_over_a_length_one_axis_is_removed(phase):
    assert_rewrites_to(c.sum(axis=1), DimShuffle(2, (0,))(c), include=(phase,))


def test_max_over_length_one_and_other_axes():
    expected = DimShuffle(3, (0, 2))(t).max(axis=1)
    assert_rewrites_to(t.max(axis=(1, 2)), expected)


def test_integer_sum_over_length_one_axis_keeps_numpy_dtype():
    ic = pt.col("ic", dtype="int8")
    new = rewrite(ic.sum(axis=1))
    assert new.type.dtype == "int64"
    assert not isinstance(new.owner.op, Sum)


def test_length_one_rewrite_does_not_fire_on_other_axes():
    new = assert_not_fired(c.sum(axis=0), "local_reduce_length_one_axes")
    assert isinstance(new.owner.op, Sum)


def test_sum_of_sum():
    t3 = pt.dtensor3("t3")
    assert_rewrites_to(t3.sum(axis=1).sum(axis=1), t3.sum(axis=(1, 2)))
    assert_rewrites_to(t3.max(axis=0).max(), t3.max())


def test_reduce_of_reduce_needs_the_same_reduction_and_a_single_use():
    inner = m.sum(axis=0)
    assert_not_fired(inner.max(), "local_reduce_of_reduce")
    new = assert_not_fired(
        [inner.sum(), inner * 2], "local_reduce_of_reduce", include=("canonicalize",)
    )
    assert isinstance(new[0].owner.op, Sum)
    assert isinstance(m.max(axis=0).owner.op, Max)


def test_reductions_over_every_axis_are_spelled_alike():
    v = pt.dvector("v")
    assert_rewrites_to(v.sum(axis=0), v.sum())
    assert_rewrites_to(m.max(axis=(0, 1)), m.max())
    assert_not_fired(m.sum(axis=0), "local_reduce_all_axes")
