"""op_db entries: joining and splitting (concatenate, join, stack, hstack, vstack, split, and
``as_tensor_variable`` of a list of tensors)."""

from __future__ import annotations

import numpy as np

import arignote.tensor as pt
from tests.op_db.core import FLOAT_DTYPES, OpInfo, Sample, register


def _concatenate_samples(rng):
    return [
        Sample((rng.normal(size=(2, 4)), rng.normal(size=(3, 4))), {"axis": 0}, name="rows"),
        Sample((rng.normal(size=(3, 2)), rng.normal(size=(3, 5))), {"axis": -1}, name="last"),
        Sample((rng.normal(size=(2, 3)), rng.normal(size=(4,))), {"axis": None}, name="flat"),
        Sample((rng.normal(size=(2, 1, 4)), rng.normal(size=(2, 3, 4))), {"axis": 1}, name="bcast"),
        Sample(
            (rng.normal(size=(2, 3)), rng.integers(0, 5, size=(1, 3)).astype("int32")),
            {"axis": 0},
            name="mixed-dtypes",
        ),
    ]


def _concatenate(*tensors, axis=0):
    return pt.concatenate(tensors, axis=axis)


def _np_concatenate(*arrays, axis=0):
    return np.concatenate(arrays, axis=axis)


def _stack_samples(rng):
    return [
        Sample((rng.normal(size=(3, 4)), rng.normal(size=(3, 4))), {"axis": 0}, name="first"),
        Sample(
            (rng.normal(size=(2, 3)), rng.normal(size=(2, 3)), rng.normal(size=(2, 3))),
            {"axis": -1},
            name="last",
        ),
        Sample((np.asarray(rng.normal()), np.asarray(rng.normal())), name="scalars"),
    ]


def _stack(*tensors, axis=0):
    return pt.stack(tensors, axis=axis)


def _np_stack(*arrays, axis=0):
    return np.stack(arrays, axis=axis)


def _split_samples(rng):
    return [
        Sample((rng.normal(size=(6, 4)), (1, 3, 2)), {"axis": 0}, name="uneven"),
        Sample((rng.normal(size=(3, 5)), (4, 0, 1)), {"axis": -1}, name="empty-piece"),
        Sample(
            (rng.normal(size=(2, 7)), np.asarray(2), np.asarray(5)), {"axis": 1}, name="symbolic"
        ),
    ]


def _split(x, *sizes, axis=0):
    sizes = sizes[0] if len(sizes) == 1 else sizes
    return pt.split(x, sizes, len(sizes), axis=axis)


def _np_split(x, *sizes, axis=0):
    sizes = sizes[0] if len(sizes) == 1 else sizes
    return np.split(x, np.cumsum([int(s) for s in sizes])[:-1], axis=axis)


def _hv_samples(rng):
    return [
        Sample((rng.normal(size=(3,)), rng.normal(size=(3,))), name="vectors"),
        Sample((rng.normal(size=(2, 3)), rng.normal(size=(2, 3))), name="matrices"),
    ]


register(
    OpInfo(
        "concatenate",
        _concatenate,
        _np_concatenate,
        _concatenate_samples,
        dtypes=FLOAT_DTYPES,
        op_class=pt.Join,
    ),
    OpInfo(
        "join",
        lambda *xs: pt.join(1, *xs),
        lambda *xs: np.concatenate(xs, axis=1),
        lambda rng: [Sample((rng.normal(size=(3, 2)), rng.normal(size=(3, 4))))],
        dtypes=FLOAT_DTYPES,
        op_class=pt.Join,
    ),
    OpInfo("stack", _stack, _np_stack, _stack_samples, dtypes=FLOAT_DTYPES, op_class=pt.Join),
    OpInfo(
        "as_tensor_variable[list]",
        lambda *xs: pt.as_tensor_variable(list(xs)),
        lambda *xs: np.stack(xs),
        lambda rng: [Sample((rng.normal(size=(3,)), rng.normal(size=(3,))))],
        dtypes=FLOAT_DTYPES,
        op_class=pt.Join,
    ),
    OpInfo(
        "hstack",
        lambda *xs: pt.hstack(xs),
        lambda *xs: np.hstack(xs),
        _hv_samples,
        op_class=pt.Join,
    ),
    OpInfo(
        "vstack",
        lambda *xs: pt.vstack(xs),
        lambda *xs: np.vstack(xs),
        _hv_samples,
        op_class=pt.Join,
    ),
    OpInfo("split", _split, _np_split, _split_samples, dtypes=FLOAT_DTYPES, op_class=pt.Split),
    OpInfo(
        "split[sections]",
        pt.split,
        np.split,
        lambda rng: [
            Sample((rng.normal(size=(6, 4)), 3), {"axis": 0}, name="rows"),
            Sample((rng.normal(size=(2, 3, 4)), 2), {"axis": -1}, name="last"),
        ],
        dtypes=FLOAT_DTYPES,
        op_class=pt.Split,
    ),
)
