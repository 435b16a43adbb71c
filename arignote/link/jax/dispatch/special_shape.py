"""JAX versions of the shape derivatives of the incomplete gamma and beta integrals
(``GammaIncGrad``, ``BetaIncGrad`` in ``scalar/special.py``) and of the parameter derivatives
of Gauss's hypergeometric function (``Hyp2F1Grad``, ``scalar/special_more.py``).

``dP(a, x)/da`` is XLA's own ``igamma_grad_a``. JAX has no derivative of ``betainc`` in its
shapes (``jax.grad`` refuses), so the continued fraction of ``perform``
(``scalar/incomplete_shape.py``) is written here over whole arrays: every element steps
together in one ``lax.while_loop`` until all have converged, each carrying its derivatives in
both shapes; an element that has converged keeps its values. The 2F1 series is summed the
same way (with Pfaff's transformation for z < 0), as ``perform`` does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import jax.scipy.special as jsp
from arignote.graph.basic import Apply
from arignote.link.jax.dispatch.basic import jax_funcify
from arignote.link.jax.dispatch.special import _broadcast
from arignote.scalar.hyp2f1_params import MAX_TERMS as HYP2F1_TERMS
from arignote.scalar.incomplete_shape import EPS, MAX_STEPS, TINY
from arignote.scalar.special import BetaIncGrad, GammaIncGrad
from arignote.scalar.special_more import Hyp2F1Grad
from jax import dtypes, lax


def _gammainc_grad(a: Any, x: Any) -> Any:
    value = lax.igamma_grad_a(a, x)
    value = jnp.where((x == 0) | jnp.isinf(x) | jnp.isinf(a), 0.0, value)
    return jnp.where((a > 0) & (x >= 0), value, jnp.nan)


def _guarded(value: Any) -> Any:
    return jnp.where(jnp.abs(value) < TINY, TINY, value)


def _start(p: Any, q: Any, y: Any) -> tuple:
    """Lentz's state after the leading 1 / (1 - (p + q) y / (p + 1)): (D, C, F), each a triple
    of the value and its derivatives in p and q."""
    den = _guarded(1.0 - (p + q) * y / (p + 1.0))
    dden = (-y * (1.0 - q) / (p + 1.0) ** 2, -y / (p + 1.0))
    d = (1.0 / den, -dden[0] / den**2, -dden[1] / den**2)
    c = (jnp.ones_like(y), jnp.zeros_like(y), jnp.zeros_like(y))
    return d, c, d


def _even_coefficient(p, q, y, m):
    coef = m * (q - m) * y / ((p + 2 * m - 1) * (p + 2 * m))
    dcoef_p = -coef * (1.0 / (p + 2 * m - 1) + 1.0 / (p + 2 * m))
    return coef, dcoef_p, m * y / ((p + 2 * m - 1) * (p + 2 * m))


def _odd_coefficient(p, q, y, m):
    coef = -(p + m) * (p + q + m) * y / ((p + 2 * m) * (p + 2 * m + 1))
    inner = 1.0 / (p + m) + 1.0 / (p + q + m) - 1.0 / (p + 2 * m) - 1.0 / (p + 2 * m + 1)
    return coef, coef * inner, coef / (p + q + m)


def _lentz_step(state: tuple, coefficient: tuple) -> tuple:
    """One step D = 1/(1 + a D), C = 1 + a/C, F *= D C with derivatives; also the factor D C
    and its derivatives (for the convergence test)."""
    (d, dd_p, dd_q), (c, dc_p, dc_q), (f, df_p, df_q) = state
    coef, dcoef_p, dcoef_q = coefficient
    den = _guarded(1.0 + coef * d)
    scale = -1.0 / den**2
    d, dd_p, dd_q = (
        1.0 / den,
        scale * (dcoef_p * d + coef * dd_p),
        scale * (dcoef_q * d + coef * dd_q),
    )
    inv = 1.0 / c**2
    dc_p, dc_q = (dcoef_p * c - coef * dc_p) * inv, (dcoef_q * c - coef * dc_q) * inv
    c = _guarded(1.0 + coef / c)
    delta = (d * c, dd_p * c + d * dc_p, dd_q * c + d * dc_q)
    f = (f * delta[0], df_p * delta[0] + f * delta[1], df_q * delta[0] + f * delta[2])
    return ((d, dd_p, dd_q), (c, dc_p, dc_q), f), delta


def _converged(f: tuple, delta: tuple) -> Any:
    eps = max(EPS, float(jnp.finfo(f[0].dtype).eps) / 2)  # float32 without jax_enable_x64
    slopes_small = (jnp.abs(delta[1] * f[0]) <= eps * jnp.abs(f[1])) & (
        jnp.abs(delta[2] * f[0]) <= eps * jnp.abs(f[2])
    )
    return (jnp.abs(delta[0] - 1.0) <= eps) & slopes_small


def _fraction(p: Any, q: Any, y: Any) -> tuple:
    """The continued fraction of I_y(p, q) and its derivatives in p and q (see
    ``incomplete_shape._beta_fraction_derivatives``)."""

    def body(carry):
        m, state, done = carry
        state_even, _ = _lentz_step(state, _even_coefficient(p, q, y, m))
        new, delta = _lentz_step(state_even, _odd_coefficient(p, q, y, m))
        new = _keep_done(done, state, new)
        return m + 1.0, new, done | _converged(new[2], delta)

    def cond(carry):
        m, _, done = carry
        return (m < MAX_STEPS) & ~jnp.all(done)

    start = (jnp.asarray(1.0, y.dtype), _start(p, q, y), jnp.zeros(y.shape, bool))
    _, (_, _, f), _ = lax.while_loop(cond, body, start)
    return f


def _keep_done(done: Any, old: tuple, new: tuple) -> tuple:
    """``new``, with the elements already ``done`` kept at their ``old`` values."""
    return tuple(
        tuple(jnp.where(done, o, n) for o, n in zip(old_triple, new_triple))
        for old_triple, new_triple in zip(old, new)
    )


def _fraction_derivatives(p, q, y, log_y, log_rest) -> tuple:
    """dI_y(p, q)/dp and dI_y(p, q)/dq."""
    f, df_p, df_q = _fraction(p, q, y)
    log_beta = jsp.gammaln(p) + jsp.gammaln(q) - jsp.gammaln(p + q)
    prefactor = jnp.exp(p * log_y + q * log_rest - jnp.log(p) - log_beta)
    both = jsp.digamma(p + q)
    dlog_p = log_y - 1.0 / p - jsp.digamma(p) + both
    dlog_q = log_rest - jsp.digamma(q) + both
    return prefactor * (f * dlog_p + df_p), prefactor * (f * dlog_q + df_q)


def _betainc_grad(a: Any, b: Any, x: Any, wrt_a: bool) -> Any:
    # in float64 (where JAX has it) whatever the output dtype, as ``perform`` computes
    wide = jnp.promote_types(a.dtype, dtypes.canonicalize_dtype(jnp.float64))
    a, b, x = (jnp.asarray(v, wide) for v in (a, b, x))
    valid = (a > 0) & (b > 0) & (x > 0) & (x < 1)
    a, b = jnp.where(valid, a, 1.0), jnp.where(valid, b, 1.0)
    x_ = jnp.where(valid, x, 0.25)
    direct = x_ * (a + b + 2.0) < a + 1.0  # else I_x(a, b) = 1 - I_(1-x)(b, a)
    p, q = jnp.where(direct, a, b), jnp.where(direct, b, a)
    y = jnp.where(direct, x_, 1.0 - x_)
    log_x, log_rest = jnp.log(x_), jnp.log1p(-x_)
    log_y, log_y_rest = jnp.where(direct, log_x, log_rest), jnp.where(direct, log_rest, log_x)
    d_p, d_q = _fraction_derivatives(p, q, y, log_y, log_y_rest)
    value = jnp.where(direct, d_p, -d_q) if wrt_a else jnp.where(direct, d_q, -d_p)
    edge = (a > 0) & (b > 0) & ((x == 0) | (x == 1))
    return jnp.where(valid, value, jnp.where(edge, 0.0, jnp.nan))


@jax_funcify.register(GammaIncGrad)
def jax_funcify_GammaIncGrad(
    op: GammaIncGrad, node: Apply | None = None, **kwargs: Any
) -> Callable:
    def gammainc_grad(a, x):
        return _gammainc_grad(*_broadcast(node, (a, x)))

    return gammainc_grad


@jax_funcify.register(BetaIncGrad)
def jax_funcify_BetaIncGrad(op: BetaIncGrad, node: Apply | None = None, **kwargs: Any) -> Callable:
    def betainc_grad(a, b, x):
        args = _broadcast(node, (a, b, x))
        return _betainc_grad(*args, op.wrt_a).astype(args[0].dtype)

    return betainc_grad


# -- the parameters of Gauss's hypergeometric function ------------------------------------------


def _hyp2f1_series(p: Any, q: Any, r: Any, w: Any) -> tuple:
    """The 2F1 series at ``w`` in [0, 1) and its derivatives in p, q, r (see
    ``hyp2f1_params._series_with_derivatives``); NaN where it has not converged."""
    steady = jnp.maximum(jnp.maximum(jnp.abs(p), jnp.abs(q)), jnp.abs(r)) + 2.0
    eps = max(EPS, float(jnp.finfo(w.dtype).eps) / 2)

    def body(carry):
        n, terms, sums, done = carry
        term, dt_p, dt_q, dt_r = terms
        scale = w / ((r + n) * (n + 1.0))
        ratio = (p + n) * (q + n) * scale
        new_terms = (
            term * ratio,
            dt_p * ratio + term * (q + n) * scale,
            dt_q * ratio + term * (p + n) * scale,
            dt_r * ratio - term * ratio / (r + n),
        )
        new_sums = tuple(jnp.where(done, s, s + t) for s, t in zip(sums, new_terms))
        small = [jnp.abs(t) <= eps * jnp.abs(s) for t, s in zip(new_terms, new_sums)]
        return (
            n + 1.0,
            new_terms,
            new_sums,
            done | ((n > steady) & small[0] & small[1] & small[2] & small[3]),
        )

    def cond(carry):
        n, _, _, done = carry
        return (n < HYP2F1_TERMS) & ~jnp.all(done)

    ones, zeros = jnp.ones_like(w), jnp.zeros_like(w)
    start = (jnp.asarray(0.0, w.dtype), (ones, zeros, zeros, zeros), (ones, zeros, zeros, zeros))
    _, _, sums, done = lax.while_loop(cond, body, (*start, jnp.zeros(w.shape, bool)))
    return tuple(jnp.where(done, s, jnp.nan) for s in sums)


def _hyp2f1_grad(a: Any, b: Any, c: Any, z: Any, wrt: int) -> Any:
    wide = jnp.promote_types(a.dtype, dtypes.canonicalize_dtype(jnp.float64))
    a, b, c, z = (jnp.asarray(v, wide) for v in (a, b, c, z))
    pole = (c <= 0) & (c == jnp.floor(c))
    valid = ~pole & (z < 1) & ~jnp.isnan(a) & ~jnp.isnan(b)
    z_ = jnp.where(valid, z, 0.5)
    pfaff = z_ < 0  # F(a, b; c; z) = (1 - z)^-a F(a, c - b; c; z / (z - 1))
    q, w = jnp.where(pfaff, c - b, b), jnp.where(pfaff, z_ / (z_ - 1.0), z_)
    g, dg_p, dg_q, dg_r = _hyp2f1_series(a, q, c, w)
    log_base = jnp.log1p(-z_)
    scale = jnp.exp(-a * log_base)
    transformed = (scale * (dg_p - log_base * g), -scale * dg_q, scale * (dg_q + dg_r))[wrt]
    direct = (dg_p, dg_q, dg_r)[wrt]
    value = jnp.where(pfaff, transformed, direct)
    return jnp.where(valid, jnp.where(z == 0, 0.0, value), jnp.nan)


@jax_funcify.register(Hyp2F1Grad)
def jax_funcify_Hyp2F1Grad(op: Hyp2F1Grad, node: Apply | None = None, **kwargs: Any) -> Callable:
    def hyp2f1_grad(a, b, c, z):
        args = _broadcast(node, (a, b, c, z))
        return _hyp2f1_grad(*args, op.wrt).astype(args[0].dtype)

    return hyp2f1_grad
