"""op_db entries: pooling (``arignote.tensor.signal.pool``), against a loop over windows that
follows Theano's description: zero padding, windows truncated at the end when the border is
not ignored, averages over the window inside the padded ("inc") or original ("exc") array."""

from __future__ import annotations

import itertools

import numpy as np

import arignote.tensor.signal.downsample as downsample
import arignote.tensor.signal.pool as pool
from tests.op_db.core import FLOAT_DTYPES, OpInfo, Sample, register


def _length(n, w, s, p, ignore_border):
    n += 2 * p
    if ignore_border:
        return (n - w) // s + 1
    return (n - 1) // s + 1 if s >= w else max(0, (n - 1 - w + s) // s) + 1


def _region(o, w, s, p, n, padded, exclude_pad):
    start, end = o * s, min(o * s + w, padded)
    if exclude_pad:
        start, end = max(start, p), min(end, p + n)
    return slice(start, end)


def _reference(x, ws, ignore_border=True, stride=None, pad=None, mode="max"):
    nd = len(ws)
    stride, pad = stride or ws, pad or (0,) * nd
    y = np.pad(x, [(0, 0)] * (x.ndim - nd) + [(p, p) for p in pad])
    sizes = x.shape[-nd:]
    out = [_length(n, w, s, p, ignore_border) for n, w, s, p in zip(sizes, ws, stride, pad)]
    result = np.zeros((*x.shape[:-nd], *out))
    reduce = {"max": np.max, "sum": np.sum}.get(mode, np.mean)
    for index in itertools.product(*(range(o) for o in out)):
        region = [
            _region(o, w, s, p, n, n + 2 * p, mode == "average_exc_pad")
            for o, w, s, p, n in zip(index, ws, stride, pad, sizes)
        ]
        window = y[(Ellipsis, *region)].reshape(*x.shape[:-nd], -1)
        result[(Ellipsis, *index)] = reduce(window, axis=-1)
    return result


def _distinct(rng, shape):
    """Values at least 0.05 apart, so that no finite-difference step changes a window's max."""
    return rng.permutation(int(np.prod(shape))).reshape(shape) * 0.05 - 2.0


def _pool_samples(rng):
    x = _distinct(rng, (2, 3, 7, 6))
    return [
        Sample((x,), {"ws": (2, 2)}, name="tiles"),
        Sample((x,), {"ws": (3, 2), "ignore_border": False, "stride": (2, 1)}, name="partial"),
        Sample((x,), {"ws": (3, 3), "stride": (2, 2), "pad": (1, 2)}, name="padded"),
        Sample((_distinct(rng, (5, 4)),), {"ws": (2, 3), "stride": (1, 1)}, name="matrix"),
    ]


def _pool_entry(mode):
    def build(x, **kw):
        return pool.pool_2d(x, mode=mode, **kw)

    def ref(x, **kw):
        return _reference(x, mode=mode, **kw)

    return OpInfo(
        f"pool_2d[{mode}]",
        build,
        ref,
        _pool_samples,
        dtypes=FLOAT_DTYPES,
        op_class=pool.Pool,
        second_order=mode in ("max", "average_exc_pad"),  # through the gradient ops
    )


def _pool3d_samples(rng):
    x = _distinct(rng, (1, 2, 5, 4, 6))
    return [
        Sample((x,), {"ws": (2, 2, 3)}, name="tiles"),
        Sample(
            (x,), {"ws": (2, 3, 2), "ignore_border": False, "stride": (2, 1, 3)}, name="partial"
        ),
    ]


def _same_size_ref(x, patch_size):
    pooled = _reference(x, patch_size)
    upsampled = pooled.repeat(patch_size[0], -2).repeat(patch_size[1], -1)
    rows, cols = upsampled.shape[-2:]
    crop = x[..., :rows, :cols]
    out = np.zeros_like(x)
    out[..., :rows, :cols] = np.where(crop == upsampled, crop, 0)
    return out


register(
    *[_pool_entry(mode) for mode in pool.POOL_MODES],
    OpInfo(
        "pool_3d",
        lambda x, **kw: pool.pool_3d(x, **kw),
        _reference,
        _pool3d_samples,
        dtypes=FLOAT_DTYPES,
        op_class=pool.Pool,
    ),
    OpInfo(
        "downsample.max_pool_2d",
        downsample.max_pool_2d,
        lambda x, ds, ignore_border: _reference(x, ds, ignore_border),
        lambda rng: [
            Sample((_distinct(rng, (2, 5, 7)), (2, 3), False), name="partial", static=(1, 2))
        ],
        dtypes=FLOAT_DTYPES,
        op_class=pool.Pool,
    ),
    OpInfo(
        "max_pool_2d_same_size",
        pool.max_pool_2d_same_size,
        _same_size_ref,
        lambda rng: [Sample((_distinct(rng, (2, 5, 7)), (2, 3)), name="partial", static=(1,))],
        dtypes=FLOAT_DTYPES,
        op_class=pool.MaxPoolGrad,
    ),
)
