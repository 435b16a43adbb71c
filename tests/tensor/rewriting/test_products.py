"""Rewrites of ``Dot`` with statically known operands."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.graph.basic import io_toposort
from arignote.tensor.products import Dot
from tests.tensor.rewriting.utils import assert_not_fired, rewrite

x = pt.dmatrix("x")
v = pt.dvector("v")
VALUES = {x: np.arange(12.0).reshape(3, 4), v: np.arange(4.0)}


def _nodes(outputs):
    return io_toposort([], outputs)


def test_dot_with_identity():
    eye = pt.constant(np.eye(4))
    new = rewrite(pt.dot(x, eye), include=("canonicalize",), values=VALUES)
    assert not any(isinstance(n.op, Dot) for n in _nodes([new]))
    new = rewrite(pt.dot(pt.constant(np.eye(4)), v), include=("canonicalize",), values=VALUES)
    assert not any(isinstance(n.op, Dot) for n in _nodes([new]))
    assert new.type.shape == (4,)


def test_dot_with_other_constants_is_kept():
    almost = pt.constant(np.eye(4) * 2)
    new = assert_not_fired(pt.dot(x, almost), "local_dot_identity", values=VALUES)
    assert isinstance(new.owner.op, Dot)


def test_dot_with_identity_keeps_the_length_check(rng):
    fn = arignote.function([x], pt.dot(x, pt.constant(np.eye(4))))
    np.testing.assert_array_equal(fn(VALUES[x]), VALUES[x])
    with pytest.raises(AssertionError, match="expected 4"):
        fn(rng.normal(size=(3, 5)))


def test_dot_with_zeros_allocates_zeros(rng):
    new = rewrite(pt.dot(x, pt.constant(np.zeros((4, 2)))), values=VALUES)
    assert not any(isinstance(n.op, Dot) for n in _nodes([new]))
    new = rewrite(pt.dot(pt.constant(np.zeros(3)), x), values=VALUES)
    assert new.type.shape == (None,) and not any(isinstance(n.op, Dot) for n in _nodes([new]))
    assert_not_fired(pt.dot(x, pt.constant(np.ones((4, 2)))), "local_dot_zeros", values=VALUES)
