"""op_db entries: cumsum, cumprod, flip, repeat, tile, roll, diag, diagonal, trace, tril, triu."""

from __future__ import annotations

from itertools import pairwise

import numpy as np

import arignote.tensor as pt
from tests.op_db.core import FLOAT_DTYPES, Directive, OpInfo, Sample, register


def _with_zeros(rng, shape):
    """Values with zeros: lone ones, two in a group, and a group starting with one."""
    x = rng.uniform(0.5, 1.5, size=shape) * rng.choice([-1, 1], size=shape)
    x[0, 1] = x[1, 0] = x[1, 2] = x[2, 0] = 0.0
    return x


def _cum_samples(rng):
    draw = lambda size: rng.uniform(0.5, 1.5, size=size)  # noqa: E731
    return [
        Sample((_with_zeros(rng, (3, 4)),), {"axis": 1}, name="zeros"),
        Sample((_with_zeros(rng, (3, 4)),), {"axis": None}, name="zeros-flat"),
        Sample((draw((3, 4)),), {"axis": None}, name="flat"),
        Sample((draw((3, 4)),), {"axis": 0}, name="axis0"),
        Sample((draw((2, 3, 4)),), {"axis": -1}, name="last"),
        Sample((draw((1, 5)),), {"axis": 0}, name="broadcastable"),
        Sample((np.asarray(draw(())),), {"axis": None}, name="scalar"),
        Sample((rng.integers(-3, 4, size=(3, 4)).astype("int8"),), {"axis": 1}, name="int8"),
    ]


def _flip_samples(rng):
    return [
        Sample((rng.normal(size=(3, 4)),), {"axis": None}, name="all"),
        Sample((rng.normal(size=(2, 3, 4)),), {"axis": (0, -1)}, name="tuple"),
        Sample((rng.normal(size=(3, 4)),), {"axis": 1}, name="one"),
    ]


def _repeat_samples(rng):
    return [
        Sample((rng.normal(size=(3, 4)), 2), {"axis": 1}, name="scalar"),
        Sample((rng.normal(size=(3, 4)), np.asarray([2, 0, 3])), {"axis": 0}, name="per-element"),
        Sample((rng.normal(size=(2, 3)), 3), {"axis": None}, name="flat"),
        Sample((rng.normal(size=(2, 3, 4)), np.asarray(2)), {"axis": -1}, name="symbolic"),
        Sample((rng.normal(size=(3, 2)), [4]), {"axis": 0}, name="one-count"),
        Sample((rng.integers(0, 9, size=(3, 2)).astype("int32"), [1, 2]), {"axis": 1}, name="int"),
    ]


def _tile_samples(rng):
    return [
        Sample((rng.normal(size=(2, 3)), (3, 2)), name="same-ndim"),
        Sample((rng.normal(size=(3,)), (2, 1, 2)), name="longer-reps"),
        Sample((rng.normal(size=(2, 3, 4)), (2,)), name="shorter-reps"),
        Sample((rng.normal(size=(2, 3)), 1), name="identity"),
    ]


def _roll_samples(rng):
    return [
        Sample((rng.normal(size=(3, 5)), 2), {"axis": 1}, name="axis1"),
        Sample((rng.normal(size=(3, 5)), -7), {"axis": None}, name="flat"),
        Sample((rng.normal(size=(2, 3, 4)), (1, -2)), {"axis": (0, 2)}, name="tuple"),
        Sample((rng.normal(size=(4, 3)), np.asarray(5)), {"axis": 0}, name="symbolic"),
        Sample((rng.normal(size=(4, 3)), 0), {"axis": 0}, name="zero"),
    ]


def _diag_samples(rng):
    return [
        Sample((rng.normal(size=(4,)),), name="vector"),
        Sample((rng.normal(size=(3,)),), {"k": 2}, name="vector-above"),
        Sample((rng.normal(size=(3,)),), {"k": -1}, name="vector-below"),
        Sample((rng.normal(size=(3, 5)),), name="matrix"),
        Sample((rng.normal(size=(4, 3)),), {"k": -2}, name="matrix-below"),
    ]


def _diagonal_samples(rng):
    return [
        Sample((rng.normal(size=(3, 5)),), name="matrix"),
        Sample((rng.normal(size=(3, 5)),), {"offset": 2}, name="offset"),
        Sample((rng.normal(size=(2, 3, 4)),), {"offset": -1, "axis1": 1, "axis2": 2}, name="3d"),
        Sample((rng.normal(size=(2, 3, 4)),), {"axis1": -1, "axis2": 0}, name="reversed-axes"),
        Sample((rng.normal(size=(3, 4)),), {"offset": 7}, name="empty"),
    ]


def _triangle_samples(rng):
    return [
        Sample((rng.normal(size=(3, 5)),), name="wide"),
        Sample((rng.normal(size=(5, 3)),), {"k": -1}, name="tall-below"),
        Sample((rng.normal(size=(2, 3, 4)),), {"k": 1}, name="batched"),
        Sample((rng.integers(1, 9, size=(3, 4)).astype("int16"),), name="int"),
        Sample((rng.normal(size=(4,)),), name="vector"),
    ]


def _np_segment_sum(x, sizes, axis):
    bounds = np.r_[0, np.cumsum(sizes)]
    # in x's dtype, as the op (deliberate difference segment-sum-keeps-dtype): a boolean sum
    # is a logical or, so that the values later steps compute from it agree too
    pieces = [
        np.take(x, range(a, b), axis=axis).sum(axis=axis, dtype=x.dtype)
        for a, b in pairwise(bounds)
    ]
    return np.stack(pieces, axis=axis)


def _segment_sum_samples(rng):
    return [
        Sample((rng.normal(size=(3, 6)), np.array([2, 0, 1, 3])), {"axis": 1}, name="cols"),
        Sample((rng.normal(size=(4, 2)), np.array([4])), {"axis": 0}, name="one-group"),
    ]


def _np_alloc_diag(diagonal, rows, cols, offset, axis1, axis2):
    out = np.zeros(diagonal.shape[:-1] + (int(rows), int(cols)), dtype=diagonal.dtype)
    length = diagonal.shape[-1]
    i = np.arange(length)
    out[..., i + max(-offset, 0), i + max(offset, 0)] = diagonal
    return np.moveaxis(out, (-2, -1), (axis1, axis2))


def _alloc_diag_samples(rng):
    return [
        Sample((rng.normal(size=(3,)), 3, 5), {"offset": 2, "axis1": 0, "axis2": 1}, name="wide"),
        Sample(
            (rng.normal(size=(2, 3)), np.asarray(4), np.asarray(3)),
            {"offset": -1, "axis1": 2, "axis2": 0},
            name="batched",
        ),
    ]


def _alloc_diag(diagonal, rows, cols, offset, axis1, axis2):
    return pt.AllocDiag(offset, axis1, axis2)(diagonal, rows, cols)


register(
    OpInfo("cumsum", pt.cumsum, np.cumsum, _cum_samples, dtypes=FLOAT_DTYPES, op_class=pt.CumOp),
    OpInfo(
        "cumprod",
        pt.cumprod,
        np.cumprod,
        _cum_samples,
        dtypes=FLOAT_DTYPES,
        op_class=pt.CumOp,
        directives=[
            Directive(
                "second_order",
                "first derivatives are exact at zeros; the second derivative there would need "
                "a dedicated zero-tracking op (the gradient graph switches on the zero count)",
                samples=["zeros", "zeros-flat"],
            )
        ],
    ),
    OpInfo("flip", pt.flip, np.flip, _flip_samples, dtypes=FLOAT_DTYPES, op_class=pt.Flip),
    OpInfo(
        "fliplr",
        pt.fliplr,
        np.fliplr,
        lambda rng: [Sample((rng.normal(size=(3, 4)),))],
        op_class=pt.Flip,
    ),
    OpInfo(
        "flipud",
        pt.flipud,
        np.flipud,
        lambda rng: [Sample((rng.normal(size=(3, 4)),))],
        op_class=pt.Flip,
    ),
    OpInfo(
        "repeat", pt.repeat, np.repeat, _repeat_samples, dtypes=FLOAT_DTYPES, op_class=pt.Repeat
    ),
    OpInfo("tile", pt.tile, np.tile, _tile_samples, dtypes=FLOAT_DTYPES, op_class=pt.Alloc),
    OpInfo("roll", pt.roll, np.roll, _roll_samples, dtypes=FLOAT_DTYPES, op_class=pt.Join),
    OpInfo("diag", pt.diag, np.diag, _diag_samples, dtypes=FLOAT_DTYPES, op_class=pt.AllocDiag),
    OpInfo(
        "diagonal",
        pt.diagonal,
        np.diagonal,
        _diagonal_samples,
        dtypes=FLOAT_DTYPES,
        op_class=pt.ExtractDiag,
    ),
    OpInfo(
        "trace", pt.trace, np.trace, _diagonal_samples, dtypes=FLOAT_DTYPES, op_class=pt.ExtractDiag
    ),
    OpInfo(
        "SegmentSum",
        lambda x, sizes, axis: pt.SegmentSum(axis)(x, sizes),
        _np_segment_sum,
        _segment_sum_samples,
        dtypes=FLOAT_DTYPES,
        op_class=pt.SegmentSum,
    ),
    OpInfo(
        "AllocDiag",
        _alloc_diag,
        _np_alloc_diag,
        _alloc_diag_samples,
        dtypes=FLOAT_DTYPES,
        op_class=pt.AllocDiag,
    ),
    OpInfo("tril", pt.tril, np.tril, _triangle_samples, dtypes=FLOAT_DTYPES, op_class=pt.ARange),
    OpInfo("triu", pt.triu, np.triu, _triangle_samples, dtypes=FLOAT_DTYPES, op_class=pt.ARange),
)
