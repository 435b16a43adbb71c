"""op_db entries: concat_with_broadcast, batched_tensordot, permute_row_elements (graphs of
broadcast_to/concatenate, einsum and take_along_axis)."""

from __future__ import annotations

import numpy as np

import arignote.tensor as pt
from tests.op_db.core import FLOAT_DTYPES, OpInfo, Sample, register


def _concat_ref(a, b, axis=0):
    axis %= a.ndim
    shape = list(np.broadcast_shapes(np.take(a, [0], axis).shape, np.take(b, [0], axis).shape))
    fitted = []
    for x in (a, b):
        shape[axis] = x.shape[axis]
        fitted.append(np.broadcast_to(x, shape))
    return np.concatenate(fitted, axis=axis)


def _concat_samples(rng):
    n = rng.normal
    return [
        Sample((n(size=(2, 1, 3)), n(size=(1, 4, 5))), {"axis": -1}, name="last"),
        Sample((n(size=(2, 3)), n(size=(4, 1))), {"axis": 0}, name="first"),
    ]


def _btd_ref(x, y, axes):
    return np.stack([np.tensordot(a, b, _core_axes(x, axes)) for a, b in zip(x, y)])


def _core_axes(x, axes):
    if isinstance(axes, int):
        return axes
    return [[a - 1 for a in axes[0]], [a - 1 for a in axes[1]]]


def _btd_samples(rng):
    n = rng.normal
    return [
        Sample((n(size=(3, 4, 5)), n(size=(3, 5, 2))), {"axes": 1}, name="int"),
        Sample((n(size=(2, 4, 5, 3)), n(size=(2, 3, 5, 2))), {"axes": [[2, 3], [2, 1]]}, "pairs"),
    ]


def _permute_ref(x, y, inverse=False):
    order = np.argsort(y, axis=-1) if inverse else y
    shape = np.broadcast_shapes(x.shape[:-1], order.shape[:-1])
    x_b = np.broadcast_to(x, (*shape, x.shape[-1]))
    return np.take_along_axis(x_b, np.broadcast_to(order, (*shape, order.shape[-1])), -1)


def _permute_samples(rng):
    perms = np.stack([rng.permutation(5) for _ in range(3)]).astype("int64")
    return [
        Sample((rng.normal(size=(3, 5)), perms), name="rows"),
        Sample((rng.normal(size=(3, 5)), perms[0]), {"inverse": True}, name="inverse-one"),
    ]


register(
    OpInfo(
        "concat_with_broadcast",
        lambda a, b, axis=0: pt.concat_with_broadcast([a, b], axis),
        _concat_ref,
        _concat_samples,
        FLOAT_DTYPES,
    ),
    OpInfo(
        "batched_tensordot", pt.batched_tensordot, _btd_ref, _btd_samples, FLOAT_DTYPES, rtol=1e-5
    ),
    OpInfo(
        "permute_row_elements",
        pt.permute_row_elements,
        _permute_ref,
        _permute_samples,
        FLOAT_DTYPES,
    ),
)
