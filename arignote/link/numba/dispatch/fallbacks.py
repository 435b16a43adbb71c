"""The one registry of ops that run their ``perform`` in object mode under the Numba backend.

Keys are op class names (for elementwise ops and reductions: the scalar op class), values the
reason. ``tests/link/test_numba_op_db.py`` fails on any object-mode node of the op database
whose key is not here, and on a key no entry needs any more, so the list is exact.
"""

from __future__ import annotations

from arignote.link.numba.dispatch.scipy_special import COMPLEX_CALLS, COMPLEX_CALLS_REASON

_COMPLEX_SPECIAL = ["Erf", "Erfc", "Erfcx", "Gamma", "Psi"]

_LOOP = (
    "a loop or inner graph holding a node without a native kernel (or, for Scan, an untraced "
    "state: a random generator) runs perform (the Python VM's loop) in object mode"
)
_RANDOM_VECTOR = (
    "multivariate_normal factors cov with NumPy's own LAPACK and multiplies the normals by the "
    "factor with NumPy's matmul (its bundled OpenBLAS); numba's np.linalg and np.dot call "
    "SciPy's OpenBLAS build instead: measured on 200 random covariances, the SVD matched but "
    "the product differed in the last bit 3 times and cholesky 92 times, so native draws "
    "would not be NumPy's bit for bit: perform draws in object mode"
)
_RANDOM_SCIPY = (
    "drawn through SciPy's rvs: truncexpon maps uniforms through SciPy's own (Cephes) log1p "
    "and expm1, gengamma raises gammas to 1/c with NumPy's vectorised power, neither is "
    "guaranteed bit for bit by numba's libm calls; betabinom (all betas, then all binomials) "
    "is not written natively yet: perform in object mode (invgamma and t are native)"
)

FALLBACKS: dict[str, str] = {
    # inner graphs (dispatch/scan.py, dispatch/builders.py)
    "Scan": _LOOP,
    "OpFromGraph": _LOOP,
    # scalar ops inside Elemwise (the whole elementwise node falls back)
    # SciPy's complex erf, erfc, erfcx, gamma and psi where numba's convention for passing
    # C complex values by value is not verified (dispatch/scipy_special.py)
    **({} if COMPLEX_CALLS else dict.fromkeys(_COMPLEX_SPECIAL, COMPLEX_CALLS_REASON)),
    # random variables (dispatch/random.py, random_vector.py)
    **dict.fromkeys(
        [
            "MvNormalRV",
        ],
        _RANDOM_VECTOR,
    ),
    **dict.fromkeys(
        ["BetaBinomialRV", "GenGammaRV", "TruncExponentialRV"],
        _RANDOM_SCIPY,
    ),
    "DefaultGeneratorMakerOp": "makes a Python Generator object: perform in object mode",
    "JAXOp": "a wrapped JAX function (wrap_jax): runs through jax.jit, not numba",
    "MakeSlice": "its output is a Python slice object (a graph value returned by a "
    "function), which numba cannot build: indexing with make_slice reads the bounds when the "
    "graph is built and never runs this node",
    "Print": "its point is calling global_fn (by default Python's print of the value's "
    "attributes), an arbitrary Python callable: perform runs in object mode, the value "
    "passes through unchanged",
    # tensor.optimize: the solvers are SciPy's Python routines calling back into the graph
    **dict.fromkeys(
        ["MinimizeOp", "MinimizeScalarOp", "RootOp", "RootScalarOp"],
        "calls SciPy's optimisers (scipy.optimize.minimize, minimize_scalar, root, "
        "root_scalar), Python code that numba cannot compile: runs perform in object mode",
    ),
}
