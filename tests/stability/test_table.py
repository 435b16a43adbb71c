"""The audit table (tests/stability/cases.py): every expression and gradient is finite and
accurate at extreme inputs in the default mode, except the few listed in ``REMAINING``; the
docs page is the table as audited now."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("mpmath", reason="the stability audit needs mpmath (the test extra)")

from tests.stability.table import (
    BEFORE,
    PAGE,
    PYTENSOR,
    REMAINING,
    audit_all,
    entries,
    recorded,
    render,
)

NAMES = [e.name for e in entries()]


@pytest.fixture(scope="module")
def results():
    return audit_all()


@pytest.mark.parametrize("name", NAMES)
def test_audited_expression_is_stable(name, results):
    if name in REMAINING:
        # still unstable, for the reason given: the day a rule fixes it, move it to the table
        assert results[name] != "ok", f"{name} is stable now: remove it from REMAINING"
    else:
        assert results[name] == "ok", results[name]


def test_most_expressions_were_unstable_before():
    before = json.loads(BEFORE.read_text())
    assert sum(v != "ok" for v in before.values()) > len(before) // 2


def test_docs_page_is_current(results):
    page = render(recorded(BEFORE), results, recorded(PYTENSOR))
    assert PAGE.read_text() == page, "run python -m tests.stability.table"
