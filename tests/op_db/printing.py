"""Op-database entries of the ops in ``arignote.printing`` (the ``Print`` identity op)."""

import numpy as np

from arignote.printing import Print
from tests.op_db.core import FLOAT_DTYPES, OpInfo, Sample, register


def _quiet(op, value):
    """A ``global_fn`` that records nothing: the generic tests run the op many times."""


def _samples(rng):
    return [
        Sample((rng.normal(size=(3, 4)),), name="matrix"),
        Sample((rng.normal(size=(2,)),), name="vector"),
    ]


register(
    OpInfo(
        "Print",
        lambda x: Print("value", global_fn=_quiet)(x) * 1.0,
        lambda x: np.asarray(x) * 1.0,
        _samples,
        dtypes=FLOAT_DTYPES,
        op_class=Print,
    ),
)
