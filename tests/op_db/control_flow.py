"""op_db entries: ifelse (one and several outputs) and the run-time checks of raise_op.

The condition of ``ifelse`` is an integer input (never differentiated); both values of it are
sampled, so that each branch is checked. References are plain Python conditionals.
"""

from __future__ import annotations

import numpy as np

import arignote.tensor as pt
from arignote.ifelse import IfElse, ifelse
from arignote.raise_op import Assert, CheckAndRaise
from tests.op_db.core import FLOAT_DTYPES, OpInfo, Sample, register


def _ifelse_samples(rng):
    return [
        Sample(
            (np.asarray(taken, dtype="int8"), rng.normal(size=(3, 4)), rng.normal(size=(3, 4))),
            name=name,
        )
        for taken, name in ((1, "then"), (0, "else"))
    ] + [Sample((np.asarray(2), rng.normal(size=(2,)), rng.normal(size=(5,))), name="lengths")]


def _ifelse_ref(condition, a, b):
    return a if condition else b


def _pair_build(condition, a, b, c, d):
    first, second = ifelse(condition, [pt.sin(a), b * 2], [c, pt.exp(d)])
    return [first, second]


def _pair_ref(condition, a, b, c, d):
    return [np.sin(a), b * 2] if condition else [c, np.exp(d)]


def _pair_samples(rng):
    return [
        Sample(
            (
                np.asarray(taken),
                rng.normal(size=(3, 2)),
                rng.normal(size=(4,)),
                rng.normal(size=(3, 2)),
                rng.normal(size=(5,)),
            ),
            name=name,
        )
        for taken, name in ((1, "then"), (0, "else"))
    ]


def _check_samples(rng):
    return [
        Sample((rng.uniform(0.5, 2.0, size=(3, 4)),), name="matrix"),
        Sample((rng.uniform(0.5, 2.0, size=(5,)),), name="vector"),
    ]


def _assert_build(x):
    return Assert("x has a non-positive entry")(x, pt.all(pt.gt(x, 0)), pt.gt(x.shape[0], 1))


def _check_build(x):
    return CheckAndRaise(ValueError, "x is empty")(x, pt.gt(x.shape[0], 0)) * 3


register(
    OpInfo("ifelse", ifelse, _ifelse_ref, _ifelse_samples, FLOAT_DTYPES, op_class=IfElse),
    OpInfo("ifelse[pair]", _pair_build, _pair_ref, _pair_samples, op_class=IfElse),
    OpInfo("Assert", _assert_build, lambda x: x, _check_samples, FLOAT_DTYPES, op_class=Assert),
    OpInfo(
        "CheckAndRaise",
        _check_build,
        lambda x: x * 3,
        _check_samples,
        op_class=CheckAndRaise,
    ),
)
