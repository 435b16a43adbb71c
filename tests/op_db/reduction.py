"""op_db entries: reductions (sum, prod, mean, var, std, max, min, argmax, argmin, all, any,
ptp, max_and_argmax)."""

from __future__ import annotations

import numpy as np

import arignote.tensor as pt
from tests.op_db.core import FLOAT_DTYPES, OpInfo, Sample, register

INT_DTYPES = ("int32",)  # labels only: integer samples are built with their own dtypes


def _axis_samples(rng, values=None):
    draw = values or (lambda size: rng.normal(size=size))
    return [
        Sample((draw((3, 5)),), {"axis": None}, name="all-axes"),
        Sample((draw((3, 5)),), {"axis": 0}, name="axis0"),
        Sample((draw((2, 3, 4)),), {"axis": -1, "keepdims": True}, name="negative-keepdims"),
        Sample((draw((2, 3, 4)),), {"axis": (0, 2)}, name="tuple"),
        Sample((draw((2, 3, 4)),), {"axis": None, "keepdims": True}, name="all-keepdims"),
        Sample((draw((1, 4)),), {"axis": 0}, name="broadcastable"),
        Sample((np.asarray(draw(())),), {}, name="scalar"),
    ]


def _int_samples(rng):
    return [
        Sample((rng.integers(-4, 5, size=(3, 5)).astype("int32"),), {"axis": 1}, name="int32"),
        Sample((rng.integers(0, 5, size=(2, 3, 4)).astype("uint8"),), {"axis": (0, 1)}, name="u8"),
        Sample((rng.integers(0, 2, size=(3, 4)).astype(bool),), {"axis": None}, name="bool"),
    ]


def _prod_samples(rng):
    x = rng.uniform(0.5, 1.5, size=(3, 5))
    x[0, 1] = 0.0  # a group (column 1) with one zero
    x[1, 3] = x[2, 3] = 0.0  # a group (column 3) with two zeros
    return [
        *_axis_samples(rng, lambda size: rng.uniform(0.5, 1.5, size=size)),
        Sample((x,), {"axis": 0}, name="zeros"),
        Sample((x,), {"axis": None}, name="zeros-all"),
        Sample((x,), {"axis": 1, "keepdims": True}, name="zeros-rows"),
    ]


def _var_samples(rng):
    return [
        Sample((rng.normal(size=(3, 5)),), {"axis": None}, name="all-axes"),
        Sample((rng.normal(size=(3, 5)),), {"axis": 1, "ddof": 1}, name="ddof1"),
        Sample((rng.normal(size=(2, 3, 4)),), {"axis": (0, -1), "keepdims": True}, name="tuple"),
        Sample((rng.normal(size=(4, 3)),), {"axis": 0, "ddof": 2}, name="ddof2"),
    ]


def _reduction(name, fn, ref, samples=_axis_samples, **extra):
    return OpInfo(name, fn, ref, samples, dtypes=FLOAT_DTYPES, **extra)


def _int_reduction(name, fn, ref, **extra):
    return OpInfo(name, fn, ref, _int_samples, dtypes=INT_DTYPES, grad=False, **extra)


def _argmax_samples(rng):
    return [
        Sample((rng.normal(size=(3, 5)),), {"axis": None}, name="flat"),
        Sample((rng.normal(size=(3, 5)),), {"axis": -1}, name="last"),
        Sample((rng.normal(size=(2, 3, 4)),), {"axis": 1, "keepdims": True}, name="keepdims"),
        Sample((rng.integers(-9, 9, size=(4, 3)).astype("int16"),), {"axis": 0}, name="int16"),
    ]


def _argmax_ref(fn):
    def ref(x, axis=None, keepdims=False):
        return fn(x, axis=axis, keepdims=keepdims)

    return ref


def _bool_samples(rng):
    x = rng.normal(size=(3, 5))
    x[rng.random(size=x.shape) < 0.4] = 0.0
    return [
        Sample((x,), {"axis": None}, name="all-axes"),
        Sample((x,), {"axis": 0}, name="axis0"),
        Sample((x,), {"axis": -1, "keepdims": True}, name="keepdims"),
        Sample((rng.integers(0, 2, size=(2, 3, 4)).astype(bool),), {"axis": (0, 2)}, name="bool"),
    ]


def _max_and_argmax(x, axis=None, keepdims=False):
    return [np.max(x, axis=axis, keepdims=keepdims), np.argmax(x, axis=axis, keepdims=keepdims)]


register(
    _reduction("sum", pt.sum, np.sum, op_class=pt.Sum),
    _int_reduction("sum[int]", pt.sum, np.sum, op_class=pt.Sum),
    _reduction("prod", pt.prod, np.prod, _prod_samples, op_class=pt.Prod),
    _int_reduction("prod[int]", pt.prod, np.prod, op_class=pt.Prod),
    _reduction("mean", pt.mean, np.mean, op_class=pt.Sum),
    _int_reduction("mean[int]", pt.mean, np.mean, op_class=pt.Sum),
    _reduction("var", pt.var, np.var, _var_samples, op_class=pt.Sum),
    _reduction("std", pt.std, np.std, _var_samples, op_class=pt.Sum),
    _reduction("max", pt.max, np.max, op_class=pt.Max),
    _reduction("min", pt.min, np.min, op_class=pt.Min),
    _int_reduction("max[int]", pt.max, np.max, op_class=pt.Max),
    _reduction("ptp", pt.ptp, np.ptp, op_class=pt.Max),
    OpInfo(
        "argmax",
        pt.argmax,
        _argmax_ref(np.argmax),
        _argmax_samples,
        dtypes=FLOAT_DTYPES,
        op_class=pt.Argmax,
        grad=False,
    ),
    OpInfo(
        "argmin",
        pt.argmin,
        _argmax_ref(np.argmin),
        _argmax_samples,
        dtypes=FLOAT_DTYPES,
        op_class=pt.Argmin,
        grad=False,
    ),
    OpInfo(
        "max_and_argmax",
        pt.max_and_argmax,
        _max_and_argmax,
        _argmax_samples,
        dtypes=FLOAT_DTYPES,
        op_class=pt.Argmax,
    ),
    OpInfo("all", pt.all, np.all, _bool_samples, op_class=pt.All, grad=False),
    OpInfo("any", pt.any, np.any, _bool_samples, op_class=pt.Any, grad=False),
)
