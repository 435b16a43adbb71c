"""Vectorisable exp, log, log1p, expm1, sin, cos, tanh and cosh for native kernels' loops.

Numba calls the C library for ``np.exp`` and its kin: one scalar call per element, which
keeps LLVM from vectorising the loop (the SVML vector library is only used by an
SVML-patched LLVM, which the llvmlite wheels are not). These functions are written without
calls and with selects instead of branches, so that after inlining the loop vectoriser turns
an elementwise loop over contiguous arrays into SIMD code (AVX2/AVX-512 where the CPU has it).

Method (float64; float32 arguments are computed in float64 and rounded once, which is more
accurate than a float32 kernel and still vectorises):

* range reduction by Cody and Waite: ``x = n*c + r`` with the constant ``c`` (ln 2, pi/2)
  split in a head with few significant bits (so ``n*head`` is exact) and tails;
* a polynomial on the reduced interval: the Taylor series, cut where the next term is below
  1e-17 relative (|r| <= ln2/2 for exp, the atanh series in s = f/(2+f), |s| <= 0.172, for
  log, |r| <= pi/4 for sin and cos);
* reconstruction with exact operations (a power of two built from its bits).

Errors measured against mpmath (120 bits) over wide ranges: at most 0.9 ulp for exp, 0.75 for
log, 1.1 for log1p, 1.7 for expm1, 1.8 for sin and cos, 2.5 for tanh, 1.0 for cosh (NumPy's:
0.5 to 0.85; ``tests/link/test_numba_vmath.py`` bounds the distance to NumPy). Special values
(inf, nan, +-0, denormal arguments and results) give NumPy's results. sin and cos reduce exactly
only for ``|x| <= TRIG_LIMIT``: a loop using them counts the arguments outside
(``trig_outside``) and runs again through the C library when there are any (see ``elemwise.py``).

Only floating-point contraction (``fma``) is allowed (``fastmath={"contract"}``): it only
removes roundings; no reassociation, so values do not depend on the vector width (except
sums through :func:`add_reordered`, whose order is the point).
"""

from __future__ import annotations

import hashlib
import math
from pathlib import Path

import numpy as np
from llvmlite import ir

import numba
from numba import types
from numba.extending import intrinsic

_FLAGS = {"contract"}

#: A digest of this module's source: native code compiled from it is cached under it.
DIGEST = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]

#: |x| up to which sin and cos reduce exactly (n*PIO2_1 and n*PIO2_2 exact: n < 2^20).
TRIG_LIMIT = 1.0e5

# ln 2 = LN2_HI + LN2_LO, LN2_HI with 32 significant bits (n*LN2_HI exact for |n| < 2^21)
_LN2_HI = 0.6931471803691238
_LN2_LO = 1.9082149292705877e-10
_LOG2E = 1.4426950408889634
# pi/2 = PIO2_1 + PIO2_2 + PIO2_3, the first two with 33 significant bits
_PIO2_1 = 1.5707963267341256
_PIO2_2 = 6.077100506303966e-11
_PIO2_3 = 2.0222662487959506e-21
_TWO_OVER_PI = 0.6366197723675814
_SQRT2 = 1.4142135623730951
_TINY = 2.2250738585072014e-308  # the smallest normal float64
_INF = np.inf


@intrinsic
def _as_float(typingctx, bits):
    """The float64 whose bits are the int64 ``bits``."""
    if bits != types.int64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())

    return types.float64(types.int64), codegen


@intrinsic
def _as_bits(typingctx, value):
    """The int64 holding the bits of the float64 ``value``."""
    if value != types.float64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))

    return types.int64(types.float64), codegen


@numba.njit(fastmath=_FLAGS)
def _pow2(k):
    """2**k for an integer ``k`` in [-1022, 1023]."""
    return _as_float((k + 1023) << 52)


@numba.njit(fastmath=_FLAGS, error_model="numpy")
def _div(a, b):
    """a / b with IEEE semantics: Python's division checks for a zero divisor, and that
    branch keeps a loop from vectorising."""
    return a / b


@numba.njit(fastmath=_FLAGS)
def _round(x):
    """The nearest integer to ``x`` as a float (halves away from zero do not matter here)."""
    return np.floor(x + 0.5)


# -- exp and expm1 ------------------------------------------------------------------------------


@numba.njit(fastmath=_FLAGS)
def _expm1_reduced(r):
    """e^r - 1 for |r| <= ln2/2: the Taylor series to r^13 (next term < 1e-18 relative)."""
    p = 1.0 / 6227020800.0
    p = p * r + 1.0 / 479001600.0
    p = p * r + 1.0 / 39916800.0
    p = p * r + 1.0 / 3628800.0
    p = p * r + 1.0 / 362880.0
    p = p * r + 1.0 / 40320.0
    p = p * r + 1.0 / 5040.0
    p = p * r + 1.0 / 720.0
    p = p * r + 1.0 / 120.0
    p = p * r + 1.0 / 24.0
    p = p * r + 1.0 / 6.0
    p = p * r + 0.5
    return r + (r * r) * p


@numba.njit(fastmath=_FLAGS)
def _reduce_ln2(x):
    """``(n, r)`` with ``x = n*ln2 + r``, |r| <= ln2/2 (x clamped to +-750 by the caller)."""
    n = _round(x * _LOG2E)
    return n, (x - n * _LN2_HI) - n * _LN2_LO


@numba.njit(fastmath=_FLAGS, inline="always")
def exp(x):
    """e^x (see the module docstring)."""
    x = np.float64(x)
    xc = x if x < 750.0 else 750.0  # NaN also becomes 750: selected away below
    xc = xc if xc > -750.0 else -750.0
    y = _exp_scaled(xc, 0)
    return y if x == x else x


@numba.njit(fastmath=_FLAGS, inline="always")
def _exp_scaled(x, shift):
    """e^x * 2^shift for x in [-750, 750] and a small integer ``shift`` (exact scaling)."""
    n, r = _reduce_ln2(x)
    k = np.int64(n) + shift
    half = k >> 1
    # 2^k in two factors: each stays normal, and a subnormal result is rounded once
    return ((_expm1_reduced(r) + 1.0) * _pow2(half)) * _pow2(k - half)


@numba.njit(fastmath=_FLAGS, inline="always")
def expm1(x):
    """e^x - 1, accurate near 0 (see the module docstring)."""
    x = np.float64(x)
    xc = x if x < 750.0 else 750.0
    xc = xc if xc > -60.0 else -60.0  # e^-60 - 1 rounds to -1
    n, r = _reduce_ln2(xc)
    k = np.int64(n)
    em = _expm1_reduced(r)
    kk = k if k < 56 else 56
    s = _pow2(kk)
    near = em * s + (s - 1.0)  # 2^k (e^r - 1) + (2^k - 1): exact steps for k < 56
    half = k >> 1
    far = ((em + 1.0) * _pow2(half)) * _pow2(k - half) - 1.0  # the -1 is below half an ulp
    y = near if k < 56 else far
    y = x if x == 0.0 else y  # -0.0 stays -0.0
    return y if x == x else x


# -- log and log1p ------------------------------------------------------------------------------


@numba.njit(fastmath=_FLAGS)
def _log_positive(x):
    """log(x) for a finite x > 0 (subnormals included)."""
    small = x < _TINY
    x = x * 18014398509481984.0 if small else x  # 2^54: subnormals become normal
    bits = _as_bits(x)
    e = ((bits >> 52) & 0x7FF) - (1023 + 54 if small else 1023)
    m = _as_float((bits & 0xFFFFFFFFFFFFF) | 0x3FF0000000000000)  # in [1, 2)
    big = m > _SQRT2
    m = m * 0.5 if big else m  # now in (sqrt2/2, sqrt2]
    e = e + 1 if big else e
    f = m - 1.0  # exact
    return np.float64(e) * _LN2_HI + _log1p_reduced(f, np.float64(e) * _LN2_LO)


@numba.njit(fastmath=_FLAGS)
def _log1p_reduced(f, tail):
    """log(1 + f) + tail for f in [sqrt2/2 - 1, sqrt2 - 1]: f - (f^2/2 - s (f^2/2 + R)) with
    s = f/(2+f) and R the rest of the series 2 atanh(s) = 2s + 2s^3/3 + 2s^5/5 + ..."""
    s = _div(f, 2.0 + f)
    z = s * s
    p = 2.0 / 23.0
    p = p * z + 2.0 / 21.0
    p = p * z + 2.0 / 19.0
    p = p * z + 2.0 / 17.0
    p = p * z + 2.0 / 15.0
    p = p * z + 2.0 / 13.0
    p = p * z + 2.0 / 11.0
    p = p * z + 2.0 / 9.0
    p = p * z + 2.0 / 7.0
    p = p * z + 2.0 / 5.0
    p = p * z + 2.0 / 3.0
    hfsq = 0.5 * f * f
    return f - (hfsq - (s * (hfsq + z * p) + tail))


@numba.njit(fastmath=_FLAGS, inline="always")
def log(x):
    """The natural logarithm (see the module docstring)."""
    x = np.float64(x)
    finite_positive = (x > 0.0) & (x < _INF)
    y = _log_positive(x if finite_positive else 1.0)
    y = y if finite_positive else x  # inf -> inf, nan -> nan
    y = -_INF if x == 0.0 else y
    return np.nan if x < 0.0 else y


@numba.njit(fastmath=_FLAGS, inline="always")
def log1p(x):
    """log(1 + x), accurate near 0 (see the module docstring)."""
    x = np.float64(x)
    u = 1.0 + x
    inside = (u > 0.0) & (u < _INF)
    uu = u if inside else 1.0
    # u carries the rounding error of 1 + x: add its first-order correction (x - (u-1))/u
    y = _log_positive(uu) + _div(x - (uu - 1.0), uu)
    y = x if u == 1.0 else y  # |x| below half an ulp of 1 (and -0.0 stays -0.0)
    y = y if inside else (x if x > 0.0 else y)  # +inf
    y = -_INF if u == 0.0 else y
    return y if x >= -1.0 else np.nan  # nan stays nan (the comparison is false)


# -- sin and cos --------------------------------------------------------------------------------


@numba.njit(fastmath=_FLAGS)
def _sin_reduced(r):
    """sin(r) for |r| <= pi/4: the Taylor series to r^19."""
    z = r * r
    p = -1.0 / 121645100408832000.0
    p = p * z + 1.0 / 355687428096000.0
    p = p * z - 1.0 / 1307674368000.0
    p = p * z + 1.0 / 6227020800.0
    p = p * z - 1.0 / 39916800.0
    p = p * z + 1.0 / 362880.0
    p = p * z - 1.0 / 5040.0
    p = p * z + 1.0 / 120.0
    p = p * z - 1.0 / 6.0
    return r + (r * z) * p


@numba.njit(fastmath=_FLAGS)
def _cos_reduced(r):
    """cos(r) for |r| <= pi/4: 1 - r^2/2 + r^4 P(r^2), the subtraction done in two parts so
    that its rounding error is kept (1 - r^2/2 is not exact)."""
    z = r * r
    p = 1.0 / 6402373705728000.0
    p = p * z - 1.0 / 20922789888000.0
    p = p * z + 1.0 / 87178291200.0
    p = p * z - 1.0 / 479001600.0
    p = p * z + 1.0 / 3628800.0
    p = p * z - 1.0 / 40320.0
    p = p * z + 1.0 / 720.0
    p = p * z - 1.0 / 24.0
    hz = 0.5 * z
    w = 1.0 - hz
    return w + (((1.0 - w) - hz) - (z * z) * p)


@numba.njit(fastmath=_FLAGS)
def _reduce_pio2(x):
    """``(quadrant, r)`` with ``x = n*pi/2 + r``, |r| <= pi/4, quadrant = n mod 4."""
    n = _round(x * _TWO_OVER_PI)
    r = ((x - n * _PIO2_1) - n * _PIO2_2) - n * _PIO2_3
    return np.int64(n) & 3, r


@numba.njit(fastmath=_FLAGS, inline="always")
def sin(x):
    """sin(x) for |x| <= TRIG_LIMIT (0 elsewhere: see ``trig_outside``)."""
    x = np.float64(x)
    q, r = _reduce_pio2(x if abs(x) <= TRIG_LIMIT else 0.0)
    s, c = _sin_reduced(r), _cos_reduced(r)
    y = s if (q & 1) == 0 else c
    y = -y if q >= 2 else y
    return x if x == 0.0 else y  # -0.0 stays -0.0


@numba.njit(fastmath=_FLAGS, inline="always")
def cos(x):
    """cos(x) for |x| <= TRIG_LIMIT (1 elsewhere: see ``trig_outside``)."""
    x = np.float64(x)
    q, r = _reduce_pio2(x if abs(x) <= TRIG_LIMIT else 0.0)
    s, c = _sin_reduced(r), _cos_reduced(r)
    y = c if (q & 1) == 0 else s
    return -y if (q == 1) | (q == 2) else y


@numba.njit(fastmath=_FLAGS, inline="always")
def trig_outside(x):
    """1 when sin and cos above cannot take ``x`` (too large, inf or nan), else 0."""
    return 0 if abs(np.float64(x)) <= TRIG_LIMIT else 1


# -- reductions -------------------------------------------------------------------------------


@numba.njit(fastmath={"reassoc", "contract"}, error_model="numpy")
def add_reordered(total, value):
    """``total + value`` that LLVM may reorder: a sum accumulated with it vectorises (one
    partial sum per SIMD lane, added at the end; an order as valid as NumPy's pairwise one)."""
    return total + value


# -- tanh ---------------------------------------------------------------------------------------


@numba.njit(fastmath=_FLAGS, inline="always")
def tanh(x):
    """tanh(x) = -expm1(-2|x|) / (expm1(-2|x|) + 2), with the sign of x."""
    x = np.float64(x)
    e = expm1(-2.0 * abs(x))
    return math.copysign(_div(-e, e + 2.0), x)


# -- cosh ---------------------------------------------------------------------------------------


@numba.njit(fastmath=_FLAGS, inline="always")
def cosh(x):
    """cosh(x) = e^|x|/2 + e^-|x|/2: two positive terms, no cancellation; the halving is exact
    (in the exponent), so e^|x|/2 stays finite up to cosh's own overflow near 710.48."""
    x = np.float64(x)
    a = abs(x)
    ac = a if a < 750.0 else 750.0  # NaN also becomes 750: selected away below
    y = _exp_scaled(ac, -1) + _exp_scaled(-ac, -1)
    return y if x == x else x
