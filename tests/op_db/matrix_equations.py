"""op_db entries: arignote.tensor.linalg.matrix_equations (Sylvester and Lyapunov equations)."""

from __future__ import annotations

import numpy as np
import scipy.linalg

from arignote.tensor import linalg as la
from tests.op_db.core import FLOAT_DTYPES, OpInfo, Sample, register


def _sylvester_samples(rng):
    # A and -B keep their spectra apart (near +3 and -3): a well-conditioned system
    a = rng.normal(size=(3, 3)) / 2 + 3 * np.eye(3)
    b = rng.normal(size=(2, 2)) / 2 + 3 * np.eye(2)
    return [Sample((a, b, rng.normal(size=(3, 2))), name="3x2")]


def _continuous_samples(rng):
    a = rng.normal(size=(3, 3)) / 2 - 3 * np.eye(3)  # stable: eigenvalues near -3
    return [Sample((a, rng.normal(size=(3, 3))), name="stable")]


def _discrete_samples(rng):
    a = rng.normal(size=(3, 3)) * 0.2  # spectral radius well below 1
    return [Sample((a, rng.normal(size=(3, 3))), name="contracting")]


register(
    OpInfo(
        "solve_sylvester",
        la.solve_sylvester,
        scipy.linalg.solve_sylvester,
        _sylvester_samples,
        dtypes=FLOAT_DTYPES,
        rtol=1e-5,
    ),
    OpInfo(
        "solve_continuous_lyapunov",
        la.solve_continuous_lyapunov,
        scipy.linalg.solve_continuous_lyapunov,
        _continuous_samples,
        dtypes=FLOAT_DTYPES,
        rtol=1e-5,
    ),
    OpInfo(
        "solve_discrete_lyapunov",
        la.solve_discrete_lyapunov,
        scipy.linalg.solve_discrete_lyapunov,
        _discrete_samples,
        dtypes=FLOAT_DTYPES,
        rtol=1e-5,
    ),
)
