"""op_db entries: mul_without_zeros (elementwise) and ProdWithoutZeros (PyTensor's product of
the nonzero elements), on samples holding zeros."""

from __future__ import annotations

import numpy as np

from arignote.tensor.elemwise import Elemwise
from arignote.tensor.prod_without_zeros import ProdWithoutZeros, mul_without_zeros
from tests.op_db.core import FLOAT_DTYPES, Directive, OpInfo, Sample, register

JUMP = (
    "the function jumps where an element is zero (a zero factor is skipped, a tiny one is "
    "not): no derivative there, so finite differences are checked on the nonzero samples"
)
AT_ZEROS = ["zeros-rows", "zeros-columns", "zeros-all", "zeros"]


def _skip_at_zeros():
    return [
        Directive(test, JUMP, samples=AT_ZEROS, kind="skip")
        for test in ("grad", "rop", "adjoint", "second_order")
    ]


def _with_zeros(rng, shape):
    values = rng.uniform(0.5, 2.0, size=shape) * rng.choice([-1.0, 1.0], size=shape)
    values[rng.uniform(size=shape) < 0.3] = 0.0
    return values


def _mul_ref(x, y):
    return np.where(x == 0, y, np.where(y == 0, x, x * y))


def _prod_ref(x, axis=None):
    product = np.prod(np.where(x == 0, 1, x), axis=axis)
    return np.where(np.any(x != 0, axis=axis), product, 0)


def _prod_samples(rng):
    all_zero_row = _with_zeros(rng, (3, 4))
    all_zero_row[1] = 0.0
    return [
        Sample((all_zero_row,), {"axis": (1,)}, name="zeros-rows"),
        Sample((_with_zeros(rng, (3, 4)),), {"axis": (0,)}, name="zeros-columns"),
        Sample((_with_zeros(rng, (2, 3, 2)),), {"axis": None}, name="zeros-all"),
        Sample((rng.uniform(0.5, 2.0, size=(3, 4)),), {"axis": (1,)}, name="nonzero"),
    ]


register(
    OpInfo(
        name="math.mul_without_zeros",
        build=lambda x, y: Elemwise(mul_without_zeros)(x, y),
        ref=_mul_ref,
        samples=lambda rng: [
            Sample((_with_zeros(rng, (3, 4)), _with_zeros(rng, (3, 4))), name="zeros"),
            Sample((rng.uniform(0.5, 2, (3, 4)), rng.uniform(0.5, 2, (3, 4))), name="nonzero"),
        ],
        dtypes=FLOAT_DTYPES,
        directives=_skip_at_zeros(),
    ),
    OpInfo(
        name="math.ProdWithoutZeros",
        build=lambda x, axis=None: ProdWithoutZeros(axis)(x),
        ref=_prod_ref,
        samples=_prod_samples,
        dtypes=FLOAT_DTYPES,
        op_class=ProdWithoutZeros,
        directives=_skip_at_zeros(),
    ),
)
