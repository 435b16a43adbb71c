"""``verify_grad``: symbolic gradients checked against central finite differences."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from arignote.autodiff import grad
from arignote.compile import function, shared
from arignote.graph.grad_types import GradientError
from arignote.tensor.type import TensorType

#: Default step of the finite differences, per dtype (central differences: error ~ eps^2).
DEFAULT_EPS = {"float64": 1e-6, "float32": 3e-3, "float16": 1e-1}
#: Default absolute and relative tolerances, per dtype.
DEFAULT_TOL = {"float64": 1e-4, "float32": 1e-2, "float16": 5e-2}


def _dtype_key(arrays: Sequence[np.ndarray]) -> str:
    dtypes = {a.dtype.name for a in arrays}
    for candidate in ("float16", "float32", "complex64"):
        if candidate in dtypes:
            return "float32" if candidate == "complex64" else candidate
    return "float64"


def numeric_grad(f: Callable, points: list[np.ndarray], eps: float) -> list[np.ndarray]:
    """Central differences of the scalar function ``f(*points)`` for every input element."""
    grads = []
    for index, point in enumerate(points):
        g = np.zeros(point.shape, dtype="float64")
        flat = point.reshape(-1)  # a view: writing to it moves the point
        for i in range(flat.size):
            original = flat[i]
            flat[i] = original + eps
            above = float(f(*points))
            flat[i] = original - eps
            below = float(f(*points))
            flat[i] = original
            g.reshape(-1)[i] = (above - below) / (2 * eps)
        grads.append(g)
        points[index] = point
    return grads


def gradient_errors(numeric: np.ndarray, analytic: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Absolute and relative (|a - b| / (|a| + |b|)) differences, elementwise."""
    analytic = np.asarray(analytic, dtype="float64")
    abs_err = np.abs(numeric - analytic)
    denominator = np.abs(numeric) + np.abs(analytic)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel_err = np.where(denominator > 0, abs_err / denominator, 0.0)
    return abs_err, rel_err


def _worst(numeric, analytic, abs_tol, rel_tol) -> tuple[int, tuple, float, float, float]:
    worst = (-1, (), 0.0, 0.0, 0.0)
    for arg, (n, a) in enumerate(zip(numeric, analytic)):
        if np.shape(a) != np.shape(n):
            raise GradientError(
                f"The gradient for argument {arg} has shape {np.shape(a)}, expected {np.shape(n)}"
            )
        abs_err, rel_err = gradient_errors(n, a)
        if abs_err.size == 0:
            continue
        score = np.minimum(abs_err / abs_tol, rel_err / rel_tol)
        position = np.unravel_index(int(np.argmax(score)), score.shape)
        if score[position] > worst[4]:
            worst = (
                arg,
                position,
                float(abs_err[position]),
                float(rel_err[position]),
                float(score[position]),
            )
    return worst


def verify_grad(
    fun: Callable,
    pt: Sequence[Any],
    n_tests: int = 2,
    rng: np.random.Generator | None = None,
    eps: float | None = None,
    out_type: Any = None,
    abs_tol: float | None = None,
    rel_tol: float | None = None,
    mode: Any = None,
    cast_to_output_type: bool = False,
    no_debug_ref: bool = True,
) -> None:
    """Check the gradient of ``fun`` at the point ``pt`` against finite differences.

    ``fun`` takes one symbolic tensor per entry of ``pt`` and returns one tensor ``y``; the test
    compares the gradient of ``sum(r * y)``, for a random projection ``r``, with central
    differences. Raises :class:`GradientError` with the largest absolute and relative errors and
    where they occur when both exceed their tolerance (defaults depend on the dtype).
    """
    points = [np.array(p, copy=True) for p in pt]
    for i, p in enumerate(points):
        if p.dtype.kind not in "fc":
            raise TypeError(f"verify_grad needs floating-point points; argument {i} is {p.dtype}")
    rng = rng if rng is not None else np.random.default_rng(42)
    key = _dtype_key(points)
    eps = DEFAULT_EPS[key] if eps is None else eps
    abs_tol = DEFAULT_TOL[key] if abs_tol is None else abs_tol
    rel_tol = DEFAULT_TOL[key] if rel_tol is None else rel_tol

    inputs = [
        TensorType(p.dtype, shape=tuple(1 if s == 1 else None for s in p.shape))(f"input{i}")
        for i, p in enumerate(points)
    ]
    output = fun(*inputs)
    if isinstance(output, (list, tuple)):
        raise TypeError("verify_grad checks one output at a time; wrap fun to return one tensor")
    out_value = function(inputs, output, mode=mode, on_unused_input="ignore")(*points)
    dtype = output.type.dtype if cast_to_output_type else "float64"
    projection = shared(np.asarray(rng.random(np.shape(out_value)) + 0.5, dtype=dtype))
    cost = (projection * output).sum()
    cost_fn = function(inputs, cost, mode=mode, on_unused_input="ignore")
    grads = grad(cost, inputs, disconnected_inputs="ignore")
    grad_fn = function(inputs, grads, mode=mode, on_unused_input="ignore")
    for test in range(n_tests):
        numeric = numeric_grad(cost_fn, [p.copy() for p in points], eps)
        analytic = grad_fn(*[p.copy() for p in points])
        arg, position, abs_err, rel_err, score = _worst(numeric, analytic, abs_tol, rel_tol)
        if score > 1:
            raise GradientError(
                "The symbolic gradient does not match finite differences: at position "
                f"{position} of argument {arg} (shape {points[arg].shape}), numeric = "
                f"{numeric[arg][position]!r}, symbolic = {np.asarray(analytic[arg])[position]!r}; "
                f"max abs. error = {abs_err:.3g} (tolerance {abs_tol:g}), max rel. error = "
                f"{rel_err:.3g} (tolerance {rel_tol:g})"
            )
        if test < n_tests - 1:
            projection.set_value(np.asarray(rng.random(np.shape(out_value)) + 0.5, dtype=dtype))
