"""Stabilization with the softmax family: log_softmax, logsumexp, softmax, cross-entropy."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import log_softmax as np_log_softmax
from scipy.special import logsumexp as np_logsumexp

import arignote
import arignote.tensor as pt
from arignote.tensor.special import LogSoftmax, LogSumExp, Softmax
from tests.tensor.rewriting.utils import assert_not_fired, assert_rewrites_to, rewrite

STABLE = ("canonicalize", "stabilize")
m = pt.dmatrix("m")
labels = pt.lvector("labels")
NAIVE = arignote.Mode(optimizer=None)


def test_log_of_softmax():
    assert_rewrites_to(pt.log(pt.softmax(m, axis=1)), pt.log_softmax(m, axis=1), include=STABLE)
    assert_not_fired(pt.log(pt.sigmoid(m)), "local_log_softmax", include=STABLE)


def test_log_of_selected_softmax():
    rows = pt.arange(labels.shape[0])
    out = pt.log(pt.softmax(m, axis=1)[rows, labels])
    values = {labels: np.array([0, 3, 1, 2]), m: np.arange(20.0).reshape(4, 5) / 7}
    new = rewrite(out, include=STABLE, values=values)
    assert isinstance(new.owner.inputs[0].owner.op, LogSoftmax)
    assert_not_fired(pt.log(pt.exp(m)[0]), "local_log_of_selected_softmax", include=STABLE)


def test_softmax_from_exponentials():
    e = pt.exp(m)
    new = rewrite(e / e.sum(axis=1, keepdims=True), include=STABLE)
    assert isinstance(new.owner.op, Softmax) and new.owner.op.axis == (1,)
    assert_not_fired(
        e / (e.sum(axis=1, keepdims=True) + 1), "local_softmax_from_exp", include=STABLE
    )
    assert_not_fired(
        e / pt.exp(m + 1).sum(axis=1, keepdims=True), "local_softmax_from_exp", include=STABLE
    )


def test_log_sum_exp_structure():
    new = rewrite(pt.log(pt.exp(m).sum(axis=1)), include=STABLE)
    assert isinstance(new.owner.op, LogSumExp) and new.owner.op.axis == (1,)
    assert_not_fired(pt.log(pt.exp2(m).sum(axis=1)), "local_log_sum_exp", include=STABLE)
    e = pt.exp(m)
    assert_not_fired([pt.log(e.sum(axis=1)), e], "local_log_sum_exp", include=STABLE)


@pytest.mark.parametrize("shift", [1000.0, -1000.0])
def test_log_sum_exp_is_finite_and_accurate(rng, shift):
    values = rng.normal(size=(3, 5)) + shift
    out = pt.log(pt.exp(m).sum(axis=1))
    np.testing.assert_allclose(arignote.function([m], out)(values), np_logsumexp(values, 1))
    with np.errstate(all="ignore"):
        naive = arignote.function([m], out, mode=NAIVE)(values)
    assert not np.isfinite(naive).any()  # overflow to inf, or log(0) = -inf


def test_cross_entropy_with_one_hot_labels_is_finite(rng):
    logits = rng.normal(size=(4, 3)) * 1000
    onehot = np.eye(3)[[0, 2, 1, 1]]
    y = pt.dmatrix("y")
    loss = -(y * pt.log(pt.softmax(m, axis=1))).sum(axis=1)
    stable = arignote.function([m, y], loss)(logits, onehot)
    expected = -(onehot * np_log_softmax(logits, axis=1)).sum(axis=1)
    np.testing.assert_allclose(stable, expected)
    with np.errstate(all="ignore"):
        naive = arignote.function([m, y], loss, mode=NAIVE)(logits, onehot)
    assert not np.isfinite(naive).all()


def test_cross_entropy_with_integer_labels_is_finite(rng):
    logits = rng.normal(size=(4, 3)) * 1000
    which = np.array([0, 2, 1, 1])
    loss = -pt.log(pt.softmax(m, axis=1)[pt.arange(labels.shape[0]), labels])
    stable = arignote.function([m, labels], loss)(logits, which)
    expected = -np_log_softmax(logits, axis=1)[np.arange(4), which]
    np.testing.assert_allclose(stable, expected)
    with np.errstate(all="ignore"):
        naive = arignote.function([m, labels], loss, mode=NAIVE)(logits, which)
    assert not np.isfinite(naive).all()


def test_softmax_of_large_values(rng):
    values = rng.normal(size=(2, 4)) + 1000
    e = pt.exp(m)
    out = e / e.sum(axis=1, keepdims=True)
    got = arignote.function([m], out)(values)
    shifted = np.exp(values - values.max(axis=1, keepdims=True))
    np.testing.assert_allclose(got, shifted / shifted.sum(axis=1, keepdims=True))


@pytest.mark.parametrize("axis", [1, 0, None])
def test_log_sum_exp_with_keepdims(rng, axis):
    values = rng.normal(size=(3, 5)) + 1000
    out = pt.log(pt.exp(m).sum(axis=axis, keepdims=True))
    new = rewrite(out, include=STABLE)
    assert isinstance(new.owner.inputs[0].owner.op, LogSumExp)
    got = arignote.function([m], out)(values)
    np.testing.assert_allclose(got, np_logsumexp(values, axis=axis, keepdims=True))
    e = pt.exp(m)  # the exponentials are needed anyway: nothing to gain
    assert_not_fired(
        [pt.log(e.sum(axis=axis, keepdims=True)), e], "local_log_sum_exp", include=STABLE
    )
