"""Numerical stability: ``audit`` a graph at extreme inputs against a high-precision reference.

Import it explicitly (``import arignote.stability``): it needs mpmath, an optional dependency
installed by the ``test`` extra, and ``import arignote`` does not load it.

>>> import arignote.tensor as pt
>>> from arignote.stability import audit
>>> x = pt.dscalar("x")
>>> audit(pt.log(pt.sigmoid(x))).ok
True
"""

from arignote.stability.audit import AuditReport, Finding, audit
from arignote.stability.exact import evaluate_exact

__all__ = ["AuditReport", "Finding", "audit", "evaluate_exact"]
