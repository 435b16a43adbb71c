"""op_db entries: the random variables drawn through ``scipy.stats`` (and ``invgamma``).

The reference draws with SciPy's ``rvs`` on a generator seeded like the entry's, so values
must match exactly (NumPy's ``gamma`` for ``invgamma``, as PyTensor draws it).
"""

from __future__ import annotations

import numpy as np
import scipy.stats

from tests.op_db.core import Sample, register
from tests.op_db.random import SEED, _entry, _positive


def _scipy(dist, to_args=lambda *a: (a, {})):
    def ref(*params, size=None):
        args, kwargs = to_args(*params)
        draw = getattr(scipy.stats, dist).rvs(
            *args, **kwargs, size=size, random_state=np.random.default_rng(SEED)
        )
        shape = size if size is not None else np.broadcast_shapes(*map(np.shape, params))
        return np.broadcast_to(draw, shape)

    return ref


def _loc_scale(*params):
    first, loc, scale = params
    return (first,), {"loc": loc, "scale": scale}


def _three(first_low=0.5, first_high=3.0):
    def samples(rng):
        return [
            Sample(
                (
                    _positive(rng, (3, 4), first_low, first_high),
                    rng.normal(size=(4,)),
                    _positive(rng, (3, 1)),
                ),
                name="bc",
            ),
            Sample((np.asarray(2.0), np.asarray(0.5), np.asarray(1.5)), {"size": (2, 5)}, "size"),
            Sample((np.ones((1, 3)) * 2, np.zeros(()), np.ones(())), name="broadcast-1"),
        ]

    return samples


def _betabinom(rng):
    return [
        Sample(
            (rng.integers(3, 12, size=(3, 4)), _positive(rng, (4,)), _positive(rng, (4,))),
            name="bc",
        ),
        Sample((np.asarray(10), np.asarray(2.0), np.asarray(3.0)), {"size": (2, 5)}, name="size"),
    ]


def _gengamma_ref(alpha, p, lambd, size=None):
    return _scipy("gengamma", lambda a, q, s: ((a / q, q), {"scale": s}))(
        alpha, p, lambd, size=size
    )


def _invgamma_ref(shape, scale, size=None):
    return 1 / np.random.default_rng(SEED).gamma(shape, 1 / np.asarray(scale), size)


def _two_positive(rng):
    return [
        Sample((_positive(rng, (3, 4)), _positive(rng, (4,))), name="bc"),
        Sample((np.asarray(1.5), np.asarray(2.0)), {"size": (2, 5)}, name="size"),
    ]


def _gengamma(rng):
    return [
        Sample((_positive(rng, (3, 4)), _positive(rng, (4,)), _positive(rng, (3, 1))), name="bc"),
        Sample((np.asarray(2.0), np.asarray(1.5), np.asarray(3.0)), {"size": (2, 5)}, "size"),
    ]


register(
    _entry("betabinom", _betabinom, ref=_scipy("betabinom")),
    _entry("gengamma", _gengamma, ref=_gengamma_ref),
    _entry("invgamma", _two_positive, ref=_invgamma_ref),
    _entry("t", _three(), ref=_scipy("t", _loc_scale)),
    _entry("truncexpon", _three(), ref=_scipy("truncexpon", _loc_scale)),
)
