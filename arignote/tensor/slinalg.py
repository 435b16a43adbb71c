"""PyTensor's older module path for the ``scipy.linalg`` functions and their ops.

``pytensor.tensor.slinalg`` (deprecated in PyTensor 3 in favour of ``pytensor.tensor.linalg``)
still serves code written against its reference, ``from pytensor.tensor.slinalg import
solve``: this module serves the same names, taken from :mod:`arignote.tensor.linalg` (its
``qr`` is SciPy's, with pivoting). It has no ``__all__``: the names stay out of the
``arignote.tensor`` namespace, as in PyTensor.
"""

from typing import Any

from arignote.tensor import linalg

_NAMES = (
    "BaseBlockDiagonal BlockDiagonal Cholesky CholeskySolve Eigvalsh EigvalshGrad Expm LU "
    "LUFactor PivotToPermutations PivotedQR QR QZ Schur Solve SolveBase SolveTriangular block_diag "
    "cho_solve cholesky eigvalsh expm lu lu_factor lu_solve ordqz pivot_to_permutation qz "
    "qr schur solve solve_continuous_lyapunov solve_discrete_are solve_discrete_lyapunov "
    "solve_sylvester solve_triangular"
)
NAMES = frozenset(_NAMES.split())


def __getattr__(name: str) -> Any:
    if name in NAMES:
        return getattr(linalg, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(NAMES)
