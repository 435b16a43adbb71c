"""op_db entry: indexing with a slice variable made by ``make_slice`` (PyTensor's type_other)."""

from __future__ import annotations

import numpy as np

import arignote.tensor as pt
from tests.op_db.core import FLOAT_DTYPES, OpInfo, Sample, register


def _samples(rng):
    return [
        Sample((rng.normal(size=(6, 4)), np.int64(4), np.int64(0)), name="reversed"),
        Sample((rng.normal(size=(5, 3)), np.int64(-4), np.int64(5)), name="negative-start"),
    ]


register(
    OpInfo(
        name="make_slice[index]",
        build=lambda x, start, stop: x[pt.make_slice(start, stop, 2), pt.NoneSliceConst],
        ref=lambda x, start, stop: x[start:stop:2, :],
        samples=_samples,
        dtypes=FLOAT_DTYPES,
    ),
)
