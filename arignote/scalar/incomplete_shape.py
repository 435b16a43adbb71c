"""Derivatives of the regularized incomplete gamma and beta integrals with respect to their
shape parameters, on floats.

Neither P(a, x) nor I_x(a, b) has a closed-form shape derivative. Each is evaluated by
differentiating, term by term, the expansion that evaluates the integral itself: the power
series of P for x <= a + 1, the continued fraction of Q = 1 - P beyond, and the continued
fraction of I_x(a, b) on the side of its mean where it converges (the mirrored integral
I_{1-x}(b, a) on the other). Every quantity of a recurrence carries its derivative along
(forward-mode differentiation), and a sum stops when both its terms and their derivatives are
below the rounding of the totals.

The functions are plain Python over ``math`` so that the NumPy ``perform`` runs them per element
and the native backend compiles the very same code (``link/numba/dispatch/special_native.py``).
"""

from __future__ import annotations

import math

#: Relative size below which a term no longer changes a float64 sum.
EPS = 1e-16
#: Guard of Lentz's method against a zero denominator (Numerical Recipes' FPMIN).
TINY = 1e-300
#: Lentz's starting C for a fraction without a leading term: "infinite", with a finite square.
HUGE = 1e150
#: Terms or fraction steps at most (reached only with shapes of order 1e9 and more).
MAX_STEPS = 200_000


def digamma(x: float) -> float:
    """psi(x) for x > 0: the recurrence psi(x) = psi(x + 1) - 1/x up to x >= 10, then the
    asymptotic series ln x - 1/(2x) - sum B_2k / (2k x^2k) to the x^-14 term (error < 1e-15)."""
    shift = 0.0
    while x < 10.0:
        shift -= 1.0 / x
        x += 1.0
    z = 1.0 / (x * x)
    tail = 1.0 / 132 - z * (691.0 / 32760 - z / 12)
    tail = z * (1.0 / 12 - z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240 - z * tail))))
    return shift + math.log(x) - 0.5 / x - tail


# -- the incomplete gamma integral -------------------------------------------------------------


def gammainc_shape_derivative(a: float, x: float) -> float:
    """dP(a, x)/da, the derivative of ``gammainc`` in its shape (NaN outside a > 0, x >= 0)."""
    # (an ordered comparison with a NaN raises the invalid flag, which NumPy reports)
    if math.isnan(a) or math.isnan(x) or not (a > 0.0 and x >= 0.0):
        return math.nan
    if x == 0.0 or math.isinf(x) or math.isinf(a):
        return 0.0  # P is 0 (or 1) in a neighbourhood of a
    if x <= a + 1.0:
        return _lower_series_derivative(a, x)
    return -_upper_fraction_derivative(a, x)


def _lower_series_derivative(a: float, x: float) -> float:
    # P = x^a e^-x / Gamma(a + 1) * S, S = sum t_n, t_0 = 1, t_n = t_(n-1) x / (a + n).
    # d t_n / da = t_n r_n with r_n = -sum_(k <= n) 1 / (a + k);
    # dP/da = prefactor (S (ln x - psi(a + 1)) + sum t_n r_n).
    total, slope, term, rate = 1.0, 0.0, 1.0, 0.0
    for n in range(1, MAX_STEPS):
        term *= x / (a + n)
        rate -= 1.0 / (a + n)
        total += term
        slope += term * rate
        if term <= EPS * total and abs(term * rate) <= EPS * abs(slope):
            break
    log_prefactor = a * math.log(x) - x - math.lgamma(a + 1.0)
    return math.exp(log_prefactor) * (total * (math.log(x) - digamma(a + 1.0)) + slope)


def _upper_fraction_derivative(a: float, x: float) -> float:
    # Q = x^a e^-x / Gamma(a) * F, F = 1/(x + 1 - a -) 1 (1 - a)/(x + 3 - a -) 2 (2 - a)/...
    # (Legendre's continued fraction) by the modified Lentz method, every quantity with its
    # derivative in a; dQ/da = prefactor (F (ln x - psi(a)) + dF/da).
    b, db = x + 1.0 - a, -1.0
    c, dc = HUGE, 0.0
    d, dd = 1.0 / b, 1.0 / (b * b)
    f, df = d, dd
    for i in range(1, MAX_STEPS):
        an, dan = -i * (i - a), float(i)
        b += 2.0
        d, dd = _lentz_denominator(an, dan, b, db, d, dd)
        c, dc = _lentz_numerator(an, dan, b, db, c, dc)
        delta, ddelta = d * c, dd * c + d * dc
        f, df = f * delta, df * delta + f * ddelta
        if abs(delta - 1.0) <= EPS and abs(ddelta * f) <= EPS * abs(df):
            break
    log_prefactor = a * math.log(x) - x - math.lgamma(a)
    return math.exp(log_prefactor) * (f * (math.log(x) - digamma(a)) + df)


def _lentz_denominator(an, dan, b, db, d, dd):
    """Lentz's D_i = 1 / (b_i + a_i D_(i-1)) and its derivative."""
    den = b + an * d
    dden = db + dan * d + an * dd
    if abs(den) < TINY:
        den = TINY
    return 1.0 / den, -dden / (den * den)


def _lentz_numerator(an, dan, b, db, c, dc):
    """Lentz's C_i = b_i + a_i / C_(i-1) and its derivative."""
    value = b + an / c
    slope = db + (dan * c - an * dc) / (c * c)
    if abs(value) < TINY:
        value = TINY
    return value, slope


# -- the incomplete beta integral --------------------------------------------------------------


def betainc_shape_derivative(a: float, b: float, x: float, wrt_a: bool) -> float:
    """dI_x(a, b)/da (``wrt_a``) or dI_x(a, b)/db, the derivatives of ``betainc`` in its shapes
    (NaN outside a > 0, b > 0, 0 <= x <= 1)."""
    if math.isnan(a) or math.isnan(b) or math.isnan(x):
        return math.nan
    if not (a > 0.0 and b > 0.0 and 0.0 <= x <= 1.0):
        return math.nan
    if x == 0.0 or x == 1.0:
        return 0.0  # I is 0 (or 1) for all shapes
    if x * (a + b + 2.0) < a + 1.0:
        da, db = _beta_fraction_derivatives(a, b, x, math.log(x), math.log1p(-x))
        return da if wrt_a else db
    # I_x(a, b) = 1 - I_(1-x)(b, a): the fraction converges fast on this side of the mirror
    db, da = _beta_fraction_derivatives(b, a, 1.0 - x, math.log1p(-x), math.log(x))
    return -da if wrt_a else -db


def _beta_fraction_derivatives(p, q, y, log_y, log_rest):
    # I_y(p, q) = y^p (1 - y)^q / (p B(p, q)) * F, F the continued fraction
    # 1/(1 +) d_1/(1 +) d_2/(1 + ...) with d_2m+1 = -(p + m)(p + q + m) y / ((p + 2m)(p + 2m + 1))
    # and d_2m = m (q - m) y / ((p + 2m - 1)(p + 2m)) (DLMF 8.17.22), by the modified Lentz
    # method; each quantity carries its derivatives in p and q.
    first = (p + q) * y / (p + 1.0)
    d = 1.0 - first
    dd_p, dd_q = -y * (1.0 - q) / ((p + 1.0) ** 2), -y / (p + 1.0)
    d, dd_p, dd_q = 1.0 / d, -dd_p / (d * d), -dd_q / (d * d)
    c, dc_p, dc_q = 1.0, 0.0, 0.0
    f, df_p, df_q = d, dd_p, dd_q
    for step in range(2, 2 * MAX_STEPS):
        coef, dcoef_p, dcoef_q = _beta_coefficient(p, q, y, step)
        d, dd_p, dd_q = _unit_lentz_denominator(coef, dcoef_p, dcoef_q, d, dd_p, dd_q)
        c, dc_p, dc_q = _unit_lentz_numerator(coef, dcoef_p, dcoef_q, c, dc_p, dc_q)
        delta = d * c
        ddelta_p, ddelta_q = dd_p * c + d * dc_p, dd_q * c + d * dc_q
        f, df_p, df_q = f * delta, df_p * delta + f * ddelta_p, df_q * delta + f * ddelta_q
        small = abs(ddelta_p * f) <= EPS * abs(df_p) and abs(ddelta_q * f) <= EPS * abs(df_q)
        if step % 2 == 1 and abs(delta - 1.0) <= EPS and small:
            break
    log_beta = math.lgamma(p) + math.lgamma(q) - math.lgamma(p + q)
    prefactor = math.exp(p * log_y + q * log_rest - math.log(p) - log_beta)
    both = digamma(p + q)
    dlog_p = log_y - 1.0 / p - digamma(p) + both
    dlog_q = log_rest - digamma(q) + both
    return prefactor * (f * dlog_p + df_p), prefactor * (f * dlog_q + df_q)


def _beta_coefficient(p, q, y, step):
    """The partial numerator d_step of the incomplete beta fraction and its derivatives."""
    m = float(step // 2)
    if step % 2 == 0:
        coef = m * (q - m) * y / ((p + 2 * m - 1) * (p + 2 * m))
        dcoef_p = -coef * (1.0 / (p + 2 * m - 1) + 1.0 / (p + 2 * m))
        return coef, dcoef_p, m * y / ((p + 2 * m - 1) * (p + 2 * m))
    coef = -(p + m) * (p + q + m) * y / ((p + 2 * m) * (p + 2 * m + 1))
    inner = 1.0 / (p + m) + 1.0 / (p + q + m) - 1.0 / (p + 2 * m) - 1.0 / (p + 2 * m + 1)
    return coef, coef * inner, coef / (p + q + m)


def _unit_lentz_denominator(coef, dcoef_p, dcoef_q, d, dd_p, dd_q):
    """D = 1 / (1 + coef D) and its derivatives in p and q."""
    den = 1.0 + coef * d
    if abs(den) < TINY:
        den = TINY
    scale = -1.0 / (den * den)
    return 1.0 / den, scale * (dcoef_p * d + coef * dd_p), scale * (dcoef_q * d + coef * dd_q)


def _unit_lentz_numerator(coef, dcoef_p, dcoef_q, c, dc_p, dc_q):
    """C = 1 + coef / C and its derivatives in p and q."""
    value = 1.0 + coef / c
    if abs(value) < TINY:
        value = TINY
    inv = 1.0 / (c * c)
    return value, (dcoef_p * c - coef * dc_p) * inv, (dcoef_q * c - coef * dc_q) * inv
