"""SciPy's special functions in native code: the C entry points of
``scipy.special.cython_special`` (the same code SciPy's ufuncs run), called through ctypes
function pointers that numba compiles as direct calls, so values are SciPy's exactly.

Each is called on float64 arguments (the extra ``0`` is Cython's ``skip_dispatch`` flag) and
the result converted to the op's output dtype. Kernels calling them are compiled in memory,
not written to the disk cache (a function address is valid in this process only).
"""

from __future__ import annotations

import ctypes
import math

import numpy as np

import numba
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

# -- SciPy's Python-level functions, written natively from the same formulas -------------------

_gamma = _pointer("__pyx_fuse_1gamma", 1)
_psi = _pointer("__pyx_fuse_1psi", 1)

#: Denominators of the Euler-Maclaurin correction terms: (2j)! / B_2j for j = 1..12.
_EM_DENOMINATORS = np.array(
    [
        12.0,
        -720.0,
        30240.0,
        -1209600.0,
        47900160.0,
        -1.8924375803183791606e9,
        7.47242496e10,
        -2.950130727918164224e12,
        1.1646782814350067249e14,
        -4.5979787224074726105e15,
        1.8152105401943546773e17,
        -7.1661652561756670113e18,
    ]
)
_EPS = float(np.finfo(np.float64).eps) / 2  # cephes' MACHEP


@numba.njit(cache=False)
def hurwitz_zeta(s, q):
    """``scipy.special.zeta(s, q)`` = sum over k >= 0 of (k + q)^-s, for s > 1, as cephes
    computes it: direct terms until they are negligible or q + k > 9, then the
    Euler-Maclaurin tail; the leading asymptotic terms for very large q."""
    if s == 1.0:
        return np.inf
    if s < 1.0:
        return np.nan
    if q <= 0.0:
        if q == math.floor(q):
            return np.inf
        if s != math.floor(s):
            return np.nan  # q^-s is not real
    if q > 1e8:
        return (1.0 / (s - 1.0) + 1.0 / (2.0 * q)) * q ** (1.0 - s)
    total = q ** (-s)
    a, i, term = q, 0, 0.0
    while i < 9 or a <= 9.0:
        i += 1
        a += 1.0
        term = a ** (-s)
        total += term
        if abs(term / total) < _EPS:
            return total
    w = a
    total += term * w / (s - 1.0) - 0.5 * term
    rising, k = 1.0, 0.0
    for j in range(12):
        rising *= s + k
        term /= w
        correction = rising * term / _EM_DENOMINATORS[j]
        total += correction
        if abs(correction / total) < _EPS:
            break
        k += 1.0
        rising *= s + k
        term /= w
        k += 1.0
    return total


@numba.njit(cache=False)
def polygamma(n, x):
    """``scipy.special.polygamma``: psi for n = 0, else (-1)^(n+1) n! zeta(n + 1, x) (NaN for
    a non-integer order, where the power of -1 is not real)."""
    if n == 0:
        return _psi(x, 0)
    return np.power(-1.0, n + 1.0) * _gamma(n + 1.0, 0) * hurwitz_zeta(n + 1.0, x)


@numba.njit(cache=False)
def factorial(n):
    """``scipy.special.factorial(n)``: Gamma(n + 1), 0 below 0 (NaN stays NaN)."""
    if n < 0:
        return 0.0
    return _gamma(n + 1.0, 0)


@numba.njit(cache=False)
def factorial_exact(n):
    """``scipy.special.factorial(n, exact=True)`` on integers: n!, 0 below 0; above 20! the
    value leaves int64, where ``perform``'s conversion overflows too."""
    if n > 20:
        raise OverflowError("factorial: n! does not fit in int64 for n > 20")
    result = 1
    for k in range(2, n + 1):
        result *= k
    return 0 if n < 0 else result


SCALAR_FUNCTIONS.update(
    arignote_polygamma=polygamma,
    arignote_factorial=factorial,
    arignote_factorial_exact=factorial_exact,
)
SCALAR_EXPRESSIONS[special.Polygamma] = lambda op, args, dtypes: (
    f"arignote_polygamma(np.float64({args[0]}), np.float64({args[1]}))"
)


def _factorial(op, args, dtypes):
    if op.exact:  # make_node refuses non-integer inputs there, as SciPy does
        return f"arignote_factorial_exact(np.int64({args[0]}))"
    return f"arignote_factorial(np.float64({args[0]}))"


SCALAR_EXPRESSIONS[special.Factorial] = _factorial
