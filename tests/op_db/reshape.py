"""op_db entries: reshape, flatten, ravel."""

from __future__ import annotations

import numpy as np

import arignote.tensor as pt
from tests.op_db.core import FLOAT_DTYPES, OpInfo, Sample, register


def _reshape_samples(rng):
    return [
        Sample((rng.normal(size=(3, 4)), (2, 6)), name="static"),
        Sample((rng.normal(size=(2, 3, 4)), (4, -1)), name="minus-one"),
        Sample((rng.normal(size=(3, 4)), (np.asarray(6), 2)), name="symbolic"),
        Sample((rng.normal(size=(6,)), (1, 2, 3)), name="add-dims"),
        Sample((np.asarray(rng.normal()), (1, 1)), name="scalar"),
    ]


def _reshape(x, shape):
    return pt.reshape(x, shape, ndim=len(shape))


def _np_reshape(x, shape):
    return np.reshape(x, [int(s) for s in shape])


def _symbolic_reshape(x, rows):
    return pt.reshape(x, (rows, -1))


def _flatten_samples(rng):
    return [
        Sample((rng.normal(size=(2, 3, 4)),), name="3d"),
        Sample((rng.normal(size=(2, 3, 4)),), {"ndim": 2}, name="to-2d"),
        Sample((np.asarray(rng.normal()),), name="scalar"),
    ]


def _np_flatten(x, ndim=1):
    return x.reshape(x.shape[: ndim - 1] + (-1,))


register(
    OpInfo(
        "reshape",
        _reshape,
        _np_reshape,
        _reshape_samples,
        dtypes=FLOAT_DTYPES,
        op_class=pt.Reshape,
    ),
    OpInfo(
        "reshape[symbolic]",
        _symbolic_reshape,
        lambda x, rows: np.reshape(x, (int(rows), -1)),
        lambda rng: [Sample((rng.normal(size=(3, 4)), np.asarray(2)))],
        dtypes=FLOAT_DTYPES,
        op_class=pt.Reshape,
    ),
    OpInfo(
        "flatten",
        pt.flatten,
        _np_flatten,
        _flatten_samples,
        dtypes=FLOAT_DTYPES,
        op_class=pt.Reshape,
    ),
    OpInfo(
        "ravel",
        pt.ravel,
        np.ravel,
        lambda rng: [Sample((rng.normal(size=(3, 4)),))],
        op_class=pt.Reshape,
    ),
)
