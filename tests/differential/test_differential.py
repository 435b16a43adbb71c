"""Differential testing: random programs over the op database, run in every arignote mode and
compared with NumPy (and with PyTensor when the ``reference`` extra is installed).

The default run checks a few hundred programs (derandomized, so CI is reproducible); the slow
run checks 20,000. A failure prints the shrunk program; paste it into ``test_regressions.py``
once the defect is fixed. Differences listed in ``deliberate.py`` are not failures.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from tests.differential.compare import check_program, describe, pytensor
from tests.differential.generate import programs

COMMON = {
    "deadline": None,
    "database": None,
    "suppress_health_check": list(HealthCheck),
    "derandomize": True,
}


def _assert_explained(program, with_pytensor: bool) -> None:
    outcome = check_program(program, with_pytensor=with_pytensor)
    assert not outcome.unexplained, describe(outcome)


@settings(max_examples=250, **COMMON)
@given(programs())
def test_random_programs_agree_with_numpy_in_every_mode(program):
    _assert_explained(program, with_pytensor=False)


@pytest.mark.skipif(pytensor is None, reason="PyTensor is not installed (the `reference` extra)")
@settings(max_examples=40, **COMMON)
@given(programs())
def test_random_programs_agree_with_pytensor(program):
    _assert_explained(program, with_pytensor=True)


@pytest.mark.slow
@settings(max_examples=20_000, **{**COMMON, "derandomize": False})
@given(programs())
def test_twenty_thousand_random_programs(program):
    _assert_explained(program, with_pytensor=pytensor is not None)
