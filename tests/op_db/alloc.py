"""op_db entries: creating tensors (zeros, ones, full, empty, *_like, eye, identity_like, tri,
arange, linspace, alloc, fill, broadcast_to, broadcast_arrays, broadcast_shape)."""

from __future__ import annotations

import numpy as np

import arignote.tensor as pt
from tests.op_db.core import FLOAT_DTYPES, Directive, OpInfo, Sample, register


def _size(n: int) -> np.ndarray:
    """A dimension length given as a 0-d int64 array: a symbolic input in the generated tests."""
    return np.asarray(n, dtype="int64")


def _shape_samples(rng):
    """The lengths are separate arguments (0-d arrays become symbolic inputs)."""
    return [
        Sample((3, 4), name="static"),
        Sample((2, 3, 5), {"dtype": "int32"}, name="static-int32"),
        Sample((_size(3), 4), name="symbolic-length"),
        Sample((0, 4), {"dtype": "float32"}, name="empty"),
        Sample((), name="scalar"),
    ]


def _by_shape(fn):
    """``fn(shape, **kwargs)`` called with the lengths given as separate arguments."""

    def call(*lengths, **kwargs):
        return fn(lengths, **kwargs)

    return call


def _full_samples(rng):
    return [
        Sample((np.asarray(rng.normal()), 3, 4), name="scalar-value"),
        Sample((rng.normal(size=(3, 1)), 2, 3, 4), name="broadcast-value"),
        Sample((rng.normal(size=(5,)), _size(2), 5), name="symbolic-length"),
        Sample((np.asarray(7, dtype="int16"), 3, 4), {"dtype": "float32"}, name="dtype"),
    ]


def _full(fn):
    def call(value, *lengths, **kwargs):
        return fn(lengths, value, **kwargs)

    return call


def _like_samples(rng):
    return [
        Sample((rng.normal(size=(3, 4)), np.asarray(rng.normal())), name="matrix"),
        Sample((rng.normal(size=(2, 3, 4)), 2.5), {"dtype": "int32"}, name="dtype"),
        Sample((rng.integers(0, 9, size=(5,)).astype("int16"), 7.9), name="int"),
    ]


def _zeros_like_samples(rng):
    return [
        Sample((rng.normal(size=(3, 4)),), name="matrix"),
        Sample((rng.normal(size=(2, 1, 4)),), {"dtype": "int32"}, name="dtype"),
        Sample((rng.integers(0, 9, size=(5,)).astype("int16"),), name="int"),
        Sample((np.asarray(rng.normal()),), {"dtype": np.dtype("float32")}, name="scalar"),
    ]


def _eye_samples(rng):
    return [
        Sample((3,), name="square"),
        Sample((3, 5, 1), name="wide-offset"),
        Sample((5, 3, -2), {"dtype": "int32"}, name="tall-negative-offset"),
        Sample((_size(4), _size(2), _size(1)), name="symbolic"),
    ]


def _arange_samples(rng):
    return [
        Sample((7,), name="count"),
        Sample((2, 11, 3), name="int"),
        Sample((10, -3, -4), name="negative-step"),
        Sample((np.asarray(0.5), np.asarray(7.3), np.asarray(1.1)), name="float"),
        Sample((np.asarray(4.2), np.asarray(-1.5), np.asarray(-0.7)), name="float-negative"),
        Sample((_size(2), _size(13), _size(4)), name="symbolic-int"),
        Sample((5, 2), name="empty"),
        Sample((0, 6, 2), {"dtype": "float32"}, name="dtype"),
    ]


def _linspace_samples(rng):
    return [
        Sample((np.asarray(-1.3), np.asarray(2.9), 7), name="scalar"),
        Sample((np.asarray(0.2), np.asarray(1.7), 6), {"endpoint": False}, name="no-endpoint"),
        Sample((np.asarray(0.5), np.asarray(2.5), 1), name="one"),
        Sample((np.asarray(0.5), np.asarray(2.5), _size(5)), name="symbolic-num"),
        Sample((rng.normal(size=(3,)), np.asarray(4.0), 5), name="array-start"),
        Sample((rng.normal(size=(2, 1)), rng.normal(size=(3,)), 4), {"axis": -1}, name="axis"),
        Sample((np.asarray(1.0), np.asarray(8.0), 5), {"dtype": "int64"}, name="int-dtype"),
    ]


def _linspace_retstep(start, stop, num, **kwargs):
    return pt.linspace(start, stop, num, retstep=True, **kwargs)


def _np_linspace_retstep(start, stop, num, **kwargs):
    return list(np.linspace(start, stop, num, retstep=True, **kwargs))


def _alloc_samples(rng):
    return [
        Sample((rng.normal(size=(4,)), 3, 4), name="leading"),
        Sample((rng.normal(size=(1, 4)), 2, 3, 4), name="broadcastable"),
        Sample((np.asarray(rng.normal()), _size(3), _size(5)), name="scalar-symbolic"),
        Sample((rng.normal(size=(3, 4)), 3, 4), name="same"),
    ]


def _np_alloc(value, *shape):
    return np.broadcast_to(value, shape).copy()


def _broadcast_to_samples(rng):
    return [
        Sample((rng.normal(size=(4,)), 3, 4), name="leading"),
        Sample((rng.normal(size=(3, 1)), 2, 3, 5), name="broadcastable"),
        Sample((np.asarray(rng.normal()), _size(2), 3), name="scalar"),
    ]


def _broadcast_arrays_samples(rng):
    return [
        Sample((rng.normal(size=(3, 1)), rng.normal(size=(4,))), name="outer"),
        Sample((rng.normal(size=(2, 3, 4)), rng.normal(size=(3, 4))), name="leading"),
        Sample((rng.normal(size=(3, 4)), rng.normal(size=(3, 4))), name="same"),
    ]


def _broadcast_shape(*arrays):
    return pt.broadcast_shape(*arrays)


def _np_broadcast_shape(*arrays):
    return [np.int64(n) for n in np.broadcast_shapes(*[a.shape for a in arrays])]


def _tri_samples(rng):
    return [
        Sample((3,), name="square"),
        Sample((3, 5, 1), name="wide"),
        Sample((5, 2, -1), {"dtype": "int32"}, name="tall"),
        Sample((_size(4), _size(6), _size(2)), name="symbolic"),
    ]


def _fill_samples(rng):
    return [
        Sample((rng.normal(size=(3, 4)), np.asarray(rng.normal())), name="scalar"),
        Sample((rng.normal(size=(3, 4)), rng.normal(size=(4,))), name="row"),
    ]


_UNINITIALIZED = [
    Directive("perform", "the values of empty() are arbitrary", kind="skip"),
    Directive("constant_folding", "the values of empty() are arbitrary", kind="skip"),
]

register(
    OpInfo("zeros", _by_shape(pt.zeros), _by_shape(np.zeros), _shape_samples, op_class=pt.Alloc),
    OpInfo("ones", _by_shape(pt.ones), _by_shape(np.ones), _shape_samples, op_class=pt.Alloc),
    OpInfo(
        "full",
        _full(pt.full),
        _full(np.full),
        _full_samples,
        dtypes=FLOAT_DTYPES,
        op_class=pt.Alloc,
    ),
    OpInfo(
        "empty",
        _by_shape(pt.empty),
        _by_shape(np.empty),
        _shape_samples,
        op_class=pt.AllocEmpty,
        grad=False,
        directives=_UNINITIALIZED,
    ),
    OpInfo(
        "full_like",
        pt.full_like,
        np.full_like,
        _like_samples,
        dtypes=FLOAT_DTYPES,
        op_class=pt.Alloc,
    ),
    OpInfo(
        "zeros_like[dtype]",
        pt.zeros_like,
        np.zeros_like,
        _zeros_like_samples,
        dtypes=FLOAT_DTYPES,
        op_class=pt.Elemwise,
    ),
    OpInfo(
        "ones_like[dtype]",
        pt.ones_like,
        np.ones_like,
        _zeros_like_samples,
        dtypes=FLOAT_DTYPES,
        op_class=pt.Elemwise,
    ),
    OpInfo(
        "empty_like",
        lambda x, value, **kw: pt.empty_like(x, **kw),
        lambda x, value, **kw: np.empty_like(x, **kw),
        _like_samples,
        op_class=pt.AllocEmpty,
        grad=False,
        directives=_UNINITIALIZED,
    ),
    OpInfo("eye", pt.eye, np.eye, _eye_samples, op_class=pt.Eye),
    OpInfo(
        "identity_like",
        pt.identity_like,
        lambda x: np.eye(*x.shape, dtype=x.dtype),
        lambda rng: [Sample((rng.normal(size=(3, 5)),)), Sample((rng.normal(size=(4, 2)),))],
        dtypes=FLOAT_DTYPES,
        op_class=pt.Eye,
    ),
    OpInfo("tri", pt.tri, np.tri, _tri_samples, op_class=pt.ARange),
    OpInfo(
        "arange",
        pt.arange,
        np.arange,
        _arange_samples,
        dtypes=FLOAT_DTYPES,
        op_class=pt.ARange,
        rtol=1e-6,
    ),
    OpInfo(
        "linspace",
        pt.linspace,
        np.linspace,
        _linspace_samples,
        dtypes=FLOAT_DTYPES,
        op_class=pt.Linspace,
        directives=[
            Directive(
                "grad",
                "integer samples are piecewise constant: finite differences straddle the jumps",
                samples=["int-dtype"],
                kind="skip",
            )
        ],
    ),
    OpInfo(
        "linspace[retstep]",
        _linspace_retstep,
        _np_linspace_retstep,
        lambda rng: _linspace_samples(rng)[:2],
        dtypes=FLOAT_DTYPES,
        op_class=pt.Linspace,
    ),
    OpInfo("alloc", pt.alloc, _np_alloc, _alloc_samples, dtypes=FLOAT_DTYPES, op_class=pt.Alloc),
    OpInfo(
        "broadcast_to",
        lambda x, *shape: pt.broadcast_to(x, shape),
        lambda x, *shape: np.broadcast_to(x, [int(s) for s in shape]),
        _broadcast_to_samples,
        dtypes=FLOAT_DTYPES,
        op_class=pt.Alloc,
    ),
    OpInfo(
        "broadcast_arrays",
        pt.broadcast_arrays,
        np.broadcast_arrays,
        _broadcast_arrays_samples,
        dtypes=FLOAT_DTYPES,
        op_class=pt.Alloc,
    ),
    OpInfo(
        "broadcast_shape",
        _broadcast_shape,
        _np_broadcast_shape,
        _broadcast_arrays_samples,
        dtypes=FLOAT_DTYPES,
        grad=False,
    ),
    OpInfo(
        "fill",
        pt.fill,
        lambda m, v: np.broadcast_to(v, m.shape),
        _fill_samples,
        dtypes=FLOAT_DTYPES,
        op_class=pt.Elemwise,
    ),
)
