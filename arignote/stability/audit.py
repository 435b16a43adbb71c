"""The stability audit: a graph evaluated at extreme points, compared with mpmath.

For each input, points are drawn from the edges of floating point (``+-1e-300``, ``+-1e300``),
from where naive formulas break (``+-40`` saturates a sigmoid, ``+-1000`` overflows ``exp``),
from around 0 and next to 1 (``1 - 2**-53``), and, for integers and booleans, from their
values. The compiled graph is evaluated at every point (every combination of the inputs'
points, sampled when there are many) and compared with a high-precision evaluation of the
*unrewritten* graph (``arignote.stability.exact``). An output is unstable at a point where it
is non-finite while the exact value is a finite float, or where its relative error exceeds the
tolerance.

For every unstable output the audit names the sub-expression to blame: the first node (in
topological order) whose floating-point result, computed from its exact inputs, is already
wrong. It then looks for the smallest enclosing sub-expression that the compilation mode's
rewrites turn into an accurate one, and shows that stable form; where none exists, the report
says so.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from arignote.compile.function import function
from arignote.graph.basic import (
    Variable,
    ancestors,
    clone_get_equiv,
    explicit_graph_inputs,
    io_toposort,
)
from arignote.graph.fg import FunctionGraph
from arignote.graph.rewriting.utils import rewrite_graph
from arignote.printing import pprint
from arignote.stability.exact import Unresolved, evaluate_exact, float_outputs, to_float

FLOAT_POINTS = (
    0.0,
    1e-300,
    -1e-300,
    1e-20,
    -1e-20,
    0.5,
    -0.5,
    1 - 2.0**-53,
    -(1 - 2.0**-53),
    1 + 2.0**-52,
    1.0,
    -1.0,
    40.0,
    -40.0,
    1000.0,
    -1000.0,
    1e300,
    -1e300,
)
#: the points used for each input when a graph has several inputs (all combinations)
FLOAT_POINTS_FEW = (0.0, 1e-20, -1e-20, 1.0, -1.0, 40.0, -40.0, 1000.0, -1000.0, 1e300, -1e300)
INT_POINTS = (0, 1, -1, 41, -41, 1000, -1000)
UNKNOWN_LENGTH = 2  # the length given to dimensions of unknown length


@dataclass
class Finding:
    """One unstable output of an audited graph (the worst of the points showing it)."""

    output: int  # index of the output
    expression: str  # the output, printed
    point: dict[str, Any]  # the input values where it is worst
    computed: float  # the worst element as compiled
    exact: float  # the exact value there, rounded to float64
    error: float  # relative error (inf: non-finite result of a finite function)
    blame: str  # the sub-expression to blame
    stable_form: str | None  # what the rewrites make of it, where that is accurate
    points: int = 1  # how many points showed the problem

    def __str__(self) -> str:
        where = ", ".join(f"{k}={v!r}" for k, v in self.point.items())
        fix = f"stable form: {self.stable_form}" if self.stable_form else "no stabilizing rule"
        return (
            f"output {self.output} {self.expression} at {where}: {self.computed!r} instead of "
            f"{self.exact!r} (relative error {self.error:.3g}, {self.points} point(s)); "
            f"blame {self.blame}; {fix}"
        )


@dataclass
class AuditReport:
    """What :func:`audit` found: the unstable outputs, and how many points it checked."""

    outputs: list[str]
    points_checked: int
    findings: list[Finding] = field(default_factory=list)
    unresolved: int = 0  # points where even the reference could not resolve a cancellation
    inexact_nodes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether every output was finite and accurate at every point."""
        return not self.findings

    def worst_error(self, output: int = 0) -> float:
        """The largest relative error of an output over the points (0.0 if none was off)."""
        errors = [f.error for f in self.findings if f.output == output]
        return max(errors, default=0.0)

    def __str__(self) -> str:
        head = f"stability audit of {len(self.outputs)} output(s) at {self.points_checked} points"
        if self.ok:
            return head + ": all finite and accurate"
        return "\n".join([head + ":"] + [f"  {f}" for f in self.findings])


def audit(
    outputs: Any,
    inputs: Sequence[Variable] | None = None,
    points: dict[Variable, Sequence[Any]] | None = None,
    rtol: float = 1e-13,
    atol: float = 0.0,
    mode: Any = None,
    dps: int = 360,
    max_points: int = 400,
    blame: bool = True,
) -> AuditReport:
    """Evaluate a graph at extreme points of its inputs' domains and compare with mpmath.

    Parameters
    ----------
    outputs : Variable, sequence of Variables, or compiled function
        What to audit. A compiled function is audited as it is (its rewritten graph against
        the high-precision value of the graph it was built from).
    inputs : sequence of Variable, optional
        The graph's inputs, in order (default: every input the outputs depend on).
    points : dict, optional
        Values to try for some inputs (scalars fill the input's shape; arrays are used as
        they are), replacing the built-in extreme points.
    rtol : float
        The relative error allowed (at least 8 machine epsilons of the output's dtype).
    atol : float
        An absolute error also allowed, for functions whose conditioning forbids a relative
        bound near their zeros (default 0: relative error only).
    mode : Mode or str, optional
        The compilation mode (default: the configured default mode).
    dps : int
        Decimal digits of the reference evaluation (enough to resolve ``1 + 1e-300``).
    max_points : int
        At most this many combinations of points (sampled, reproducibly, beyond that).
    blame : bool
        Whether to look for the sub-expression to blame and its stable form.

    Returns
    -------
    AuditReport
        ``report.ok`` is True when every output is finite and accurate everywhere;
        ``report.findings`` lists the unstable outputs, each with the sub-expression to blame.
    """
    fn, outs, ins = _compiled(outputs, inputs, mode)
    combos = _combinations(ins, points or {}, max_points)
    report = AuditReport([pprint(o) for o in outs], len(combos))
    found: dict[tuple, Finding] = {}
    inexact = set()
    backup = _stabilized(outs)
    for combo in combos:
        values = dict(zip(ins, combo))
        with np.errstate(all="ignore"):
            computed = fn(*combo)
        if not isinstance(computed, (list, tuple)):
            computed = [computed]  # a function compiled for one output returns it alone
        try:
            exact, missing = _reference(outs, backup, values, dps)
        except Unresolved:
            report.unresolved += 1
            continue
        inexact |= missing
        for index, (out, got) in enumerate(zip(outs, computed)):
            error, element = _error(np.asarray(got), exact[out], out.type.dtype, atol)
            if error <= _tolerance(rtol, out.type.dtype):
                continue
            _record(found, index, out, values, got, exact, element, error, rtol, mode, blame)
    report.findings = list(found.values())
    report.inexact_nodes = sorted({str(n.op) for n in inexact})
    return report


def _stabilized(outs: list[Variable]) -> list[Variable]:
    """A copy of ``outs`` rewritten by the exact identities of canonicalize and stabilize."""
    equiv = clone_get_equiv([], outs, copy_inputs=False, copy_orphans=False)
    fgraph = FunctionGraph(outputs=[equiv[o] for o in outs], clone=False)
    rewrite_graph(fgraph, include=("canonicalize", "stabilize"))
    return list(fgraph.outputs)


def _reference(outs: list[Variable], backup: list[Variable], values: dict, dps: int):
    """The exact values of the graph; where a cancellation defeats the working precision,
    those of its stabilized copy (equal in exact arithmetic) stand in for the outputs."""
    try:
        return evaluate_exact(outs, values, dps)
    except Unresolved:
        pass
    exact, missing = evaluate_exact(backup, values, dps)
    try:
        partial, _ = evaluate_exact(outs, values, dps, retries=0, partial=True)
    except Unresolved:
        partial = {}
    partial.update({o: exact[b] for o, b in zip(outs, backup)})
    return partial, missing


def _compiled(outputs: Any, inputs: Any, mode: Any):
    maker = getattr(outputs, "maker", None)
    if maker is not None:
        outs = [o.variable for o in maker.outputs]
        ins = [i.variable for i in maker.inputs]
        return outputs, outs, ins
    outs = [outputs] if isinstance(outputs, Variable) else list(outputs)
    ins = list(inputs) if inputs is not None else explicit_graph_inputs(outs)
    compiled = function(ins, outs, mode=mode, on_unused_input="ignore")
    return compiled, outs, ins


def _scalar_points(var: Variable, several: bool) -> tuple:
    dtype = np.dtype(var.type.dtype)
    if dtype.kind == "b":
        return (False, True)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return tuple(v for v in INT_POINTS if info.min <= v <= info.max)
    points = FLOAT_POINTS_FEW if several else FLOAT_POINTS
    return points if dtype == np.float64 else _rescaled(points, np.finfo(dtype))


def _rescaled(points: tuple, info: np.finfo) -> tuple:
    """The float64 points for a narrower dtype: its own extremes for +-1e300 and +-1e-300,
    and no point its precision rounds to another one (1 + 2**-52 in float32 is 1)."""
    big = 10.0 ** np.floor(np.log10(float(info.max)) - 8)
    small = 10.0 ** np.ceil(np.log10(float(info.tiny)) + 8)
    scaled = []
    for p in points:
        if abs(p) == 1e300:
            p = np.copysign(big, p)
        elif abs(p) == 1e-300 or (abs(p) == 1e-20 and small > 1e-20):
            p = np.copysign(small, p)
        value = float(np.asarray(p, dtype=info.dtype))
        if value not in scaled:
            scaled.append(value)
    return tuple(scaled)


def _filled(var: Variable, value: Any) -> np.ndarray:
    array = np.asarray(value)
    if array.ndim == var.type.ndim:
        return array.astype(var.type.dtype)
    shape = tuple(UNKNOWN_LENGTH if s is None else s for s in var.type.shape)
    with np.errstate(all="ignore"):
        return np.full(shape, value, dtype=var.type.dtype)


def _combinations(ins: list[Variable], points: dict, max_points: int) -> list[tuple]:
    several = len(ins) > 1
    choices = [[_filled(v, p) for p in points.get(v, _scalar_points(v, several))] for v in ins]
    total = int(np.prod([len(c) for c in choices]))
    if total <= max_points:
        return list(itertools.product(*choices))
    rng = np.random.default_rng(0)
    return [tuple(c[rng.integers(len(c))] for c in choices) for _ in range(max_points)]


def _tolerance(rtol: float, dtype: str) -> float:
    kind = np.dtype(dtype).kind
    return max(rtol, 8 * float(np.finfo(dtype).eps)) if kind == "f" else rtol


def _error(
    computed: np.ndarray, exact: np.ndarray, dtype: str, atol: float = 0.0
) -> tuple[float, tuple]:
    """The largest relative error over the elements, and where it is (0 for non-floats)."""
    if np.dtype(dtype).kind != "f":
        ideal = to_float(exact, dtype)
        wrong = np.argwhere(np.broadcast_to(np.asarray(computed) != ideal, ideal.shape))
        return (np.inf, tuple(wrong[0])) if wrong.size else (0.0, ())
    worst, where = 0.0, ()
    ideal = to_float(exact, "float64")
    computed = np.broadcast_to(np.asarray(computed, dtype=np.float64), ideal.shape)
    tiny = float(np.finfo(dtype).tiny)
    for index in np.ndindex(ideal.shape):
        err = _element_error(computed[index], ideal[index], exact[index], max(tiny * 1e-3, atol))
        if err > worst:
            worst, where = err, index
    return worst, where


def _element_error(got: float, ideal: float, exact: Any, floor: float) -> float:
    if np.isnan(ideal) or got == ideal:
        return 0.0  # undefined there, or exactly right (including a true overflow)
    if not np.isfinite(got) or not np.isfinite(ideal):
        return np.inf
    difference = abs(float(abs(got - exact)))
    if difference <= floor:
        return 0.0  # within the subnormal range (no relative precision there), or atol
    return difference / abs(ideal) if ideal else np.inf


def _point_text(values: dict) -> dict[str, Any]:
    text = {}
    for var, value in values.items():
        flat = np.asarray(value).reshape(-1)
        same = flat.size and np.all(flat == flat[0])
        text[var.name or str(var)] = flat[0].item() if same else np.asarray(value).tolist()
    return text


def _record(found, index, out, values, got, exact, element, error, rtol, mode, blame) -> None:
    culprit, stable = _blame(out, values, exact, rtol, mode) if blame else (out, None)
    key = (index, pprint(culprit))
    if key in found:
        previous = found[key]
        previous.points += 1
        if error <= previous.error:
            return
        points = previous.points
    else:
        points = 1
    got = np.broadcast_to(np.asarray(got, dtype=np.float64), exact[out].shape)
    found[key] = Finding(
        index,
        pprint(out),
        _point_text(values),
        float(got[element]),
        float(to_float(exact[out], "float64")[element]),
        float(error),
        key[1],
        stable,
        points,
    )


def _lossy(node: Any, exact: dict, rtol: float) -> bool:
    """Whether ``node`` computed in floating point from its exact inputs is already wrong."""
    try:
        results = float_outputs(node, [exact[i] for i in node.inputs])
    except Exception:
        return False
    for out, got in zip(node.outputs, results):
        dtype = getattr(out.type, "dtype", None)
        if dtype is None or np.dtype(dtype).kind != "f":
            continue
        if _error(np.asarray(got), exact[out], dtype)[0] > _tolerance(rtol, dtype):
            return True
    return False


def _blame(out: Variable, values: dict, exact: dict, rtol: float, mode: Any):
    """The sub-expression to blame for ``out``, and its stable form (or None)."""
    nodes = io_toposort(list(values), [out])
    first = next((n for n in nodes if _lossy(n, exact, rtol)), None)
    if first is None:
        return out, None
    culprit = first.outputs[0]
    chain = [n.outputs[0] for n in nodes if culprit in set(ancestors([n.outputs[0]]))]
    for candidate in chain[:8]:
        stable = _stable_form(candidate, values, exact, rtol, mode)
        if stable is not None:
            return candidate, stable
    return culprit, None


def _stable_form(var: Variable, values: dict, exact: dict, rtol: float, mode: Any) -> str | None:
    """What the library's rules (the default mode) make of ``var``, if that is accurate."""
    ins = explicit_graph_inputs([var])
    compiled = function(ins, var, on_unused_input="ignore")
    with np.errstate(all="ignore"):
        got = compiled(*[values[i] for i in ins])
    error, _ = _error(np.asarray(got), exact[var], var.type.dtype)
    if error > _tolerance(rtol, var.type.dtype):
        return None
    return pprint(compiled.maker.fgraph.outputs[0])


__all__ = ["AuditReport", "Finding", "audit"]
