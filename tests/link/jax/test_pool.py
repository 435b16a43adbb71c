"""Pooling in JAX mode against the Python VM: every mode with and without ``ignore_border``,
strides and padding, 2-D and 3-D, the gradients (``MaxPoolGrad``, ``AveragePoolGrad``) and the
gradient of the max-pool gradient, on inputs full of ties (where every tied position gets
the window's gradient, as ``perform`` defines it)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("jax", reason="the JAX backend needs jax (pip install arignote[jax])")

import arignote
import arignote.tensor as pt
from arignote.tensor.signal.pool import (
    DownsampleFactorMaxGradGrad,
    MaxPoolGrad,
    Pool,
    max_pool_2d_same_size,
    pool_2d,
    pool_3d,
)
from tests.link.jax.compare import assert_jax_matches_vm

MODES = ("max", "sum", "average_inc_pad", "average_exc_pad")
WINDOWS = {
    "tiles": {"ws": (2, 3)},
    "partial": {"ws": (3, 2), "ignore_border": False, "stride": (2, 1)},
    "padded-overlap": {"ws": (3, 3), "stride": (2, 1), "pad": (1, 2)},
}


def _ties(rng, shape):
    """Small integers as floats: most windows hold their maximum more than once."""
    return rng.integers(-2, 3, size=shape).astype("float64")


@pytest.mark.parametrize("window", list(WINDOWS))
@pytest.mark.parametrize("mode", MODES)
def test_pool_2d_and_its_gradient_match_the_vm(mode, window):
    rng = np.random.default_rng(len(mode) + 3 * len(window))
    x = pt.tensor("x", shape=(None,) * 4)
    pooled = pool_2d(x, mode=mode, **WINDOWS[window])
    cot = pt.tensor("g", shape=(None,) * 4)
    gx = arignote.grad((pooled * cot).sum(), x)
    xv = _ties(rng, (2, 3, 7, 8))
    g_shape = arignote.function([x], pooled)(xv).shape
    assert_jax_matches_vm([x, cot], [pooled, gx], [xv, rng.normal(size=g_shape)])


@pytest.mark.parametrize("mode", MODES)
def test_pool_3d_and_its_gradient_match_the_vm(mode):
    rng = np.random.default_rng(30 + len(mode))
    x = pt.tensor("x", shape=(None,) * 4)
    pooled = pool_3d(x, (2, 3, 2), ignore_border=mode != "max", stride=(2, 1, 3), mode=mode)
    gx = arignote.grad((pooled**2).sum(), x)
    assert_jax_matches_vm([x], [pooled, gx], [_ties(rng, (2, 5, 7, 6))])


def test_max_pool_gradient_of_the_gradient_matches_the_vm():
    rng = np.random.default_rng(4)
    x, gz, ggx = (pt.tensor(n, shape=(None,) * 3) for n in ("x", "gz", "ggx"))
    for params in ({"ws": (2, 2)}, {"ws": (3, 2), "stride": (1, 2), "pad": (1, 1)}):
        op = Pool(**params)
        maxout = op(x)
        grad_op = MaxPoolGrad(**op._params())
        gx = grad_op(x, maxout, gz)
        ggz = DownsampleFactorMaxGradGrad(**op._params())(x, maxout, ggx)
        # and through arignote.grad: d<gx, ggx>/dgz is DownsampleFactorMaxGradGrad
        ggz_auto = arignote.grad((gx * ggx).sum(), gz)
        xv = _ties(rng, (2, 6, 7))
        m_shape = arignote.function([x], maxout)(xv).shape
        values = [xv, rng.normal(size=m_shape), rng.normal(size=xv.shape)]
        assert_jax_matches_vm([x, gz, ggx], [gx, ggz, ggz_auto], values)


def test_max_pool_same_size_and_integer_input():
    rng = np.random.default_rng(6)
    x = pt.dtensor4("x")
    assert_jax_matches_vm([x], [max_pool_2d_same_size(x, (2, 3))], [_ties(rng, (1, 2, 6, 7))])
    xi = pt.tensor("xi", dtype="int32", shape=(None, None))
    outs = [pool_2d(xi, (2, 2), ignore_border=False, mode=m) for m in MODES]
    assert [o.type.dtype for o in outs] == ["int32", "int32", "float64", "float64"]
    assert_jax_matches_vm([xi], outs, [rng.integers(-9, 9, size=(5, 7)).astype("int32")])


def test_pool_float32():
    rng = np.random.default_rng(8)
    x = pt.tensor("x", dtype="float32", shape=(None,) * 4)
    outs = [pool_2d(x, (2, 2), pad=(1, 1), mode=m) for m in MODES]
    grads = [arignote.grad(o.sum(), x) for o in outs]
    values = [rng.normal(size=(2, 2, 5, 6)).astype("float32")]
    assert_jax_matches_vm([x], outs + grads, values, rtol=1e-6, atol=1e-6)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(12))
def test_pool_random_windows_sweep(seed):
    """Random windows, strides (also wider than the window), paddings and borders."""
    rng = np.random.default_rng(100 + seed)
    nd = 2 if seed % 3 else 3
    ws = tuple(int(w) for w in rng.integers(1, 4, nd))
    stride = tuple(int(s) for s in rng.integers(1, 5, nd))
    ignore = bool(seed % 2)
    pad = tuple(int(rng.integers(0, w)) for w in ws) if ignore else (0,) * nd
    x = pt.tensor("x", shape=(None,) * (nd + 1))
    xv = _ties(rng, (2, *rng.integers(nd + 2, 9, nd)))
    for mode in MODES:
        op = Pool(ws, ignore, stride, pad, mode, ndim=nd)
        pooled = op(x)
        outputs = [pooled, arignote.grad((pooled * pooled).sum(), x)]
        if mode == "max":
            outputs.append(DownsampleFactorMaxGradGrad(**op._params())(x, pooled, x + 1))
        assert_jax_matches_vm([x], outputs, [xv])
