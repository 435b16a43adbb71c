"""Run a realized program in every arignote mode and compare with NumPy and PyTensor.

Differences are classified by kind (``value``, ``shape``, ``dtype``, ``raises``, ``modes`` (two
arignote modes disagree), ``input_modified``, ``hangs`` (building, compiling or running took
longer than its time limit, ``limits.py``)) and by what they are against (``numpy``,
``pytensor``, ``modes``, ``gradient`` (finite differences of the NumPy program)). Each is then
matched against the deliberate differences (``deliberate.py``); what is left is unexplained.
"""

from __future__ import annotations

import importlib
import re
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import arignote
import arignote.tensor as pt
from arignote.compile.debugmode import DebugMode
from arignote.compile.mode import Mode
from arignote.gradient import grad
from tests.differential.deliberate import explain
from tests.differential.limits import (
    ArignoteHangs,
    PyTensorHangs,
    TimeLimitExceeded,
    interrupted_in,
    time_limit,
    where_interrupted,
)
from tests.differential.programs import Program, Realized, evaluate_reference, realize

try:  # the `reference` extra; absent in CI
    pytensor = importlib.import_module("pytensor")
    ptt = importlib.import_module("pytensor.tensor")
except ImportError:  # pragma: no cover - depends on the environment
    pytensor = ptt = None

MODES = {
    "no_rewrites": Mode(linker="vm", optimizer=None),
    "FAST_COMPILE": "FAST_COMPILE",
    "FAST_RUN": "FAST_RUN",
    "default": None,
    "py_linker": Mode(linker="py", optimizer="fast_run"),
}
# Further execution paths that tests may name in ``modes`` (tests/reliability/test_fuzz_paths.py);
# the backends are made on first use, so naming them here imports neither numba nor jax.
EXTRA_PATHS = {
    "vm": Mode(linker="vm", optimizer="fast_run"),
    "NUMBA": "NUMBA",
    "JAX": "JAX",
    "DebugMode": DebugMode(check_isfinite=False),  # programs reach NaN on purpose
}


def mode_named(name: str):
    """The mode (or mode name) of an execution path of ``MODES`` or ``EXTRA_PATHS``."""
    return MODES[name] if name in MODES else EXTRA_PATHS[name]


@dataclass
class Difference:
    kind: str  # value, shape, dtype, raises, modes, input_modified
    against: str  # numpy, pytensor, modes, gradient
    detail: str
    mode: str = ""
    error: str = ""  # arignote's error message when arignote raised
    entries: tuple = ()
    explanation: str | None = None
    pytensor_differs_from_numpy: bool = False  # arignote agrees with NumPy: PyTensor's defect

    def __str__(self) -> str:
        return f"[{self.kind} vs {self.against}] {self.mode}: {self.detail}"


@dataclass
class Outcome:
    program: Program
    realized: Realized | None = None
    skipped: str | None = None
    differences: list[Difference] = field(default_factory=list)
    pytensor_compared: bool = False
    gradient_verified: bool = False  # finite differences could check the gradient
    pytensor_hangs: bool = False  # PyTensor did not finish within PYTENSOR_TIME_LIMIT

    @property
    def unexplained(self) -> list[Difference]:
        return [d for d in self.differences if d.explanation is None]


# -- running ------------------------------------------------------------------------------------


def _quiet():
    manager = warnings.catch_warnings()
    manager.__enter__()
    warnings.simplefilter("ignore")
    return manager


def _gradient_outputs(realized: Realized) -> tuple[list, list]:
    """The gradient of ``sum(value * weights)`` with respect to the float inputs."""
    if realized.grad_value is None:
        return [], []
    var = realized.values[realized.grad_value][0]
    cost = (var * pt.constant(realized.weights.astype(var.type.dtype))).sum()
    wrt = [i for i, v in enumerate(realized.inputs) if v.type.dtype.startswith("float")]
    grads = grad(
        cost,
        [realized.inputs[i] for i in wrt],
        disconnected_inputs="ignore",
        null_gradients="return",
    )
    kept = [(i, g) for i, g in zip(wrt, grads) if getattr(g.type, "dtype", None) is not None]
    realized.grad_wrt = [i for i, _ in kept]
    return realized.grad_wrt, [g for _, g in kept]


def _run_mode(realized: Realized, outputs: list, mode) -> tuple[Any, list]:
    """Results (or the exception) and whether each input was left unchanged.

    A hang is tried once more before it is reported: on a loaded machine a stage can stall
    for seconds without hanging."""
    result, unchanged = _run_mode_once(realized, outputs, mode)
    if isinstance(result, ArignoteHangs):
        result, unchanged = _run_mode_once(realized, outputs, mode)
    return result, unchanged


def _run_mode_once(realized: Realized, outputs: list, mode) -> tuple[Any, list]:
    values = [v.copy() for v in realized.input_values]
    try:
        with time_limit(ARIGNOTE_TIME_LIMIT, ArignoteHangs) as limit:
            result = _compile_and_call(realized, outputs, mode, values)
    except (Exception, ArignoteHangs) as err:
        result = err
    if limit.fired and not isinstance(result, ArignoteHangs):  # interrupted, caught inside
        result = ArignoteHangs(f"took more than {ARIGNOTE_TIME_LIMIT:g} s")
    unchanged = [
        np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
        for a, b in zip(values, realized.input_values)
    ]
    return result, unchanged


def _compile_and_call(realized: Realized, outputs: list, mode, values: list) -> list:
    fn = arignote.function(realized.inputs, outputs, mode=mode, on_unused_input="ignore")
    with np.errstate(all="ignore"):
        result = [np.asarray(r) if not isinstance(r, np.ndarray) else r for r in fn(*values)]
        return [r.copy() for r in result]


# -- comparing ----------------------------------------------------------------------------------


def _tolerance(dtype: np.dtype) -> tuple[float, float]:
    return (1e-3, 1e-4) if dtype in (np.float32, np.complex64, np.float16) else (1e-6, 1e-8)


def _compare_value(got: np.ndarray, expected: np.ndarray, check_dtype: bool = True):
    """The kind and detail of the first difference, or None."""
    if got.shape != expected.shape:
        return "shape", f"shape {got.shape} != {expected.shape}"
    if check_dtype and got.dtype != expected.dtype:
        return "dtype", f"dtype {got.dtype} != {expected.dtype}"
    if expected.dtype.kind in "fc" or got.dtype.kind in "fc":
        rtol, atol = _tolerance(np.result_type(got.dtype, expected.dtype))
        with np.errstate(all="ignore"):
            close = np.isclose(got, expected, rtol=rtol, atol=atol, equal_nan=True)
        if not np.all(close):
            return "value", f"values differ: {_first_difference(got, expected, close)}"
        return None
    if not np.array_equal(got, expected):
        return "value", f"values differ: {got!r} != {expected!r}"
    return None


def _first_difference(got, expected, close) -> str:
    index = tuple(int(i) for i in np.argwhere(~close)[0]) if got.ndim else ()
    return f"at {index}: {got[index]!r} != {expected[index]!r}"


def _error_text(err: BaseException) -> str:
    return f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"


def _compare_results(got, expected, against: str, mode: str, n_outputs: int = 10**9) -> list:
    """Differences between two result lists; positions from ``n_outputs`` on are gradients."""
    if isinstance(expected, BaseException) and isinstance(got, BaseException):
        return []
    if isinstance(got, ArignoteHangs):
        detail = f"arignote hangs ({where_interrupted(got)})"
        return [Difference("hangs", against, detail, mode, _error_text(got))]
    if isinstance(got, BaseException):
        return [Difference("raises", against, "arignote raises", mode, _error_text(got))]
    if isinstance(expected, BaseException):
        return [Difference("raises", against, f"{against} raises {_error_text(expected)}", mode)]
    found = []
    for position, (g, e) in enumerate(zip(got, expected)):
        diff = _compare_value(np.asarray(g), np.asarray(e))
        if diff is not None:
            where = (
                f"output {position}" if position < n_outputs else f"gradient {position - n_outputs}"
            )
            found.append(Difference(diff[0], against, f"{where}: {diff[1]}", mode))
    return found


# -- gradients against finite differences -------------------------------------------------------


FD_STEP = 1e-6


def _check_gradient(realized: Realized, wrt: list, grads: list) -> list:
    """``<grad, v>`` against finite differences along a random ``v``, where the program is
    smooth (forward and backward differences agree: no kink, jump or singularity) and every
    input is float64."""
    if not wrt or any(realized.input_values[i].dtype != np.float64 for i in wrt):
        return None
    rng = np.random.default_rng(len(wrt))
    direction = [rng.normal(size=realized.input_values[i].shape) for i in wrt]
    try:
        with np.errstate(all="ignore"):
            forward, backward, here = _one_sided(realized, wrt, direction, FD_STEP)
    except Exception:
        return None
    if not (np.isfinite(forward) and np.isfinite(backward)):
        return None
    if not np.isclose(forward, backward, rtol=1e-3, atol=1e-5):
        return None  # a kink, a jump or a singularity: finite differences say nothing
    numeric = (forward + backward) / 2
    if abs(here) * np.finfo(np.float64).eps / FD_STEP > 1e-5 + 1e-3 * abs(numeric):
        return None  # a cost so large (4e307: nan_to_num of inf) that the steps round away
    for g, v in zip(grads, direction):
        if np.shape(g) != np.shape(v):
            detail = f"a gradient of shape {np.shape(g)} for an input of shape {np.shape(v)}"
            return [Difference("shape", "gradient", detail, "FAST_RUN")]
    analytic = float(sum(np.sum(g * v) for g, v in zip(grads, direction)))
    if np.isclose(analytic, numeric, rtol=1e-3, atol=1e-5):
        return []
    detail = f"<grad, v> = {analytic!r}, finite differences give {numeric!r}"
    return [Difference("value", "gradient", detail, "FAST_RUN")]


def _one_sided(realized: Realized, wrt: list, direction: list, eps: float):
    def cost(step):
        values = list(realized.input_values)
        for i, v in zip(wrt, direction):
            values[i] = values[i] + step * v
        ref = evaluate_reference(realized, values)[realized.grad_value]
        return float(np.sum(ref * realized.weights))

    here = cost(0.0)
    return (cost(eps) - here) / eps, (here - cost(-eps)) / eps, here


# -- PyTensor -----------------------------------------------------------------------------------

PYTENSOR_TIME_LIMIT = 20.0  # seconds; some PyTensor rewrites loop forever (see the report)
REFERENCE_TIME_LIMIT = 10.0  # seconds for building the program and its NumPy values
ARIGNOTE_TIME_LIMIT = 30.0  # seconds for compiling and running the program in one mode


_PT_MODULES = ("pytensor.tensor", "pytensor.tensor.special", "pytensor.tensor.linalg")


def _pytensor_function(info):
    """PyTensor's function of the same name, where the entry calls arignote's directly."""
    base = info.name.split("[")[0]
    if isinstance(info.build, pt.Elemwise):
        build_name = str(info.build.scalar_op)
    else:
        build_name = getattr(info.build, "__name__", None)
    if build_name != base:
        return None
    for module_name in _PT_MODULES:
        fn = getattr(importlib.import_module(module_name), base, None)
        if callable(fn):
            return fn
    return None


def run_pytensor(realized: Realized, with_grad: bool):
    """PyTensor's outputs (and gradients) for the program, None where it cannot be built, or
    a :class:`PyTensorHangs` where it does not finish."""
    if pytensor is None:
        return None
    try:
        with time_limit(PYTENSOR_TIME_LIMIT) as limit:
            result = _run_pytensor(realized, with_grad)
    except PyTensorHangs as err:
        return err
    return PyTensorHangs("PyTensor was interrupted") if limit.fired else result


def _run_pytensor(realized: Realized, with_grad: bool):
    manager = _quiet()
    try:
        inputs = [
            ptt.tensor(dtype=v.type.dtype, shape=v.type.shape, name=v.name) for v in realized.inputs
        ]
        values: list = []
        for info, kwargs, specs, n_out in realized.plan:
            fn = _pytensor_function(info)
            if fn is None:
                return None
            args = [
                s[1] if s[0] == "lit" else (inputs if s[0] == "in" else values)[s[1]] for s in specs
            ]
            out = fn(*args, **kwargs)
            out = list(out) if isinstance(out, (list, tuple)) else [out]
            if len(out) != n_out:
                return None
            values.extend(out)
        outputs = [values[j] for j in realized.outputs]
        if with_grad and realized.grad_value is not None:
            outputs += _pytensor_gradient(realized, inputs, values)
        mode = pytensor.compile.mode.Mode(linker="py", optimizer="fast_run")
        fn = pytensor.function(inputs, outputs, mode=mode, on_unused_input="ignore")
    except PyTensorHangs:
        raise
    except Exception:
        return None
    finally:
        manager.__exit__(None, None, None)
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return [np.asarray(r) for r in fn(*[v.copy() for v in realized.input_values])]
    except PyTensorHangs:
        raise
    except Exception as err:
        return err


def _pytensor_gradient(realized: Realized, inputs: list, values: list) -> list:
    var = values[realized.grad_value]
    cost = (var * realized.weights.astype(var.dtype)).sum()
    wrt = [inputs[i] for i in realized.grad_wrt]
    return pytensor.grad(cost, wrt, disconnected_inputs="ignore") if wrt else []


# -- the whole check ----------------------------------------------------------------------------


def check_program(program: Program, modes=tuple(MODES), with_pytensor: bool = True) -> Outcome:
    """Differences of ``program`` between arignote's modes, NumPy and (if installed) PyTensor."""
    outcome = Outcome(program)
    built = _build(outcome)
    if built is None and outcome.differences:  # a hang: once more, as in _run_mode
        outcome.differences.clear()
        built = _build(outcome)
    if built is None:
        return outcome
    realized, wrt, grads = built
    outputs = [realized.values[j][0] for j in realized.outputs]
    expected = [realized.values[j][1] for j in realized.outputs]
    results = _run_modes(outcome, realized, outputs + grads, modes)
    if grads and _shape_follows_from_outputs(realized, outputs, expected, modes[0], results):
        grads = []  # the weights have NumPy's shape, not arignote's: no gradient to compare
        results = _run_modes(Outcome(program), realized, outputs, modes)
    reference = results[modes[0]]
    for name in modes:
        got = results[name]
        values = got if isinstance(got, BaseException) else got[: len(outputs)]
        outcome.differences += _compare_results(values, expected, "numpy", name)
        outcome.differences += _compare_results(got, reference, "modes", name, len(outputs))
    if not isinstance(reference, BaseException) and grads:
        found = _check_gradient(realized, wrt, reference[len(outputs) :])
        outcome.gradient_verified = found is not None
        outcome.differences += found or []
    entries = tuple(info.name for info, *_ in realized.plan)
    for diff in outcome.differences:
        diff.entries = entries
    if with_pytensor:
        _compare_pytensor(outcome, realized, reference, len(outputs), bool(grads))
    for diff in outcome.differences:
        diff.kind = "modes" if diff.against == "modes" else diff.kind
        diff.entries = entries
        diff.explanation = explain(diff, realized)
    _explain_consequences(outcome)
    return outcome


def _build(outcome: Outcome):
    """``(realized, wrt, grads)``, or None with ``outcome.skipped`` (or a hang) recorded."""
    manager = _quiet()
    try:
        with time_limit(REFERENCE_TIME_LIMIT, ArignoteHangs) as limit:
            outcome.realized = realized = realize(outcome.program)
            wrt, grads = _gradient_outputs(realized)
    except (Exception, TimeLimitExceeded) as err:
        return _build_failed(outcome, err)
    finally:
        manager.__exit__(None, None, None)
    if limit.fired:  # interrupted, and the interruption caught inside
        return _build_failed(outcome, ArignoteHangs(f"took more than {REFERENCE_TIME_LIMIT:g} s"))
    return realized, wrt, grads


def _build_failed(outcome: Outcome, err: Exception) -> None:
    # the NumPy reference can be slow beyond use (factorial_exact of large numbers): skipped;
    # building the graph or its gradient is arignote's and must finish: a finding
    if isinstance(err, TimeLimitExceeded) and not interrupted_in(err, "_call_reference"):
        detail = f"building the graph hangs ({where_interrupted(err)})"
        outcome.differences.append(Difference("hangs", "numpy", detail, "build"))
        outcome.differences[-1].entries = tuple(s.entry for s in outcome.program.steps)
    else:
        outcome.skipped = _error_text(err)
    return None


def _run_modes(outcome: Outcome, realized: Realized, outputs: list, modes) -> dict:
    results = {}
    for name in modes:
        results[name], unchanged = _run_mode(realized, outputs, mode_named(name))
        _record_modified(outcome, name, unchanged)
    return results


def _shape_follows_from_outputs(realized, outputs, expected, mode, results) -> bool:
    """Whether the gradient failed only because an output's shape differs from NumPy's (the
    weights of the differentiated sum are shaped like NumPy's value)."""
    if not isinstance(results[mode], BaseException):
        return False
    plain, _ = _run_mode(realized, outputs, mode_named(mode))
    if isinstance(plain, BaseException):
        return False
    return any(np.shape(g) != np.shape(e) for g, e in zip(plain, expected))


def _explain_consequences(outcome: Outcome) -> None:
    """Once a deliberate shape difference with NumPy is explained, what follows from it in that
    mode (a gradient weighted by NumPy's shape, a later op's error) is explained by it too."""
    causes = {
        d.mode: d.explanation
        for d in outcome.differences
        if d.against == "numpy" and d.kind == "shape" and d.explanation is not None
    }
    for diff in outcome.differences:
        if diff.explanation is None and diff.against in ("numpy", "gradient"):
            cause = causes.get(diff.mode)
            diff.explanation = None if cause is None else f"{cause} (consequence)"


def _record_modified(outcome: Outcome, mode: str, unchanged: list) -> None:
    for position, same in enumerate(unchanged):
        if not same:
            detail = f"input {position} was modified"
            outcome.differences.append(Difference("input_modified", "numpy", detail, mode))


def _compare_pytensor(outcome, realized, reference, n_outputs, with_grad) -> None:
    theirs = run_pytensor(realized, with_grad)
    if theirs is None:
        return
    if isinstance(theirs, PyTensorHangs):
        outcome.pytensor_hangs = True
        return
    outcome.pytensor_compared = True
    if isinstance(reference, BaseException) or isinstance(theirs, BaseException):
        ours = reference if isinstance(reference, BaseException) else reference[:n_outputs]
        theirs = theirs if isinstance(theirs, BaseException) else theirs[:n_outputs]
        found = _compare_results(ours, theirs, "pytensor", "FAST_RUN")
    else:
        found = _compare_results(reference, theirs, "pytensor", "FAST_RUN", n_outputs)
    # NumPy decides where arignote and PyTensor differ: where arignote agrees with NumPy
    # (and, for gradients, with finite differences), the difference is PyTensor's.
    ours_wrong = any(
        d.against in ("numpy", "gradient") and explain(d, realized) is None
        for d in outcome.differences
    )
    for diff in found:
        in_gradient = diff.detail.startswith("gradient ")
        decided = outcome.gradient_verified if in_gradient else True
        diff.pytensor_differs_from_numpy = decided and not ours_wrong
    outcome.differences += found


def summary(outcomes: list[Outcome]) -> dict:
    """Counts by class, explained and unexplained."""
    counts: dict = {"programs": len(outcomes), "skipped": 0, "pytensor_compared": 0}
    counts.update(pytensor_hangs=0, gradients_verified=0)
    for outcome in outcomes:
        counts["skipped"] += outcome.skipped is not None
        counts["pytensor_compared"] += outcome.pytensor_compared
        counts["pytensor_hangs"] += outcome.pytensor_hangs
        counts["gradients_verified"] += outcome.gradient_verified
        for diff in {(d.kind, d.against, d.explanation) for d in outcome.differences}:
            kind, against, explanation = diff
            key = f"{kind} vs {against}: " + (
                "unexplained" if explanation is None else f"deliberate ({explanation})"
            )
            counts[key] = counts.get(key, 0) + 1
    return counts


def describe(outcome: Outcome) -> str:
    lines = [repr(outcome.program)]
    lines += [f"  {d}" + (f" -- {d.error}" if d.error else "") for d in outcome.unexplained]
    return "\n".join(lines)


def matches(pattern: str, text: str) -> bool:
    return re.search(pattern, text) is not None
