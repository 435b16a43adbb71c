"""SciPy's special functions in native code: the C entry points of
``scipy.special.cython_special`` (the same code SciPy's ufuncs run), called through ctypes
function pointers that numba compiles as direct calls, so values are SciPy's exactly.

Each is called on float64 arguments (the extra ``0`` is Cython's ``skip_dispatch`` flag) and
the result converted to the op's output dtype. Kernels calling them are compiled in memory,
not written to the disk cache (a function address is valid in this process only).
"""

from __future__ import annotations

import ctypes

from arignote.link.numba.dispatch.scalar import SCALAR_EXPRESSIONS, SCALAR_FUNCTIONS
from arignote.scalar import special, special_more
from numba.extending import get_cython_function_address

#: op class -> (exported name in cython_special, number of float64 arguments).
_ENTRIES = {
    special.Psi: ("__pyx_fuse_1psi", 1),
    special.Erfinv: ("__pyx_fuse_0erfinv", 1),
    special.Erfcinv: ("erfcinv", 1),
    special.Erfcx: ("__pyx_fuse_1erfcx", 1),
    special.I0: ("i0", 1),
    special.I1: ("i1", 1),
    special.J0: ("j0", 1),
    special.J1: ("j1", 1),
    special.Iv: ("__pyx_fuse_1iv", 2),
    special.Jv: ("__pyx_fuse_1jv", 2),
    special.Beta: ("beta", 2),
    special.BetaLn: ("betaln", 2),
    special.Poch: ("poch", 2),
    special.XLog1pY: ("__pyx_fuse_1xlog1py", 2),
    special.GammaInc: ("gammainc", 2),
    special.GammaIncC: ("gammaincc", 2),
    special.BetaInc: ("__pyx_fuse_0betainc", 3),
    special_more.Ive: ("__pyx_fuse_1ive", 2),
    special_more.GammaIncInv: ("gammaincinv", 2),
    special_more.GammaIncCInv: ("gammainccinv", 2),
    special_more.BetaIncInv: ("__pyx_fuse_0betaincinv", 3),
}


def _pointer(name: str, arity: int):
    address = get_cython_function_address("scipy.special.cython_special", name)
    signature = ctypes.CFUNCTYPE(ctypes.c_double, *[ctypes.c_double] * arity, ctypes.c_int)
    return signature(address)


def _expression(global_name: str):
    def build(op, args, dtypes):
        floats = ", ".join(f"np.float64({a})" for a in args)
        return f"{global_name}({floats}, 0)"

    return build


def _register() -> None:
    for cls, (name, arity) in _ENTRIES.items():
        global_name = f"scipy_{cls.__name__.lower()}"
        SCALAR_FUNCTIONS[global_name] = _pointer(name, arity)
        SCALAR_EXPRESSIONS[cls] = _expression(global_name)


_register()
