"""``verify_grad``: symbolic gradients checked against central finite differences."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from arignote.autodiff import grad
from arignote.compile import function, shared
from arignote.graph.basic import Variable
from arignote.graph.grad_types import GradientError
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.type import TensorType
from arignote.testing.seeds import fetch_seed

FLOAT_DTYPES = ("float16", "float32", "float64")
#: Default step of the central differences, per dtype. Their error is about
#: eps^2 |f'''| / 6 + (rounding error of f) / eps: the steps balance the two terms.
DEFAULT_EPS = {"float64": 1e-6, "float32": 3e-3, "float16": 1e-1}
#: Default absolute and relative tolerances, per dtype.
DEFAULT_TOL = {"float64": 1e-4, "float32": 1e-2, "float16": 5e-2}


def float_points(pt: Any, who: str) -> list[np.ndarray]:
    """Copies of the arrays of ``pt``, which must all be floating point."""
    if not isinstance(pt, (list, tuple)):
        raise TypeError(f"{who}: pt must be a list or tuple of arrays, got {type(pt).__name__}")
    points = [np.array(p) for p in pt]
    for i, p in enumerate(points):
        if p.dtype.name not in FLOAT_DTYPES:
            raise TypeError(
                f"{who} works with floating-point points only; argument {i} has dtype {p.dtype}"
            )
    return points


def symbolic_inputs(points: Sequence[np.ndarray]) -> list[Variable]:
    """One tensor variable per point: same dtype; length-1 dimensions stay broadcastable."""
    return [
        TensorType(p.dtype, shape=tuple(1 if s == 1 else None for s in p.shape))(f"input{i}")
        for i, p in enumerate(points)
    ]


def default_eps(points: Sequence[np.ndarray]) -> float:
    return max(DEFAULT_EPS[p.dtype.name] for p in points)


def default_tol(points: Sequence[np.ndarray]) -> float:
    return max(DEFAULT_TOL[p.dtype.name] for p in points)


class numeric_grad:  # PyTensor's public name
    """The gradient of the scalar function ``f(*pt)`` by central differences.

    ``gf`` holds one float64 array per point. Each element moves by ``eps`` both ways; the step
    really taken (after rounding to the point's dtype) is the one divided by.
    """

    def __init__(self, f: Callable, pt: Sequence[np.ndarray], eps: float | None = None) -> None:
        points = [np.array(p, copy=True) for p in pt]
        eps = default_eps(points) if eps is None else eps
        self.gf = [self._partials(f, points, k, eps) for k in range(len(points))]

    @staticmethod
    def _partials(f: Callable, points: list, k: int, eps: float) -> np.ndarray:
        flat = points[k].reshape(-1)  # a view: writing to it moves the point
        result = np.zeros(flat.size, dtype="float64")
        for i in range(flat.size):
            original = flat[i]
            flat[i] = original + eps
            above_x, above = float(flat[i]), float(f(*points))
            flat[i] = original - eps
            below_x, below = float(flat[i]), float(f(*points))
            flat[i] = original
            if above_x == below_x:
                raise ValueError(
                    f"A finite-difference step of {eps} vanishes at {original!r} in "
                    f"{flat.dtype}: use a larger eps"
                )
            result[i] = (above - below) / (above_x - below_x)
        return result.reshape(points[k].shape)

    @staticmethod
    def abs_rel_err(a: Any, b: Any) -> tuple[np.ndarray, np.ndarray]:
        """Elementwise ``|a - b|`` and ``|a - b| / max(|a| + |b|, 1e-8)``."""
        a, b = np.asarray(a, dtype="float64"), np.asarray(b, dtype="float64")
        abs_err = np.abs(a - b)
        return abs_err, abs_err / np.maximum(np.abs(a) + np.abs(b), 1e-8)

    def abs_rel_errors(self, g_pt: Sequence[Any]) -> list[tuple[np.ndarray, np.ndarray]]:
        """The errors of ``g_pt`` (one array per point) against :attr:`gf`."""
        if len(g_pt) != len(self.gf):
            raise ValueError(f"expected {len(self.gf)} gradients, got {len(g_pt)}")
        errors = []
        for i, (a, b) in enumerate(zip(g_pt, self.gf)):
            if np.shape(a) != b.shape:
                raise ValueError(f"gradient {i} has shape {np.shape(a)}, expected {b.shape}")
            errors.append(self.abs_rel_err(a, b))
        return errors

    def max_err(
        self, g_pt: Sequence[Any], abs_tol: float, rel_tol: float
    ) -> tuple[int, tuple[int, ...], float, float]:
        """The worst element of ``g_pt``: ``(argument, index, abs error, rel error)``.

        "Worst" maximizes ``min(abs_err / abs_tol, rel_err / rel_tol)``, which exceeds 1 where
        both tolerances are exceeded; non-finite errors count as infinitely bad.
        """
        worst = (0, (), 0.0, 0.0)
        worst_score = -1.0
        for arg, (abs_err, rel_err) in enumerate(self.abs_rel_errors(g_pt)):
            if abs_err.size == 0:
                continue
            with np.errstate(invalid="ignore"):
                score = np.minimum(abs_err / abs_tol, rel_err / rel_tol)
            score = np.where(np.isfinite(score), score, np.inf)
            index = np.unravel_index(int(np.argmax(score)), score.shape)
            if score[index] > worst_score:
                worst_score = float(score[index])
                position = tuple(int(i) for i in index)
                worst = (arg, position, float(abs_err[index]), float(rel_err[index]))
        return worst


def _largest_errors(errors: list[tuple[np.ndarray, np.ndarray]]) -> tuple[float, float]:
    """The largest absolute and relative errors over all arguments (NaN if there is one)."""
    largest = []
    for k in (0, 1):
        values = np.concatenate([np.ravel(pair[k]) for pair in errors])
        largest.append(float(np.max(values)) if values.size else 0.0)
    return largest[0], largest[1]


def verify_grad(
    fun: Callable,
    pt: Sequence[Any],
    n_tests: int = 2,
    rng: np.random.Generator | None = None,
    eps: float | None = None,
    abs_tol: float | None = None,
    rel_tol: float | None = None,
    mode: Any = None,
    cast_to_output_type: bool = False,
    *,
    out_type: Any = None,
    no_debug_ref: bool = True,
) -> None:
    """Check the gradient of ``fun`` at the point ``pt`` against central finite differences.

    Parameters
    ----------
    fun
        Takes one symbolic tensor per entry of ``pt`` (an Op instance works) and returns one
        tensor ``y``.
    pt
        Floating-point arrays (float16/32/64): the point where the gradient is checked.
    n_tests
        How many random projections to try.
    rng
        A ``numpy.random.Generator`` drawing the projections (default: seeded by
        :func:`~arignote.testing.fetch_seed`).
    eps
        Finite-difference step (default depends on the least precise dtype of ``pt``; raising
        it is better than raising the tolerances).
    abs_tol, rel_tol
        The check fails where both the absolute and the relative errors exceed these
        (defaults depend on the dtypes: 1e-4 for float64, 1e-2 for float32, 5e-2 for float16).
    mode
        The compilation mode of the functions compared.
    cast_to_output_type
        Draw the projection in the output's dtype when it is float32 (else float64).
    out_type, no_debug_ref
        Accepted for compatibility with PyTensor; complex outputs are not supported, and the
        functions are compiled with ``mode`` in every case.

    The check compares the gradient of ``sum(r * y)`` for a random projection ``r`` (entries
    in [0.5, 1.5)) with central differences. On failure it raises
    :class:`~arignote.gradient.GradientError`, which reports the largest absolute and
    relative errors, the argument and the index (plain ints) where they occur.
    """
    points = float_points(pt, "verify_grad")
    rng = np.random.default_rng(fetch_seed()) if rng is None else rng
    eps = default_eps(points) if eps is None else eps
    abs_tol = default_tol(points) if abs_tol is None else abs_tol
    rel_tol = default_tol(points) if rel_tol is None else rel_tol

    inputs = symbolic_inputs(points)
    output = fun(*inputs)
    if isinstance(output, (list, tuple)):
        raise TypeError("verify_grad checks one output: make fun return a single tensor")
    output = as_tensor_variable(output)
    if output.type.dtype.startswith("complex"):
        raise TypeError(f"verify_grad checks real-valued outputs; fun returned {output.type}")
    out_shape = np.shape(function(inputs, output, mode=mode, on_unused_input="ignore")(*points))

    def projection() -> np.ndarray:
        dtype = "float32" if cast_to_output_type and output.type.dtype == "float32" else "float64"
        return np.asarray(rng.random(out_shape) + 0.5, dtype=dtype)

    weights = shared(projection(), name="random_projection")
    cost = (weights * output).sum()
    cost_fn = function(inputs, cost, mode=mode, on_unused_input="ignore")
    grads = grad(cost, inputs, disconnected_inputs="ignore")
    grad_fn = function(inputs, grads, mode=mode, on_unused_input="ignore")
    for test in range(n_tests):
        numeric = numeric_grad(cost_fn, points, eps)
        analytic = grad_fn(*[p.copy() for p in points])
        arg, position, abs_err, rel_err = numeric.max_err(analytic, abs_tol, rel_tol)
        if (abs_err > abs_tol and rel_err > rel_tol) or not np.isfinite(abs_err):
            largest_abs, largest_rel = _largest_errors(numeric.abs_rel_errors(analytic))
            raise GradientError(
                arg,
                position,
                points[arg].shape,
                val1=float(numeric.gf[arg][position]),
                val2=float(np.asarray(analytic[arg])[position]),
                abs_err=abs_err,
                rel_err=rel_err,
                abs_tol=abs_tol,
                rel_tol=rel_tol,
                max_abs_err=largest_abs,
                max_rel_err=largest_rel,
            )
        if test < n_tests - 1:
            weights.set_value(projection())
