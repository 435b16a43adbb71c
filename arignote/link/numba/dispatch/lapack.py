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
called through its Fortran symbols (integers of the library's width, probed at load time,
and one hidden length argument per character argument, as gfortran passes them). Where it
cannot be found, SciPy's routine is used.

Workspace queries (``lwork = -1``, then the call) go through ``with_workspace`` and
``with_workspaces``: answers zeroed before the query (a routine may leave one unwritten), its
``info`` checked, lengths read rounded up.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
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
            for prefix, suffix in _SYMBOL_FORMS:
                probe = getattr(library, f"{prefix}dgeqrf{suffix}", None)
                if probe is not None:
                    return library, prefix, suffix, integer_width(probe)
    return None


#: How OpenBLAS builds name LAPACK's symbols (the 64-bit integer builds add "64_").
_SYMBOL_FORMS = (("scipy_", "_64_"), ("", "64_"), ("scipy_", "_"), ("", "_"))


def integer_width(dgeqrf: Any) -> type:
    """The integer type a library's ``dgeqrf`` reads (``np.int64`` or ``np.int32``), probed
    rather than guessed from symbol names: a workspace query for a 1-row matrix of ``n``
    columns, ``n = 2**32 + 1`` stored in 64 bits (zero-padded buffers, so a 32-bit library
    reads ``n = 1`` and writes ``info`` harmlessly). The answer is ``n`` times a block size:
    beyond ``2**32`` only when all 64 bits were read. A wrong width would make LAPACK read
    and write integers of the wrong size (workspace sizes, ``info``) next to ours."""
    m, n, lwork = (np.array([v, 0], np.int64) for v in (1, 2**32 + 1, -1))
    lwork[1], info, a, work = -1, np.zeros(2, np.int64), np.zeros(2), np.zeros(2)
    dgeqrf(*(x.ctypes.data_as(ctypes.c_void_p) for x in (m, n, a, m, a, work, lwork, info)))
    return np.int64 if work[0] > 2.0**32 else np.int32


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


def adapted(routine: Any, arity: int, array: int, split: bool, drop: int = -1) -> Callable:
    """``routine`` behind a signature of ``arity`` arguments that its real and complex forms
    share: argument ``array`` comes as an array, passed as its pointer or, with ``split``, as
    the pointers of its halves (real parts, then imaginary parts: how real routines take
    eigenvalues); argument ``drop`` (the ``rwork`` real routines lack) is left out."""
    passed = [_passed(k, array, split) for k in range(arity) if k != drop]
    names = ", ".join(f"a{k}" for k in range(arity))
    source = f"def call({names}):\n    routine({', '.join(passed)})\n"
    return compile_source(source, "call", {"routine": routine})


def _passed(k: int, array: int, split: bool) -> str:
    if k != array:
        return f"a{k}"
    return f"a{k}.ctypes, a{k}[a{k}.shape[0] // 2 :].ctypes" if split else f"a{k}.ctypes"


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
    """The workspace length a query (``lwork = -1``) wrote into ``query[0]``, rounded up.

    LAPACK answers in the workspace's own type. A float32 holds integers exactly only up to
    ``2**24``, and builds older than LAPACK 3.11 (``?roundup_lwork``) may round a larger
    length down, so such a length gets one float32 step of margin. Anything but a number of
    at least 1 (a routine that writes no answer there) gives 1.
    """
    size = np.float64(query[0].real)
    if not size >= 1.0:
        return 1
    if size >= 2.0**24:
        size *= 1.0 + 2.0**-23
    if size >= 2.0**53:
        raise MemoryError("LAPACK asked for an impossible workspace")
    return int(np.ceil(size))


@_jit
def query_workspace(routine, head, tail, info, kind, itype):
    """The workspace ``routine(*head, work, lwork, *tail, info)`` asks for (``kind``
    entries; ``itype``: the library's integers): a workspace query (``lwork = -1``) into a
    zeroed answer, its ``info`` checked."""
    work = np.zeros(1, kind)
    routine(*(head + (work.ctypes, integer(-1, itype).ctypes) + tail + (info.ctypes,)))
    check_argument(info[0])
    return np.empty(work_size(work), kind)


@_jit
def call_with_workspace(routine, head, tail, info, work, itype):
    """``routine(*head, work, lwork, *tail, info)`` with ``lwork`` the length of ``work``."""
    routine(*(head + (work.ctypes, integer(work.size, itype).ctypes) + tail + (info.ctypes,)))


@_jit
def with_workspace(routine, head, tail, info, kind, itype):
    """``routine(*head, work, lwork, *tail, info)``: a workspace query, then the call with
    the workspace it asked for; ``info`` holds the call's status."""
    work = query_workspace(routine, head, tail, info, kind, itype)
    call_with_workspace(routine, head, tail, info, work, itype)


@_jit
def with_workspaces(routine, head, info, kind, real, itype):
    """``routine(*head, work, lwork, rwork, lrwork, iwork, liwork, info)`` (the signature of
    ``?heevd``/``?hegvd``; real drivers are wrapped to it, ignoring ``rwork``): a query of
    the three workspaces, then the call. The answers are zeroed first: a real driver writes
    none into ``rwork``, which must then read as a length of 1, not as stale memory."""
    work, rwork, iwork = np.zeros(1, kind), np.zeros(1, real), np.zeros(1, itype)
    query = integer(-1, itype)
    spaces = (work.ctypes, query.ctypes, rwork.ctypes, query.ctypes, iwork.ctypes, query.ctypes)
    routine(*(head + spaces + (info.ctypes,)))
    check_argument(info[0])
    work, rwork = np.empty(work_size(work), kind), np.empty(work_size(rwork), real)
    iwork = np.empty(max(1, iwork[0]), itype)
    lw, lr, li = integer(work.size, itype), integer(rwork.size, itype), integer(iwork.size, itype)
    spaces = (work.ctypes, lw.ctypes, rwork.ctypes, lr.ctypes, iwork.ctypes, li.ctypes)
    routine(*(head + spaces + (info.ctypes,)))


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
