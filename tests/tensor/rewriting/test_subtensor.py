"""Merging indexings, and in-place writes into subtensors."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.tensor.advanced_subtensor import AdvancedIncSubtensor1
from arignote.tensor.subtensor import IncSubtensor, Subtensor
from tests.tensor.rewriting.utils import assert_not_fired, assert_rewrites_to, rewrite

t = pt.dtensor3("t")
v = pt.dvector("v")
i, j = pt.lscalars("i j")
VALUES = {t: np.arange(60.0).reshape(3, 4, 5), v: np.arange(9.0), i: np.int64(1), j: np.int64(2)}


@pytest.mark.parametrize(
    ("build", "expected"),
    [
        (lambda: t[i][j], lambda: t[i, j]),
        (lambda: t[1][2][3], lambda: t[1, 2, 3]),
        (lambda: v[2:][3:], lambda: v[5:]),
        (lambda: v[2:7][1:3], lambda: v[3:5]),
        (lambda: v[2:7][1:], lambda: v[3:7]),
        (lambda: v[2:][3], lambda: v[5]),
        (lambda: t[:, 1:][1, 2:], lambda: t[1, 3:]),
    ],
)
def test_indexing_of_indexing_is_merged(build, expected):
    assert_rewrites_to(build(), expected(), values=VALUES)


@pytest.mark.parametrize(
    "build",
    [
        lambda: v[2:7][3],  # v[2:7][j] fails for j >= 5 even where v[2 + j] exists
        lambda: v[i:][1:],  # a symbolic start
        lambda: v[::2][1:],  # a step
        lambda: v[-3:][1:],  # a negative bound
    ],
)
def test_indexing_merge_skips_what_it_cannot_prove(build):
    new = assert_not_fired(build(), "local_subtensor_of_subtensor", values=VALUES)
    assert isinstance(new.owner.inputs[0].owner.op, Subtensor)


def test_merged_indexing_raises_like_the_original(rng):
    fn = arignote.function([v], v[2:][3])
    assert fn(np.arange(9.0)) == 5.0
    with pytest.raises(IndexError):
        fn(np.arange(4.0))


def test_set_subtensor_into_fresh_memory_is_inplace(rng):
    n = pt.lscalar("n")
    filled = pt.set_subtensor(pt.zeros((n, 3))[1], v)
    fn = arignote.function([n, v], filled)
    writes = [node for node in fn.maker.fgraph.apply_nodes if isinstance(node.op, IncSubtensor)]
    assert len(writes) == 1 and writes[0].op.inplace
    np.testing.assert_array_equal(fn(3, np.arange(3.0)), [[0, 0, 0], [0, 1, 2], [0, 0, 0]])


def test_inc_subtensor_of_an_input_is_not_inplace(rng):
    m = pt.dmatrix("m")
    fn = arignote.function([m, v], pt.inc_subtensor(m[1], v))
    writes = [node for node in fn.maker.fgraph.apply_nodes if isinstance(node.op, IncSubtensor)]
    assert writes and not writes[0].op.inplace
    value = np.zeros((2, 3))
    fn(value, np.ones(3))
    np.testing.assert_array_equal(value, np.zeros((2, 3)))  # the input is untouched


def test_advanced_inc_subtensor_inplace(rng):
    rows = pt.lvector("rows")
    out = pt.inc_subtensor(pt.exp(pt.dmatrix("m"))[rows], 1.0)
    new = rewrite(out, include=("inplace",), values={rows: np.array([0, 2, 0])})
    assert isinstance(new.owner.op, AdvancedIncSubtensor1) and new.owner.op.inplace
