"""The deliberate-difference list and its documentation page agree, and each entry can match."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.differential.compare import Difference
from tests.differential.deliberate import DELIBERATE, KNOWN_DEFECTS, explain
from tests.differential.programs import realize
from tests.differential.test_regressions import PROGRAMS

PAGE = Path(__file__).resolve().parents[2] / "docs" / "migration-differences.md"


@pytest.mark.parametrize("entry", DELIBERATE + KNOWN_DEFECTS, ids=lambda d: d.key)
def test_every_entry_is_published_with_its_reason(entry):
    text = " ".join(PAGE.read_text().split())
    assert f"`{entry.key}`" in text
    assert " ".join(entry.reason.split()) in text


def test_keys_are_unique_and_reasons_given():
    keys = [d.key for d in DELIBERATE + KNOWN_DEFECTS]
    assert len(keys) == len(set(keys))
    assert all(len(d.reason) > 40 for d in DELIBERATE + KNOWN_DEFECTS)


def test_an_unlisted_difference_stays_unexplained():
    diff = Difference("value", "numpy", "output 0: values differ", "FAST_RUN", entries=("add",))
    assert explain(diff, None) is None


def test_runtime_broadcasting_errors_are_explained_only_as_raises():
    error = "ValueError: Runtime broadcasting is not allowed: input 0 ..."
    raised = Difference("raises", "numpy", "arignote raises", "FAST_RUN", error, ("add",))
    assert explain(raised, None) == "runtime-broadcasting"
    value = Difference("value", "numpy", "output 0", "FAST_RUN", error, ("add",))
    assert explain(value, None) is None


def test_pytensor_differences_are_its_own_only_where_arignote_agrees_with_numpy():
    diff = Difference("value", "pytensor", "output 0: values differ", "FAST_RUN", entries=("x",))
    assert explain(diff, None) is None
    diff.pytensor_differs_from_numpy = True
    assert explain(diff, None) == "pytensor-differs-from-numpy"


def test_cancellation_explains_only_the_nans_that_cancelling_made():
    program = next(p for p in PROGRAMS if any(s.entry == "true_div" for s in p.steps))
    realized = realize(program)
    detail = "output 0: values differ: at (0, 1): np.float64(1.0) != np.float64(nan)"
    entries = tuple(s.entry for s in program.steps)
    diff = Difference("value", "numpy", detail, "FAST_RUN", entries=entries)
    assert explain(diff, realized) == "cancel-common-factors"
    # not in a mode without the rewrite, not a NaN arignote made, not a program it cannot fix
    assert explain(Difference("value", "numpy", detail, "no_rewrites"), realized) is None
    reversed_ = "output 0: values differ: at (0, 1): np.float64(nan) != np.float64(1.0)"
    assert explain(Difference("value", "numpy", reversed_, "FAST_RUN"), realized) is None
    other = realize(next(p for p in PROGRAMS if p.steps[0].entry == "abs"))
    assert explain(Difference("value", "numpy", detail, "FAST_RUN"), other) is None
