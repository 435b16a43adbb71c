"""NumPy's samplers that numba's ``Generator`` lacks (or draws differently), written natively.

Each function reproduces the algorithm of NumPy's C sampler of the same name (NumPy 2.4,
``numpy/random/src/distributions/``) on numba's bit-generator primitives, which consume the
bit generator exactly as NumPy does: ``next_double`` is NumPy's uniform double,
``next_uint32`` its 32-bit word, and numba's ports of ``random_standard_normal``,
``random_standard_gamma``, ``random_beta`` and ``random_binomial`` are checked bit for bit
(``tests/link/test_numba_random.py``). The arithmetic follows NumPy's expressions operation
by operation (same order, same libm functions, IEEE division: ``error_model="numpy"``), so a
draw from a generator in a given state is NumPy's number and leaves the same next state.

The samplers take the generator's ``bit_generator`` (``rng.bit_generator`` in a kernel).
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

import numpy as np

import numba
from numba.np.random.distributions import (
    random_beta,
    random_binomial,
    random_standard_gamma,
    random_standard_normal,
)
from numba.np.random.generator_core import next_double
from numba.np.random.random_methods import random_interval

_jit = numba.njit(error_model="numpy", cache=False)


# -- scalar samplers ------------------------------------------------------------------------


@_jit
def gumbel(bitgen, loc, scale):
    """NumPy's ``random_gumbel``: ``loc - scale * log(-log(1 - U))``, rejecting ``U == 0``."""
    while True:
        u = 1.0 - next_double(bitgen)
        if u < 1.0:
            return loc - scale * math.log(-math.log(u))


@_jit
def wald(bitgen, mean, scale):
    """NumPy's ``random_wald`` (Michael, Schucany and Haas: one normal, one uniform).

    NumPy 2.4 writes the root as ``mean * (1 - 2 / (1 + sqrt(1 + 4 scale / Y)))``, which
    never goes negative (numba keeps the older form, whose last bits differ)."""
    y = random_standard_normal(bitgen)
    y = mean * y * y
    d = 1 + math.sqrt(1 + 4 * scale / y)
    x = mean * (1 - 2 / d)
    u = next_double(bitgen)
    if u <= mean / (mean + x):
        return x
    return mean * mean / x


@_jit
def _vonmises_s(kappa):
    """Best's rejection constant ``s`` (a Taylor form for tiny ``kappa``)."""
    if kappa < 1e-5:
        return 1.0 / kappa + kappa
    r = 1 + math.sqrt(1 + 4 * kappa * kappa)
    rho = (r - math.sqrt(2 * r)) / (2 * kappa)
    return (1 + rho * rho) / (2 * rho)


@_jit
def _wrapped_normal(bitgen, mu, kappa):
    """NumPy's draw for ``kappa > 1e6``: a normal of variance 1/kappa folded once into
    [-pi, pi]."""
    result = mu + math.sqrt(1.0 / kappa) * random_standard_normal(bitgen)
    if result < -math.pi:
        result += 2 * math.pi
    if result > math.pi:
        result -= 2 * math.pi
    return result


@_jit
def vonmises(bitgen, mu, kappa):
    """NumPy's ``random_vonmises`` (Best and Fisher's rejection, then folding into
    [-pi, pi] with the sign of the unfolded value)."""
    if kappa < 1e-8:
        return math.pi * (2 * next_double(bitgen) - 1)
    if kappa > 1e6:
        return _wrapped_normal(bitgen, mu, kappa)
    s = _vonmises_s(kappa)
    while True:
        z = math.cos(math.pi * next_double(bitgen))
        w = (1 + s * z) / (s + z)
        y = kappa * (s - w)
        v = next_double(bitgen)
        if y * (2 - y) - v >= 0 or math.log(y / v) + 1 - y >= 0:
            break
    u = next_double(bitgen)
    result = math.acos(w)
    if u < 0.5:
        result = -result
    result += mu
    folded = np.fmod(abs(result) + math.pi, 2 * math.pi) - math.pi
    return -folded if result < 0 else folded


def _log_factorials(count: int) -> np.ndarray:
    """log(k!) for k < count, correctly rounded (NumPy's table holds these values)."""
    with localcontext() as context:
        context.prec = 60
        return np.array([float(Decimal(math.factorial(k)).ln()) for k in range(count)])


_LOG_FACTORIAL = _log_factorials(126)
_HALF_LOG_2PI = 0.9189385332046728


@_jit
def _logfactorial(k):
    """NumPy's ``logfactorial``: the table, then Stirling's series to the 1/k**3 term."""
    if k < 126:
        return _LOG_FACTORIAL[k]
    correction = _HALF_LOG_2PI + (1.0 / k) * (1 / 12.0 - 1 / (360.0 * k * k))
    return (k + 0.5) * math.log(k) - k + correction


@_jit
def _hypergeometric_sample(bitgen, good, bad, sample):
    """NumPy's ``hypergeometric_sample``: picks one by one (the smaller of the sample and its
    complement), each a bounded integer below the remaining total."""
    total = good + bad
    computed = total - sample if sample > total // 2 else sample
    remaining_total, remaining_good = total, good
    while computed > 0 and remaining_good > 0 and remaining_total > remaining_good:
        remaining_total -= 1
        if np.int64(random_interval(bitgen, remaining_total)) < remaining_good:
            remaining_good -= 1
        computed -= 1
    if remaining_total == remaining_good:
        remaining_good -= computed
    return remaining_good if sample > total // 2 else good - remaining_good


_D1 = 1.7155277699214135
_D2 = 0.8989161620588988


@_jit
def _hrua_log_weight(k, low, sample, high):
    return (
        _logfactorial(k)
        + _logfactorial(low - k)
        + _logfactorial(sample - k)
        + _logfactorial(high - sample + k)
    )


@_jit
def _hypergeometric_hrua(bitgen, good, bad, sample):
    """NumPy's ``hypergeometric_hrua`` (Stadlober's ratio of uniforms, algorithm HRUA)."""
    popsize = good + bad
    computed = min(sample, popsize - sample)
    low, high = min(good, bad), max(good, bad)
    p = low / popsize
    q = high / popsize
    a = computed * p + 0.5
    var = float(popsize - computed) * computed * p * q / (popsize - 1)
    c = math.sqrt(var + 0.5)
    h = _D1 * c + _D2
    m = np.int64(math.floor(float(computed + 1) * (low + 1) / (popsize + 2)))
    g = _hrua_log_weight(m, low, computed, high)
    b = min(float(min(computed, low) + 1), math.floor(a + 16 * c))
    while True:
        u = next_double(bitgen)
        v = next_double(bitgen)
        x = a + h * (v - 0.5) / u
        if x < 0.0 or x >= b:
            continue
        k = np.int64(math.floor(x))
        t = g - _hrua_log_weight(k, low, computed, high)
        if u * (4.0 - u) - 3.0 <= t:
            break
        if u * (u - t) >= 1:
            continue
        if 2.0 * math.log(u) <= t:
            break
    if good > bad:
        k = computed - k
    if computed < sample:
        k = good - k
    return k


@_jit
def hypergeometric(bitgen, good, bad, sample):
    """NumPy's ``random_hypergeometric``: HRUA unless the sample (or its complement) is
    below 10."""
    if sample >= 10 and sample <= good + bad - 10:
        return _hypergeometric_hrua(bitgen, good, bad, sample)
    return _hypergeometric_sample(bitgen, good, bad, sample)


#: name in a kernel's namespace: sampler (called as ``name(rng.bit_generator, x0, ...)``)
SCALAR_SAMPLERS = {
    "gumbel_draw": gumbel,
    "wald_draw": wald,
    "vonmises_draw": vonmises,
    "hypergeometric_draw": hypergeometric,
}


# -- vector samplers: one core draw into ``out`` ----------------------------------------------


@_jit
def dirichlet_into(bitgen, alpha, out):
    """One draw of NumPy's ``dirichlet`` for the vector ``alpha`` (all positive).

    Below 0.1 for every entry NumPy breaks a stick with betas (the gammas could all be 0);
    otherwise it normalises gammas by their sum, multiplying by the reciprocal."""
    alpha = alpha.astype(np.float64)  # NumPy reads alpha as float64
    k = alpha.shape[0]
    if k > 0 and alpha.max() < 0.1:
        tails = np.empty(k)
        total = 0.0
        for j in range(k - 1, -1, -1):
            total += alpha[j]
            tails[j] = total
        rest = 1.0
        for j in range(k - 1):
            v = random_beta(bitgen, alpha[j], tails[j + 1])
            out[j] = rest * v
            rest *= 1.0 - v
        out[k - 1] = rest
        return
    total = 0.0
    for j in range(k):
        out[j] = random_standard_gamma(bitgen, alpha[j])
        total = total + out[j]
    scale = 1.0 / total
    for j in range(k):
        out[j] = out[j] * scale


@_jit
def multinomial_into(bitgen, n, pvals, out):
    """NumPy's ``random_multinomial``: a binomial per category for what is left, with the
    probability renormalised by the mass left; the last category takes the rest."""
    out[:] = 0
    pvals = pvals.astype(np.float64)  # NumPy reads pvals as float64
    d = pvals.shape[0]
    remaining_p = 1.0
    left = n
    for j in range(d - 1):
        out[j] = random_binomial(bitgen, left, pvals[j] / remaining_p)
        left = left - out[j]
        if left <= 0:
            break
        remaining_p -= pvals[j]
    if left > 0:
        out[d - 1] = left


@_jit
def mvhg_choices(colors):
    """``[0] * colors[0] + [1] * colors[1] + ...``: the items NumPy's count method shuffles."""
    choices = np.empty(colors.sum(), np.int64)
    k = 0
    for i in range(colors.shape[0]):
        for _ in range(colors[i]):
            choices[k] = i
            k += 1
    return choices


@_jit
def mvhg_count_into(bitgen, colors, nsample, out, choices):
    """One variate of NumPy's ``random_multivariate_hypergeometric_count``: a partial
    Fisher-Yates shuffle of ``choices`` (which NumPy keeps shuffling from one variate of a
    call to the next), the first ``nsample`` items counted per color."""
    total = choices.shape[0]
    if total == 0 or nsample == 0:
        return
    more_than_half = nsample > total // 2
    if more_than_half:
        nsample = total - nsample
    for j in range(nsample):
        k = j + np.int64(random_interval(bitgen, total - j - 1))
        choices[k], choices[j] = choices[j], choices[k]
    for j in range(nsample):
        out[choices[j]] += 1
    if more_than_half:
        out[:] = colors - out


@_jit
def mvhg_marginals_into(bitgen, colors, nsample, out):
    """One variate of NumPy's ``random_multivariate_hypergeometric_marginals``: a
    hypergeometric draw per color against the colors after it."""
    total = colors.sum()
    if total == 0 or nsample == 0:
        return
    more_than_half = nsample > total // 2
    if more_than_half:
        nsample = total - nsample
    left, remaining, j = nsample, total, 0
    while left > 0 and j + 1 < colors.shape[0]:
        remaining -= colors[j]
        out[j] = hypergeometric(bitgen, colors[j], remaining, left)
        left -= out[j]
        j += 1
    if left > 0:
        out[colors.shape[0] - 1] = left
    if more_than_half:
        out[:] = colors - out


@_jit
def categorical_cdf(p):
    """``cumsum(p) / cumsum(p)[-1]``, summed left to right as NumPy's ``cumsum``."""
    cdf = np.empty(p.shape[0])
    total = 0.0
    for j in range(p.shape[0]):
        total += p[j]
        cdf[j] = total
    return cdf / cdf[-1]


@_jit
def search_right(cdf, u):
    """``searchsorted(cdf, u, side="right")``: the count of entries <= u (sorted cdf)."""
    lo, hi = 0, cdf.shape[0]
    while lo < hi:
        mid = (lo + hi) >> 1
        if cdf[mid] <= u:
            lo = mid + 1
        else:
            hi = mid
    return lo


@_jit
def shuffled_range(bitgen, n):
    """``arange(n)`` shuffled by NumPy's ``shuffle`` (Fisher-Yates from the end, each swap
    partner a masked-rejection integer of ``random_interval``)."""
    order = np.arange(max(n, 0))
    for i in range(n - 1, 0, -1):
        j = np.int64(random_interval(bitgen, i))
        order[i], order[j] = order[j], order[i]
    return order


__all__ = [
    "SCALAR_SAMPLERS",
    "categorical_cdf",
    "dirichlet_into",
    "gumbel",
    "hypergeometric",
    "multinomial_into",
    "mvhg_choices",
    "mvhg_count_into",
    "mvhg_marginals_into",
    "search_right",
    "shuffled_range",
    "vonmises",
    "wald",
]
