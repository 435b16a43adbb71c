"""Linear matrix equations (Sylvester and Lyapunov), like ``scipy.linalg``.

Each is solved in its Kronecker form: with ``vec`` stacking the columns of a matrix,
``vec(A X B) = (B^T kron A) vec(X)``, so the equation becomes one linear system of size
``n*m``. That costs ``O((n m)^3)`` (fine for the small systems these are used for, such as
state-space models) and gives the derivatives of ``kron`` and ``solve`` for free.
"""

from __future__ import annotations

from typing import Any

from arignote.graph.basic import Variable
from arignote.tensor import math as tm
from arignote.tensor.alloc import eye
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.linalg.misc import kron
from arignote.tensor.linalg.solve import solve
from arignote.tensor.raise_op import CheckAndRaise
from arignote.tensor.reshape import flatten, reshape
from arignote.tensor.shape import shape_i


def _matrix(x: Any, name: str) -> Variable:
    x = as_tensor_variable(x)
    if x.type.ndim != 2:
        raise TypeError(f"{name} must be a matrix, got {x.type}")
    return x


def _square(x: Variable, name: str) -> Variable:
    """``x``, checked to be square: statically where its shape is known, else when it runs
    (SciPy checks only non-empty matrices; an empty non-square one is refused here too)."""
    rows, cols = x.type.shape
    if rows is not None and cols is not None:
        if rows != cols:
            raise ValueError(f"{name} must be a square matrix, got shape {x.type.shape}")
        return x
    check = CheckAndRaise(ValueError, f"{name} must be a square matrix")
    return check(x, tm.eq(shape_i(x, 0), shape_i(x, 1)))


def _vec(x: Variable) -> Variable:
    """The columns of ``x`` stacked into one vector (column-major order)."""
    return flatten(x.T, 1)


def _unvec(v: Variable, rows: Any, cols: Any) -> Variable:
    return reshape(v, [cols, rows], ndim=2).T


def solve_sylvester(A: Any, B: Any, Q: Any) -> Variable:
    """The ``X`` with ``A X + X B = Q``, like ``scipy.linalg.solve_sylvester``.

    ``vec(A X + X B) = (I kron A + B^T kron I) vec(X)``; the system is solvable when ``A`` and
    ``-B`` have no eigenvalue in common.
    """
    A, B, Q = _matrix(A, "A"), _matrix(B, "B"), _matrix(Q, "Q")
    A, B = _square(A, "solve_sylvester: A"), _square(B, "solve_sylvester: B")
    n, m = shape_i(A, 0), shape_i(B, 0)
    system = kron(eye(m, dtype=A.type.dtype), A) + kron(B.T, eye(n, dtype=B.type.dtype))
    return _unvec(solve(system, _vec(Q)), n, m)


def solve_continuous_lyapunov(A: Any, Q: Any) -> Variable:
    """The ``X`` with ``A X + X A^H = Q``, like ``scipy.linalg.solve_continuous_lyapunov``."""
    A = _matrix(A, "A")
    return solve_sylvester(A, tm.conj(A).T, Q)


def solve_discrete_lyapunov(A: Any, Q: Any, method: str = "direct") -> Variable:
    """The ``X`` with ``A X A^H - X + Q = 0``, like ``scipy.linalg.solve_discrete_lyapunov``.

    ``vec(A X A^H) = (conj(A) kron A) vec(X)``, so ``(I - conj(A) kron A) vec(X) = vec(Q)``.
    ``method`` ("direct" or "bilinear", SciPy's names) is accepted for compatibility; both give
    this direct solution.
    """
    if method not in ("direct", "bilinear"):
        raise ValueError(f"solve_discrete_lyapunov: unknown method {method!r}")
    A, Q = _matrix(A, "A"), _matrix(Q, "Q")
    A = _square(A, "solve_discrete_lyapunov: A")
    n = shape_i(A, 0)
    size = n * n
    system = eye(size, dtype=A.type.dtype) - kron(tm.conj(A), A)
    return _unvec(solve(system, _vec(Q)), n, n)


__all__ = ["solve_continuous_lyapunov", "solve_discrete_lyapunov", "solve_sylvester"]
