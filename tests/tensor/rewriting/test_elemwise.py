"""Rewrites of ``DimShuffle``: identities, compositions, lifting through elementwise ops."""

from __future__ import annotations

import arignote.tensor as pt
from arignote.tensor.elemwise import DimShuffle
from arignote.tensor.rewriting.elemwise import compose_orders
from tests.tensor.rewriting.utils import assert_not_fired, assert_rewrites_to

m, n = pt.dmatrices("m n")
v = pt.dvector("v")


def test_compose_orders():
    assert compose_orders((1, 0), (1, 0)) == (0, 1)
    assert compose_orders((0, "x"), ("x", 1, 0)) == ("x", "x", 0)


def test_useless_dimshuffle():
    assert_rewrites_to(DimShuffle(2, (0, 1))(m), m)
    assert_not_fired(m.T, "local_useless_dimshuffle")


def test_transpose_of_transpose():
    assert_rewrites_to(m.T.T, m)
    assert_rewrites_to(v.dimshuffle("x", 0).dimshuffle(1, 0), v.dimshuffle(0, "x"))


def test_dimshuffle_lift_through_single_use_elementwise():
    assert_rewrites_to((m + n).T, m.T + n.T)
    assert_rewrites_to((m.T + n.T).T, m + n)


def test_dimshuffle_lift_skips_shared_elementwise():
    total = m + n
    new = assert_not_fired([total.T, total * 2], "local_dimshuffle_lift")
    assert isinstance(new[0].owner.op, DimShuffle)
