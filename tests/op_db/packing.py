"""op_db entries: interpolation, PyTensor 3's reshaping helpers (pack/unpack, join_dims,
split_dims) and xlogx. All are graphs of existing ops; the entries check values against
NumPy, gradients and shapes."""

from __future__ import annotations

import numpy as np
import scipy.special

import arignote.tensor as pt
from tests.op_db.core import FLOAT_DTYPES, Directive, OpInfo, Sample, register


def _interp_samples(rng):
    xp = np.sort(rng.uniform(0, 10, 7))
    fp = rng.normal(size=7)
    x = rng.uniform(-2, 12, (3, 4))
    return [
        Sample((x, xp, fp), name="matrix"),
        Sample((x, xp, fp), {"left": -5.0, "right": 7.0}, name="left-right"),
        Sample((rng.uniform(-4, 9, 5), xp, fp), {"period": 3.0}, name="periodic"),
    ]


def _interpolate1d(x, y, x_new, method):
    return pt.interpolate1d(x, y, method=method)(x_new)


def _interpolate1d_ref(x, y, x_new, method):
    order = np.argsort(x)
    x, y = x[order], y[order]
    idx = np.searchsorted(x, x_new)
    hi = np.clip(idx, 1, len(x) - 1)
    if method == "linear":
        return y[hi - 1] + (x_new - x[hi - 1]) * (y[hi] - y[hi - 1]) / (x[hi] - x[hi - 1])
    if method == "nearest":
        return np.where(x_new - x[hi - 1] <= x[hi] - x_new, y[hi - 1], y[hi])
    return (y[hi - 1] + y[hi]) / 2  # mean


def _interpolate1d_samples(rng):
    x, y = rng.permutation(np.linspace(0, 6, 6)) + rng.uniform(0, 0.3, 6), rng.normal(size=6)
    x_new = rng.uniform(-1, 7, 9)
    return [Sample((x, y, x_new), {"method": m}, name=m) for m in ("linear", "nearest", "mean")]


def _pack(x, y, keep_axes=None):
    return pt.pack(x, y, keep_axes=keep_axes)[0]


def _pack_ref(x, y, keep_axes=None):
    front = 0 if keep_axes is None else 1
    flat = [a.reshape(*a.shape[:front], -1) for a in (x, y)]
    return np.concatenate(flat, axis=front)


def _pack_samples(rng):
    n = rng.normal
    return [
        Sample((n(size=(2, 3)), n(size=(4, 5, 2))), name="ravel-all"),
        Sample((n(size=(2, 3)), n(size=(2, 5, 2))), {"keep_axes": 0}, name="keep-first"),
    ]


def _unpack_roundtrip(x, y, keep_axes=None):
    packed, shapes = pt.pack(x, y, keep_axes=keep_axes)
    return tuple(pt.unpack(packed * 2, shapes, keep_axes=keep_axes))


def _join_dims_samples(rng):
    x = rng.normal(size=(2, 3, 4, 5))
    return [
        Sample((x,), name="all"),
        Sample((x,), {"start_axis": 1, "n_axes": 2}, name="middle"),
        Sample((x,), {"start_axis": 1, "n_axes": 0}, name="insert"),
    ]


def _join_dims_ref(x, start_axis=0, n_axes=None):
    n = x.ndim - start_axis if n_axes is None else n_axes
    shape = x.shape[:start_axis] + (int(np.prod(x.shape[start_axis : start_axis + n])),)
    return x.reshape(shape + x.shape[start_axis + n :])


def _split_dims_ref(x, shape, axis=0):
    axis %= x.ndim
    return x.reshape(x.shape[:axis] + tuple(shape) + x.shape[axis + 1 :])


def _split_dims_samples(rng):
    x = rng.normal(size=(6, 4, 6))
    return [
        Sample((x,), {"shape": (2, 3)}, name="first"),
        Sample((x,), {"shape": (3, -1), "axis": -1}, name="last-inferred"),
    ]


INFINITE_SLOPE = "x log x has an infinite slope at 0 (finite differences cannot check it)"


def _xlogx_ref(x):
    # in the float type NumPy's log gives x (float16 for booleans and int8, as arignote's)
    return scipy.special.xlogy(x, x).astype(np.result_type(x.dtype, np.float16))


register(
    OpInfo("interp", pt.interp, np.interp, _interp_samples, ("float64",), infer_shape=False),
    OpInfo(
        "interpolate1d",
        _interpolate1d,
        _interpolate1d_ref,
        _interpolate1d_samples,
        FLOAT_DTYPES,
        infer_shape=False,
        rtol=1e-5,
    ),
    OpInfo("pack", _pack, _pack_ref, _pack_samples, FLOAT_DTYPES),
    OpInfo(
        "unpack",
        _unpack_roundtrip,
        lambda x, y, keep_axes=None: (2 * x, 2 * y),
        _pack_samples,
        FLOAT_DTYPES,
        infer_shape=False,  # the split sizes are computed from the packed shapes, by design
    ),
    OpInfo("join_dims", pt.join_dims, _join_dims_ref, _join_dims_samples, FLOAT_DTYPES),
    OpInfo("split_dims", pt.split_dims, _split_dims_ref, _split_dims_samples, FLOAT_DTYPES),
    OpInfo(
        "xlogx",
        pt.xlogx.xlogx,
        _xlogx_ref,
        lambda rng: [
            Sample((rng.uniform(0.2, 3, (2, 3)),), name="positive"),
            Sample((np.concatenate([rng.uniform(0.2, 3, 5), [0.0]]),), name="with-0"),
        ],
        FLOAT_DTYPES,
        rtol=1e-5,
        directives=[
            Directive(
                "grad", "x log x has an infinite slope at 0", samples=["with-0"], kind="skip"
            ),
            Directive("rop", "x log x has an infinite slope at 0", samples=["with-0"], kind="skip"),
            Directive("adjoint", "infinite slope at 0", samples=["with-0"], kind="skip"),
        ],
    ),
)
