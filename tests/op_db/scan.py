"""op_db entries of ``scan`` (the Scan op): recurrences, taps, maps, backwards loops and
``until``, each against a plain Python loop."""

from __future__ import annotations

import numpy as np

import arignote
import arignote.tensor as pt
from arignote.scan.op import Scan
from arignote.scan.utils import until
from tests.op_db.core import OpInfo, Sample, register


def _rnn(x, h0, w, u):
    return arignote.scan(
        lambda x_t, h, w, u: pt.tanh(pt.dot(h, w) + pt.dot(x_t, u)),
        sequences=x,
        outputs_info=h0,
        non_sequences=[w, u],
        return_updates=False,
    )


def _rnn_ref(x, h0, w, u):
    h, out = h0, []
    for x_t in x:
        h = np.tanh(h @ w + x_t @ u)
        out.append(h)
    return np.array(out).reshape(len(x), len(h0))


def _taps(s, y0, w):
    return arignote.scan(
        lambda s_m1, s_p1, y_m2, y_m1, w: y_m1 * w + 0.5 * pt.sin(y_m2) + s_m1 * s_p1,
        sequences={"input": s, "taps": [-1, 1]},
        outputs_info={"initial": y0, "taps": [-2, -1]},
        non_sequences=w,
        return_updates=False,
    )


def _taps_ref(s, y0, w):
    ys = list(y0[:2])
    for t in range(len(s) - 2):
        ys.append(ys[-1] * w + 0.5 * np.sin(ys[-2]) + s[t] * s[t + 2])
    return np.array(ys[2:]).reshape(len(s) - 2, len(w))


def _map(x, w):
    return arignote.map(
        lambda x_t, w: pt.exp(x_t) * w + x_t.sum(),
        sequences=x,
        non_sequences=w,
        return_updates=False,
    )


def _map_ref(x, w):
    return np.array([np.exp(r) * w + r.sum() for r in x]).reshape(x.shape[0], len(w))


def _foldr(x, a0):
    return arignote.foldr(
        lambda x_t, acc: acc * pt.cos(x_t) + x_t, sequences=x, outputs_info=a0, return_updates=False
    )


def _foldr_ref(x, a0):
    acc = a0
    for r in x[::-1]:
        acc = acc * np.cos(r) + r
    return acc


def _until(v, limit):
    return arignote.scan(
        lambda h, v, limit: (h * 1.5 + v, until((h * 1.5 + v).sum() > limit)),
        outputs_info=v,
        non_sequences=[v, limit],
        n_steps=20,
        return_updates=False,
    )


def _until_ref(v, limit):
    h, out = v, []
    for _ in range(20):
        h = h * 1.5 + v
        out.append(h)
        if h.sum() > limit:
            break
    return np.array(out)


def _rnn_samples(rng):
    return [
        Sample(
            (
                rng.normal(size=(5, 3)),
                rng.normal(size=4),
                rng.normal(size=(4, 4)) * 0.5,
                rng.normal(size=(3, 4)) * 0.5,
            ),
            name="rnn",
        )
    ]


register(
    OpInfo(
        "scan[rnn]",
        _rnn,
        _rnn_ref,
        _rnn_samples,
        dtypes=("float64", "float32"),
        op_class=Scan,
        second_order=True,
    ),
    OpInfo(
        "scan[taps]",
        _taps,
        _taps_ref,
        lambda rng: [
            Sample((rng.normal(size=(7, 2)), rng.normal(size=(2, 2)), rng.normal(size=2) * 0.5))
        ],
        op_class=Scan,
    ),
    OpInfo(
        "map",
        _map,
        _map_ref,
        lambda rng: [Sample((rng.normal(size=(4, 3)), rng.normal(size=3)))],
        op_class=Scan,
    ),
    OpInfo(
        "foldr",
        _foldr,
        _foldr_ref,
        lambda rng: [Sample((rng.normal(size=(5, 2)), rng.normal(size=2)))],
        op_class=Scan,
    ),
    OpInfo(
        "scan[until]",
        _until,
        _until_ref,
        lambda rng: [Sample((rng.uniform(0.5, 1.0, size=3), np.array(30.0)))],
        op_class=Scan,
        infer_shape=False,  # the number of steps is known only after running the loop
    ),
)
