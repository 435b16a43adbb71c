"""The one registry of ops that run their ``perform`` in object mode under the Numba backend.

Keys are op class names (for elementwise ops and reductions: the scalar op class), values the
reason. ``tests/link/test_numba_op_db.py`` fails on any object-mode node of the op database
whose key is not here, and on a key no entry needs any more, so the list is exact.
"""

from __future__ import annotations

_LINALG = (
    "eigenvalues of general matrices and Schur forms (?geev, ?gees, ?gges, and ?trsen/?tgsen "
    "for sorting, through Schur's and QZ's sort callables; the discrete Riccati solver is "
    "built on QZ): numba binds none of these LAPACK routines, and writing them in loops would "
    "not give LAPACK's eigenvector normalisation and ordering; missing: ctypes bindings of "
    "scipy.linalg.cython_lapack for them"
)

_LOOP = (
    "a loop or inner graph holding a node without a native kernel (or, for Scan, an untraced "
    "state: a random generator) runs perform (the Python VM's loop) in object mode"
)
_RANDOM_VECTOR = (
    "vector-valued draws (core dimensions, NumPy's per-batch-entry calls) and index draws: "
    "numba's Generator has no such sampler, perform draws in object mode"
)
_RANDOM_SCIPY = "drawn through SciPy's rvs (numba has no SciPy samplers): perform in object mode"
_LAPACK_UNBOUND = (
    "tridiagonal LU (?gttrf/?gttrs) and symmetric eigenvalues of a generalized problem or with "
    "their derivatives (?sygvd/?syevr): numba binds none of these LAPACK routines; missing: "
    "ctypes bindings of scipy.linalg.cython_lapack for them"
)

FALLBACKS: dict[str, str] = {
    # inner graphs (dispatch/scan.py, dispatch/builders.py)
    "Scan": _LOOP,
    "OpFromGraph": _LOOP,
    # scalar ops inside Elemwise (the whole elementwise node falls back)
    "Angle": (
        "complex64 angle: NumPy computes it with its own vectorised single-precision atan2, "
        "which differs in the last bit from numba's atan2 and from the C library's atan2f "
        "(measured); parts, conjugates and complex64 construction are native"
    ),
    **dict.fromkeys(
        ["Erf", "Erfc", "Erfcx", "Gamma", "Psi"],
        "complex arguments: cython_special's complex entry points take and return C complex "
        "values by value, which ctypes cannot call (float arguments are native)",
    ),
    # random variables (dispatch/random.py): samplers numba lacks or draws differently
    "WaldRV": "numba's wald sampler rounds differently from NumPy's (draws differ in last bits)",
    **dict.fromkeys(
        ["GumbelRV", "VonMisesRV", "HyperGeometricRV"],
        "numba's Generator has no such sampler: perform draws in object mode",
    ),
    **dict.fromkeys(
        [
            "MvNormalRV",
            "DirichletRV",
            "MultinomialRV",
            "MultivariateHypergeometricRV",
            "CategoricalRV",
            "ChoiceRV",
            "PermutationRV",
            "PermutedRV",
        ],
        _RANDOM_VECTOR,
    ),
    **dict.fromkeys(
        ["BetaBinomialRV", "GenGammaRV", "InvGammaRV", "StudentTLocScaleRV", "TruncExponentialRV"],
        _RANDOM_SCIPY,
    ),
    "IntegersRV": (
        "float bounds, uint64 draws, or bool/8/16-bit draws with array bounds (NumPy refills a "
        "32-bit buffer per entry there, numba does not): perform in object mode"
    ),
    "BinomialRV": "a float n (NumPy's conversion of it to int64 is left to perform)",
    "DefaultGeneratorMakerOp": "makes a Python Generator object: perform in object mode",
    "JAXOp": "a wrapped JAX function (wrap_jax): runs through jax.jit, not numba",
    "MakeSlice": "its output is a Python slice object (a graph value returned by a "
    "function), which numba cannot build: indexing with make_slice reads the bounds when the "
    "graph is built and never runs this node",
    # tensor.optimize: the solvers are SciPy's Python routines calling back into the graph
    **dict.fromkeys(
        ["MinimizeOp", "MinimizeScalarOp", "RootOp", "RootScalarOp"],
        "calls SciPy's optimisers (scipy.optimize.minimize, minimize_scalar, root, "
        "root_scalar), Python code that numba cannot compile: runs perform in object mode",
    ),
    # linalg
    **dict.fromkeys(
        [
            "QZ",
            "Schur",
            "SolveDiscreteARE",
            "Eig",
        ],
        _LINALG,
    ),
    **dict.fromkeys(
        [
            "LUFactorTridiagonal",
            "SolveLUFactorTridiagonal",
            "Eigvalsh",
            "EigvalshGrad",
            "EigvalshTangent",
        ],
        _LAPACK_UNBOUND,
    ),
    "Eigh": (
        "eigenvectors (defined up to sign) from the upper triangle or in float32: numba's "
        "routine does not give NumPy's signs there; float64 lower and eigenvalues are native"
    ),
}
