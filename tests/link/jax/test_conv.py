"""Convolutions in JAX mode against the Python VM: the forward op and both adjoints (through
the gradients of a random projection of the output), 2-D and 3-D, every border mode, strides,
dilations, groups and unshared kernels; second derivatives; a small convolutional net's loss
and gradients."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("jax", reason="the JAX backend needs jax (pip install arignote[jax])")

import arignote
import arignote.tensor as pt
from arignote.graph.traversal import io_toposort
from arignote.tensor.conv import (
    AbstractConv,
    AbstractConv_gradInputs,
    AbstractConv_gradWeights,
    conv2d,
    conv2d_transpose,
    conv3d,
)
from arignote.tensor.signal.pool import pool_2d
from tests.link.jax.compare import assert_jax_matches_vm

# (convdim, image shape, kernel shape, keyword arguments): non-square everywhere
CASES = {
    "valid": (2, (2, 3, 7, 5), (4, 3, 3, 2), {}),
    "full-corr": (2, (1, 2, 5, 6), (3, 2, 2, 3), {"border_mode": "full", "filter_flip": False}),
    "half-stride": (2, (2, 2, 7, 6), (2, 2, 3, 3), {"border_mode": "half", "subsample": (2, 1)}),
    "int-dilation": (2, (1, 2, 8, 6), (3, 2, 2, 2), {"border_mode": 1, "filter_dilation": (2, 1)}),
    "pairs-stride": (
        2,
        (2, 1, 7, 6),
        (2, 1, 3, 2),
        {"border_mode": ((1, 2), (0, 1)), "subsample": (2, 3), "filter_flip": False},
    ),
    "groups": (2, (2, 4, 5, 6), (6, 2, 2, 3), {"num_groups": 2, "subsample": (1, 2)}),
    "3d": (3, (1, 2, 4, 5, 3), (3, 2, 2, 3, 2), {"border_mode": "half", "subsample": (2, 1, 1)}),
    "3d-groups-dilation": (
        3,
        (2, 4, 5, 4, 6),
        (2, 2, 2, 2, 3),
        {"num_groups": 2, "filter_dilation": (1, 2, 2), "border_mode": (1, 0, 2)},
    ),
}

UNSHARED = {
    "valid": ((2, 3, 5, 4), (2, 4, 3, 3, 2, 2), {}),
    "half-stride-corr": (
        (1, 2, 5, 6),
        (3, 3, 4, 2, 3, 2),
        {"border_mode": "half", "subsample": (2, 2), "filter_flip": False},
    ),
    "groups": ((1, 4, 5, 5), (4, 4, 4, 2, 2, 2), {"num_groups": 2}),
}


def _ops(outputs):
    return {type(node.op) for node in io_toposort([], outputs) if node.op is not None}


def _conv_and_grads(x, w, build, out_value):
    out = build(x, w)
    cost = (out * pt.constant(out_value)).sum()
    return [out, *arignote.grad(cost, [x, w])]


@pytest.mark.parametrize("name", list(CASES))
def test_conv_and_its_adjoints_match_the_vm(name):
    k, xshape, wshape, kw = CASES[name]
    rng = np.random.default_rng(len(name))
    xv, wv = rng.normal(size=xshape), rng.normal(size=wshape)
    x, w = pt.tensor("x", dtype="float64", shape=xshape), pt.tensor("w", shape=wshape)
    build = conv2d if k == 2 else conv3d
    out_shape = build(x, w, **kw).type.shape
    outputs = _conv_and_grads(x, w, lambda a, b: build(a, b, **kw), rng.normal(size=out_shape))
    ops = _ops(outputs)
    assert {AbstractConv, AbstractConv_gradInputs, AbstractConv_gradWeights} <= ops
    assert_jax_matches_vm([x, w], outputs, [xv, wv])


@pytest.mark.parametrize("name", list(UNSHARED))
def test_unshared_conv_and_its_adjoints_match_the_vm(name):
    xshape, wshape, kw = UNSHARED[name]
    rng = np.random.default_rng(7 + len(name))
    xv, wv = rng.normal(size=xshape), rng.normal(size=wshape)
    x, w = pt.tensor("x", shape=xshape), pt.tensor("w", shape=wshape)
    out_shape = conv2d(x, w, unshared=True, **kw).type.shape
    build = lambda a, b: conv2d(a, b, unshared=True, **kw)  # noqa: E731
    assert_jax_matches_vm(
        [x, w], _conv_and_grads(x, w, build, rng.normal(size=out_shape)), [xv, wv]
    )


def test_uncovered_input_rows_get_zero_gradient():
    # stride 3 over 8 rows with a 2-row kernel: rows 2 and 5 meet no window
    rng = np.random.default_rng(3)
    x, w = pt.dtensor4("x"), pt.dtensor4("w")
    out = conv2d(x, w, subsample=(3, 2))
    outputs = [out, *arignote.grad(out.sum(), [x, w])]
    expected = assert_jax_matches_vm(
        [x, w], outputs, [rng.normal(size=(1, 2, 8, 7)), rng.normal(size=(3, 2, 2, 2))]
    )
    assert np.all(expected[1][:, :, [2, 5]] == 0)


def test_float32_and_mixed_dtypes():
    rng = np.random.default_rng(5)
    x, w = pt.tensor("x", dtype="float32", shape=(2, 3, 6, 5)), pt.dtensor4("w")
    out = conv2d(x, w, border_mode="half")
    assert out.type.dtype == "float64"
    xv = rng.normal(size=(2, 3, 6, 5)).astype("float32")
    assert_jax_matches_vm(
        [x, w], [out, *arignote.grad(out.sum(), [x, w])], [xv, rng.normal(size=(4, 3, 3, 3))]
    )
    xs, ws = (
        pt.tensor("x", dtype="float32", shape=(None,) * 4),
        pt.tensor("w", dtype="float32", shape=(None,) * 4),
    )
    out32 = conv2d(xs, ws, subsample=(2, 1))
    assert_jax_matches_vm(
        [xs, ws],
        [out32, *arignote.grad(out32.sum(), [xs, ws])],
        [xv, rng.normal(size=(4, 3, 2, 3)).astype("float32")],
        rtol=1e-5,
        atol=1e-5,
    )


def test_transpose_convolution_and_second_derivatives():
    rng = np.random.default_rng(11)
    x, w = pt.dtensor4("x"), pt.dtensor4("w")
    up = conv2d_transpose(
        x, w, output_shape=(2, 3, 9, 7), border_mode="half", input_dilation=(2, 2)
    )
    assert AbstractConv_gradInputs in _ops([up])
    out = conv2d(x, w, subsample=(2, 1), filter_dilation=(1, 2))
    gx, gw = arignote.grad((out**2).sum(), [x, w])
    # derivatives of the adjoints are convolutions again, to any order
    ggx = arignote.grad((gw * gw).sum() + (gx**3).sum(), [x, w])
    wv = rng.normal(size=(4, 3, 3, 2))
    assert_jax_matches_vm([x, w], [up], [rng.normal(size=(2, 4, 5, 4)), wv], rtol=1e-9)
    xv, wv = rng.normal(size=(2, 4, 7, 8)), rng.normal(size=(3, 4, 3, 2))
    assert_jax_matches_vm([x, w], [out, gx, gw, *ggx], [xv, wv], rtol=1e-9)


def _lenet_loss(x, t, w1, b1, w2, b2, w3, b3):
    h = pt.tanh(
        pool_2d(conv2d(x, w1, border_mode="half"), (2, 2)) + b1.dimshuffle("x", 0, "x", "x")
    )
    h = pt.tanh(
        pool_2d(conv2d(h, w2), (2, 2), ignore_border=False) + b2.dimshuffle("x", 0, "x", "x")
    )
    logits = pt.dot(h.flatten(2), w3) + b3
    return -(t * pt.special.log_softmax(logits, axis=1)).sum() / x.shape[0]


def test_small_conv_net_loss_and_gradients_match_the_vm():
    rng = np.random.default_rng(12)
    values = [
        rng.normal(size=(3, 1, 10, 9)),
        np.eye(4)[rng.integers(0, 4, size=3)],
        rng.normal(scale=0.3, size=(5, 1, 3, 3)),
        rng.normal(size=5),
        rng.normal(scale=0.2, size=(6, 5, 2, 3)),
        rng.normal(size=6),
        rng.normal(scale=0.2, size=(6 * 2 * 1, 4)),
        rng.normal(size=4),
    ]
    sym = [pt.tensor(f"v{i}", shape=(None,) * v.ndim) for i, v in enumerate(values)]
    loss = _lenet_loss(*sym)
    outputs = [loss, *arignote.grad(loss, [sym[0], *sym[2:]])]
    assert_jax_matches_vm(sym, outputs, values, rtol=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(10))
def test_conv_random_parameters_sweep(seed):
    """Random border modes, strides, dilations and groups, 2-D and 3-D, with both adjoints."""
    rng = np.random.default_rng(200 + seed)
    k, groups = (2 if seed % 3 else 3), int(rng.integers(1, 3))
    taps = tuple(int(t) for t in rng.integers(1, 4, k))
    dilation = tuple(int(d) for d in rng.integers(1, 3, k))
    modes = ["valid", "full", "half", int(rng.integers(0, 3)), tuple(rng.integers(0, 3, k))]
    border = modes[seed % len(modes)]
    border = tuple(int(b) for b in border) if isinstance(border, tuple) else border
    kw = {
        "border_mode": border,
        "subsample": tuple(int(s) for s in rng.integers(1, 3, k)),
        "filter_dilation": dilation,
        "num_groups": groups,
        "filter_flip": bool(seed % 2),
    }
    span = [d * (t - 1) + 1 for d, t in zip(dilation, taps)]
    xshape = (2, 2 * groups, *[s + int(rng.integers(0, 4)) for s in span])
    wshape = (2 * groups, 2, *taps)
    x, w = pt.tensor("x", shape=xshape), pt.tensor("w", shape=wshape)
    build = conv2d if k == 2 else conv3d
    out_shape = build(x, w, **kw).type.shape
    outputs = _conv_and_grads(x, w, lambda a, b: build(a, b, **kw), rng.normal(size=out_shape))
    assert_jax_matches_vm([x, w], outputs, [rng.normal(size=xshape), rng.normal(size=wshape)])
