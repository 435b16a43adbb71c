"""Theano's nnet names: the stabilizing rewrites fire through them, the old names and
signatures exist, and the neighbours round trip."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sp

import arignote
import arignote.tensor as pt
import arignote.tensor.nnet as nnet
from arignote.tensor.special import LogSoftmax, Softmax


def _ops(fn):
    return [type(node.op) for node in fn.maker.fgraph.toposort()]


def _elemwise_names(fn):
    return {str(getattr(node.op, "scalar_op", "")) for node in fn.maker.fgraph.toposort()}


def test_softmax_is_the_existing_op_by_rows():
    x = pt.dmatrix("x")
    out = nnet.softmax(x)
    assert isinstance(out.owner.op, Softmax) and out.owner.op.axis == (1,)
    assert nnet.sigmoid is pt.sigmoid and nnet.softplus is pt.softplus


@pytest.mark.parametrize("targets", ["indices", "onehot"])
def test_categorical_crossentropy_of_softmax_is_stabilized(rng, targets):
    x = pt.dmatrix("x")
    y = pt.lvector("y") if targets == "indices" else pt.dmatrix("y")
    loss = nnet.categorical_crossentropy(nnet.softmax(x), y).mean()
    fn = arignote.function([x, y], [loss, arignote.grad(loss, x)])
    assert LogSoftmax in _ops(fn)
    logits = rng.normal(size=(4, 5)) * 1000.0  # softmax underflows to exact zeros
    labels = rng.integers(0, 5, 4)
    yv = labels if targets == "indices" else np.eye(5)[labels]
    value, gx = fn(logits, yv)
    expected = -sp.log_softmax(logits, axis=1)[np.arange(4), labels].mean()
    np.testing.assert_allclose(value, expected)
    assert np.all(np.isfinite(gx))


def test_binary_crossentropy_of_sigmoid_is_stabilized(rng):
    x, t = pt.dvector("x"), pt.dvector("t")
    loss = nnet.binary_crossentropy(nnet.sigmoid(x), t).sum()
    fn = arignote.function([x, t], [loss, arignote.grad(loss, x)])
    xv, tv = np.array([-800.0, 800.0, 0.5]), np.array([1.0, 0.0, 0.3])
    value, gx = fn(xv, tv)
    expected = np.sum(np.logaddexp(0, xv) - tv * xv)
    np.testing.assert_allclose(value, expected)
    np.testing.assert_allclose(gx, sp.expit(xv) - tv)


def test_crossentropy_softmax_1hot_returns_the_softmax_too(rng):
    x, y = pt.dmatrix("x"), pt.lvector("y")
    nll, sm = nnet.crossentropy_softmax_1hot(x, y)
    xv, yv = rng.normal(size=(3, 4)), np.array([0, 3, 1])
    got_nll, got_sm = arignote.function([x, y], [nll, sm])(xv, yv)
    np.testing.assert_allclose(got_sm, sp.softmax(xv, axis=1))
    np.testing.assert_allclose(got_nll, -np.log(got_sm[np.arange(3), yv]))


def test_categorical_crossentropy_refuses_mismatched_targets():
    with pytest.raises(TypeError, match="class indices"):
        nnet.categorical_crossentropy(pt.dmatrix(), pt.dtensor3())


def test_neighbours_round_trip_and_refused_mode(rng):
    x = pt.dtensor4("x")
    patches = nnet.images2neibs(x, (2, 3))
    back = nnet.neibs2images(patches, (2, 3), x.shape)
    xv = rng.normal(size=(2, 3, 4, 9))
    np.testing.assert_allclose(arignote.function([x], back)(xv), xv)
    with pytest.raises(ValueError, match="wrap_centered"):
        nnet.images2neibs(x, (3, 3), mode="wrap_centered")


def test_old_conv_signature_matches_the_new_one(rng):
    x, w = pt.dtensor4("x"), pt.dtensor4("w")
    old = nnet.conv.conv2d(
        x, w, image_shape=(2, 3, 6, 5), filter_shape=(4, 3, 2, 2), border_mode="full"
    )
    new = nnet.conv2d(x, w, border_mode="full")
    assert old.type.shape == (2, 4, 7, 6)
    xv, wv = rng.normal(size=(2, 3, 6, 5)), rng.normal(size=(4, 3, 2, 2))
    a, b = arignote.function([x, w], [old, new])(xv, wv)
    np.testing.assert_allclose(a, b)
    with pytest.raises(ValueError, match="'valid' or 'full'"):
        nnet.conv.conv2d(x, w, border_mode="half")


def test_unshared_convolution_checks_its_kernel_positions(rng):
    x, w = pt.dtensor4("x"), pt.tensor("w", dtype="float64", shape=(None,) * 6)
    y = nnet.conv2d(x, w, unshared=True)
    fn = arignote.function([x, w], y)
    xv = rng.normal(size=(1, 2, 5, 4))
    assert fn(xv, rng.normal(size=(3, 4, 3, 2, 2, 2))).shape == (1, 3, 4, 3)
    with pytest.raises(ValueError, match="positions"):
        fn(xv, rng.normal(size=(3, 2, 2, 2, 2, 2)))
    with pytest.raises(TypeError, match="6 dimensions"):
        nnet.conv2d(x, pt.dtensor4(), unshared=True)


def test_truth_value_of_a_symbolic_variable_names_the_fix():
    x = pt.dscalar("x")
    with pytest.raises(TypeError, match="switch"):
        if x > 0:
            pass


def test_log_of_nnet_softmax_compiles_to_log_softmax():
    x = pt.dmatrix("x")
    fn = arignote.function([x], pt.log(nnet.softmax(x)))
    assert LogSoftmax in _ops(fn) and Softmax not in _ops(fn)


def test_h_softmax_against_numpy(rng):
    batch, hidden, n_classes, per_class, n_outputs = 4, 5, 3, 4, 10
    x, target = pt.dmatrix("x"), pt.lvector("t")
    values = {
        "W1": rng.normal(size=(hidden, n_classes)),
        "b1": rng.normal(size=n_classes),
        "W2": rng.normal(size=(n_classes, hidden, per_class)),
        "b2": rng.normal(size=(n_classes, per_class)),
    }
    args = (batch, n_outputs, n_classes, per_class, *values.values())
    full = nnet.h_softmax(x, *args)
    picked = nnet.h_softmax(x, *args, target=target)
    xv, tv = rng.normal(size=(batch, hidden)), np.array([0, 9, 5, 3])
    got_full, got_picked = arignote.function([x, target], [full, picked])(xv, tv)
    classes = sp.softmax(xv @ values["W1"] + values["b1"], axis=1)
    within = sp.softmax(np.einsum("bh,chk->bck", xv, values["W2"]) + values["b2"], axis=2)
    expected = (classes[:, :, None] * within).reshape(batch, -1)[:, :n_outputs]
    np.testing.assert_allclose(got_full, expected)
    np.testing.assert_allclose(got_picked, expected[np.arange(batch), tv])
