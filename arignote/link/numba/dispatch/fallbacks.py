"""The one registry of ops that run their ``perform`` in object mode under the Numba backend.

Keys are op class names (for elementwise ops and reductions: the scalar op class), values the
reason. ``tests/link/test_numba_op_db.py`` fails on any object-mode node whose key is not
here, so the list is always complete; it shrinks as native kernels are written.
"""

from __future__ import annotations

_NOT_WRITTEN = "no native kernel written yet: runs perform in object mode"

_SCIPY = (
    "SciPy special function: numba implements none natively (numba-scipy is not a dependency) "
    "and a port matching SciPy's values is not written yet"
)
_LINALG = (
    "linear algebra: numba's np.linalg covers part of it, but error behaviour (singular and "
    "non-positive-definite inputs) must first be made to match perform's; not written yet"
)
_ADVANCED = (
    "advanced (integer-array or mask) indexing: numba takes one advanced index per "
    "subscript, NumPy's rules for several (and repeated indices when incrementing) are not "
    "reproduced natively yet"
)
_SORTING = "sorting, searching and counting kernels are not written yet"

FALLBACKS: dict[str, str] = {
    # scalar ops inside Elemwise (the whole elementwise node falls back)
    **dict.fromkeys(
        [
            "Beta",
            "BetaInc",
            "BetaLn",
            "Erfcinv",
            "Erfcx",
            "Erfinv",
            "Factorial",
            "GammaInc",
            "GammaIncC",
            "I0",
            "I1",
            "Iv",
            "J0",
            "J1",
            "Jv",
            "Poch",
            "Polygamma",
            "Psi",
            "XLog1pY",
        ],
        _SCIPY,
    ),
    "Angle": "complex argument: not in the native scalar table yet",
    "Complex": "building complex numbers: not in the native scalar table yet",
    "Real": "real part: not in the native scalar table yet",
    "Imag": "imaginary part: not in the native scalar table yet",
    "IsClose": "its tolerances are op parameters not yet passed to native code",
    "JAXOp": "a wrapped JAX function (wrap_jax): runs through jax.jit, not numba",
    # linalg
    **dict.fromkeys(
        [
            "BlockDiagonal",
            "ChoSolve",
            "LU",
            "LUFactor",
            "PivotToPermutations",
            "QZ",
            "Schur",
            "SolveDiscreteARE",
            "Cholesky",
            "Det",
            "Eig",
            "Eigh",
            "Expm",
            "Lstsq",
            "MatrixInverse",
            "MatrixPinv",
            "QR",
            "SVD",
            "SlogDet",
            "Solve",
            "SolveTriangular",
        ],
        _LINALG,
    ),
    # indexing
    **dict.fromkeys(
        [
            "AdvancedIncSubtensor",
            "AdvancedIncSubtensor1",
            "AdvancedSubtensor",
            "AdvancedSubtensor1",
            "Choose",
            "TakeAlongAxis",
        ],
        _ADVANCED,
    ),
    # sorting and searching
    **dict.fromkeys(["Argsort", "BinCount", "Nonzero", "SearchSorted", "Sort", "Unique"], _SORTING),
    # reductions with an index or two passes
    **dict.fromkeys(["Argmax", "Argmin", "LogSoftmax", "Softmax"], _NOT_WRITTEN),
    # extra ops, creation, joining
    **dict.fromkeys(
        [
            "AllocDiag",
            "ARange",
            "Einsum",
            "ExtractDiag",
            "Eye",
            "Flip",
            "Linspace",
            "Repeat",
            "SegmentSum",
            "Split",
        ],
        _NOT_WRITTEN,
    ),
}
