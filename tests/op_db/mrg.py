"""op_db entry: ``MRGUniform`` (``arignote.sandbox.rng_mrg``) against a scalar, one value at a
time transcription of the MRG31k3p recurrence (L'Ecuyer and Touzin 2000)."""

from __future__ import annotations

import numpy as np

from arignote.sandbox.rng_mrg import MRGUniform
from tests.op_db.core import OpInfo, Sample, register

M1, M2 = 2147483647, 2147462579


def _next(s):
    """One step of one stream ``s`` (a list of six ints, updated) and its uniform value."""
    x1 = (4194304 * s[1] + 129 * s[2]) % M1
    x2 = (32768 * s[3] + 32769 * s[5]) % M2
    s[:] = [x1, s[0], s[1], x2, s[3], s[4]]
    z = (x1 - x2) % M1
    return (z if z else M1) / (M1 + 1.0)


def _reference(state, *size):
    streams = [list(map(int, row)) for row in state]
    n = int(np.prod(size))
    return np.array([_next(streams[i % len(streams)]) for i in range(n)]).reshape(size)


def _build(state, *size):
    return MRGUniform("float64")(state, *size)[1]


def _samples(rng):
    state = np.stack(
        [rng.integers(1, M1, size=(4, 3)), rng.integers(1, M2, size=(4, 3))], axis=1
    ).reshape(4, 6)
    state = state.astype(np.int32)
    return [
        Sample((state, 3, 5), name="matrix", static=(1, 2)),
        Sample((state, 7), name="partial-step", static=(1,)),
    ]


register(
    OpInfo("MRGUniform", _build, _reference, _samples, op_class=MRGUniform, grad=False, rop=False)
)
