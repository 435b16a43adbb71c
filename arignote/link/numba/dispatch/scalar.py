"""Scalar ops as expressions of native code, for the loops of elementwise kernels.

``scalar_expressions(op, args, in_dtypes, out_dtypes)`` returns, for each output of the scalar
op, a Python expression over the argument names ``args`` that numba compiles to a native
scalar computation. NumPy ufuncs numba implements are called as such (same loops, same
results); SciPy's and arignote's own functions have an entry in :data:`SCALAR_EXPRESSIONS`.
Every result is converted to the output dtype the op declares, so that dtypes match
``perform`` exactly.
"""

from __future__ import annotations

import math as _math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from arignote.link.numba.dispatch.basic import NotNative
from arignote.scalar import arithmetic, composite, logical, math, rounding, special
from arignote.scalar import complex as complex_ops
from arignote.scalar.basic import ScalarOp
from arignote.scalar.without_zeros import MulWithoutZeros
from numba.np import ufunc_db

#: NumPy ufuncs numba compiles natively (on scalars as on arrays).
NATIVE_UFUNCS = frozenset(ufunc_db.get_ufuncs())

#: dtypes numba cannot compute with as NumPy does.
UNSUPPORTED_DTYPES = frozenset({"float16", "complex64"})

Expression = Callable[[ScalarOp, Sequence[str], Sequence[str]], str]

#: Hand-written expressions by scalar op class: ``(op, args, in_dtypes) -> expression``.
SCALAR_EXPRESSIONS: dict[type, Expression] = {}

#: Native functions expressions may call, by their global name in the kernel (SciPy's).
SCALAR_FUNCTIONS: dict[str, Any] = {}


def kernel_namespace(lines: Sequence[str]) -> dict[str, Any]:
    """The globals a kernel with these lines needs: ``math`` and the functions it calls."""
    text = "\n".join(lines)
    used = {name: fn for name, fn in SCALAR_FUNCTIONS.items() if f"{name}(" in text}
    return {"math": _math, **used}


def expression(*classes: type) -> Callable[[Expression], Expression]:
    def register(fn: Expression) -> Expression:
        for cls in classes:
            SCALAR_EXPRESSIONS[cls] = fn
        return fn

    return register


def scalar_expressions(
    op: ScalarOp, args: Sequence[str], in_dtypes: Sequence[str], out_dtypes: Sequence[str]
) -> list[str]:
    """The expression of each output of ``op`` (see the module docstring)."""
    for dtype in (*in_dtypes, *out_dtypes):
        if dtype in UNSUPPORTED_DTYPES:
            raise NotNative(type(op).__name__, f"dtype {dtype} is not computed natively")
    if op.nout != 1:
        raise NotNative(type(op).__name__, "several outputs")
    return [f"{cast(out_dtypes[0])}({_expression(op, args, in_dtypes)})"]


def cast(dtype: str) -> str:
    """The name of the NumPy scalar constructor of ``dtype`` (``np.float64``...)."""
    return f"np.{np.dtype(dtype).name}"


def _expression(op: ScalarOp, args: Sequence[str], in_dtypes: Sequence[str]) -> str:
    for cls in type(op).__mro__:
        custom = SCALAR_EXPRESSIONS.get(cls)
        if custom is not None:
            return custom(op, args, in_dtypes)
    ufunc = op.nfunc
    if ufunc not in NATIVE_UFUNCS:
        raise NotNative(type(op).__name__, f"{getattr(ufunc, '__name__', ufunc)} is not native")
    call = f"np.{ufunc.__name__}"
    folded = f"{call}({args[0]}, {args[1]})" if len(args) > 1 else f"{call}({args[0]})"
    for arg in args[2:]:  # variadic ops fold left to right, as ``elementwise`` does
        folded = f"{call}({folded}, {arg})"
    return folded


def _float(dtype: str) -> str:
    """The float dtype ``np.exp`` gives for ``dtype`` (the dtype SciPy-like functions use)."""
    return np.exp.resolve_dtypes((np.dtype(dtype), None))[-1].name


# -- arithmetic ---------------------------------------------------------------------------------


@expression(arithmetic.Identity)
def _identity(op, args, dtypes):
    return args[0]


@expression(arithmetic.Second)
def _second(op, args, dtypes):
    return args[1]


@expression(arithmetic.Switch)
def _switch(op, args, dtypes):
    return f"({args[1]} if {args[0]} else {args[2]})"


@expression(arithmetic.Cast)
def _cast(op, args, dtypes):
    if dtypes[0].startswith("complex") and not op.o_type.dtype.startswith("complex"):
        return f"{args[0]}.real"  # astype keeps the real part
    return args[0]


@expression(MulWithoutZeros)
def _mul_without_zeros(op, args, dtypes):
    x, y = args
    return f"({y} if {x} == 0 else ({x} if {y} == 0 else {x} * {y}))"


@expression(arithmetic.Clip)
def _clip(op, args, dtypes):
    # NaN propagates through maximum/minimum as through np.clip
    return f"np.minimum(np.maximum({args[0]}, {args[1]}), {args[2]})"


# -- exponentials, logarithms and special functions --------------------------------------------


@expression(math.Sigmoid)
def _sigmoid(op, args, dtypes):
    one = f"np.{_float(dtypes[0])}(1)"
    return f"({one} / ({one} + np.exp(-{args[0]})))"


@expression(math.Softplus)
def _softplus(op, args, dtypes):
    x = f"np.{_float(dtypes[0])}({args[0]})"
    # max(x, 0) + log1p(exp(-|x|)): no overflow for large |x| (as elementwise computes it)
    return f"(np.maximum({x}, 0) + np.log1p(np.exp(-np.abs({x}))))"


@expression(math.Log1mexp)
def _log1mexp(op, args, dtypes):
    x = f"np.{_float(dtypes[0])}({args[0]})"
    # log(1 - e^x): log1p(-e^x) far from 0, log(-expm1(x)) near 0 (each where it is exact)
    return f"(np.log1p(-np.exp({x})) if {x} < -0.6931471805599453 else np.log(-np.expm1({x})))"


def _math_function(name: str) -> Expression:
    def build(op, args, dtypes):
        return f"math.{name}(np.float64({args[0]}))"

    return build


SCALAR_EXPRESSIONS[special.Erf] = _math_function("erf")
SCALAR_EXPRESSIONS[special.Erfc] = _math_function("erfc")
SCALAR_EXPRESSIONS[special.GammaLn] = _math_function("lgamma")
SCALAR_EXPRESSIONS[special.Gamma] = _math_function("gamma")


@expression(special.Logit)
def _logit(op, args, dtypes):
    x = f"np.{_float(dtypes[0])}({args[0]})"
    return f"np.log({x} / (1 - {x}))"


@expression(special.XLogY)
def _xlogy(op, args, dtypes):
    x, y = args
    return f"(0.0 if {x} == 0 and not np.isnan({y}) else {x} * np.log({y}))"


@expression(rounding.RoundHalfToEven)
def _round_half_even(op, args, dtypes):
    x, d = args[0], op.decimals
    if not dtypes[0].startswith("float"):
        if d < 0:
            raise NotNative("RoundHalfToEven", "integer rounding to tens is not written")
        return x  # np.round leaves integers as they are
    if d == 0:
        return f"np.rint({x})"
    # NumPy's own method: scale by 10^d, round half to even, scale back
    scale = f"{cast(dtypes[0])}({10.0 ** abs(d)!r})"
    if d > 0:
        return f"(np.rint({x} * {scale}) / {scale})"
    return f"(np.rint({x} / {scale}) * {scale})"


@expression(rounding.RoundHalfAwayFromZero)
def _round_half_away(op, args, dtypes):
    x = args[0]
    if not dtypes[0].startswith("float"):
        return x  # integers and booleans stay as they are
    # |x - trunc(x)| is exact in floating point (x + 0.5 is not): compare it with 1/2
    t = f"np.trunc({x})"
    return f"({t} + np.sign({x}) if np.abs({x} - {t}) >= 0.5 else {t})"


@expression(logical.IsClose)
def _isclose(op, args, dtypes):
    if any(d.startswith("complex") for d in dtypes):
        raise NotNative("IsClose", "complex operands are not compared natively")
    # as elementwise: b in its float type, the difference in the common type, the (weak)
    # tolerances in b's float type; infinities close only to themselves
    fb = np.result_type(np.dtype(dtypes[1]), 1.0)
    common = cast(np.result_type(np.dtype(dtypes[0]), fb))
    a, b = f"{common}({args[0]})", f"{cast(fb)}({args[1]})"
    bound = f"({cast(fb)}({op.atol!r}) + {cast(fb)}({op.rtol!r}) * np.abs({b}))"
    close = f"((np.abs({a} - {b}) <= {bound} and np.isfinite({b})) or {a} == {b})"
    if op.equal_nan:
        close = f"({close} or (np.isnan({a}) and np.isnan({b})))"
    return close


def _is_complex(dtype: str) -> bool:
    return dtype.startswith("complex")


@expression(complex_ops.Real)
def _real(op, args, dtypes):
    return f"{args[0]}.real" if _is_complex(dtypes[0]) else args[0]


@expression(complex_ops.Imag)
def _imag(op, args, dtypes):
    return f"{args[0]}.imag" if _is_complex(dtypes[0]) else "0"


@expression(complex_ops.Angle)
def _angle(op, args, dtypes):
    x = args[0]
    if _is_complex(dtypes[0]):
        return f"np.arctan2({x}.imag, {x}.real)"
    return f"np.arctan2(0.0, np.float64({x}))"  # pi for negative numbers (and -0.0)


@expression(complex_ops.Complex)
def _complex(op, args, dtypes):
    return f"complex(np.float64({args[0]}), np.float64({args[1]}))"


@expression(composite.Composite)
def _composite(op, args, dtypes):
    raise NotNative("Composite", "composites are expanded by the elemwise kernel")
