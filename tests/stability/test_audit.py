"""arignote.stability.audit: the reference evaluation, the findings, the blame."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

mpmath = pytest.importorskip("mpmath", reason="the stability audit needs mpmath (test extra)")

import arignote  # noqa: E402
import arignote.tensor as pt  # noqa: E402
from arignote.stability import audit, evaluate_exact  # noqa: E402
from arignote.stability.exact import Unresolved  # noqa: E402

NO_REWRITES = arignote.Mode(linker="vm", optimizer=None)


def test_import_arignote_does_not_import_mpmath():
    code = "import sys, arignote; assert 'mpmath' not in sys.modules, 'mpmath imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_stable_expression_passes():
    x = pt.dscalar("x")
    report = audit(pt.log(pt.sigmoid(x)))
    assert report.ok, str(report)
    assert report.points_checked >= 18


def test_naive_spelling_is_reported_with_its_blame_and_stable_form():
    x = pt.dscalar("x")
    out = pt.log(1 / (1 + pt.exp(-x)))
    report = audit(out, mode=NO_REWRITES)
    assert not report.ok
    (finding,) = report.findings
    assert finding.point == {"x": -1000.0} or finding.error == np.inf
    assert "exp(" in finding.blame and "-x" in finding.blame  # exp(-x) overflows first
    assert finding.stable_form is not None  # the default mode's rules make it accurate
    assert "softplus" in finding.stable_form


def test_default_mode_fixes_the_naive_spelling():
    x = pt.dscalar("x")
    assert audit(pt.log(1 / (1 + pt.exp(-x)))).ok


def test_compiled_function_is_audited_as_compiled():
    x = pt.dscalar("x")
    fn = arignote.function([x], pt.log(1 + pt.exp(x)), mode=NO_REWRITES)
    report = audit(fn, blame=False)
    assert not report.ok
    assert report.findings[0].exact == pytest.approx(1000.0)


def test_finding_without_a_rule_says_so():
    a, b = pt.dscalars("a", "b")
    report = audit(pt.sqrt(a**2 + b**2 + a), points={a: [1e300], b: [1e300]})
    (finding,) = report.findings
    assert finding.stable_form is None
    assert "no stabilizing rule" in str(finding)


def test_integer_inputs_use_integer_points():
    n = pt.lvector("n")
    report = audit(pt.log(1 - pt.sigmoid(n)))  # issue 17: 41 gave -inf
    assert report.ok, str(report)


def test_exact_evaluation_matches_closed_forms():
    x = pt.dscalar("x")
    out = pt.log1p(pt.exp(x))
    exact, inexact = evaluate_exact([out], {x: np.array(1000.0)})
    assert not inexact
    assert float(exact[out]) == pytest.approx(1000.0, rel=1e-15)
    out = pt.exp(x) - 1
    exact, _ = evaluate_exact([out], {x: np.array(1e-300)})
    assert float(exact[out]) == pytest.approx(1e-300, rel=1e-15)


def test_cancellation_beyond_the_precision_is_unresolved():
    x = pt.dscalar("x")
    out = 1 - pt.sigmoid(x)
    exact, _ = evaluate_exact([out], {x: np.array(1000.0)})  # resolved at 4 x 360 digits
    assert float(mpmath.log(exact[out].item())) == pytest.approx(-1000.0)
    with pytest.raises(Unresolved):
        evaluate_exact([out], {x: np.array(1e300)})


def test_unresolved_reference_falls_back_on_the_stabilized_graph():
    x = pt.dscalar("x")
    report = audit(pt.log(1 - pt.sigmoid(x)))  # 1e300 cancels at any precision
    assert report.ok, str(report)


def test_tolerance_and_absolute_bound():
    x = pt.dscalar("x")
    out = pt.exp(x) - 1  # naive: relative error 1 at 1e-20
    assert not audit(out, mode=NO_REWRITES, blame=False).ok
    assert audit(out, mode=NO_REWRITES, blame=False, atol=1e-15, rtol=1e-6).ok


def test_unknown_ops_are_evaluated_in_floating_point_and_listed():
    x = pt.dvector("x")
    out = pt.cumsum(x) * 2.0
    report = audit(out, points={x: [np.array([1.0, 2.0])]})
    assert report.ok
    assert report.inexact_nodes  # cumsum has no exact version: listed
