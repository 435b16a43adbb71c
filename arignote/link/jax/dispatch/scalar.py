"""JAX versions of the scalar ops (``arignote/scalar/``), applied elementwise to whole arrays.

Most scalar ops name the NumPy ufunc or SciPy function they compute (``nfunc``); the JAX
function of the same name in ``jax.numpy`` or ``jax.scipy.special`` computes the same thing.
The ops whose NumPy definition has no same-named JAX function are written out below. Results
are cast to the node's output dtype by the caller (``Elemwise``), which follows NumPy's rules.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import reduce
from math import factorial
from typing import Any

import numpy as np

import jax.numpy as jnp
import jax.scipy.special as jsp
from arignote.graph.basic import Apply, Constant
from arignote.link.jax.dispatch.basic import jax_funcify, register_unsupported
from arignote.scalar.arithmetic import Cast, Clip, Second
from arignote.scalar.basic import ScalarOp
from arignote.scalar.complex import Angle, Complex, Imag, Real
from arignote.scalar.composite import Composite
from arignote.scalar.logical import IsClose
from arignote.scalar.math import Log1mexp, Softplus
from arignote.scalar.rounding import RoundHalfAwayFromZero, RoundHalfToEven
from arignote.scalar.special import J0, J1, Erfcinv, Factorial, Iv, Jv, Polygamma, Psi
from jax import lax

# SciPy names that jax.scipy.special spells differently.
_RENAMED = {"psi": "digamma"}

register_unsupported(Iv, "jax.scipy.special has no modified Bessel function of real order")
register_unsupported(Jv, "jax.scipy.special has no Bessel function of real order")
_NO_BESSEL_J = (
    "jax.scipy.special.bessel_jn is inaccurate here (NaN at 0 and for float32 inputs), and "
    "JAX has no other Bessel function of the first kind"
)
register_unsupported(J0, _NO_BESSEL_J)
register_unsupported(J1, _NO_BESSEL_J)


def _by_name(nfunc: Any) -> Callable | None:
    name = getattr(nfunc, "__name__", None)
    if name is None:
        return None
    module = getattr(nfunc, "__module__", "") or ""
    name = _RENAMED.get(name, name)
    if "scipy" in module or (isinstance(nfunc, np.ufunc) and not hasattr(jnp, name)):
        return getattr(jsp, name, None)
    return getattr(jnp, name, None) or getattr(jsp, name, None)


@jax_funcify.register(ScalarOp)
def jax_funcify_ScalarOp(op: ScalarOp, node: Apply | None = None, **kwargs: Any) -> Callable:
    fn = _by_name(op.nfunc)
    if fn is None:
        raise NotImplementedError(f"no JAX function for scalar op {op} (nfunc {op.nfunc})")
    if op.nin != -1:
        return fn

    def variadic(*args):
        # ops of any number of inputs (add, mul...) fold their binary function left to right
        return reduce(fn, args) if len(args) > 2 else fn(*args)

    return variadic


@jax_funcify.register(Cast)
def jax_funcify_Cast(op: Cast, node: Apply | None = None, **kwargs: Any) -> Callable:
    dtype = np.dtype(op.o_type.dtype)

    def cast(x):
        return jnp.asarray(x).astype(dtype)

    return cast


@jax_funcify.register(Clip)
def jax_funcify_Clip(op: Clip, node: Apply | None = None, **kwargs: Any) -> Callable:
    def clip(x, low, high):
        return jnp.minimum(jnp.maximum(x, low), high)  # np.clip's order: max first, then min

    return clip


@jax_funcify.register(Second)
def jax_funcify_Second(op: Second, node: Apply | None = None, **kwargs: Any) -> Callable:
    def second(x, y):
        return jnp.broadcast_to(y, jnp.broadcast_shapes(jnp.shape(x), jnp.shape(y)))

    return second


_SIMPLE: dict[type, Callable] = {
    Real: jnp.real,
    Imag: jnp.imag,
    Angle: jnp.angle,
    Psi: jsp.digamma,
    Polygamma: lambda n, x: _polygamma(n, x),
    Complex: lambda re, im: lax.complex(*jnp.broadcast_arrays(*_common_float(re, im))),
    Softplus: lambda x: jnp.maximum(x, 0) + jnp.log1p(jnp.exp(-jnp.abs(x))),
    # log(1 - e^x): log(-expm1(x)) near 0, log1p(-e^x) far below (Maechler's split at -ln 2)
    Log1mexp: lambda x: jnp.where(x < -np.log(2), jnp.log1p(-jnp.exp(x)), jnp.log(-jnp.expm1(x))),
    # erfc(x) = 2 Phi(-x sqrt(2)), so erfcinv(y) = -ndtri(y / 2) / sqrt(2)
    Erfcinv: lambda y: -jsp.ndtri(y / 2) / np.sqrt(2),
}


def _polygamma(n, x):
    # jax takes integer orders only; a non-integer order gives NaN, as in SciPy
    n = jnp.asarray(n)
    order = jnp.floor(n).astype("int32") if jnp.issubdtype(n.dtype, jnp.floating) else n
    result = jsp.polygamma(order, x)
    return jnp.where(order == n, result, jnp.nan) if order is not n else result


def _common_float(re, im):
    dtype = jnp.result_type(re, im, jnp.float32)
    return jnp.asarray(re, dtype), jnp.asarray(im, dtype)


def _simple(op: ScalarOp, node: Apply | None = None, **kwargs: Any) -> Callable:
    return _SIMPLE[type(op)]


for _cls in _SIMPLE:
    jax_funcify.register(_cls)(_simple)


@jax_funcify.register(IsClose)
def jax_funcify_IsClose(op: IsClose, node: Apply | None = None, **kwargs: Any) -> Callable:
    rtol, atol, equal_nan = op.rtol, op.atol, op.equal_nan

    def isclose(a, b):
        b = jnp.asarray(b)
        b = b.astype(jnp.result_type(b, 1.0))
        close = jnp.abs(a - b) <= atol + rtol * jnp.abs(b)
        close = (close & jnp.isfinite(b)) | (a == b)  # equal infinities
        if equal_nan:
            close = close | (jnp.isnan(a) & jnp.isnan(b))
        return close

    return isclose


@jax_funcify.register(RoundHalfToEven)
def jax_funcify_RoundHalfToEven(op: RoundHalfToEven, node=None, **kwargs: Any) -> Callable:
    decimals = op.decimals

    def round_half_to_even(x):
        x = jnp.asarray(x)
        if decimals < 0 and jnp.issubdtype(x.dtype, jnp.integer):
            # to a multiple of 10**-decimals, halves to even (jnp.round refuses this for ints)
            step = 10 ** (-decimals)
            return (jnp.round(x / step) * step).astype(x.dtype)
        return jnp.round(x, decimals)

    return round_half_to_even


@jax_funcify.register(RoundHalfAwayFromZero)
def jax_funcify_RoundHalfAwayFromZero(op: Any, node=None, **kwargs: Any) -> Callable:
    def round_half_away_from_zero(x):
        if not jnp.issubdtype(jnp.asarray(x).dtype, jnp.floating):
            return x
        truncated = jnp.trunc(x)
        return jnp.where(jnp.abs(x - truncated) >= 0.5, truncated + jnp.sign(x), truncated)

    return round_half_away_from_zero


# n! for n = 0..20, the integers int64 holds exactly.
_FACTORIALS = np.array([factorial(n) for n in range(21)], dtype=np.int64)


@jax_funcify.register(Factorial)
def jax_funcify_Factorial(op: Factorial, node=None, **kwargs: Any) -> Callable:
    if op.exact:

        def exact_factorial(n):
            table = jnp.asarray(_FACTORIALS)
            return jnp.where(n < 0, 0, table[jnp.clip(n, 0, 20)])

        return exact_factorial

    def factorial_(n):
        return jnp.where(n < 0, 0.0, jsp.gamma(jnp.asarray(n, jnp.result_type(n, 1.0)) + 1))

    return factorial_


@jax_funcify.register(Composite)
def jax_funcify_Composite(op: Composite, node: Apply | None = None, **kwargs: Any) -> Callable:
    # The inner scalar graph, evaluated on whole arrays in topological order.
    steps = [(inner, jax_funcify(inner.op, node=inner)) for inner in op.nodes]
    constants = {
        v: np.asarray(v.data) for inner in op.nodes for v in inner.inputs if isinstance(v, Constant)
    }
    inputs, outputs = op.inputs, op.outputs

    def composite(*values):
        env = dict(constants)
        env.update(zip(inputs, values))
        for inner, fn in steps:
            result = fn(*[env[v] for v in inner.inputs])
            results = result if len(inner.outputs) > 1 else (result,)
            for out, value in zip(inner.outputs, results):
                env[out] = jnp.asarray(value).astype(out.type.dtype)
        values_out = tuple(env[o] for o in outputs)
        return values_out if len(outputs) > 1 else values_out[0]

    return composite
