"""Op-database entries that random programs leave out, each with the precise reason.

The 116 entries that landed beside the harness (scan, ifelse, OpFromGraph, the Theano-era ops,
Blockwise, derived functions, special functions) were swept one by one (every sample, variant,
shape kind, with and without a gradient) and are in the programs now; what the sweep found is
fixed (regression tests in ``test_regressions.py``) or listed in ``deliberate.py``.
"""

from __future__ import annotations

from tests.op_db.edges import EXEMPT

RANDOM_PREFIX = "random."
RANDOM_REASON = (
    "draws from a random generator: NumPy has no reference of the same stream, so values "
    "cannot be compared (tests/tensor/random checks their distributions instead)"
)

# entry -> why programs leave it out (the ``random.*`` entries too, by RANDOM_PREFIX)
NOT_SWEPT: dict[str, str] = {
    **EXEMPT,
    "empty": "uninitialized values (edges.EXEMPT)",
}

# no entry is waiting to be swept any more; kept (empty) for the name's importers
NOT_YET_SWEPT: frozenset[str] = frozenset()


def swept_by_programs(name: str) -> bool:
    """Whether random programs may use the op_db entry ``name``."""
    return not name.startswith(RANDOM_PREFIX) and name not in NOT_SWEPT
