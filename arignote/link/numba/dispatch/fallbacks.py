"""The one registry of ops that run their ``perform`` in object mode under the Numba backend.

Keys are op class names (for elementwise ops and reductions: the scalar op class), values the
reason. ``tests/link/test_numba_op_db.py`` fails on any object-mode node whose key is not
here, so the list is always complete; it shrinks as native kernels are written.
"""

from __future__ import annotations

_NOT_WRITTEN = "no native kernel written yet: runs perform in object mode"

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
    **dict.fromkeys(
        ["Angle", "Complex", "Conj", "Imag", "Real"],
        "complex64 values: numba's complex64 arithmetic is not NumPy's (complex128 is native)",
    ),
    "JAXOp": "a wrapped JAX function (wrap_jax): runs through jax.jit, not numba",
    # linalg
    **dict.fromkeys(
        [
            "QZ",
            "Schur",
            "SolveDiscreteARE",
            "Eig",
            "Expm",
        ],
        _LINALG,
    ),
    "Eigh": (
        "eigenvectors (defined up to sign) from the upper triangle or in float32: numba's "
        "routine does not give NumPy's signs there; float64 lower and eigenvalues are native"
    ),
    # indexing: the common cases are native, these keys cover the others (per node)
    **dict.fromkeys(["AdvancedIncSubtensor", "AdvancedSubtensor"], _ADVANCED),
    # sorting and searching
    "Unique": "unique slices along an axis (lexicographic order of slices) are not native yet",
    # extra ops, creation, joining
}
