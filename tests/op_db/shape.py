"""op_db entries: shapes and dimension shuffles (shape, shape_i, shape_tuple, specify_shape,
specify_broadcastable, shape_padleft/right/axis, transpose, moveaxis, swapaxes, expand_dims,
squeeze, atleast_1d/2d/3d)."""

from __future__ import annotations

import numpy as np

import arignote.tensor as pt
from tests.op_db.core import FLOAT_DTYPES, OpInfo, Sample, register


def _one(*shapes):
    def samples(rng):
        return [Sample((rng.normal(size=s),), name="x".join(map(str, s)) or "0d") for s in shapes]

    return samples


def _with_kwargs(*cases):
    def samples(rng):
        return [
            Sample((rng.normal(size=shape),), kwargs, name=name) for name, shape, kwargs in cases
        ]

    return samples


def _pad_left(x, n_ones=1):
    return x.reshape((1,) * n_ones + x.shape)


def _pad_right(x, n_ones=1):
    return x.reshape(x.shape + (1,) * n_ones)


def _dimshuffle(name, fn, ref, samples):
    return OpInfo(name, fn, ref, samples, dtypes=FLOAT_DTYPES, op_class=pt.DimShuffle)


register(
    OpInfo(
        "shape",
        pt.shape,
        lambda x: np.asarray(x.shape, dtype="int64"),
        _one((3, 4), (2, 1, 5), ()),
        op_class=pt.Shape,
        grad=False,
    ),
    OpInfo(
        "specify_shape",
        lambda x: pt.specify_shape(x, (3, None)),
        lambda x: x,
        _one((3, 4)),
        dtypes=FLOAT_DTYPES,
        op_class=pt.SpecifyShape,
    ),
    OpInfo(
        "shape_i",
        lambda x: pt.shape_i(x, -1),
        lambda x: np.int64(x.shape[-1]),
        _one((3, 4), (2, 1, 5)),
        op_class=pt.Shape_i,
        grad=False,
    ),
    OpInfo(
        "shape_tuple",
        pt.shape_tuple,
        lambda x: [np.int64(n) for n in x.shape],
        _one((3, 4), (2, 1, 5)),
        op_class=pt.Shape_i,
        grad=False,
    ),
    OpInfo(
        "specify_broadcastable",
        lambda x: pt.specify_broadcastable(x, 0, 2),
        lambda x: x,
        _one((1, 4, 1)),
        dtypes=FLOAT_DTYPES,
        op_class=pt.SpecifyShape,
    ),
    _dimshuffle("shape_padleft", pt.shape_padleft, _pad_left, _one((3, 4), ())),
    _dimshuffle(
        "shape_padaxis",
        pt.shape_padaxis,
        np.expand_dims,
        _with_kwargs(("middle", (3, 4), {"axis": 1}), ("negative", (3, 4), {"axis": -1})),
    ),
    _dimshuffle(
        "shape_padright",
        lambda x: pt.shape_padright(x, 2),
        lambda x: _pad_right(x, 2),
        _one((3, 4), (5,)),
    ),
    _dimshuffle(
        "transpose",
        pt.transpose,
        np.transpose,
        _with_kwargs(
            ("reverse", (2, 3, 4), {}),
            ("axes", (2, 3, 4), {"axes": (1, -1, 0)}),
            ("matrix", (3, 5), {}),
        ),
    ),
    _dimshuffle(
        "moveaxis",
        pt.moveaxis,
        np.moveaxis,
        _with_kwargs(
            ("one", (2, 3, 4), {"source": 0, "destination": -1}),
            ("two", (2, 3, 4, 5), {"source": (0, 3), "destination": (2, 0)}),
        ),
    ),
    _dimshuffle(
        "swapaxes",
        pt.swapaxes,
        np.swapaxes,
        _with_kwargs(
            ("first-last", (2, 3, 4), {"axis1": 0, "axis2": -1}),
            ("same", (3, 4), {"axis1": 1, "axis2": 1}),
        ),
    ),
    _dimshuffle(
        "expand_dims",
        pt.expand_dims,
        np.expand_dims,
        _with_kwargs(
            ("front", (3, 4), {"axis": 0}),
            ("negative", (3, 4), {"axis": -1}),
            ("tuple", (3, 4), {"axis": (0, 3)}),
        ),
    ),
    _dimshuffle(
        "squeeze",
        pt.squeeze,
        np.squeeze,
        _with_kwargs(
            ("all", (1, 3, 1, 4), {}),
            ("one", (1, 3, 1, 4), {"axis": 2}),
            ("tuple", (1, 3, 1), {"axis": (0, -1)}),
        ),
    ),
    _dimshuffle("atleast_1d", pt.atleast_1d, np.atleast_1d, _one((), (3,), (2, 3))),
    _dimshuffle("atleast_2d", pt.atleast_2d, np.atleast_2d, _one((), (3,), (2, 3))),
    _dimshuffle("atleast_3d", pt.atleast_3d, np.atleast_3d, _one((), (3,), (2, 3), (2, 3, 4))),
    _dimshuffle(
        "atleast_2d[many]",
        lambda x, y: pt.atleast_2d(x, y),
        lambda x, y: list(np.atleast_2d(x, y)),
        lambda rng: [Sample((rng.normal(size=(3,)), rng.normal(size=(2, 4))))],
    ),
)
