"""op_db entries: BLAS-backed products (gemm, gemv, ger)."""

from __future__ import annotations

import numpy as np

from arignote.tensor.blas import Gemm, Gemv, Ger, gemm, gemv, ger
from tests.op_db.core import FLOAT_DTYPES, OpInfo, Sample, register


def _gemm_samples(rng):
    return [
        Sample(
            (
                rng.normal(size=(3, 5)),
                np.asarray(1.5),
                rng.normal(size=(3, 4)),
                rng.normal(size=(4, 5)),
                np.asarray(-0.5),
            ),
            name="matrices",
        )
    ]


def _gemv_samples(rng):
    return [
        Sample(
            (
                rng.normal(size=3),
                np.asarray(0.7),
                rng.normal(size=(3, 4)),
                rng.normal(size=4),
                np.asarray(2.0),
            ),
            name="matrix_vector",
        )
    ]


def _ger_samples(rng):
    return [
        Sample(
            (rng.normal(size=(3, 4)), np.asarray(-1.3), rng.normal(size=3), rng.normal(size=4)),
            name="rank_one",
        )
    ]


register(
    OpInfo(
        "gemm",
        gemm,
        lambda z, a, x, y, b: b * z + a * (x @ y),
        _gemm_samples,
        dtypes=FLOAT_DTYPES,
        op_class=Gemm,
    ),
    OpInfo(
        "gemv",
        gemv,
        lambda y, a, m, x, b: b * y + a * (m @ x),
        _gemv_samples,
        dtypes=FLOAT_DTYPES,
        op_class=Gemv,
    ),
    OpInfo(
        "ger",
        ger,
        lambda m, a, x, y: m + a * np.outer(x, y),
        _ger_samples,
        dtypes=FLOAT_DTYPES,
        op_class=Ger,
    ),
)
