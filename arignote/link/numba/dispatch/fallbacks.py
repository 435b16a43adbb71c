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
    "a loop or inner graph holding an untraced state (a random generator) or a node without a "
    "native kernel runs perform (the Python VM's loop) in object mode"
)
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
        ["Angle", "Complex", "Conj", "Imag", "Real"],
        "complex64 values: numba's complex64 arithmetic is not NumPy's (complex128 is native)",
    ),
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
