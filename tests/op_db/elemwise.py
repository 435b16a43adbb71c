"""op_db entries: elementwise math."""

from __future__ import annotations

import numpy as np

import arignote.tensor as pt
from tests.op_db.core import FLOAT_DTYPES, OpInfo, Sample, register


def _unary(low: float = -2.0, high: float = 2.0):
    def samples(rng):
        return [
            Sample((rng.uniform(low, high, size=(3, 4)),), name="matrix"),
            Sample((rng.uniform(low, high, size=(5,)),), name="vector"),
            Sample((np.asarray(rng.uniform(low, high)),), name="scalar"),
        ]

    return samples


def _binary(low: float = -2.0, high: float = 2.0):
    def samples(rng):
        return [
            Sample((rng.uniform(low, high, (3, 4)), rng.uniform(low, high, (3, 4))), name="same"),
            Sample(
                (rng.uniform(low, high, (2, 3)), rng.uniform(low, high, (3,))), name="broadcast"
            ),
        ]

    return samples


register(
    OpInfo("exp", pt.exp, np.exp, _unary(), dtypes=FLOAT_DTYPES, op_class=pt.Elemwise),
    OpInfo("log", pt.log, np.log, _unary(0.5, 3.0), dtypes=FLOAT_DTYPES, op_class=pt.Elemwise),
    OpInfo("tanh", pt.tanh, np.tanh, _unary(), dtypes=FLOAT_DTYPES, op_class=pt.Elemwise),
    OpInfo("add", pt.add, np.add, _binary(), dtypes=FLOAT_DTYPES, op_class=pt.Elemwise),
    OpInfo("mul", pt.mul, np.multiply, _binary(), dtypes=FLOAT_DTYPES, op_class=pt.Elemwise),
    OpInfo(
        "true_div",
        pt.true_div,
        np.true_divide,
        _binary(0.5, 2.0),
        dtypes=FLOAT_DTYPES,
        op_class=pt.Elemwise,
    ),
)
