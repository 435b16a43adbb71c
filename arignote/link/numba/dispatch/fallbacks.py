"""The one registry of ops that run their ``perform`` in object mode under the Numba backend.

Keys are op class names (for elementwise ops and reductions: the scalar op class), values the
reason. ``tests/link/test_numba_op_db.py`` fails on any object-mode node whose key is not
here, so the list is always complete; it shrinks as native kernels are written.
"""

from __future__ import annotations

_NOT_WRITTEN = "no native kernel written yet: runs perform in object mode"

_SCIPY = (
    "SciPy special function without an entry point in scipy.special.cython_special for "
    "this signature (factorial's exact mode, polygamma is Python code): not native yet"
)
_LINALG = (
    "linear algebra without a native kernel yet (SciPy's solvers and their warnings, complex "
    "eigenvalues, matrix exponential), or a node of another dtype than real floats, or a "
    "variant numba lacks (complete QR, hermitian pinv)"
)
_ADVANCED = (
    "advanced indexing beyond one 1-d integer or boolean array among slices (or a lone integer "
    "vector when incrementing): numba takes one 1-d advanced index per subscript, NumPy's "
    "placement rules for several (or integers mixed with arrays) are not reproduced natively"
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
_UNSHARED = "unshared kernels (one per output position) are not written natively"

FALLBACKS: dict[str, str] = {
    # inner graphs (dispatch/scan.py, dispatch/builders.py)
    "Scan": _LOOP,
    "OpFromGraph": _LOOP,
    # convolution (dispatch/conv.py): only the unshared variant falls back
    **dict.fromkeys(
        ["AbstractConv", "AbstractConv_gradInputs", "AbstractConv_gradWeights"], _UNSHARED
    ),
    # scalar ops inside Elemwise (the whole elementwise node falls back)
    "Factorial": _SCIPY,
    "Polygamma": _SCIPY,
    **dict.fromkeys(
        ["Erf", "Erfc", "Erfcx", "Gamma", "Psi"],
        "complex arguments: cython_special's complex entry points take and return C complex "
        "values by value, which ctypes cannot call (float arguments are native)",
    ),
    **dict.fromkeys(
        ["Angle", "Complex", "Conj", "Imag", "Real"],
        "complex64 values: numba's complex64 arithmetic is not NumPy's (complex128 is native)",
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
    "Blockwise": (
        "a stack of core ops (batched linalg, gufunc-like ops): no native batch loop is written "
        "yet, so the node runs Blockwise.perform (the core op per batch element) in object mode"
    ),
    "JAXOp": "a wrapped JAX function (wrap_jax): runs through jax.jit, not numba",
    # linalg
    **dict.fromkeys(
        [
            "ChoSolve",
            "LU",
            "LUFactor",
            "PivotToPermutations",
            "QZ",
            "Schur",
            "SolveDiscreteARE",
            "Eig",
            "Expm",
            "Lstsq",
            "LUFactorTridiagonal",
            "Eigvalsh",
            "EigvalshGrad",
            "EigvalshTangent",
            "SolveLUFactorTridiagonal",
            "Solve",
            "SolveTriangular",
        ],
        _LINALG,
    ),
    "Eigh": (
        "eigenvectors (defined up to sign) from the upper triangle or in float32: numba's "
        "routine does not give NumPy's signs there; float64 lower and eigenvalues are native"
    ),
    "QR": "modes 'complete' and 'raw': numba's qr computes the reduced factorization only",
    "MatrixPinv": "hermitian=True (NumPy goes through eigh) and non-float dtypes",
    "MatMul": "batched or vector matmul: numba's np.dot takes 1-d and 2-d operands only",
    # indexing: the common cases are native, these keys cover the others (per node)
    **dict.fromkeys(["AdvancedIncSubtensor", "AdvancedSubtensor"], _ADVANCED),
    # sorting and searching
    "Unique": "unique slices along an axis (lexicographic order of slices) are not native yet",
    # extra ops, creation, joining
    "Einsum": _NOT_WRITTEN,
    "Linspace": "array start/stop (one line of samples per element) have no native kernel",
}
