"""op_db entry: ``printing.Print``, the identity that prints its value when computed."""

from __future__ import annotations

from arignote.printing import Print
from tests.op_db.core import FLOAT_DTYPES, OpInfo, Sample, register


def _silent(op, value):
    """A global_fn that records nothing: the generic tests only check the identity."""


register(
    OpInfo(
        "printing.Print",
        lambda x: Print("x", global_fn=_silent)(x),
        lambda x: x,
        lambda rng: [Sample((rng.normal(size=(3, 4)),), name="matrix")],
        dtypes=FLOAT_DTYPES,
        op_class=Print,
    )
)
