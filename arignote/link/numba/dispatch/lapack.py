"""LAPACK in native code: SciPy's Cython LAPACK exports (the very library ``scipy.linalg``
calls) as ctypes function pointers, which numba compiles into direct calls.

Every Fortran argument is a pointer. Kernels pass arrays through ``array.ctypes``: 1-element
``int32`` arrays for integers (``ints``), ``uint8`` character codes (``flag``), and
Fortran-ordered copies for matrices (``fortran``), so that LAPACK reads the matrix itself,
not its transpose. The eigenvalue selectors of ``?gees``/``?gges`` are C function pointers:
numba ``cfunc``s passed by address (an integer, hence declared ``c_size_t``, which has a
pointer's width and calling convention). Kernels calling these routines are compiled in
memory, never written to the disk cache: an address is valid in this process only.

NumPy and SciPy may bundle different LAPACK builds (here OpenBLAS 0.3.31, 64-bit integers, for
NumPy and 0.3.30 for SciPy), and eigenvectors, defined up to sign, can come out with other
signs from another build. ``numpy_routine`` therefore binds NumPy's own library for the ops
whose ``perform`` calls NumPy (``eig``, ``eigh``): found among the libraries its wheel ships,
called through its Fortran symbols (integers of the library's width, and one hidden length
argument per character argument, as gfortran passes them). Where it cannot be found, SciPy's
routine is used.
"""

from __future__ import annotations

import ctypes
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import scipy.linalg.cython_lapack as cython_lapack

import numba
from arignote.link.numba.dispatch.basic import compile_source
from numba.extending import get_cython_function_address

_jit = numba.njit(cache=False)

_capsule_name = ctypes.pythonapi.PyCapsule_GetName
_capsule_name.restype = ctypes.c_char_p
_capsule_name.argtypes = [ctypes.py_object]

#: LAPACK's precision prefix of each dtype.
PREFIX = {"float32": "s", "float64": "d", "complex64": "c", "complex128": "z"}
#: The real dtype of each LAPACK dtype (eigenvalues of Hermitian matrices, ``rwork``).
REAL_OF = {"float32": "float32", "float64": "float64", "complex64": "float32"}
REAL_OF["complex128"] = "float64"
#: Character codes LAPACK takes (``flag(N)`` is the 1-character string "N").
N, V, S, L, U, T = (ord(c) for c in "NVSLUT")
#: The null function pointer (no selector: ``sort="N"``).
NO_SELECT = 0


@cache
def routine(name: str) -> Any:
    """LAPACK's ``name`` (``"dgeev"``...) as a ctypes function numba can call."""
    signature = _capsule_name(cython_lapack.__pyx_capi__[name]).decode()
    params = signature[signature.index("(") + 1 : signature.rindex(")")].split(",")
    argtypes = [ctypes.c_size_t if "select" in p else ctypes.c_void_p for p in params]
    address = get_cython_function_address("scipy.linalg.cython_lapack", name)
    return ctypes.CFUNCTYPE(None, *argtypes)(address)


def _arity(name: str) -> int:
    signature = _capsule_name(cython_lapack.__pyx_capi__[name]).decode()
    return signature.count(",") + 1


@cache
def _numpy_library() -> tuple[Any, str, str, type] | None:
    """``(library, prefix, suffix, integer type)`` of NumPy's bundled LAPACK, or None."""
    base = Path(np.__file__).parent
    for folder in (base.parent / "numpy.libs", base / ".dylibs", base / ".libs"):
        for path in sorted(folder.glob("*openblas*")) if folder.is_dir() else []:
            library = ctypes.CDLL(str(path))
            for prefix, suffix, itype in _SYMBOL_FORMS:
                if hasattr(library, f"{prefix}dgeev{suffix}"):
                    return library, prefix, suffix, itype
    return None


#: How OpenBLAS builds name LAPACK's symbols, and the integer width that goes with each.
_SYMBOL_FORMS = (
    ("scipy_", "_64_", np.int64),
    ("", "64_", np.int64),
    ("scipy_", "_", np.int32),
    ("", "_", np.int32),
)

_HIDDEN_LENGTHS = "def call({args}):\n    routine({args}{lengths})\n"


@cache
def numpy_routine(name: str, characters: int) -> tuple[Any, type]:
    """``(function, integer type)``: LAPACK's ``name`` in NumPy's library when it is found
    (``characters``: its number of character arguments), else SciPy's with ``int32``."""
    library, prefix, suffix, itype = _numpy_library() or (None, "", "", np.int32)
    symbol = getattr(library, f"{prefix}{name}{suffix}", None) if library else None
    if symbol is None:
        return routine(name), np.int32
    arity = _arity(name)
    address = ctypes.cast(symbol, ctypes.c_void_p).value
    argtypes = [ctypes.c_void_p] * arity + [ctypes.c_size_t] * characters
    function = ctypes.CFUNCTYPE(None, *argtypes)(address)
    args = ", ".join(f"a{k}" for k in range(arity))
    source = _HIDDEN_LENGTHS.format(args=args, lengths=", 1" * characters)
    return compile_source(source, "call", {"routine": function}), itype


@cache
def numpy_cblas(name: str, restype: Any, *argtypes: Any) -> tuple[Any, type] | None:
    """``(function, integer type)``: the CBLAS routine ``cblas_<name>`` of NumPy's bundled
    library (the one its ``matmul`` and ``dot`` call), or None when it is not found.

    ``argtypes`` are ctypes types, with ``"int"`` standing for the library's integer (enum
    arguments, such as the order and transposition flags, are C ``int`` whatever its width).
    """
    found = _numpy_library()
    if found is None:
        return None
    library, prefix, _, itype = found
    wide = itype is np.int64
    symbol = getattr(library, f"{prefix}cblas_{name}{'64_' if wide else ''}", None)
    if symbol is None:
        return None
    integer = ctypes.c_int64 if wide else ctypes.c_int32
    types = [integer if t == "int" else t for t in argtypes]
    address = ctypes.cast(symbol, ctypes.c_void_p).value
    return ctypes.CFUNCTYPE(restype, *types)(address), itype


def lapack_for(name: str, dtype: str) -> Any:
    """The routine ``?name`` of ``dtype`` (``"geev"``, ``"float32"`` gives ``sgeev``)."""
    return routine(PREFIX[dtype] + name)


def lapack_dtype(*dtypes: str) -> str:
    """The dtype SciPy computes in for inputs of ``dtypes``: their common type, float64 for
    integers and booleans (``scipy.linalg``'s ``find_best_lapack_type``)."""
    common = np.result_type(*dtypes)
    if common.kind == "c":
        return "complex64" if common == np.complex64 else "complex128"
    return "float32" if common in (np.float32, np.float16) else "float64"


def is_complex(dtype: str) -> bool:
    return np.dtype(dtype).kind == "c"


# -- arguments -----------------------------------------------------------------------------------


@_jit
def flag(code):
    """The Fortran character ``chr(code)``."""
    out = np.empty(1, np.uint8)
    out[0] = code
    return out


@_jit
def ints(value):
    """The Fortran integer ``value``."""
    out = np.empty(1, np.int32)
    out[0] = value
    return out


@_jit
def integer(value, itype):
    """The Fortran integer ``value`` of a library whose integers are ``itype``."""
    out = np.empty(1, itype)
    out[0] = value
    return out


@_jit
def fortran(a, dtype):
    """A Fortran-ordered copy of matrix ``a`` in ``dtype`` (LAPACK overwrites its input)."""
    out = np.empty((a.shape[1], a.shape[0]), dtype).T
    out[:, :] = a
    return out


@_jit
def fortran_empty(rows, cols, dtype):
    return np.empty((cols, rows), dtype).T


@_jit
def work_size(query):
    """The optimal workspace length a query (``lwork = -1``) wrote into ``query[0]``."""
    return max(1, int(query[0].real))


@_jit
def lead(n):
    """A leading dimension: LAPACK wants at least 1, even for empty matrices."""
    return ints(max(1, n))


@_jit
def check_finite(a):
    """``scipy.linalg``'s ``check_finite``: ``ValueError`` on an infinity or a NaN."""
    if not np.isfinite(a).all():
        raise ValueError("array must not contain infs or NaNs")


@_jit
def check_argument(info):
    """A negative ``info``: LAPACK refused an argument (a bug here, not the user's)."""
    if info < 0:
        raise ValueError("LAPACK refused an argument (illegal value)")


@_jit
def check_square(a):
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError("expected square matrices")
