"""Native convolution and pooling kernels against ``perform`` (the Python VM).

Seeded random non-square inputs; every border mode, strides, dilations, groups and both
orientations for the convolutions and their two gradients; every pooling mode with padding
and ``ignore_border`` for the pooling ops, their gradients and the max-pool grad-of-grad.
The default run compiles one small LeNet-like step; the sweeps are slow-marked.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.gradient import Rop
from arignote.tensor.conv.abstract_conv import (
    AbstractConv,
    AbstractConv_gradInputs,
    AbstractConv_gradWeights,
)
from arignote.tensor.nnet import conv2d, conv3d
from arignote.tensor.signal.pool import (
    AveragePoolGrad,
    DownsampleFactorMaxGradGrad,
    MaxPoolGrad,
    Pool,
    pool_2d,
    pool_3d,
)

numba_backend = pytest.importorskip("arignote.link.numba")

_NATIVE = (
    AbstractConv,
    AbstractConv_gradInputs,
    AbstractConv_gradWeights,
    Pool,
    MaxPoolGrad,
    AveragePoolGrad,
    DownsampleFactorMaxGradGrad,
)


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba's performance hints on non-contiguous dots
        yield


def _compare(inputs, outputs, values, rtol=1e-10):
    native = arignote.function(inputs, outputs, mode="NUMBA")
    slow_nodes = [n for n in native.runner.fallbacks if n is not None and isinstance(n.op, _NATIVE)]
    assert not slow_nodes, numba_backend.native_report(native.runner)
    assert any(isinstance(n.op, _NATIVE) for n in native.runner.fgraph.apply_nodes)
    reference = arignote.function(inputs, outputs)
    for got, expected in zip(native(*values), reference(*values)):
        assert got.shape == expected.shape and got.dtype == expected.dtype
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol)


def test_lenet_like_step(rng):
    """Convolution, max pooling, their gradients (one compiled function)."""
    x, w = pt.dtensor4("x"), pt.dtensor4("w")
    hidden = pt.tanh(pool_2d(conv2d(x, w), (2, 2), ignore_border=True))
    cost = (hidden**2).sum()
    outputs = [hidden, *arignote.grad(cost, [x, w])]
    _compare([x, w], outputs, [rng.normal(size=(2, 3, 9, 8)), rng.normal(size=(4, 3, 3, 2))])


_CONVS = [
    ("valid", (1, 1), True, (1, 1), 1),
    ("half", (2, 1), False, (1, 2), 2),
    ("full", (1, 2), True, (1, 1), 1),
    ((1, 2), (1, 1), False, (2, 1), 1),
    (2, (2, 2), True, (1, 1), 2),
]


@pytest.mark.slow
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_conv2d_modes_and_gradients(rng, dtype):
    x, w = pt.tensor4("x", dtype=dtype), pt.tensor4("w", dtype=dtype)
    outputs = []
    for border, subsample, flip, dilation, groups in _CONVS:
        kern = w if groups == 1 else w[:4, :2]
        y = conv2d(x, w, border_mode=border, subsample=subsample, filter_flip=flip)
        y2 = conv2d(x, kern, border_mode=border, filter_dilation=dilation, num_groups=groups)
        outputs += [y, y2, *arignote.grad((y * y).sum() + (y2 * y2).sum(), [x, w])]
    values = [rng.normal(size=(2, 4, 7, 8)), rng.normal(size=(4, 4, 3, 2))]
    rtol = 1e-10 if dtype == "float64" else 1e-4
    _compare([x, w], outputs, [v.astype(dtype) for v in values], rtol=rtol)


@pytest.mark.slow
def test_conv3d_and_shape_errors(rng):
    x, w = pt.dtensor5("x"), pt.dtensor5("w")
    y = conv3d(x, w, border_mode="half", subsample=(2, 1, 1))
    outputs = [y, *arignote.grad((y**2).sum(), [x, w])]
    values = [rng.normal(size=(2, 2, 5, 4, 6)), rng.normal(size=(3, 2, 3, 2, 3))]
    _compare([x, w], outputs, values)
    f = arignote.function([x, w], y, mode="NUMBA")
    with pytest.raises(ValueError, match="num_groups"):
        f(values[0], rng.normal(size=(3, 3, 3, 2, 3)))


_POOLS = [
    ("max", True, None, (0, 0)),
    ("max", False, (1, 2), (0, 0)),
    ("max", True, (1, 1), (1, 1)),
    ("sum", False, (1, 2), (0, 0)),
    ("average_inc_pad", True, (2, 1), (1, 1)),
    ("average_exc_pad", True, None, (1, 0)),
]


@pytest.mark.slow
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_pool_modes_gradients_and_grad_of_grad(rng, dtype):
    x = pt.tensor4("x", dtype=dtype)
    outputs = []
    for mode, ignore_border, stride, pad in _POOLS:
        pooled = pool_2d(x, (2, 3), ignore_border=ignore_border, stride=stride, pad=pad, mode=mode)
        gx = arignote.grad((pooled**2).sum(), x)
        outputs += [pooled, gx]
        if mode == "max":
            outputs += [arignote.grad((gx**2).sum(), x), Rop(pooled, x, x * 0.5)]
    value = rng.normal(size=(2, 3, 7, 8)).astype(dtype)
    _compare([x], outputs, [value], rtol=1e-10 if dtype == "float64" else 1e-5)


@pytest.mark.slow
def test_pool_3d_and_ties(rng):
    x = pt.dtensor5("x")
    outputs = []
    for mode in ("max", "average_exc_pad"):
        pooled = pool_3d(x, (2, 2, 3), ignore_border=True, pad=(1, 0, 1), mode=mode)
        outputs += [pooled, arignote.grad((pooled**2).sum(), x)]
    value = np.round(rng.normal(size=(1, 2, 5, 4, 6)))  # many ties of the maximum
    _compare([x], outputs, [value])
