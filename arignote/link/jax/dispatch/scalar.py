"""JAX versions of the scalar ops (``arignote/scalar/``), applied elementwise to whole arrays.

Every scalar op's kernel is the formula of ``arignote.scalar.kernels`` (written once for every
backend), evaluated with ``xp`` = ``jax.numpy`` and ``sp`` = ``jax.scipy.special`` (SciPy's
names). The ops JAX computes with a formula of its own are registered below, each saying why;
those it cannot compute are listed as unsupported. Results are cast to the node's output dtype
by the caller (``Elemwise``), which follows the dtype rules of ``arignote.scalar.dtype_rules``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from math import factorial
from typing import Any

import numpy as np

import jax.numpy as jnp
import jax.scipy.special as jsp
from arignote.graph.basic import Apply, Constant
from arignote.graph.codegen import CodeBuilder
from arignote.link.jax.dispatch.basic import (
    UNSUPPORTED_COMPLEX,
    UnsupportedOpError,
    jax_funcify,
    qualified_name,
    register_unsupported,
    register_unsupported_complex,
)
from arignote.scalar.arithmetic import IntDiv
from arignote.scalar.basic import ScalarOp
from arignote.scalar.composite import Composite
from arignote.scalar.kernels import NoKernel, formula_for
from arignote.scalar.rounding import RoundHalfToEven
from arignote.scalar.special import (
    J0,
    J1,
    Erf,
    Erfc,
    Erfcinv,
    Erfcx,
    Erfinv,
    Factorial,
    Gamma,
    Iv,
    Jv,
    Polygamma,
    Psi,
)
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

_NOT_COMPLEX = "jax.scipy.special takes real arguments only"
# SciPy's complex loops (the only special functions whose dtype rule accepts complex inputs)
for _cls in (Erf, Erfc, Psi):
    register_unsupported_complex(
        _cls, "jax.scipy.special's erf, erfc and digamma take real arguments only (TypeError)"
    )
for _cls in (Erfcx, Gamma):
    register_unsupported_complex(
        _cls,
        "jax.scipy.special's complex erfcx and gamma are not SciPy's at large moduli, "
        "denormal arguments and non-finite parts (NaNs or infinities of other signs where "
        "SciPy gives finite values, zeros or signed infinities: measured on random points "
        "of every magnitude)",
    )


class _SciPyNames:
    """The ``sp`` of the kernel formulas: ``jax.scipy.special`` under SciPy's names."""

    def __getattr__(self, name: str) -> Callable:
        fn = getattr(jsp, _RENAMED.get(name, name))

        def special(*args):
            # integers and booleans in the default float dtype, as SciPy's float64 loops take
            # them (JAX would compute small integers in float32)
            return fn(*(_flt(a) for a in args))

        return special

    def has(self, name: str) -> bool:
        return hasattr(jsp, _RENAMED.get(name, name))


def _flt(x):
    # integers and booleans in the default float dtype (float64 where the graph enables it)
    x = jnp.asarray(x)
    return x if jnp.issubdtype(x.dtype, jnp.inexact) else x.astype(jnp.result_type(float))


def _complex(re, im):
    dtype = jnp.result_type(re, im, jnp.float32)
    return lax.complex(*jnp.broadcast_arrays(jnp.asarray(re, dtype), jnp.asarray(im, dtype)))


_SP = _SciPyNames()
_NAMESPACE = {"xp": jnp, "sp": _SP, "where": jnp.where, "flt": _flt, "complex": _complex}


def _missing(formula: str) -> str | None:
    """The first function of ``formula`` JAX lacks (None: it has them all)."""
    for space, name in re.findall(r"\b(xp|sp)\.(\w+)", formula):
        if not (hasattr(jnp, name) if space == "xp" else _SP.has(name)):
            return f"{'jax.numpy' if space == 'xp' else 'jax.scipy.special'}.{name}"
    return None


def _compiled(formula: str, nin: int) -> Callable:
    """``formula`` as a function of its ``nin`` inputs, its names bound to JAX's."""
    builder = CodeBuilder(f"<arignote jax kernel {formula[:40]}>")
    for name, value in _NAMESPACE.items():
        builder.namespace[name] = value
    builder.line(f"def kernel({', '.join(f'x{k}' for k in range(nin))}):", indent=0)
    builder.line(f"return {formula}")
    return builder.build("kernel").function


def _dtypes(op: ScalarOp, node: Apply | None) -> tuple[str, ...]:
    if node is not None:
        return tuple(i.type.dtype for i in node.inputs)
    return ("float64",) * max(op.nin, 1)


@jax_funcify.register(ScalarOp)
def jax_funcify_ScalarOp(op: ScalarOp, node: Apply | None = None, **kwargs: Any) -> Callable:
    dtypes = _dtypes(op, node)
    try:
        formula = formula_for(op, dtypes)
    except NoKernel as why:
        raise NotImplementedError(f"no JAX function for scalar op {op}: {why}") from None
    if "sp." in formula and any(np.dtype(d).kind == "c" for d in dtypes):
        reason = UNSUPPORTED_COMPLEX.get(qualified_name(type(op)), _NOT_COMPLEX)
        raise UnsupportedOpError(
            f"The JAX backend cannot run scalar op {op} on complex inputs "
            f"({', '.join(dtypes)}): {reason}"
        )
    missing = _missing(formula)
    if missing is not None:
        raise NotImplementedError(f"no JAX function for scalar op {op}: {missing} is missing")
    fn = _compiled(formula, len(dtypes))

    def kernel(*args):
        # a formula may ignore an input's shape (second(x, y) is y): broadcast as Elemwise does
        out = fn(*args)
        shape = jnp.broadcast_shapes(*(jnp.shape(a) for a in args))
        return out if jnp.shape(out) == shape else jnp.broadcast_to(out, shape)

    return kernel


# -- JAX's own formulas ------------------------------------------------------------------------


@jax_funcify.register(Erfcinv)
def jax_funcify_Erfcinv(op: Erfcinv, node: Apply | None = None, **kwargs: Any) -> Callable:
    # jax.scipy.special has no erfcinv: erfc(x) = 2 Phi(-x sqrt(2)), so erfcinv(y) is
    # -ndtri(y / 2) / sqrt(2)
    def erfcinv(y):
        return -jsp.ndtri(y / 2) / np.sqrt(2)

    return erfcinv


@jax_funcify.register(Erfinv)
def jax_funcify_Erfinv(op: Erfinv, node: Apply | None = None, **kwargs: Any) -> Callable:
    # jax's erfinv loses up to 1.6e-11 relative near |x| = 1 (4e-13 at 1 - 1e-6): one Newton
    # step on its value, on erfc(y) = 1 - |x| where |x| >= 1/2 (1 - |x| is exact there and
    # erfc keeps its relative accuracy), on erf(y) = |x| below
    def erfinv(x):
        y0 = jnp.abs(jsp.erfinv(x))
        far = jnp.abs(x) >= 0.5
        # the residual, in the direction of y: erf(y) - |x| = (1 - |x|) - erfc(y)
        residual = jnp.where(far, (1 - jnp.abs(x)) - jsp.erfc(y0), jsp.erf(y0) - jnp.abs(x))
        slope = 2 / np.sqrt(np.pi) * jnp.exp(-y0 * y0)
        y = jnp.where(jnp.isfinite(y0) & (slope > 0), y0 - residual / slope, y0)
        return jnp.copysign(y, x)  # erfinv is odd; NaN stays NaN

    return erfinv


@jax_funcify.register(Polygamma)
def jax_funcify_Polygamma(op: Polygamma, node: Apply | None = None, **kwargs: Any) -> Callable:
    # jax's polygamma takes integer orders only; a non-integer order gives NaN, as in SciPy
    def polygamma(n, x):
        n = jnp.asarray(n)
        order = jnp.floor(n).astype("int32") if jnp.issubdtype(n.dtype, jnp.floating) else n
        result = _polygamma_reflected(order, x, jsp.polygamma(order, x))
        result = _polygamma_limits(order, x, result)
        return jnp.where(order == n, result, jnp.nan) if order is not n else result

    return polygamma


def _cot_derivatives(count: int) -> list[np.ndarray]:
    """Coefficients (lowest degree first) of P_0 ... P_count with d^n/dx^n cot(pi x) =
    pi^n P_n(cot(pi x)): P_0(c) = c and P_(n+1)(c) = -(1 + c^2) P_n'(c), as cot' = -(1 + cot^2)."""
    polys = [np.polynomial.Polynomial([0.0, 1.0])]
    for _ in range(count):
        polys.append(-np.polynomial.Polynomial([1.0, 0.0, 1.0]) * polys[-1].deriv())
    return [p.coef for p in polys]


#: Orders n whose values at negative x come from the reflection formula (higher ones are
#: jax's own values there).
REFLECTED_ORDERS = 12
_COT_DERIVATIVES = _cot_derivatives(REFLECTED_ORDERS)


def _polygamma_reflected(order: Any, x: Any, result: Any) -> Any:
    """``result`` with the values at x < 0 replaced by the reflection formula (DLMF 5.15.6)
    psi^(n)(x) = (-1)^n psi^(n)(1 - x) - pi d^n/dx^n cot(pi x), for n <= REFLECTED_ORDERS.

    jax's polygamma is wrong below x = -3 or so (-0.0099 for polygamma(1, -100.5), SciPy
    9.8597). cot(pi x) is cos(pi r) / sin(pi r) for r = x - round(x) in [-1/2, 1/2], and
    cos(pi r) = sin(pi (1/2 - |r|)): both reductions are exact, so cot(pi x) is 0 at the
    half-integers, where the higher orders' polynomials then vanish as they should.
    """
    r = x - jnp.round(x)
    c = jnp.sin(jnp.pi * (0.5 - jnp.abs(r))) / jnp.sin(jnp.pi * r)
    mirrored = jsp.polygamma(order, 1 - x) * jnp.where(order % 2 == 0, 1, -1)
    for n, coef in enumerate(_COT_DERIVATIVES):
        value = mirrored - jnp.pi ** (n + 1) * jnp.polyval(coef[::-1].astype(c.dtype), c)
        result = jnp.where((order == n) & (x < 0), value, result)
    return result


def _polygamma_limits(order: Any, x: Any, result: Any) -> Any:
    """SciPy's values where jax's polygamma gives NaN for an order n >= 1: the limit 0 at
    +inf, and an infinity of sign (-1)^(n+1) at the poles x = 0, -1, -2, ... and at -inf
    (``(-1)^(n+1) n! zeta(n + 1, x)``, as cephes' zeta is infinite there)."""
    pole = (x <= 0) & (jnp.floor(x) == x)
    infinity = jnp.where(order % 2 == 1, jnp.inf, -jnp.inf)
    limit = jnp.where(x == jnp.inf, jnp.zeros_like(result), infinity.astype(result.dtype))
    return jnp.where((order >= 1) & ((x == jnp.inf) | pole), limit, result)


@jax_funcify.register(RoundHalfToEven)
def jax_funcify_RoundHalfToEven(op: RoundHalfToEven, node=None, **kwargs: Any) -> Callable:
    if node is None or op.decimals >= 0 or node.inputs[0].type.dtype[:3] not in ("int", "uin"):
        return jax_funcify_ScalarOp(op, node, **kwargs)
    step = 10 ** (-op.decimals)

    def round_half_to_even(x):
        # jnp.round refuses integers with negative decimals: to a multiple of 10**-decimals,
        # halves to even, computed in floats
        return (jnp.round(x / step) * step).astype(x.dtype)

    return round_half_to_even


# n! for n = 0..20, the integers int64 holds exactly.
_FACTORIALS = np.array([factorial(n) for n in range(21)], dtype=np.int64)


@jax_funcify.register(IntDiv)
def jax_funcify_IntDiv(op: IntDiv, node=None, **kwargs: Any) -> Callable:
    if node is None or any(np.dtype(i.type.dtype).kind == "f" for i in node.inputs):
        return jax_funcify_ScalarOp(op, node, **kwargs)

    # XLA's integer division by 0 gives -1 (or the all-ones pattern of an unsigned type);
    # NumPy's floor_divide gives 0 there
    def int_div(a, b):
        zero = b == 0
        return jnp.where(zero, 0, jnp.floor_divide(a, jnp.where(zero, 1, b)))

    return int_div


@jax_funcify.register(Factorial)
def jax_funcify_Factorial(op: Factorial, node=None, **kwargs: Any) -> Callable:
    if not op.exact:
        return jax_funcify_ScalarOp(op, node, **kwargs)

    # the kernel table has no exact factorial (integers beyond float64): JAX looks n! up
    def exact_factorial(n):
        table = jnp.asarray(_FACTORIALS)
        return jnp.where(n < 0, 0, table[jnp.clip(n, 0, 20)])

    return exact_factorial


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
