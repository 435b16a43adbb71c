"""op_db entries: arignote.tensor.derived (NumPy functions written as graphs of other ops)."""

from __future__ import annotations

import numpy as np
import scipy.special
import scipy.stats

import arignote.tensor as pt
from arignote.tensor import derived as d
from tests.op_db.core import FLOAT_DTYPES, OpInfo, Sample, register


def _shape_parameter(position):
    """A constant shape parameter (the incomplete gamma integrals have no closed-form
    derivative in it) beside a positive x."""

    def samples(rng):
        args = [rng.uniform(0.5, 3.0, size=(3, 4)), np.asarray([0.5, 1.0, 2.5, 4.0])]
        if position == 0:
            args.reverse()
        return [Sample(tuple(args), name="shape_param", static=(position,))]

    return samples


def _positive(*shapes):
    def samples(rng):
        return [Sample(tuple(rng.uniform(0.5, 3.0, size=s) for s in shapes), name="positive")]

    return samples


SPECIALS = np.array([1.5, np.inf, -np.inf, np.nan, -2.0, 0.0])


def _specials(rng):
    return [Sample((SPECIALS.copy(),), name="specials")]


def _one(*shapes):
    def samples(rng):
        return [Sample((rng.normal(size=s),), name=str(s)) for s in shapes]

    return samples


def _pair(*pairs):
    def samples(rng):
        return [Sample((rng.normal(size=a), rng.normal(size=b)), name=f"{a}-{b}") for a, b in pairs]

    return samples


def _ints(rng):
    a = rng.integers(-9, 10, size=(3, 4))
    b = rng.integers(1, 5, size=(3, 4))
    return [Sample((a, b), name="ints")]


def _away_from_halves(rng):
    x = rng.normal(size=(3, 4)) * 4
    return [Sample((np.round(x) + 0.3 * np.sign(rng.normal(size=(3, 4))),), name="x")]


def _three(rng):
    return [Sample(tuple(rng.normal(size=(3, 4)) for _ in range(3)), name="three")]


def _median_samples(rng):
    return [
        Sample((rng.normal(size=(5,)),), name="odd"),
        Sample((rng.normal(size=(3, 4)),), {"axis": 1}, name="even_axis1"),
        Sample((rng.normal(size=(3, 4)),), {"axis": 0}, name="odd_axis0"),
    ]


def _mask_samples(rng):
    x = rng.normal(size=(3, 4))
    x[x < 0.2] = 0.0
    return [Sample((x,), name="sparse")]


def _fill_samples(rng):
    return [
        Sample((rng.normal(size=(3, 4)), rng.normal(size=())), name="wide"),
        Sample((rng.normal(size=(4, 3)), rng.normal(size=())), name="tall"),
    ]


def _ref_fill_diagonal(a, val):
    a = a.copy()
    np.fill_diagonal(a, val)
    return a


def _ref_fill_offset(a, val, offset):
    a = a.copy()
    rows, cols = a.shape
    for i in range(rows):
        if 0 <= i + offset < cols:
            a[i, i + offset] = val
    return a


def _ref_inc_at(x, y, index):
    x = x.copy()
    np.add.at(x, index, y)
    return x


def _ref_set_at(x, y, index):
    x = x.copy()
    x[index] = y
    return x


def _ref_alloc_diag(v):
    stacked = np.stack([np.diag(row, 1) for row in v])  # (batch, n, n)
    return np.moveaxis(stacked, 0, 1)  # the batch goes to the free axis 1


def _ref_batched_dot(a, b):
    return np.stack([np.dot(x, y) for x, y in zip(a, b)])


def _ref_vecmat(x, y):
    return np.einsum("...n,...nm->...m", np.conj(x), y)


def _ref_ceil_intdiv(a, b):
    return np.floor_divide(a, b) + (np.mod(a, b) != 0)


def _static(*args, name=""):
    return lambda rng: [Sample(args, name=name, static=tuple(range(len(args))))]


def _entry(name, build, ref, samples, **kwargs):
    kwargs.setdefault("dtypes", FLOAT_DTYPES)
    return OpInfo(name, build, ref, samples, **kwargs)


register(
    _entry("isposinf", d.isposinf, np.isposinf, _specials, grad=False, rop=False),
    _entry("isneginf", d.isneginf, np.isneginf, _specials, grad=False, rop=False),
    _entry("nan_to_num", d.nan_to_num, np.nan_to_num, _specials, grad=False, rop=False),
    _entry("nan_to_num[values]", d.nan_to_num, np.nan_to_num, _one((3, 4))),
    _entry("floor_div", d.floor_div, np.floor_divide, _ints, dtypes=("int64",), grad=False),
    _entry("ceil_intdiv", d.ceil_intdiv, _ref_ceil_intdiv, _ints, dtypes=("int64",), grad=False),
    _entry(
        "iround",
        d.iround,
        lambda x: np.round(x).astype("int64"),
        _away_from_halves,
        grad=False,
        rop=False,
    ),
    _entry("largest", d.largest, lambda *a: np.maximum.reduce(a), _three),
    _entry("largest[two]", d.largest, np.maximum, _pair(((3, 4), (3, 4)))),
    _entry("smallest", d.smallest, lambda *a: np.minimum.reduce(a), _three),
    _entry(
        "complex_from_polar",
        d.complex_from_polar,
        lambda r, t: r * np.exp(1j * t),
        _pair(((3, 4), (3, 4))),
        grad=False,
        rop=False,
    ),
    _entry(
        "vecdot",
        d.vecdot,
        lambda x, y: np.sum(np.conj(x) * y, axis=-1),
        _pair(((3, 4), (3, 4)), ((2, 3, 4), (4,))),
    ),
    _entry(
        "matvec",
        d.matvec,
        lambda x, y: np.einsum("...mn,...n->...m", x, y),
        _pair(((3, 4), (4,)), ((2, 3, 4), (2, 4))),
    ),
    _entry("vecmat", d.vecmat, _ref_vecmat, _pair(((3,), (3, 4)), ((2, 3), (2, 3, 4)))),
    _entry("dense_dot", d.dense_dot, np.dot, _pair(((3, 4), (4,)))),
    _entry(
        "batched_dot",
        d.batched_dot,
        _ref_batched_dot,
        _pair(((2, 3, 4), (2, 4, 5)), ((2, 4), (2, 4)), ((2, 4), (2, 4, 3)), ((2, 3, 4), (2, 4))),
    ),
    _entry(
        "alloc_diag",
        lambda v: d.alloc_diag(v, offset=1, axis1=0, axis2=2),
        lambda v: np.moveaxis(
            np.apply_along_axis(lambda r: np.diag(r, 1), -1, v), (-2, -1), (0, 2)
        ),
        _one((2, 3)),
    ),
    _entry(
        "matrix_dot",
        d.matrix_dot,
        lambda a, b, c: a @ b @ c,
        lambda rng: [
            Sample((rng.normal(size=(2, 3)), rng.normal(size=(3, 4)), rng.normal(size=(4,))))
        ],
    ),
    _entry(
        "horizontal_stack",
        d.horizontal_stack,
        lambda *a: np.hstack(a),
        _pair(((3, 2), (3, 4)), ((2,), (3,))),
    ),
    _entry(
        "vertical_stack",
        d.vertical_stack,
        lambda *a: np.vstack(a),
        _pair(((2, 4), (3, 4)), ((4,), (4,))),
    ),
    _entry(
        "stacklists",
        lambda a, b: d.stacklists([[a, b], [b, a]]),
        lambda a, b: np.array([[a, b], [b, a]]),
        _pair(((), ()), ((3,), (3,))),
    ),
    _entry("tensor_copy", d.tensor_copy, np.copy, _one((3, 4))),
    _entry(
        "atleast_Nd",
        lambda x: d.atleast_Nd(x, n=3),
        lambda x: x.reshape((1,) * (3 - x.ndim) + x.shape),
        _one((4,), (2, 3, 4)),
    ),
    _entry(
        "atleast_Nd[right]",
        lambda x: d.atleast_Nd(x, n=3, left=False),
        lambda x: x.reshape(x.shape + (1,) * (3 - x.ndim)),
        _one((4,)),
    ),
    _entry("tril_indices", d.tril_indices, np.tril_indices, _static(4, 1, 5), grad=False),
    _entry("triu_indices", d.triu_indices, np.triu_indices, _static(4, -1, 3), grad=False),
    _entry(
        "tril_indices_from",
        d.tril_indices_from,
        np.tril_indices_from,
        _one((3, 4)),
        grad=False,
        infer_shape=False,
    ),
    _entry(
        "triu_indices_from",
        lambda a: d.triu_indices_from(a, 1),
        lambda a: np.triu_indices_from(a, 1),
        _one((4, 3)),
        grad=False,
        infer_shape=False,
    ),
    _entry(
        "flatnonzero", d.flatnonzero, np.flatnonzero, _mask_samples, grad=False, infer_shape=False
    ),
    _entry(
        "nonzero_values",
        d.nonzero_values,
        lambda a: a[a != 0],
        _mask_samples,
        infer_shape=False,
        # finite differences move zeros off zero, which changes which elements are selected
        grad=False,
        rop=False,
    ),
    _entry(
        "inverse_permutation",
        d.inverse_permutation,
        lambda p: np.argsort(p, axis=-1),
        lambda rng: [Sample((np.stack([rng.permutation(5) for _ in range(3)]),))],
        dtypes=("int64",),
        grad=False,
    ),
    _entry(
        "compress",
        lambda c, x: d.compress(c, x, axis=1),
        lambda c, x: np.compress(c, x, axis=1),
        lambda rng: [Sample((np.array([True, False, True, True]), rng.normal(size=(3, 4))))],
        infer_shape=False,
    ),
    _entry(
        "compress[flat]",
        d.compress,
        np.compress,
        lambda rng: [Sample((np.array([False, True, True]), rng.normal(size=(2, 3))))],
        infer_shape=False,
    ),
    _entry("fill_diagonal", d.fill_diagonal, _ref_fill_diagonal, _fill_samples),
    _entry(
        "fill_diagonal_offset",
        d.fill_diagonal_offset,
        _ref_fill_offset,
        lambda rng: [
            Sample((rng.normal(size=(3, 4)), rng.normal(size=()), k), static=(2,), name=str(k))
            for k in (-1, 0, 2, 5)
        ],
    ),
    _entry(
        "logspace",
        lambda a, b: d.logspace(a, b, 5),
        lambda a, b: np.logspace(a, b, 5),
        _pair(((), ())),
    ),
    _entry(
        "geomspace",
        lambda a, b: d.geomspace(a, b, 4, endpoint=False),
        lambda a, b: np.geomspace(a, b, 4, endpoint=False),
        lambda rng: [Sample((np.float64(0.5), np.float64(8.0)))],
        rtol=1e-5,
    ),
    _entry("bartlett", d.bartlett, np.bartlett, _static(7, name="7"), grad=False),
    _entry("bartlett[1]", d.bartlett, np.bartlett, _static(1, name="1"), grad=False),
    _entry("cov", d.cov, np.cov, _one((3, 5))),
    _entry(
        "cov[columns]",
        lambda m, y: d.cov(m, y, rowvar=False, bias=True),
        lambda m, y: np.cov(m, y, rowvar=False, bias=True),
        _pair(((5, 2), (5, 3))),
    ),
    _entry("median", d.median, np.median, _median_samples),
    _entry("extract_diag", d.extract_diag, np.diagonal, _one((3, 4), (2, 3, 4))),
    _entry("tri_gamma", d.tri_gamma, lambda x: scipy.special.polygamma(1, x), _positive((3, 4))),
    _entry(
        "chi2sf",
        d.chi2sf,
        lambda x, k: scipy.stats.chi2.sf(x, k),
        _shape_parameter(1),
        rtol=1e-5,
    ),
    _entry(
        "gammau",
        d.gammau,
        lambda k, x: scipy.special.gammaincc(k, x) * scipy.special.gamma(k),
        _shape_parameter(0),
        rtol=1e-5,
    ),
    _entry(
        "gammal",
        d.gammal,
        lambda k, x: scipy.special.gammainc(k, x) * scipy.special.gamma(k),
        _shape_parameter(0),
        rtol=1e-5,
    ),
    _entry(
        "ix_",
        d.ix_,
        np.ix_,
        lambda rng: [Sample((rng.integers(0, 5, size=3), rng.integers(0, 5, size=4)))],
        dtypes=("int64",),
        grad=False,
    ),
    _entry(
        "tensorinv",
        lambda a: d.tensorinv(a, 2),
        lambda a: np.linalg.tensorinv(a, 2),
        lambda rng: [Sample((rng.normal(size=(2, 3, 6)) + 3 * np.eye(6).reshape(2, 3, 6),))],
    ),
    _entry(
        "tensorsolve",
        d.tensorsolve,
        np.linalg.tensorsolve,
        lambda rng: [
            Sample(
                (
                    rng.normal(size=(2, 3, 6)) + 3 * np.eye(6).reshape(2, 3, 6),
                    rng.normal(size=(2, 3)),
                )
            )
        ],
    ),
    _entry(
        "tensorsolve[axes]",
        lambda a, b: d.tensorsolve(a, b, axes=(0,)),
        lambda a, b: np.linalg.tensorsolve(a, b, axes=(0,)),
        lambda rng: [Sample((rng.normal(size=(3, 3)) + 3 * np.eye(3), rng.normal(size=(3,))))],
    ),
    _entry(
        "basic_subtensor",
        lambda x: d.basic_subtensor(x, slice(1, None), 2),
        lambda x: x[1:, 2],
        _one((3, 4)),
    ),
    _entry(
        "advanced_inc_subtensor",
        lambda x, y: d.advanced_inc_subtensor(x, y, np.array([0, 2, 0])),
        lambda x, y: _ref_inc_at(x, y, [0, 2, 0]),
        _pair(((3, 4), (3, 4))),
    ),
    _entry(
        "advanced_set_subtensor",
        lambda x, y: d.advanced_set_subtensor(x, y, np.array([2, 0])),
        lambda x, y: _ref_set_at(x, y, [2, 0]),
        _pair(((3, 4), (2, 4))),
    ),
)

# a sanity check of the namespace: these are reachable as pt.<name> too
assert pt.median is d.median and pt.vecdot is d.vecdot
