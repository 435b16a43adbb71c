"""op_db entries: ifelse (one and several outputs), the run-time checks of raise_op, and
OpFromGraph (plain, with derivative overrides, nested).

The condition of ``ifelse`` is an integer input (never differentiated); both values of it are
sampled, so that each branch is checked. References are plain Python conditionals.
"""

from __future__ import annotations

import numpy as np

import arignote.tensor as pt
from arignote.compile.builders import OpFromGraph
from arignote.graph.grad_types import is_disconnected
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


_a, _b = pt.dmatrix("a"), pt.dvector("b")
# f(a, b) = (tanh(a * b) + a, sum(a ** 2, axis=1)): rows of a scaled by b, two outputs
_PLAIN = OpFromGraph([_a, _b], [pt.tanh(_a * _b) + _a, (_a**2).sum(axis=1)])


def _lop(inputs, outputs, grads):
    # the true gradient, written by hand: d tanh(u) = (1 - tanh(u)^2) du
    a, b = inputs
    # an output the cost does not use gets a DisconnectedType gradient
    g_first, g_second = (
        pt.zeros_like(o) if is_disconnected(g) else g for g, o in zip(grads, outputs)
    )
    inner = g_first * (1 - pt.tanh(a * b) ** 2)
    return [inner * b + g_first + 2 * a * g_second.dimshuffle(0, "x"), (inner * a).sum(axis=0)]


def _rop(inputs, eval_points):
    a, b = inputs
    da, db = eval_points
    du = da * b + a * db
    return [(1 - pt.tanh(a * b) ** 2) * du + da, (2 * a * da).sum(axis=1)]


_OVERRIDDEN = OpFromGraph(
    [_a, _b],
    [pt.tanh(_a * _b) + _a, (_a**2).sum(axis=1)],
    lop_overrides=_lop,
    rop_overrides=_rop,
    name="overridden",
)
_NESTED = OpFromGraph([_a, _b], [_PLAIN(_a * 2, _b)[0] * 3])


def _plain_ref(a, b):
    return [np.tanh(a * b) + a, (a**2).sum(axis=1)]


def _ofg_samples(rng):
    return [
        Sample((rng.normal(size=(3, 4)), rng.normal(size=(4,))), name="3x4"),
        Sample((rng.normal(size=(2, 5)), rng.normal(size=(5,))), name="2x5"),
    ]


register(
    OpInfo(
        "OpFromGraph", lambda a, b: _PLAIN(a, b), _plain_ref, _ofg_samples, op_class=OpFromGraph
    ),
    OpInfo(
        "OpFromGraph[overrides]",
        lambda a, b: _OVERRIDDEN(a, b),
        _plain_ref,
        _ofg_samples,
        op_class=OpFromGraph,
    ),
    OpInfo(
        "OpFromGraph[nested]",
        lambda a, b: _NESTED(a, b),
        lambda a, b: 3 * (np.tanh(2 * a * b) + 2 * a),
        _ofg_samples,
        op_class=OpFromGraph,
    ),
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
