"""Checks made before calling LAPACK, in a module of its own so that ops outside
``arignote.tensor.linalg`` (random draws through a factorisation) import it without importing
the linear-algebra package."""

from __future__ import annotations

import numpy as np


def require_finite(what: str, *arrays: np.ndarray) -> None:
    """Raise NumPy's ``LinAlgError`` ("``what`` did not converge") for NaN or infinity.

    The divide-and-conquer SVD of LAPACK (``gesdd``, and ``gelsd`` for least squares) loops
    forever on an infinity in the OpenBLAS builds NumPy ships; NumPy raises this error for a
    NaN. Checking first gives the same clear error for both, and never calls LAPACK with them.
    """
    for a in arrays:
        if a.dtype.kind in "fc" and not np.isfinite(a).all():
            raise np.linalg.LinAlgError(f"{what} did not converge: the input holds NaN or infinity")


__all__: list[str] = []  # internal: imported by module path, not part of pt
