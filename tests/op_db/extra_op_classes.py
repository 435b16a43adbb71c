"""op_db entries: PyTensor's op instances bartlett_, fill_diagonal_ and fill_diagonal_offset_
(one node each, the same values as the graph functions bartlett / fill_diagonal /
fill_diagonal_offset)."""

from __future__ import annotations

import numpy as np

from arignote.tensor.extra_op_classes import (
    Bartlett,
    FillDiagonal,
    FillDiagonalOffset,
    bartlett_,
    fill_diagonal_,
    fill_diagonal_offset_,
)
from tests.op_db.core import FLOAT_DTYPES, OpInfo, Sample, register


def _filled(a, val):
    out = a.copy()
    n = min(a.shape)
    out[(np.arange(n),) * a.ndim] = val
    return out


def _filled_offset(a, val, offset):
    out = a.copy()
    rows, cols = a.shape
    for i in range(rows):
        if 0 <= i + offset < cols:
            out[i, i + offset] = val
    return out


def _fill_samples(rng):
    return [
        Sample((rng.normal(size=(3, 5)), np.asarray(rng.normal())), name="wide"),
        Sample((rng.normal(size=(5, 3)), np.asarray(rng.normal())), name="tall"),
        Sample((rng.normal(size=(3, 3, 3)), np.asarray(rng.normal())), name="cube"),
    ]


def _offset_samples(rng):
    return [
        Sample((rng.normal(size=(4, 6)), np.asarray(rng.normal()), np.int64(offset)), name=name)
        for offset, name in ((2, "above"), (-1, "below"), (0, "main"), (7, "outside"))
    ] + [Sample((rng.normal(size=(6, 3)), np.asarray(rng.normal()), np.int64(-2)), name="tall")]


register(
    OpInfo(
        name="extra_ops.bartlett_",
        build=bartlett_,
        ref=np.bartlett,
        samples=lambda rng: [Sample((np.int64(m),), name=f"M={m}") for m in (0, 1, 6, 7)],
        op_class=Bartlett,
        grad=False,
    ),
    OpInfo(
        name="extra_ops.fill_diagonal_",
        build=fill_diagonal_,
        ref=_filled,
        samples=_fill_samples,
        dtypes=FLOAT_DTYPES,
        op_class=FillDiagonal,
    ),
    OpInfo(
        name="extra_ops.fill_diagonal_offset_",
        build=fill_diagonal_offset_,
        ref=_filled_offset,
        samples=_offset_samples,
        dtypes=FLOAT_DTYPES,
        op_class=FillDiagonalOffset,
    ),
)
