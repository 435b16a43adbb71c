"""The output-dtype rule of every built-in scalar op class, written out (no probing of NumPy).

``ScalarOp.output_types`` looks the op's class up in :data:`DTYPE_RULES` and applies the rule
to the input dtypes; only ops outside the table (user-defined ones) fall back on asking the
NumPy ufunc. Backends read the same table, and ``tests/scalar/test_dtype_rules.py`` checks
every rule against NumPy's (and SciPy's) own resolution over every pair of dtypes, so the table
is the one authority and the test keeps it honest.

A rule maps the tuple of input dtype names to the output dtype name, or raises ``TypeError``
for inputs the computation refuses; a rule marked :func:`with_op` also takes the op, whose
parameters set the dtype (``Cast``'s target, ``factorial(exact=True)``): call rules through
:func:`apply_rule`. The rules are built from NumPy's promotion lattice
(``np.result_type`` of the inputs, the *common* dtype) and a few facts about the loops each
family of functions has:

- NumPy's floating functions (exp, sin...) compute integers in the smallest float holding them
  safely (int8 -> float16, int16 -> float32, int32/int64 -> float64).
- SciPy's special functions have float32 and float64 loops only (some also complex): float32
  inputs stay float32, anything else is computed in float64; a few (Bessel ``iv``, ``erfinv``)
  list their float32 loop first, so small integers and float16 go to float32.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Rule = Callable[[tuple[str, ...]], str]

_COMPLEX = ("complex64", "complex128")
_FLOAT = ("float16", "float32", "float64")
_REAL_OF = {"complex64": "float32", "complex128": "float64"}


def _kind(dtype: str) -> str:
    return np.dtype(dtype).kind  # b, i, u, f, c


def common(dtypes: tuple[str, ...]) -> str:
    """NumPy's promotion of the inputs (``np.result_type``)."""
    return np.result_type(*dtypes).name


def _refuse(dtypes: tuple[str, ...], kinds: str, what: str) -> None:
    if any(_kind(d) in kinds for d in dtypes):
        raise TypeError(f"not defined for {what} inputs (dtypes {', '.join(dtypes)})")


def _integer_common(dtypes: tuple[str, ...]) -> str:
    """The common dtype of integer/boolean inputs; refused when promotion leaves the integers
    (uint64 with a signed integer promotes to float64)."""
    _refuse(dtypes, "fc", "floating-point")
    result = common(dtypes)
    if _kind(result) == "f":
        raise TypeError(f"no integer dtype holds both {', '.join(dtypes)}")
    return result


def _at_least(dtype: str, floor: str) -> str:
    return np.promote_types(dtype, floor).name


# -- the rules -----------------------------------------------------------------------------------


def promote(dtypes):
    """The common dtype (add, mul, maximum, clip...)."""
    return common(dtypes)


def to_bool(dtypes):
    """A boolean (comparisons, logical ops, isnan...)."""
    return "bool"


def to_bool_real(dtypes):
    """A boolean, for real inputs only (signbit)."""
    _refuse(dtypes, "c", "complex")
    return "bool"


def numpy_float(dtypes):
    """NumPy's floating functions: each integer input counts as the smallest float holding it
    safely (int8 -> float16, int16 -> float32, wider -> float64), then the common dtype."""
    return common(tuple(_at_least(d, "float16") for d in dtypes))


def numpy_float_real(dtypes):
    """As :func:`numpy_float`, with no complex loop (cbrt, arctan2, hypot, logaddexp...)."""
    _refuse(dtypes, "c", "complex")
    return numpy_float(dtypes)


def true_divide(dtypes):
    """Division: integers divide in float64, floats and complex keep the common dtype."""
    result = common(dtypes)
    return result if _kind(result) in "fc" else "float64"


def float_power(dtypes):
    """``float_power``: at least float64 (complex128 for complex)."""
    return _at_least(common(dtypes), "float64")


def scipy_double(dtypes):
    """SciPy functions with float32/float64 loops: float32 stays, the rest goes to float64."""
    _refuse(dtypes, "c", "complex")
    return "float32" if all(d == "float32" for d in dtypes) else "float64"


def scipy_double_complex(dtypes):
    """As :func:`scipy_double`, with complex loops too (erf, gamma, psi, xlogy...)."""
    result = common(dtypes)
    if _kind(result) == "c":
        return result
    return scipy_double(dtypes)


def scipy_single_first(dtypes):
    """SciPy functions listing their float32 loop first: what casts safely to float32 is
    computed in float32 (bool, 8/16-bit integers, float16), the rest in float64."""
    _refuse(dtypes, "c", "complex")
    return "float32" if all(np.can_cast(d, "float32") for d in dtypes) else "float64"


_CODES = {"?": "bool", "l": "int64", "e": "float16", "f": "float32", "d": "float64"}
_CODES.update({"F": "complex64", "D": "complex128"})


def loops(signatures: str) -> Rule:
    """The rule of a ufunc with the loops ``signatures`` ("ff->f dd->d", in its order), as
    NumPy dispatches: a loop matching the input dtypes exactly, else the first loop that every
    input casts to safely; none: TypeError."""
    table = []
    for signature in signatures.split():
        ins, out = signature.split("->")
        table.append((tuple(_CODES[c] for c in ins), _CODES[out]))

    def rule(dtypes):
        for ins, out in table:
            if ins == tuple(dtypes):
                return out
        for ins, out in table:
            if all(np.can_cast(d, i, "safe") for d, i in zip(dtypes, ins, strict=True)):
                return out
        raise TypeError(f"no loop of {signatures!r} takes dtypes {', '.join(dtypes)}")

    rule.__doc__ = f"The loops {signatures}: an exact match, else the first safe one."
    return rule


def same(dtypes):
    """The input's dtype (identity-like)."""
    return dtypes[0]


def same_real(dtypes):
    """The input's dtype, real inputs only (floor, ceil, trunc, rounding)."""
    _refuse(dtypes, "c", "complex")
    return common(dtypes)


def same_not_bool(dtypes):
    """The common dtype, refused when it is boolean (negation, sign, subtraction)."""
    result = common(dtypes)
    if result == "bool":
        raise TypeError(f"not defined for boolean inputs (dtypes {', '.join(dtypes)})")
    return result


def numeric(dtypes):
    """The common dtype, booleans computed as int8 (square, reciprocal, conj, pow)."""
    result = common(dtypes)
    return "int8" if result == "bool" else result


def numeric_real(dtypes):
    """As :func:`numeric`, real inputs only (floor division, modulo, fmod)."""
    _refuse(dtypes, "c", "complex")
    return numeric(dtypes)


def bitwise(dtypes):
    """Integers and booleans only (and, or, xor, invert)."""
    return _integer_common(dtypes)


def integer_only(dtypes):
    """Integers only, booleans with at least one integer (gcd, lcm)."""
    result = _integer_common(dtypes)
    if result == "bool":
        raise TypeError(f"not defined for boolean inputs (dtypes {', '.join(dtypes)})")
    return result


def shift(dtypes):
    """Bit shifts: integers, booleans as int8."""
    result = _integer_common(dtypes)
    return "int8" if result == "bool" else result


def magnitude(dtypes):
    """``abs``: the real dtype of the same precision for complex, else the input's."""
    return _REAL_OF.get(dtypes[0], dtypes[0])


def real_part(dtypes):
    """``real``/``imag``: the real dtype of a complex input, the input's dtype otherwise."""
    return _REAL_OF.get(dtypes[0], dtypes[0])


def angle(dtypes):
    """``np.angle``: the real dtype of a complex input, else as NumPy's float functions."""
    if dtypes[0] == "bool":
        return "float64"  # np.angle computes booleans through its float64 path
    return _REAL_OF.get(dtypes[0]) or numpy_float(dtypes)


def select(dtypes):
    """``switch(cond, a, b)``: the common dtype of ``a`` and ``b`` (any condition works)."""
    return common(dtypes[1:])


def second(dtypes):
    """``second(x, y)``: the dtype of ``y``."""
    return dtypes[1]


def make_complex(dtypes):
    """``complex(re, im)``: complex64 for float32 parts and smaller, else complex128."""
    _refuse(dtypes, "c", "complex (it expects real parts)")
    return common((*dtypes, "complex64"))


def isclose(dtypes):
    """``np.isclose``: a boolean, for every numeric dtype."""
    return "bool"


# -- rules that depend on the op's parameters (called with the op too) -------------------------


def with_op(rule: Callable[[tuple[str, ...], object], str]) -> Callable:
    """Mark ``rule`` as taking the op as a second argument (its parameters set the dtype)."""
    rule.needs_op = True
    return rule


@with_op
def cast_target(dtypes, op):
    """``Cast``: the op's target dtype."""
    return op.o_type.dtype


@with_op
def round_half_to_even(dtypes, op):
    """``np.round(x, decimals)``: the input's dtype, booleans as float16 (refused with
    decimals other than 0)."""
    if dtypes[0] != "bool":
        return dtypes[0]
    if op.decimals != 0:
        raise TypeError("booleans are rounded to units only (NumPy refuses decimals)")
    return "float16"


def polygamma(dtypes):
    """``scipy.special.polygamma(n, x)``: real ``x`` only; a complex order ``n`` makes the
    result complex (complex64 with a complex64 ``n`` and a float32 ``x``), otherwise as
    :func:`scipy_double`."""
    n, x = dtypes
    _refuse((x,), "c", "complex")
    if _kind(n) != "c":
        return scipy_double(dtypes)
    return "complex64" if (n, x) == ("complex64", "float32") else "complex128"


@with_op
def factorial(dtypes, op):
    """``scipy.special.factorial``: float64 of integers and floats; int64 of integers only with
    ``exact=True``; booleans and complex numbers refused."""
    _refuse(dtypes, "bc", "boolean or complex")
    if op.exact:
        if any(_kind(d) == "f" for d in dtypes):
            raise TypeError(f"exact=True takes integers only (dtypes {', '.join(dtypes)})")
        return "int64"
    return "float64"


def apply_rule(rule: Callable, dtypes: tuple[str, ...], op: object) -> str:
    """The output dtype ``rule`` gives ``op`` on inputs of ``dtypes``."""
    return rule(dtypes, op) if getattr(rule, "needs_op", False) else rule(dtypes)


# -- the table: module.class -> rule ----------------------------------------------------------


def _rows(rule: Rule, module: str, names: str) -> dict[str, Rule]:
    return {f"arignote.scalar.{module}.{name}": rule for name in names.split()}


DTYPE_RULES: dict[str, Rule] = {
    **_rows(promote, "arithmetic", "Add Mul Maximum Minimum Fmax Fmin Clip"),
    **_rows(same_not_bool, "arithmetic", "Sub Neg Sign"),
    **_rows(true_divide, "arithmetic", "TrueDiv"),
    **_rows(numeric, "math", "Sqr Reciprocal Pow"),
    **_rows(numeric_real, "arithmetic", "IntDiv Mod Fmod"),
    **_rows(float_power, "math", "FloatPower"),
    **_rows(magnitude, "arithmetic", "Abs"),
    **_rows(numeric, "basic", "Conj"),
    **_rows(to_bool, "arithmetic", "LT GT LE GE EQ NEQ"),
    **_rows(to_bool, "logical", "LogicalAnd LogicalOr LogicalXor"),
    **_rows(to_bool, "logical", "LogicalNot IsNan IsInf IsFinite"),
    **_rows(to_bool_real, "logical", "SignBit"),
    **_rows(bitwise, "arithmetic", "AND OR XOR Invert"),
    **_rows(integer_only, "arithmetic", "Gcd Lcm"),
    **_rows(
        shift,
        "arithmetic",
        "LeftShift RightShift",
    ),
    **_rows(
        numpy_float,
        "math",
        "Exp Exp2 Expm1 Log Log2 Log10 Log1p Sqrt Sin Cos Tan ArcSin ArcCos ArcTan Tanh "
        "Sinh Cosh ArcSinh ArcCosh ArcTanh",
    ),
    **_rows(numpy_float_real, "math", "Cbrt Deg2Rad Rad2Deg ArcTan2 Hypot"),
    **_rows(numpy_float_real, "arithmetic", "CopySign"),
    **_rows(numpy_float_real, "math", "LogAddExp LogAddExp2"),
    **_rows(same_real, "rounding", "Floor Trunc Ceil RoundHalfAwayFromZero"),
    **_rows(real_part, "complex", "Real Imag"),
    **_rows(angle, "complex", "Angle"),
    **_rows(scipy_double, "math", "Sigmoid"),
    **_rows(scipy_double, "special", "GammaLn I0 I1 J0 J1 Logit"),
    **_rows(scipy_double, "special", "GammaInc GammaIncC GammaIncGrad Beta BetaLn"),
    **_rows(scipy_double, "special_more", "GammaIncInv GammaIncCInv Hyp2F1 Hyp2F1Grad"),
    **_rows(scipy_double_complex, "special", "Erf Erfc Erfcx Gamma Psi"),
    **_rows(loops("dd->d ff->f DD->D FF->F"), "special", "XLogY XLog1pY"),
    **_rows(scipy_single_first, "special", "Erfinv Erfcinv BetaInc BetaIncGrad Poch"),
    **_rows(scipy_single_first, "special_more", "BetaIncInv OwensT"),
    **_rows(loops("ff->f dd->d fF->F dD->D"), "special", "Iv Jv"),
    **_rows(loops("ff->f dd->d fF->F dD->D"), "special_more", "Kv Kve Ive"),
    **_rows(loops("ld->d ff->f dd->d"), "special_more", "Kn"),
    **_rows(select, "arithmetic", "Switch"),
    **_rows(second, "arithmetic", "Second"),
    **_rows(same, "arithmetic", "Identity"),
    **_rows(cast_target, "arithmetic", "Cast"),
    **_rows(make_complex, "complex", "Complex"),
    **_rows(numpy_float_real, "math", "Softplus Log1mexp"),
    **_rows(isclose, "logical", "IsClose"),
    **_rows(round_half_to_even, "rounding", "RoundHalfToEven"),
    **_rows(factorial, "special", "Factorial"),
    **_rows(polygamma, "special", "Polygamma"),
    **_rows(promote, "without_zeros", "MulWithoutZeros"),  # x * y's dtype
}


def rule_for(op_class: type) -> Rule | None:
    """The rule of ``op_class`` (exactly that class: a subclass may compute otherwise)."""
    return DTYPE_RULES.get(f"{op_class.__module__}.{op_class.__qualname__}")


__all__ = ["DTYPE_RULES", "apply_rule", "rule_for"]
