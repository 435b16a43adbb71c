"""op_db entries: arignote.tensor.ravel (unravel_index, ravel_multi_index)."""

from __future__ import annotations

import numpy as np

import arignote.tensor as pt
from tests.op_db.core import OpInfo, Sample, register


def _flat_samples(rng):
    return [
        Sample((rng.integers(0, 24, size=(3, 2)), (2, 3, 4)), static=(1,), name="C"),
        Sample((rng.integers(0, 24, size=(5,)), (4, 6)), {"order": "F"}, static=(1,), name="F"),
    ]


def _multi_samples(rng):
    rows, cols = rng.integers(0, 3, size=(2, 4)), rng.integers(0, 5, size=(1, 4))
    return [
        Sample((rows, cols), name="broadcast"),
        Sample((rows + 2, cols - 2), {"mode": "clip"}, name="clip"),
        Sample((rows + 4, cols + 6), {"mode": "wrap", "order": "F"}, name="wrap_F"),
    ]


register(
    OpInfo(
        "unravel_index",
        pt.unravel_index,
        np.unravel_index,
        _flat_samples,
        dtypes=("int64",),
        op_class=pt.UnravelIndex,
        grad=False,
    ),
    OpInfo(
        "ravel_multi_index",
        lambda r, c, **kw: pt.ravel_multi_index((r, c), (3, 5), **kw),
        lambda r, c, **kw: np.ravel_multi_index((r, c), (3, 5), **kw),
        _multi_samples,
        dtypes=("int64",),
        op_class=pt.RavelMultiIndex,
        grad=False,
    ),
)
