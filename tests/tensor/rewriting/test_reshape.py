"""Rewrites of ``Reshape``: reshaping to its own shape, reshapes of reshapes."""

from __future__ import annotations

import arignote.tensor as pt
from arignote.tensor.reshape import Reshape
from tests.tensor.rewriting.utils import assert_not_fired, assert_rewrites_to

m = pt.dmatrix("m")


def test_reshape_to_own_shape():
    assert_rewrites_to(m.reshape(m.shape, ndim=2), m)
    assert_rewrites_to(m.reshape((pt.shape_i(m, 0), pt.shape_i(m, 1))), m)
    s = pt.tensor("s", dtype="float64", shape=(2, 3))
    assert_rewrites_to(s.reshape((2, 3)), s)


def test_reshape_to_another_shape_is_kept():
    new = assert_not_fired(m.reshape((-1,)), "local_useless_reshape")
    assert isinstance(new.owner.op, Reshape)
    s = pt.tensor("s", dtype="float64", shape=(2, 3))
    assert_not_fired(s.reshape((3, 2)), "local_useless_reshape")


def test_reshape_of_reshape():
    assert_rewrites_to(m.reshape((-1,)).reshape((3, -1)), m.reshape((3, -1)))
    assert_not_fired(m.T.reshape((-1,)), "local_reshape_reshape")
