"""op_db entries: SciPy's optimisers as ops (arignote.tensor.optimize).

Each entry solves a problem with a closed-form answer, so the reference is exact: a ridge
regression (``minimize``, with one variable and with a list of two), a quadratic in one
variable (``minimize_scalar``), cube roots (``root``) and square roots (``root_scalar``) of
``1 + a^2``. The
gradients with respect to the parameters (the implicit function theorem) are checked against
finite differences by the generic tests; the solvers run with tight tolerances so that the
finite differences see the exact solution.
"""

from __future__ import annotations

import numpy as np
from arignote.tensor.optimize import (
    MinimizeOp,
    MinimizeScalarOp,
    RootOp,
    RootScalarOp,
    minimize,
    minimize_scalar,
    root,
    root_scalar,
)

import arignote.tensor as pt
from tests.op_db.core import Directive, OpInfo, Sample, register

TIGHT = {"options": {"gtol": 1e-12}}


def _real(*args):
    """The arguments as floats (the fuzzer also feeds integer and boolean versions of the
    samples; optimising over integers means nothing, so both sides compute in float64)."""
    return [a if a.dtype in ("float32", "float64") else a.astype("float64") for a in args]


def _real_ref(*args):
    return [a if a.dtype.kind == "f" else a.astype("float64") for a in map(np.asarray, args)]


def _ridge_samples(rng):
    return [
        Sample((rng.normal(size=(5, 3)), rng.normal(size=(5,))), name="tall"),
        Sample((rng.normal(size=(2, 4)), rng.normal(size=(2,))), name="wide"),
    ]


def _ridge(a, b):
    a, b = _real(a, b)
    # min_x |a x - b|^2 + |x|^2 / 2, from x = 0
    x = pt.zeros((a.shape[1],), dtype=a.dtype)
    objective = ((pt.dot(a, x) - b) ** 2).sum() + 0.5 * (x**2).sum()
    return minimize(objective, x, optimizer_kwargs=TIGHT)[0]


def _ridge_ref(a, b):
    a, b = _real_ref(a, b)
    # the gradient 2 aᵀ(a x - b) + x vanishes: (aᵀa + I/2) x = aᵀ b
    return np.linalg.solve(a.T @ a + 0.5 * np.eye(a.shape[1]), a.T @ b)


def _two_variables(a, b):
    a, b = _real(a, b)
    # the same problem with x split into a 2x1 matrix and a scalar (packed into one vector)
    first, second = pt.zeros((2, 1), dtype=a.dtype), pt.zeros((), dtype=a.dtype)
    x = pt.concatenate([first.ravel(), second[None]])
    objective = ((pt.dot(a, x) - b) ** 2).sum() + 0.5 * (x**2).sum()
    solved, _ = minimize(objective, [first, second], method="trust-exact", hess=True)
    return solved


def _two_variables_ref(a, b):
    x = _ridge_ref(a, b)
    return [x[:2].reshape(2, 1), x[2]]


def _scalar_samples(rng):
    return [Sample((np.asarray(rng.normal()), np.asarray(rng.uniform(1.0, 2.0))), name="quadratic")]


def _quadratic(c, w):
    c, w = _real(c, w)
    # min_x (1 + w^2) (x - c)^2 + x  at  x = c - 1 / (2 (1 + w^2)): the curvature stays
    # positive for every variant of the inputs (a zero w, as the boolean variants give, would
    # leave a line, unbounded below)
    x = pt.zeros((), dtype=c.dtype)  # (minimize_scalar takes no starting point)
    curvature = 1 + w**2
    solved, _ = minimize_scalar(curvature * (x - c) ** 2 + x, x, optimizer_kwargs={"tol": 1e-12})
    return solved


def _root_samples(rng):
    return [Sample((rng.uniform(1.0, 8.0, size=(4,)),), name="vector")]


def _cube_root(a):
    (a,) = _real(a)
    x = pt.ones_like(a)
    # the cube root of 1 + a^2 (>= 1 for every input variant: a root at 0, which a zero a of
    # the boolean variants would give, is found only to the solver's tolerance)
    return root(x**3 - (1 + a**2), x, optimizer_kwargs={"tol": 1e-14})[0]


def _root_scalar_samples(rng):
    return [Sample((np.asarray(rng.uniform(1.0, 5.0)),), name="newton")]


def _square_root(a):
    (a,) = _real(a)
    x = pt.ones((), dtype=a.dtype)
    target = 1 + a**2  # >= 1 for every input variant (see _cube_root)
    options = {"xtol": 1e-14}
    return root_scalar(x**2 - target, x, method="newton", jac=True, optimizer_kwargs=options)[0]


register(
    OpInfo(
        name="optimize.minimize",
        build=_ridge,
        ref=_ridge_ref,
        samples=_ridge_samples,
        op_class=MinimizeOp,
        grad_tol=1e-5,
    ),
    OpInfo(
        name="optimize.minimize[list]",
        build=_two_variables,
        ref=_two_variables_ref,
        samples=lambda rng: [Sample((rng.normal(size=(4, 3)), rng.normal(size=(4,))))],
        op_class=MinimizeOp,
        grad_tol=1e-5,
    ),
    OpInfo(
        name="optimize.minimize_scalar",
        build=_quadratic,
        ref=lambda c, w: _real_ref(c)[0] - 1 / (2 * (1 + _real_ref(w)[0] ** 2)),
        samples=_scalar_samples,
        op_class=MinimizeScalarOp,
        # the minimiser of a smooth function is found only to about sqrt(machine epsilon)
        # (the function is flat there): finite differences need a step far above that
        grad_eps=1e-3,
        grad_tol=1e-4,
        directives=[
            Directive(
                "rop",
                "the generic check's step (1e-6) is below the minimiser's accuracy (about "
                "1e-8); R_op is checked in tests/tensor/test_optimize.py with a larger step",
                kind="skip",
            )
        ],
    ),
    OpInfo(
        name="optimize.root",
        build=_cube_root,
        ref=lambda a: np.cbrt(1 + _real_ref(a)[0] ** 2),
        samples=_root_samples,
        op_class=RootOp,
    ),
    OpInfo(
        name="optimize.root_scalar",
        build=_square_root,
        ref=lambda a: np.sqrt(1 + _real_ref(a)[0] ** 2),
        samples=_root_scalar_samples,
        op_class=RootScalarOp,
    ),
)
