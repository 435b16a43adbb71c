"""Derivatives of Gauss's hypergeometric function 2F1(a, b; c; z) with respect to its
parameters a, b and c, on floats.

They have no closed form. For 0 <= z < 1 the series sum (a)_n (b)_n / ((c)_n n!) z^n is summed
with the derivatives of each term carried along (forward-mode differentiation of the term
recurrence t_(n+1) = t_n (a + n)(b + n) z / ((c + n)(n + 1)), which stays right where a term
vanishes: a polynomial 2F1 has a derivative series that does not end). For z < 0, Pfaff's
transformation 2F1(a, b; c; z) = (1 - z)^-a 2F1(a, c - b; c; z / (z - 1)) brings the argument
into [0, 1), where the terms do not alternate. Where the series cannot converge in
``MAX_TERMS`` terms (z >= 1, or z within about 1e-5 of 1 after the transformation) or c is
a pole (0, -1, -2, ...), the derivative is NaN.

Plain Python over ``math``, as ``incomplete_shape``: ``perform`` and the native backend run the
same code.
"""

from __future__ import annotations

import math

EPS = 1e-16
MAX_TERMS = 500_000


def hyp2f1_parameter_derivative(a: float, b: float, c: float, z: float, wrt: int) -> float:
    """d 2F1(a, b; c; z) / d(a, b or c), for ``wrt`` 0, 1 or 2."""
    if math.isnan(a) or math.isnan(b) or math.isnan(c) or math.isnan(z) or z >= 1.0:
        return math.nan
    if c <= 0.0 and c == math.floor(c):
        return math.nan  # a pole of 2F1 in c
    if z == 0.0:
        return 0.0
    if z > 0.0:
        _, da, db, dc = _series_with_derivatives(a, b, c, z)
        return (da, db, dc)[wrt]
    # Pfaff: F(a, b; c; z) = (1 - z)^-a G(a, c - b; c; w), w = z / (z - 1) in (0, 1)
    g, dg_p, dg_q, dg_r = _series_with_derivatives(a, c - b, c, z / (z - 1.0))
    log_base = math.log1p(-z)
    scale = math.exp(-a * log_base)
    if wrt == 0:
        return scale * (dg_p - log_base * g)
    if wrt == 1:
        return -scale * dg_q
    return scale * (dg_q + dg_r)  # q = c - b moves with c


def _series_with_derivatives(p: float, q: float, r: float, w: float) -> tuple:
    """The sum of the 2F1 series at w in [0, 1) and its derivatives in p, q and r."""
    term, dt_p, dt_q, dt_r = 1.0, 0.0, 0.0, 0.0
    total, sum_p, sum_q, sum_r = 1.0, 0.0, 0.0, 0.0
    # past this index the term ratio decreases steadily towards w
    steady = max(abs(p), abs(q), abs(r)) + 2.0
    for n in range(MAX_TERMS):
        scale = w / ((r + n) * (n + 1.0))
        ratio = (p + n) * (q + n) * scale
        dt_p, dt_q, dt_r = (
            dt_p * ratio + term * (q + n) * scale,
            dt_q * ratio + term * (p + n) * scale,
            dt_r * ratio - term * ratio / (r + n),
        )
        term *= ratio
        total, sum_p, sum_q, sum_r = total + term, sum_p + dt_p, sum_q + dt_q, sum_r + dt_r
        if n > steady and _negligible(term, total, dt_p, sum_p, dt_q, sum_q, dt_r, sum_r):
            return total, sum_p, sum_q, sum_r
    return math.nan, math.nan, math.nan, math.nan  # not converged: no value is better


def _negligible(term, total, dt_p, sum_p, dt_q, sum_q, dt_r, sum_r) -> bool:
    return (
        abs(term) <= EPS * abs(total)
        and abs(dt_p) <= EPS * abs(sum_p)
        and abs(dt_q) <= EPS * abs(sum_q)
        and abs(dt_r) <= EPS * abs(sum_r)
    )
