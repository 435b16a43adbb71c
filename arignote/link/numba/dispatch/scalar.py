"""Scalar ops as expressions of native code, for the loops of elementwise kernels.

``scalar_expressions(op, args, in_dtypes, out_dtypes)`` returns, for each output of the scalar
op, a Python expression over the argument names ``args`` that numba compiles to a native
scalar computation. The expression is the op's kernel in ``arignote.scalar.kernels`` (one
formula for every backend), translated for scalars: ``xp.NAME`` becomes NumPy's function
(numba compiles NumPy's ufuncs natively, with NumPy's loops), ``sp.NAME`` the float64 C entry
point of SciPy's function, or its complex128 one for complex arguments
(:mod:`arignote.link.numba.dispatch.scipy_special`), ``where`` an
``if`` expression and ``flt`` a float64 conversion of integers. Every result is converted to
the output dtype the op declares, so that dtypes match ``perform`` exactly.

:data:`OVERRIDES` holds the few ops numba computes with a formula of its own, each saying why.
"""

from __future__ import annotations

import ast
import math as _math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from arignote.link.numba.dispatch.basic import NotNative
from arignote.link.numba.dispatch.scipy_special import (
    COMPLEX_CALLS,
    COMPLEX_CALLS_REASON,
    complex_entry_point,
    entry_point,
)
from arignote.scalar import arithmetic, composite, logical, rounding, special
from arignote.scalar import basic as scalar_basic
from arignote.scalar import complex as complex_ops
from arignote.scalar.basic import ScalarOp
from arignote.scalar.kernels import NoKernel, formula_for
from numba.np import ufunc_db

#: NumPy ufuncs numba compiles natively (on scalars as on arrays).
NATIVE_UFUNCS = frozenset(ufunc_db.get_ufuncs())
#: NumPy functions other than ufuncs that numba compiles on scalars.
NATIVE_FUNCTIONS = frozenset({"round", "real", "imag"})

#: dtypes numba cannot compute with as NumPy does.
UNSUPPORTED_DTYPES = frozenset({"float16", "complex64"})

#: Scalar ops whose complex64 values are exact in any implementation: a part, the conjugate,
#: a pair of float32 parts. Every other op on complex64 values computes in complex128 and
#: rounds once (``scalar_expressions``): NumPy's single-precision loops (``npy_cexpf``, its
#: float32 products) round each step, so the two differ by a few float32 ulps at most, within
#: the float32 tolerance that is the contract for values.
EXACT_COMPLEX64 = (complex_ops.Real, complex_ops.Imag, complex_ops.Complex, scalar_basic.Conj)
#: Scalar ops whose complex64 values are computed in double precision and rounded once. SciPy
#: does exactly that (its ``F->F`` loops run the complex128 function and cast), so these are
#: SciPy's values bit for bit; for the angle, the result is the correctly rounded float32 value,
#: NumPy's own single-precision atan2 being up to about 3 ulps from it (measured on 10^6 random
#: points: within float32 tolerance, which is the contract for values).
WIDENED_COMPLEX64 = (
    complex_ops.Angle,
    special.Erf,
    special.Erfc,
    special.Erfcx,
    special.Gamma,
    special.Psi,
)

Expression = Callable[[ScalarOp, Sequence[str], Sequence[str]], str]

#: Numba's own expressions by scalar op class: ``(op, args, in_dtypes) -> expression``.
OVERRIDES: dict[type, Expression] = {}

#: Native functions expressions may call, by their global name in the kernel (SciPy's).
SCALAR_FUNCTIONS: dict[str, Any] = {}


def kernel_namespace(lines: Sequence[str]) -> dict[str, Any]:
    """The globals a kernel with these lines needs: ``math`` and the functions it calls."""
    text = "\n".join(lines)
    used = {name: fn for name, fn in SCALAR_FUNCTIONS.items() if f"{name}(" in text}
    return {"math": _math, **used}


def override(*classes: type) -> Callable[[Expression], Expression]:
    def register(fn: Expression) -> Expression:
        for cls in classes:
            OVERRIDES[cls] = fn
        return fn

    return register


def scalar_expressions(
    op: ScalarOp, args: Sequence[str], in_dtypes: Sequence[str], out_dtypes: Sequence[str]
) -> list[str]:
    """The expression of each output of ``op`` (see the module docstring)."""
    if "float16" in (*in_dtypes, *out_dtypes):
        raise NotNative(type(op).__name__, "dtype float16 is not computed natively")
    if op.nout != 1:
        raise NotNative(type(op).__name__, "several outputs")
    if "complex64" in in_dtypes and not isinstance(op, EXACT_COMPLEX64 + WIDENED_COMPLEX64):
        args, in_dtypes = _widened(args, in_dtypes)
    return [f"{cast(out_dtypes[0])}({_expression(op, args, in_dtypes)})"]


def _widened(args: Sequence[str], in_dtypes: Sequence[str]) -> tuple[list[str], list[str]]:
    """Single-precision arguments as double precision (complex64 to complex128, float32 to
    float64): the op then computes in double precision and its output cast rounds once."""
    wide = {"complex64": "complex128", "float32": "float64"}
    dtypes = [wide.get(d, d) for d in in_dtypes]
    converted = [a if d == w else f"{cast(w)}({a})" for a, d, w in zip(args, in_dtypes, dtypes)]
    return converted, dtypes


def cast(dtype: str) -> str:
    """The name of the NumPy scalar constructor of ``dtype`` (``np.float64``...)."""
    return f"np.{np.dtype(dtype).name}"


def _expression(op: ScalarOp, args: Sequence[str], in_dtypes: Sequence[str]) -> str:
    custom = OVERRIDES.get(type(op))
    if custom is not None:
        return custom(op, args, in_dtypes)
    try:
        formula = formula_for(op, in_dtypes)
    except NoKernel as why:
        raise NotNative(type(op).__name__, str(why)) from None
    return translate(formula, args, in_dtypes, type(op).__name__)


def translate(formula: str, args: Sequence[str], in_dtypes: Sequence[str], key: str) -> str:
    """``formula`` (the vocabulary of ``arignote.scalar.kernels``) as numba scalar code over
    ``args``; raises ``NotNative`` (under ``key``) for what numba does not compile."""
    tree = ast.parse(formula, mode="eval")
    body = _Translator(args, in_dtypes, key).visit(tree.body)
    return ast.unparse(ast.fix_missing_locations(body))


def _parsed(source: str) -> ast.expr:
    return ast.parse(source, mode="eval").body


def _np(name: str) -> ast.expr:
    return ast.Attribute(value=ast.Name("np", ast.Load()), attr=name, ctx=ast.Load())


class _Translator(ast.NodeTransformer):
    def __init__(self, args: Sequence[str], in_dtypes: Sequence[str], key: str) -> None:
        self.args, self.in_dtypes, self.key = args, in_dtypes, key

    def _position(self, node: ast.expr) -> int | None:
        if isinstance(node, ast.Name) and node.id[:1] == "x" and node.id[1:].isdigit():
            return int(node.id[1:])
        return None

    def visit_Name(self, node: ast.Name) -> ast.expr:
        position = self._position(node)
        if position is None:
            return node  # complex (a builtin numba compiles)
        return _parsed(f"({self.args[position]})")

    def visit_Attribute(self, node: ast.Attribute) -> ast.expr:
        if not (isinstance(node.value, ast.Name) and node.value.id == "xp"):
            return self.generic_visit(node)
        if getattr(np, node.attr, None) not in NATIVE_UFUNCS and node.attr not in NATIVE_FUNCTIONS:
            raise NotNative(self.key, f"np.{node.attr} is not native")
        return _np(node.attr)

    def visit_Call(self, node: ast.Call) -> ast.expr:
        func = node.func
        if isinstance(func, ast.Name) and func.id == "flt":
            return self._float(node.args[0])
        if isinstance(func, ast.Name) and func.id == "where":
            cond, then, other = (self.visit(a) for a in node.args)
            return ast.IfExp(test=cond, body=then, orelse=other)
        if isinstance(func, ast.Attribute) and getattr(func.value, "id", None) == "sp":
            return self._special(func.attr, [self.visit(a) for a in node.args])
        return self.generic_visit(node)

    def _float(self, arg: ast.expr) -> ast.expr:
        position = self._position(arg)
        value = self.visit(arg)
        if position is not None and np.dtype(self.in_dtypes[position]).kind in "fc":
            return value
        return ast.Call(func=_np("float64"), args=[value], keywords=[])

    def _special(self, name: str, args: list[ast.expr]) -> ast.expr:
        if any(np.dtype(d).kind == "c" for d in self.in_dtypes):
            return self._complex_special(name, args)
        found = entry_point(name, len(args))
        if found is None:
            raise NotNative(self.key, f"scipy.special.{name} has no float64 C entry point")
        return _call(f"scipy_{name}", found, "float64", args)

    def _complex_special(self, name: str, args: list[ast.expr]) -> ast.expr:
        # every argument as complex128, as SciPy's complex loops take them (complex64 too)
        if not COMPLEX_CALLS:
            raise NotNative(self.key, COMPLEX_CALLS_REASON)
        found = complex_entry_point(name, len(args))
        if found is None:
            raise NotNative(self.key, f"scipy.special.{name} has no complex128 C entry point")
        return _call(f"scipy_complex_{name}", found, "complex128", args)


def _call(global_name: str, function: Any, dtype: str, args: list[ast.expr]) -> ast.expr:
    """A call of SciPy's ``function`` (the kernel's global ``global_name``) on ``args``
    converted to ``dtype``, then Cython's skip_dispatch flag."""
    SCALAR_FUNCTIONS.setdefault(global_name, function)
    converted = [ast.Call(func=_np(dtype), args=[a], keywords=[]) for a in args]
    return ast.Call(
        func=ast.Name(global_name, ast.Load()), args=[*converted, ast.Constant(0)], keywords=[]
    )


# -- numba's own formulas -----------------------------------------------------------------------


@override(logical.IsClose)
def _isclose(op, args, dtypes):
    # numba types Python float literals as float64, where NumPy takes the tolerances as weak
    # scalars of b's float type: the constants are written in that type, the difference in the
    # common type (as elementwise computes it), so that float32 inputs compare as in NumPy
    if any(d.startswith("complex") for d in dtypes):
        raise NotNative("IsClose", "complex operands are not compared natively")
    fb = np.result_type(np.dtype(dtypes[1]), 1.0)
    common = cast(np.result_type(np.dtype(dtypes[0]), fb))
    a, b = f"{common}({args[0]})", f"{cast(fb)}({args[1]})"
    bound = f"({cast(fb)}({op.atol!r}) + {cast(fb)}({op.rtol!r}) * np.abs({b}))"
    close = f"((np.abs({a} - {b}) <= {bound} and np.isfinite({b})) or {a} == {b})"
    if op.equal_nan:
        close = f"({close} or (np.isnan({a}) and np.isnan({b})))"
    return close


@override(complex_ops.Angle)
def _angle(op, args, dtypes):
    if dtypes[0] != "complex64":
        return translate(formula_for(op, dtypes), args, dtypes, "Angle")
    # atan2 of the exact float64 parts, rounded once to float32 by the output cast (0.5 ulp
    # measured); NumPy's vectorised float32 atan2 is a few ulps off, within float32 tolerance
    z = f"np.complex128({args[0]})"
    return f"np.arctan2(np.imag({z}), np.real({z}))"


@override(arithmetic.Fmod)
def _fmod(op, args, dtypes):
    if not all(np.dtype(d).kind in "biu" for d in dtypes):
        return translate(formula_for(op, dtypes), args, dtypes, "Fmod")
    # numba's np.fmod of integers is Python's %, whose remainder takes the divisor's sign; C's
    # fmod (NumPy's) truncates the quotient, so the remainder takes the dividend's sign: the
    # floored remainder moved by one divisor where the two signs differ; x % 0 is 0 in NumPy
    a, b = (f"({arg})" for arg in args)
    floored = f"({a} % {b})"
    fixed = f"({floored} if {floored} == 0 or ({floored} < 0) == ({a} < 0) else {floored} - {b})"
    return f"(0 if {b} == 0 else {fixed})"


@override(rounding.RoundHalfToEven)
def _round_half_to_even(op, args, dtypes):
    d = op.decimals
    if dtypes[0] != "float32" or d == 0:
        return translate(formula_for(op, dtypes), args, dtypes, "RoundHalfToEven")
    # numba's np.round scales float32 numbers in float64, NumPy in float32 (2.675f rounds to
    # 2.68 there): NumPy's method with the scale written as a float32 constant
    scale = f"np.float32({10.0 ** abs(d)!r})"
    if d > 0:
        return f"(np.rint({args[0]} * {scale}) / {scale})"
    return f"(np.rint({args[0]} / {scale}) * {scale})"


@override(composite.Composite)
def _composite(op, args, dtypes):
    raise NotNative("Composite", "composites are expanded by the elemwise kernel")
