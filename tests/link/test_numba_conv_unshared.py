"""Native unshared convolutions (a kernel per output position) and their two gradients
against ``perform`` (the Python VM): seeded non-square inputs, border modes, strides,
dilations, groups, both orientations, and the errors of kernels for the wrong positions."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.compile.mode import Mode
from arignote.tensor.conv.abstract_conv import (
    AbstractConv,
    AbstractConv_gradInputs,
    AbstractConv_gradWeights,
)
from arignote.tensor.nnet import conv2d

numba_backend = pytest.importorskip("arignote.link.numba")

_CONVS = (AbstractConv, AbstractConv_gradInputs, AbstractConv_gradWeights)


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba's performance hints
        yield


def check_against_python(inputs, outputs, values, rtol=1e-10):
    """The NUMBA function (its convolutions native) against the Python VM."""
    native = arignote.function(inputs, outputs, mode="NUMBA")
    slow = [n for n in native.runner.fallbacks if n is not None and isinstance(n.op, _CONVS)]
    assert not slow, numba_backend.native_report(native.runner)
    unshared = [n for n in native.runner.fgraph.apply_nodes if getattr(n.op, "unshared", False)]
    assert len({type(n.op) for n in unshared}) == 3  # the op and both gradients
    python = arignote.function(inputs, outputs, mode=Mode(linker="py"))
    copies = [v.copy() for v in values]
    for got, expected in zip(native(*values), python(*values), strict=True):
        assert got.shape == expected.shape and got.dtype == expected.dtype
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol)
    for v, c in zip(values, copies):
        np.testing.assert_array_equal(v, c)
    return native


def _unshared_step(x, w, **kwargs):
    y = conv2d(x, w, unshared=True, **kwargs)
    return [y, *arignote.grad((y * y).sum(), [x, w])]


def test_unshared_convolution_and_gradients(rng):
    x, w = pt.dtensor4("x"), pt.tensor("w", dtype="float64", shape=(None,) * 6)
    outputs = _unshared_step(x, w, border_mode="half", subsample=(2, 1), filter_flip=True)
    values = [rng.normal(size=(2, 3, 5, 6)), rng.normal(size=(4, 3, 7, 3, 3, 2))]
    native = check_against_python([x, w], outputs, values)
    with pytest.raises(ValueError):  # kernels for 3 x 6 positions where there are 3 x 7
        native(values[0], values[1][:, :, :6].copy())


_SWEEP = [
    ({"border_mode": "valid"}, (2, 4, 7, 6), (3, 5, 4, 4, 3, 3)),
    ({"border_mode": "full", "filter_flip": False}, (1, 2, 4, 5), (2, 6, 6, 2, 3, 2)),
    ({"border_mode": (1, 2), "filter_dilation": (2, 1)}, (2, 2, 6, 5), (3, 6, 8, 2, 2, 2)),
    (
        {"border_mode": "valid", "num_groups": 2, "subsample": (1, 2)},
        (2, 4, 5, 7),
        (4, 3, 3, 2, 3, 3),
    ),
]


@pytest.mark.slow
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize(("kwargs", "x_shape", "w_shape"), _SWEEP)
def test_unshared_sweep(rng, dtype, kwargs, x_shape, w_shape):
    x = pt.tensor("x", dtype=dtype, shape=(None,) * 4)
    w = pt.tensor("w", dtype=dtype, shape=(None,) * 6)
    values = [rng.normal(size=x_shape).astype(dtype), rng.normal(size=w_shape).astype(dtype)]
    rtol = 1e-10 if dtype == "float64" else 1e-4
    check_against_python([x, w], _unshared_step(x, w, **kwargs), values, rtol=rtol)
