"""op_db entries: Theano's ``tensor.nnet`` activations, cross-entropies and neighbours, against
NumPy/SciPy formulas."""

from __future__ import annotations

import numpy as np
import scipy.special as sp

import arignote.tensor as pt
import arignote.tensor.nnet as nnet
from tests.op_db.core import FLOAT_DTYPES, OpInfo, Sample, register
from tests.op_db.elemwise import elemwise, unary


def _away_from_zero(rng):
    """Values at least 0.1 from 0, where relu/elu have their kink."""
    x = rng.uniform(0.1, 2.0, size=(3, 4)) * rng.choice([-1.0, 1.0], size=(3, 4))
    return [Sample((x,), name="matrix")]


def _elu(x, alpha=1.0):
    return np.where(x > 0, x, alpha * np.expm1(x))


register(
    elemwise(
        "nnet.hard_sigmoid", nnet.hard_sigmoid, lambda x: np.clip(0.2 * x + 0.5, 0, 1), unary()
    ),
    elemwise("nnet.softsign", nnet.softsign, lambda x: x / (1 + np.abs(x)), unary()),
    elemwise("nnet.relu", nnet.relu, lambda x: np.maximum(x, 0), _away_from_zero),
    elemwise(
        "nnet.relu[leaky]",
        lambda x: nnet.relu(x, 0.1),
        lambda x: np.where(x > 0, x, 0.1 * x),
        _away_from_zero,
    ),
    elemwise("nnet.elu", nnet.elu, _elu, _away_from_zero),
    elemwise(
        "nnet.selu",
        nnet.selu,
        lambda x: 1.0507009873554805 * _elu(x, 1.6732632423543772),
        _away_from_zero,
    ),
    elemwise("nnet.ultra_fast_sigmoid", nnet.ultra_fast_sigmoid, sp.expit, unary()),
)


# -- softmax and cross-entropies ------------------------------------------------------------------


def _logits(rng):
    return [Sample((rng.normal(size=(3, 5)),), name="matrix")]


def _with_bias(rng):
    return [Sample((rng.normal(size=(3, 5)), rng.normal(size=(5,))), name="matrix")]


def _probabilities(rng):
    p = sp.softmax(rng.normal(size=(4, 3)), axis=1)
    onehot = np.eye(3)[rng.integers(0, 3, 4)]
    soft = sp.softmax(rng.normal(size=(4, 3)), axis=1)
    return [
        Sample((p, onehot), name="onehot"),
        Sample((p, soft), name="soft"),
        Sample((p, rng.integers(0, 3, 4)), name="indices", static=(1,)),
    ]


def _categorical_ref(p, t):
    if t.ndim == p.ndim:
        return -np.sum(t * np.log(p), axis=-1)
    return -np.log(p[np.arange(len(t)), t])


def _binary_samples(rng):
    out = rng.uniform(0.05, 0.95, size=(3, 4))
    return [Sample((out, rng.uniform(0, 1, size=(3, 4))), name="matrix")]


def _logit_samples(rng):
    return [Sample((rng.normal(size=(3, 4)), rng.uniform(0, 1, size=(3, 4))), name="matrix")]


def _one_hot_1(rng):
    return [Sample((rng.normal(size=(4, 3)), rng.integers(0, 3, 4)), name="matrix", static=(1,))]


def _nll_ref(x, y):
    return -sp.log_softmax(x, axis=1)[np.arange(len(y)), y]


def _entry(name, build, ref, samples, **kw):
    return OpInfo(name, build, ref, samples, dtypes=FLOAT_DTYPES, **kw)


register(
    _entry(
        "nnet.softmax", nnet.softmax, lambda x: sp.softmax(x, axis=-1), _logits, op_class=pt.Softmax
    ),
    _entry("nnet.logsoftmax", nnet.logsoftmax, lambda x: sp.log_softmax(x, axis=-1), _logits),
    _entry(
        "nnet.softmax_with_bias",
        nnet.softmax_with_bias,
        lambda x, b: sp.softmax(x + b, axis=-1),
        _with_bias,
    ),
    _entry(
        "nnet.categorical_crossentropy",
        nnet.categorical_crossentropy,
        _categorical_ref,
        _probabilities,
    ),
    _entry(
        "nnet.binary_crossentropy",
        nnet.binary_crossentropy,
        lambda o, t: -(t * np.log(o) + (1 - t) * np.log(1 - o)),
        _binary_samples,
    ),
    _entry(
        "nnet.sigmoid_binary_crossentropy",
        nnet.sigmoid_binary_crossentropy,
        lambda x, t: -(t * np.log(sp.expit(x)) + (1 - t) * np.log(1 - sp.expit(x))),
        _logit_samples,
    ),
    _entry(
        "nnet.crossentropy_softmax_1hot",
        lambda x, y: nnet.crossentropy_softmax_1hot(x, y)[0],
        _nll_ref,
        _one_hot_1,
    ),
    _entry(
        "nnet.crossentropy_categorical_1hot",
        nnet.crossentropy_categorical_1hot,
        lambda p, y: -np.log(p[np.arange(len(y)), y]),
        lambda rng: [
            Sample(
                (sp.softmax(rng.normal(size=(4, 3)), axis=1), rng.integers(0, 3, 4)), static=(1,)
            )
        ],
    ),
)


# -- neighbours ---------------------------------------------------------------------------------


def _images2neibs_ref(x, neib_shape, neib_step=None, mode="valid"):
    (r, c), (sr, sc) = neib_shape, neib_step or neib_shape
    if mode == "half":
        x = np.pad(x, [(0, 0), (0, 0), (r // 2, r // 2), (c // 2, c // 2)])
    rows = []
    for image in x.reshape(-1, *x.shape[2:]):
        for i in range(0, image.shape[0] - r + 1, sr):
            for j in range(0, image.shape[1] - c + 1, sc):
                rows.append(image[i : i + r, j : j + c].ravel())
    return np.asarray(rows).reshape(len(rows), r * c)  # (0, r c) when there is no patch


def _neib_samples(rng):
    x = rng.normal(size=(2, 3, 4, 6))
    return [
        Sample((x, (2, 3)), name="tiles", static=(1,)),
        Sample((rng.normal(size=(1, 2, 5, 7)), (2, 3), (1, 2)), name="overlap", static=(1, 2)),
        Sample(
            (rng.normal(size=(1, 2, 5, 7)), (3, 3), (2, 2)),
            {"mode": "ignore_borders"},
            name="ignore",
            static=(1, 2),
        ),
        Sample(
            (rng.normal(size=(1, 2, 5, 4)), (3, 3), (1, 1)),
            {"mode": "half"},
            name="half",
            static=(1, 2),
        ),
    ]


def _neibs2images_ref(neibs, neib_shape, original_shape):
    r, c = neib_shape
    n, ch, rows, cols = original_shape
    blocks = neibs.reshape(n, ch, rows // r, cols // c, r, c)
    return blocks.transpose(0, 1, 2, 4, 3, 5).reshape(original_shape)


register(
    _entry("nnet.images2neibs", nnet.images2neibs, _images2neibs_ref, _neib_samples),
    _entry(
        "nnet.neibs2images",
        nnet.neibs2images,
        _neibs2images_ref,
        lambda rng: [
            Sample((rng.normal(size=(24, 6)), (2, 3), (2, 3, 4, 6)), name="tiles", static=(1, 2))
        ],
    ),
)


# -- Theano's extra_ops.to_one_hot ------------------------------------------------------------

register(
    OpInfo(
        "to_one_hot",
        lambda y, n: pt.extra_ops.to_one_hot(y, n),
        lambda y, n: np.eye(n)[y],
        lambda rng: [Sample((rng.integers(0, 5, size=7), 5), name="vector", static=(1,))],
        grad=False,
        rop=False,
    )
)
