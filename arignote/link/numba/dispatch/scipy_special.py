"""SciPy's special functions in native code: the C entry points of
``scipy.special.cython_special`` (the same code SciPy's ufuncs run), called through ctypes
function pointers that numba compiles as direct calls, so values are SciPy's exactly.

``entry_point(name, arity)`` finds the float64 version of SciPy's function ``name`` (Cython
exports each fused specialization under its own name, ``__pyx_fuse_<k><name>``; the one taking
and returning doubles is chosen by its signature). It is called on float64 arguments (the
extra ``0`` is Cython's ``skip_dispatch`` flag) and the result converted to the op's output
dtype. Kernels calling them are compiled in memory, not written to the disk cache (a function
address is valid in this process only).
"""

from __future__ import annotations

import ctypes
from functools import cache
from typing import Any

import scipy.special.cython_special as cython_special

from numba.extending import get_cython_function_address

_capsule_name = ctypes.pythonapi.PyCapsule_GetName
_capsule_name.restype = ctypes.c_char_p
_capsule_name.argtypes = [ctypes.py_object]


def _signature(arity: int) -> str:
    return f"double ({'double, ' * arity}int __pyx_skip_dispatch)"


@cache
def entry_point(name: str, arity: int) -> Any | None:
    """The ctypes function of SciPy's float64 ``name`` of ``arity`` arguments (None: none)."""
    exported = cython_special.__pyx_capi__
    for candidate in (name, *(f"__pyx_fuse_{k}{name}" for k in range(4))):
        capsule = exported.get(candidate)
        if capsule is None or _capsule_name(capsule).decode() != _signature(arity):
            continue
        address = get_cython_function_address("scipy.special.cython_special", candidate)
        signature = ctypes.CFUNCTYPE(ctypes.c_double, *[ctypes.c_double] * arity, ctypes.c_int)
        return signature(address)
    return None
