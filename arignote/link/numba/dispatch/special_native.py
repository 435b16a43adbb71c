"""SciPy's Python-level special functions (``polygamma``, exact ``factorial``), written natively
from the formulas SciPy evaluates, over SciPy's own C entry points: cython_special exports
neither, so the shared kernel table (``arignote.scalar.kernels``) cannot name them. Also the
shape derivatives of ``gammainc`` and ``betainc``: the plain-Python functions of
``arignote.scalar.incomplete_shape`` that ``perform`` runs, compiled as they are."""

from __future__ import annotations

import numpy as np

import numba
from arignote.link.numba.dispatch.basic import NotNative
from arignote.link.numba.dispatch.scalar import SCALAR_FUNCTIONS, override, translate
from arignote.link.numba.dispatch.scipy_special import entry_point
from arignote.scalar import hyp2f1_params, incomplete_shape, special, special_more
from arignote.scalar.kernels import formula_for

_gamma = entry_point("gamma", 1)
_psi = entry_point("psi", 1)

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


@numba.njit(cache=False, error_model="numpy")
def hurwitz_zeta(s, q):
    """``scipy.special.zeta(s, q)`` = sum over k >= 0 of (k + q)^-s, for s > 1, as cephes
    computes it: direct terms until they are negligible or q + k > 9, then the
    Euler-Maclaurin tail; the leading asymptotic terms for very large q."""
    if s == 1.0:
        return np.inf
    if s < 1.0:
        return np.nan
    if q <= 0.0:
        # np.floor keeps a float: math.floor gives an int64 in numba, which -inf (or any
        # q below -2^63) overflows, and the sum below then divided 0 by 0
        if q == np.floor(q):
            return np.inf
        if s != np.floor(s):
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


@numba.njit(cache=False, error_model="numpy")
def polygamma(n, x):
    """``scipy.special.polygamma``: psi for n = 0, else (-1)^(n+1) n! zeta(n + 1, x) (NaN for
    a non-integer order, where the power of -1 is not real)."""
    if n == 0:
        return _psi(x, 0)
    return np.power(-1.0, n + 1.0) * _gamma(n + 1.0, 0) * hurwitz_zeta(n + 1.0, x)


@numba.njit(cache=False, error_model="numpy")
def factorial_exact(n):
    """``scipy.special.factorial(n, exact=True)`` on integers: n!, 0 below 0; above 20! the
    value leaves int64, where ``perform``'s conversion overflows too."""
    if n > 20:
        raise OverflowError("factorial: n! does not fit in int64 for n > 20")
    result = 1
    for k in range(2, n + 1):
        result *= k
    return 0 if n < 0 else result


# the helpers become callable from compiled code; the two entry points are compiled
for _helper in (
    "digamma",
    "_lower_series_derivative",
    "_upper_fraction_derivative",
    "_lentz_denominator",
    "_lentz_numerator",
    "_beta_fraction_derivatives",
    "_beta_coefficient",
    "_unit_lentz_denominator",
    "_unit_lentz_numerator",
):
    numba.extending.register_jitable(getattr(incomplete_shape, _helper))
for _helper in ("_series_with_derivatives", "_negligible"):
    numba.extending.register_jitable(getattr(hyp2f1_params, _helper))
_JIT = {"cache": False, "error_model": "numpy"}

SCALAR_FUNCTIONS.update(
    arignote_polygamma=polygamma,
    arignote_factorial_exact=factorial_exact,
    arignote_gammainc_grad=numba.njit(**_JIT)(incomplete_shape.gammainc_shape_derivative),
    arignote_betainc_grad=numba.njit(**_JIT)(incomplete_shape.betainc_shape_derivative),
    arignote_hyp2f1_grad=numba.njit(**_JIT)(hyp2f1_params.hyp2f1_parameter_derivative),
)


@override(special.Polygamma)
def _polygamma(op, args, dtypes):
    if any(np.dtype(d).kind == "c" for d in dtypes):
        raise NotNative("Polygamma", "scipy.special.polygamma of complex numbers is not native")
    return f"arignote_polygamma(np.float64({args[0]}), np.float64({args[1]}))"


@override(special.Factorial)
def _factorial(op, args, dtypes):
    if op.exact:  # make_node refuses non-integer inputs there, as SciPy does
        return f"arignote_factorial_exact(np.int64({args[0]}))"
    return translate(formula_for(op, dtypes), args, dtypes, "Factorial")


@override(special.GammaIncGrad)
def _gammainc_grad(op, args, dtypes):
    return f"arignote_gammainc_grad(np.float64({args[0]}), np.float64({args[1]}))"


@override(special.BetaIncGrad)
def _betainc_grad(op, args, dtypes):
    a, b, x = (f"np.float64({arg})" for arg in args)
    return f"arignote_betainc_grad({a}, {b}, {x}, {op.wrt_a})"


@override(special_more.Hyp2F1Grad)
def _hyp2f1_grad(op, args, dtypes):
    a, b, c, z = (f"np.float64({arg})" for arg in args)
    return f"arignote_hyp2f1_grad({a}, {b}, {c}, {z}, {op.wrt})"
