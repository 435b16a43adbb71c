"""The scalar-level kernel of every built-in scalar op class, written once for every backend.

A kernel is a Python expression (a *formula*) over the op's inputs ``x0, x1, ...`` that uses
only this small vocabulary, which each backend fills in its own way:

``xp.NAME(...)``
    NumPy's function ``NAME`` (a ufunc, or ``round``/``real``/``imag``/``angle``): ``numpy``
    in the Numba backend (on scalars, inside the loop), ``jax.numpy`` in the JAX backend (on
    whole arrays).
``sp.NAME(...)``
    SciPy's special function ``NAME``: the Numba backend calls the float64 C entry point of
    ``scipy.special.cython_special`` (SciPy's values exactly), the JAX backend the function of
    ``jax.scipy.special`` of that name.
``where(c, a, b)``
    ``a`` where ``c`` holds, else ``b`` (an ``if`` expression in Numba, ``jnp.where`` in JAX).
``flt(xK)``
    input ``K`` as a floating-point number (integers and booleans as float64, floats kept).
``complex(re, im)``
    the complex number ``re + i im`` (no ``inf * 1j`` NaNs).

Arithmetic operators, comparisons and Python number literals may appear too. Results are
converted to the node's output dtype by the backend, which follows :data:`DTYPE_RULES`: every
row of :data:`KERNELS` links to the rule of its class (``Kernel.rule``), and the two tables
cover the same classes (``tests/scalar/test_kernels.py``). A formula may depend on the op's
parameters and on the input dtypes: it is then a function ``(op, in_dtypes) -> str``, which
raises :class:`NoKernel` for inputs it does not cover (the backend then says why it cannot
compute the node natively).

A backend writes its own version of an op only where it needs another formula (a function its
library lacks, a typing rule of its own), with a comment saying why; everything else reads
this table. ``Composite`` has no row: its kernel is the kernels of its inner nodes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from arignote.scalar.dtype_rules import DTYPE_RULES, Rule

Formula = str | Callable[..., str]

#: The names a formula may use besides its inputs (see the module docstring).
VOCABULARY = ("xp", "sp", "where", "flt", "complex")


class NoKernel(Exception):
    """The kernel does not cover these inputs (or parameters); the message says why."""


@dataclass(frozen=True)
class Kernel:
    """One row of :data:`KERNELS`: the formula, how variadic calls fold, the dtype rule."""

    name: str  # the op class's qualified name
    formula: Formula
    #: For ops of any number of inputs: more than two fold the binary formula left to right.
    fold: bool = False

    @property
    def rule(self) -> Rule:
        """The output-dtype rule of the class (:data:`DTYPE_RULES`)."""
        return DTYPE_RULES[self.name]

    def text(self, op, in_dtypes: Sequence[str]) -> str:
        """The formula for ``op`` on inputs of ``in_dtypes`` (raises :class:`NoKernel`)."""
        if callable(self.formula):
            return self.formula(op, tuple(in_dtypes))
        return self.formula


def _is_complex(dtype: str) -> bool:
    return np.dtype(dtype).kind == "c"


# -- formulas that depend on dtypes or parameters ----------------------------------------------


def _cast(op, dtypes):
    # astype keeps the real part of a complex number converted to a real dtype
    to_real = _is_complex(dtypes[0]) and not _is_complex(op.o_type.dtype)
    return "xp.real(x0)" if to_real else "x0"


def _real(op, dtypes):
    return "xp.real(x0)" if _is_complex(dtypes[0]) else "x0"


def _imag(op, dtypes):
    return "xp.imag(x0)" if _is_complex(dtypes[0]) else "0"


def _angle(op, dtypes):
    if _is_complex(dtypes[0]):
        return "xp.arctan2(xp.imag(x0), xp.real(x0))"
    return "xp.arctan2(0.0, flt(x0))"  # pi for negative numbers and -0.0, as np.angle


def _round_half_to_even(op, dtypes):
    if np.dtype(dtypes[0]).kind in "biu" and op.decimals >= 0:
        return "x0"  # np.round leaves integers as they are
    return f"xp.round(x0, {op.decimals})"


def _round_half_away(op, dtypes):
    if np.dtype(dtypes[0]).kind != "f":
        return "x0"  # integers and booleans stay as they are
    # |x - trunc(x)| is exact in floating point (x + 0.5 is not): compare it with 1/2
    return "where(xp.absolute(x0 - xp.trunc(x0)) >= 0.5, xp.trunc(x0) + xp.sign(x0), xp.trunc(x0))"


def _isclose(op, dtypes):
    # np.isclose: b in its float dtype; infinities close only to themselves
    b = "flt(x1)"
    close = f"xp.absolute(x0 - {b}) <= {op.atol!r} + {op.rtol!r} * xp.absolute({b})"
    close = f"xp.logical_or(xp.logical_and({close}, xp.isfinite({b})), x0 == {b})"
    if op.equal_nan:
        close = f"xp.logical_or({close}, xp.logical_and(xp.isnan(x0), xp.isnan({b})))"
    return close


def _factorial(op, dtypes):
    if op.exact:
        raise NoKernel("factorial(exact=True) needs integers beyond float64 (a table of n!)")
    return "where(flt(x0) < 0, 0.0, sp.gamma(flt(x0) + 1.0))"  # n! = Gamma(n + 1), 0 below 0


def _series_and_fractions(op, dtypes):
    raise NoKernel(
        f"{type(op).__name__} sums a series or a continued fraction until it converges (a "
        "loop, not a formula): the backends compile its plain-Python function or write "
        "it over arrays"
    )


# x log(y) and x log(1 + y), 0 where x = 0 unless y is NaN: SciPy's own definitions, in
# SciPy's float dtypes (integers and booleans in float64)
_XLOGY = (
    "where(xp.logical_and(x0 == 0, xp.logical_not(xp.isnan(x1))), 0.0, flt(x0) * xp.{}(flt(x1)))"
)


# -- the table ---------------------------------------------------------------------------------


def _ufuncs(module: str, pairs: str) -> dict[str, Formula]:
    """Rows ``Class:ufunc`` computed by NumPy's ufunc of that name on their inputs."""
    rows = {}
    for pair in pairs.split():
        cls, ufunc = pair.split(":")
        nin = getattr(np, ufunc).nin
        rows[f"{module}.{cls}"] = f"xp.{ufunc}({', '.join(f'x{k}' for k in range(nin))})"
    return rows


def _special(module: str, pairs: str) -> dict[str, Formula]:
    """Rows ``Class:name/arity`` computed by SciPy's special function ``name``."""
    rows = {}
    for pair in pairs.split():
        cls, call = pair.split(":")
        name, arity = call.split("/")
        rows[f"{module}.{cls}"] = f"sp.{name}({', '.join(f'x{k}' for k in range(int(arity)))})"
    return rows


_FORMULAS: dict[str, Formula] = {
    **_ufuncs("arithmetic", "Add:add Mul:multiply Sub:subtract TrueDiv:true_divide"),
    **_ufuncs("arithmetic", "IntDiv:floor_divide Mod:remainder Neg:negative Abs:absolute"),
    **_ufuncs("arithmetic", "Sign:sign Maximum:maximum Minimum:minimum Fmax:fmax Fmin:fmin"),
    **_ufuncs("arithmetic", "Fmod:fmod CopySign:copysign LT:less GT:greater LE:less_equal"),
    **_ufuncs("arithmetic", "GE:greater_equal EQ:equal NEQ:not_equal AND:bitwise_and"),
    **_ufuncs("arithmetic", "OR:bitwise_or XOR:bitwise_xor Invert:invert Gcd:gcd Lcm:lcm"),
    **_ufuncs("arithmetic", "LeftShift:left_shift RightShift:right_shift"),
    # np.clip's order: the lower bound first, then the upper one (NaN propagates)
    "arithmetic.Clip": "xp.minimum(xp.maximum(x0, x1), x2)",
    "arithmetic.Switch": "where(x0, x1, x2)",
    "arithmetic.Second": "x1",  # broadcast to the shape of both inputs by the backend
    "arithmetic.Identity": "x0",
    "arithmetic.Cast": _cast,  # the backend converts to the target dtype
    "basic.Conj": "xp.conjugate(x0)",
    **_ufuncs("math", "Pow:power FloatPower:float_power Exp:exp Exp2:exp2 Expm1:expm1"),
    **_ufuncs("math", "Log:log Log2:log2 Log10:log10 Log1p:log1p Sqrt:sqrt Sqr:square"),
    **_ufuncs("math", "Cbrt:cbrt Reciprocal:reciprocal Sin:sin Cos:cos Tan:tan"),
    **_ufuncs("math", "ArcSin:arcsin ArcCos:arccos ArcTan:arctan ArcTan2:arctan2"),
    **_ufuncs("math", "Hypot:hypot Deg2Rad:deg2rad Rad2Deg:rad2deg Tanh:tanh Sinh:sinh"),
    **_ufuncs("math", "Cosh:cosh ArcSinh:arcsinh ArcCosh:arccosh ArcTanh:arctanh"),
    **_ufuncs("math", "LogAddExp:logaddexp LogAddExp2:logaddexp2"),
    # SciPy's expit is this formula (in the input's float dtype)
    "math.Sigmoid": "1.0 / (1.0 + xp.exp(-flt(x0)))",
    # log(1 + e^x) = max(x, 0) + log1p(e^-|x|): no overflow at either end
    "math.Softplus": "xp.maximum(flt(x0), 0.0) + xp.log1p(xp.exp(-xp.absolute(flt(x0))))",
    # log(1 - e^x): log1p(-e^x) far from 0, log(-expm1(x)) near 0 (Maechler's split at -ln 2)
    "math.Log1mexp": (
        "where(flt(x0) < -0.6931471805599453, xp.log1p(-xp.exp(flt(x0))), "
        "xp.log(-xp.expm1(flt(x0))))"
    ),
    **_ufuncs("logical", "LogicalAnd:logical_and LogicalOr:logical_or"),
    **_ufuncs("logical", "LogicalXor:logical_xor LogicalNot:logical_not IsNan:isnan"),
    **_ufuncs("logical", "IsInf:isinf IsFinite:isfinite SignBit:signbit"),
    "logical.IsClose": _isclose,
    **_ufuncs("rounding", "Floor:floor Ceil:ceil Trunc:trunc"),
    "rounding.RoundHalfToEven": _round_half_to_even,
    "rounding.RoundHalfAwayFromZero": _round_half_away,
    "complex.Real": _real,
    "complex.Imag": _imag,
    "complex.Angle": _angle,
    "complex.Complex": "complex(flt(x0), flt(x1))",
    **_special("special", "Erf:erf/1 Erfc:erfc/1 Erfcx:erfcx/1 Erfinv:erfinv/1"),
    **_special("special", "Erfcinv:erfcinv/1 Gamma:gamma/1 GammaLn:gammaln/1 Psi:psi/1"),
    **_special("special", "Polygamma:polygamma/2 GammaInc:gammainc/2 GammaIncC:gammaincc/2"),
    **_special("special", "Beta:beta/2 BetaLn:betaln/2 BetaInc:betainc/3 Poch:poch/2"),
    **_special("special", "I0:i0/1 I1:i1/1 Iv:iv/2 J0:j0/1 J1:j1/1 Jv:jv/2 Logit:logit/1"),
    "special.Factorial": _factorial,
    "special.GammaIncGrad": _series_and_fractions,
    "special.BetaIncGrad": _series_and_fractions,
    "special_more.Hyp2F1Grad": _series_and_fractions,
    "special.XLogY": _XLOGY.format("log"),
    "special.XLog1pY": _XLOGY.format("log1p"),
    **_special("special_more", "Kv:kv/2 Kve:kve/2 Kn:kn/2 Ive:ive/2 GammaIncInv:gammaincinv/2"),
    **_special("special_more", "GammaIncCInv:gammainccinv/2 BetaIncInv:betaincinv/3"),
    **_special("special_more", "Hyp2F1:hyp2f1/4 OwensT:owens_t/2"),
    # a zero factor is skipped: f(0, y) = y, f(x, 0) = x
    "without_zeros.MulWithoutZeros": "where(x0 == 0, x1, where(x1 == 0, x0, x0 * x1))",
}

_FOLDED = {"arithmetic.Add", "arithmetic.Mul"}

#: Qualified class name -> its kernel, for every built-in scalar op class but ``Composite``.
KERNELS: dict[str, Kernel] = {
    f"arignote.scalar.{name}": Kernel(f"arignote.scalar.{name}", formula, name in _FOLDED)
    for name, formula in _FORMULAS.items()
}


def kernel_for(op_class: type) -> Kernel | None:
    """The kernel of ``op_class`` (exactly that class: a subclass may compute otherwise)."""
    return KERNELS.get(f"{op_class.__module__}.{op_class.__qualname__}")


def formula_for(op, in_dtypes: Sequence[str]) -> str:
    """The formula computing ``op`` on inputs of ``in_dtypes`` over ``x0, x1, ...``, variadic
    calls folded; raises :class:`NoKernel` when the table has none for it."""
    kernel = kernel_for(type(op))
    if kernel is None:
        raise NoKernel(f"no kernel for {type(op).__name__} in arignote.scalar.kernels")
    text = kernel.text(op, in_dtypes)
    if not kernel.fold or len(in_dtypes) <= 2:
        return text
    folded = text
    for k in range(2, len(in_dtypes)):  # f(f(x0, x1), x2) ...
        folded = text.replace("x1", f"x{k}").replace("x0", f"({folded})")
    return folded


__all__ = ["KERNELS", "VOCABULARY", "Kernel", "NoKernel", "formula_for", "kernel_for"]
