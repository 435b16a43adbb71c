"""Generated dtype table of the elementwise vocabulary (arignote.tensor.math and the elementwise
functions of arignote.tensor.special) against NumPy/SciPy.

For every function and every combination of input dtypes (bool, all integers, all floats, both
complex dtypes), and for every binary and ternary function mixed with Python numbers (weak
scalars, NEP 50, including integers beyond an operand's range), the output dtype arignote
declares when it builds the graph must be the dtype NumPy/SciPy gives on the same operands, and
arignote must refuse (at build or run time) exactly what NumPy refuses. The implementation must
also produce the dtype it declares (no silent cast hides a wrong declaration). Known
deviations are data (``DEVIATIONS``), with reasons.
"""

from __future__ import annotations

import functools
import itertools
import warnings

import numpy as np
import pytest
import scipy.special as sp

import arignote.tensor as pt
import arignote.tensor.math as ptm
from arignote.graph.basic import Constant
from arignote.tensor.elemwise import Elemwise

ALL_DTYPES = [
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
]
# Ternary functions: every pair of dtypes around a third one from this shorter list.
TERNARY_DTYPES = ["bool", "int8", "uint8", "uint16", "int64", "uint64", "float16", "float32"]
PYTHON_NUMBERS = [True, 2, -1, 300, 2**40, 2.5, 1e300, 1j]


def _real_exp(x):
    """np.exp's dtypes, for real-only functions NumPy lacks (softplus, log1mexp)."""
    if np.asarray(x).dtype.kind == "c":
        raise TypeError("real inputs only")
    return np.exp(x)


def _complex(re, im):
    """NumPy has no complex(re, im): PyTensor's rule, the common dtype with complex64 (parts
    that float32 holds give complex64), Python numbers weak."""
    if any(np.asarray(v).dtype.kind == "c" for v in (re, im)):
        raise TypeError("real parts only")
    return np.empty(0, np.result_type(re, im, np.complex64))


# name -> the NumPy/SciPy function giving the reference dtype (and refusals)
REFERENCES = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "true_div": np.true_divide,
    "int_div": np.floor_divide,
    "mod": np.mod,
    "pow": np.power,
    "float_power": np.float_power,
    "neg": np.negative,
    "abs": np.abs,
    "sign": np.sign,
    "sqr": np.square,
    "sqrt": np.sqrt,
    "cbrt": np.cbrt,
    "reciprocal": np.reciprocal,
    "exp": np.exp,
    "exp2": np.exp2,
    "expm1": np.expm1,
    "log": np.log,
    "log2": np.log2,
    "log10": np.log10,
    "log1p": np.log1p,
    "sin": np.sin,
    "cos": np.cos,
    "tan": np.tan,
    "arcsin": np.arcsin,
    "arccos": np.arccos,
    "arctan": np.arctan,
    "arctan2": np.arctan2,
    "hypot": np.hypot,
    "deg2rad": np.deg2rad,
    "rad2deg": np.rad2deg,
    "sinh": np.sinh,
    "cosh": np.cosh,
    "tanh": np.tanh,
    "arcsinh": np.arcsinh,
    "arccosh": np.arccosh,
    "arctanh": np.arctanh,
    "floor": np.floor,
    "ceil": np.ceil,
    "trunc": np.trunc,
    "round_half_to_even": np.round,
    "round_half_away_from_zero": np.trunc,  # NumPy has no such rounding: trunc's dtypes
    "maximum": np.maximum,
    "minimum": np.minimum,
    "fmax": np.fmax,
    "fmin": np.fmin,
    "fmod": np.fmod,
    "copysign": np.copysign,
    "lt": np.less,
    "gt": np.greater,
    "le": np.less_equal,
    "ge": np.greater_equal,
    "eq": np.equal,
    "neq": np.not_equal,
    "and_": np.bitwise_and,
    "or_": np.bitwise_or,
    "xor": np.bitwise_xor,
    "invert": np.invert,
    "left_shift": np.left_shift,
    "right_shift": np.right_shift,
    "gcd": np.gcd,
    "lcm": np.lcm,
    "logical_and": np.logical_and,
    "logical_or": np.logical_or,
    "logical_xor": np.logical_xor,
    "logical_not": np.logical_not,
    "isnan": np.isnan,
    "isinf": np.isinf,
    "isfinite": np.isfinite,
    "signbit": np.signbit,
    "switch": np.where,
    "real": np.real,
    "imag": np.imag,
    "conj": np.conj,
    "angle": np.angle,
    "complex": _complex,
    "sigmoid": sp.expit,
    "softplus": _real_exp,  # NumPy and SciPy have no softplus: np.exp's dtypes
    "log1mexp": _real_exp,
    "logaddexp": np.logaddexp,
    "logaddexp2": np.logaddexp2,
    "erf": sp.erf,
    "erfc": sp.erfc,
    "erfcx": sp.erfcx,
    "erfinv": sp.erfinv,
    "erfcinv": sp.erfcinv,
    "gamma": sp.gamma,
    "gammaln": sp.gammaln,
    "psi": sp.psi,
    "polygamma": sp.polygamma,
    "gammainc": sp.gammainc,
    "gammaincc": sp.gammaincc,
    "betainc": sp.betainc,
    "i0": sp.i0,
    "i1": sp.i1,
    "iv": sp.iv,
    "j0": sp.j0,
    "j1": sp.j1,
    "jv": sp.jv,
    "xlogy": sp.xlogy,
    "xlog1py": sp.xlog1py,
    "second": lambda x, y: np.broadcast_arrays(x, y)[1],  # fill: y's values in x's shape
    "logit": sp.logit,
    "beta": sp.beta,
    "betaln": sp.betaln,
    "poch": sp.poch,
}
# Functions that are not Elemwise instances: (arignote function, reference, number of inputs)
FUNCTIONS = {
    "clip": (pt.clip, np.clip, 3),
    "isclose": (pt.isclose, np.isclose, 2),
    "allclose": (pt.allclose, np.allclose, 2),
    "round": (pt.round, np.round, 1),
    "factorial": (pt.factorial, sp.factorial, 1),
}
# Elemwise names without a NumPy counterpart to compare with.
NOT_COMPARED = {
    "identity": "an internal copy op; np.positive, its nearest NumPy function, refuses bool",
}
# Elemwise names not compared with Python numbers.
PYTHON_NUMBERS_NOT_COMPARED = {
    "second": "fill(x, number) types the number from x (NEP 50, as np.full_like keeps x's "
    "kind); NumPy has no fill to compare with",
    "complex": "NumPy has no complex(re, im); a number is typed from the other part (NEP 50), "
    "then the rule above applies",
}
_UNSIGNED = ("uint8", "uint16", "uint32", "uint64")
_WHERE_WRAPS = (
    "np.where casts an out-of-range Python integer unsafely (300 becomes 44 in int8, -1 "
    "becomes 255 in uint8); arignote raises OverflowError, as NumPy's ufuncs do"
)
# (name, dtypes it concerns (None: all), Python number, why arignote differs)
DEVIATIONS = [
    ("switch", None, 300, _WHERE_WRAPS),
    ("switch", None, 2**40, _WHERE_WRAPS),
    ("switch", _UNSIGNED, -1, _WHERE_WRAPS),
]


def _deviation(name, dtype, number):
    for n, dtypes, value, reason in DEVIATIONS:
        if n == name and (dtypes is None or dtype in dtypes) and value is number:
            return reason
    return None


def _canonical_ops():
    """One (name, Elemwise) per distinct op: aliases (subtract, multiply...) are the same."""
    seen, result = set(), []
    for name in sorted(REFERENCES):
        op = getattr(pt, name)
        if id(op) not in seen:
            seen.add(id(op))
            result.append(name)
    return result


def _numpy_outcome(ref, operands):
    """NumPy's output dtype name, or "error" when NumPy refuses the operands."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            result = ref(*operands)
    except (TypeError, ValueError, OverflowError):
        return "error"
    return np.asarray(result).dtype.name


def _arignote_outcome(build, operands):
    """Declared output dtype, or "error" when building or computing refuses the operands.

    Computing runs the op's own implementation on the operands (Python numbers replaced by
    the constants the graph holds), so a dtype that differs from the declared one shows up.
    """
    inputs = [
        o if isinstance(o, (bool, int, float, complex)) else pt.vector(dtype=o.dtype)
        for o in operands
    ]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = build(*inputs)
    except (TypeError, ValueError, OverflowError):
        return "error"
    node = out.owner
    if not isinstance(node.op, Elemwise):
        return out.type.dtype  # a graph of several nodes (allclose): its output dtype
    values = []
    for var in node.inputs:
        while var.owner is not None:  # through the DimShuffles that pad Python numbers
            var = var.owner.inputs[0]
        values.append(var.data if isinstance(var, Constant) else None)
    arrays = iter(o for o in operands if not isinstance(o, (bool, int, float, complex)))
    values = [v if v is not None else next(arrays) for v in values]
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            computed = np.asarray(node.op.scalar_op.elementwise(*values))
    except (TypeError, ValueError, OverflowError):
        return "error"
    assert computed.dtype.name == out.type.dtype, (
        f"declares {out.type.dtype} but computes {computed.dtype}"
    )
    return out.type.dtype


def _nin(name):
    if name in FUNCTIONS:
        return FUNCTIONS[name][2]
    nin = getattr(pt, name).scalar_op.nin
    return 2 if nin == -1 else nin


def _build_and_ref(name):
    if name in FUNCTIONS:
        return FUNCTIONS[name][0], FUNCTIONS[name][1]
    return getattr(pt, name), REFERENCES[name]


def test_every_elementwise_function_is_in_the_table():
    """A new elementwise function must be added to the table (or say why it cannot be)."""
    exported = {n for n in ptm.__all__ if isinstance(getattr(ptm, n), Elemwise)}
    exported |= {n for n in pt.special.__all__ if isinstance(getattr(pt.special, n), Elemwise)}
    covered = {n for n in exported if any(getattr(pt, n) is getattr(pt, r) for r in REFERENCES)}
    assert exported - covered - set(NOT_COMPARED) == set()


def _dtype_combinations(nin):
    if nin <= 2:
        return list(itertools.product(ALL_DTYPES, repeat=nin))
    return list(itertools.product(TERNARY_DTYPES, repeat=nin))


@pytest.mark.parametrize("name", _canonical_ops() + sorted(FUNCTIONS))
def test_output_dtypes_match_numpy_for_every_input_dtype(name):
    build, ref = _build_and_ref(name)
    mismatches = []
    for dtypes in _dtype_combinations(_nin(name)):
        operands = [np.ones(2, dtype) for dtype in dtypes]
        expected = _numpy_outcome(ref, operands)
        got = _arignote_outcome(build, operands)
        if got != expected:
            mismatches.append(f"{dtypes}: NumPy {expected}, arignote {got}")
    assert mismatches == []


@pytest.mark.parametrize(
    "name",
    [
        n
        for n in _canonical_ops() + sorted(FUNCTIONS)
        if _nin(n) >= 2 and n not in PYTHON_NUMBERS_NOT_COMPARED
    ],
)
def test_python_numbers_are_typed_like_numpy(name):
    """Every dtype next to Python numbers in every position (NEP 50 weak scalars)."""
    build, ref = _build_and_ref(name)
    nin = _nin(name)
    mismatches = []
    for dtype, number, position in itertools.product(ALL_DTYPES, PYTHON_NUMBERS, range(nin)):
        if _deviation(name, dtype, number):
            continue
        operands = [np.ones(2, dtype) for _ in range(nin)]
        operands[position] = number
        expected = _numpy_outcome(ref, operands)
        got = _arignote_outcome(build, operands)
        if got != expected:
            mismatches.append(
                f"{dtype} with {number!r} at {position}: NumPy {expected}, ours {got}"
            )
    assert mismatches == []


@pytest.mark.parametrize(("name", "dtypes", "number", "reason"), DEVIATIONS)
def test_deviations_are_real(name, dtypes, number, reason):
    """Each listed deviation still exists (else it must leave the list)."""
    build, ref = _build_and_ref(name)
    operands = [np.ones(2, (dtypes or ("int8",))[0]) for _ in range(_nin(name))]
    operands[-1] = number
    assert _numpy_outcome(ref, operands) != _arignote_outcome(build, operands), reason


# -- edge values: NaN, infinities, zeros, out-of-domain and huge arguments ------------------------

EDGE_FLOATS = np.array(
    [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 1e300, -1e-310, 710.0, -750.0]
)
EDGE_INTS = np.array([0, 1, -1, 2, -7, 100, 127, -128])
EDGE_DTYPES = ["float64", "float32", "int8", "uint8", "int64", "complex128"]


def _edge_operands(dtype, nin):
    """Every combination of edge values (an outer product for several inputs)."""
    base = EDGE_FLOATS if dtype[0] in "fc" else EDGE_INTS
    with np.errstate(all="ignore"):
        grids = [g.ravel().astype(dtype) for g in np.meshgrid(*[base] * nin, indexing="ij")]
        if dtype.startswith("complex"):
            grids = [g + 1j * g[::-1] for g in grids]
    return grids


def _outcome(fn, operands):
    """(value or error type, the set of warning messages) of ``fn(*operands)``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = np.asarray(fn(*operands))
        except (TypeError, ValueError, OverflowError, ZeroDivisionError) as err:
            value = type(err).__name__
    return value, {str(w.message) for w in caught}


@pytest.mark.parametrize("name", [n for n in _canonical_ops() if n not in ("second",)])
def test_edge_values_and_warnings_match_numpy(name):
    """Values (signs of zeros and NaN included) and the warnings NumPy gives (never errors)."""
    op, ref = getattr(pt, name), REFERENCES[name]
    nin = _nin(name)
    for dtype in EDGE_DTYPES:
        operands = _edge_operands(dtype, nin)
        expected, expected_warnings = _outcome(ref, operands)
        if isinstance(expected, str):
            continue  # NumPy refuses the dtype: the dtype table checks that arignote does too
        node = op(*[pt.vector(dtype=dtype) for _ in range(nin)]).owner
        got, got_warnings = _outcome(functools.partial(_perform, node), operands)
        if name in VALUES_WITHOUT_NUMPY_FUNCTION:
            with np.errstate(all="ignore"):
                expected = np.asarray(VALUES_WITHOUT_NUMPY_FUNCTION[name](*operands))
            assert not got_warnings, f"{dtype}: {got_warnings}"  # the careful formulas warn not
            # computed in the output's precision (float16 for int8 inputs, as np.exp)
            info = np.finfo(got.dtype if got.dtype.kind in "fc" else "float64")
            np.testing.assert_allclose(
                got, expected, rtol=4 * info.eps, atol=info.tiny, equal_nan=True, err_msg=dtype
            )
            continue
        assert got_warnings == expected_warnings, dtype
        assert got.dtype == expected.dtype, dtype
        np.testing.assert_array_equal(got, expected, err_msg=dtype)
        if got.dtype.kind == "f":
            np.testing.assert_array_equal(np.signbit(got), np.signbit(expected), err_msg=dtype)


def _half_away_from_zero(x):
    if x.dtype.kind != "f":
        return x
    return np.where(np.isfinite(x), np.sign(x) * np.floor(np.abs(x) + 0.5), x)


# The functions NumPy lacks, by their definitions (values only: dtypes are in the table above).
VALUES_WITHOUT_NUMPY_FUNCTION = {
    "softplus": lambda x: np.logaddexp(0.0, x),
    "log1mexp": lambda x: np.where(x < -1, np.log1p(-np.exp(x)), np.log(-np.expm1(x))),
    "round_half_away_from_zero": _half_away_from_zero,
    "complex": lambda re, im: _parts(re, im),
}


def _parts(re, im):
    out = np.zeros(re.shape, np.result_type(re, im, np.complex64))
    out.real, out.imag = re, im
    return out


def _perform(node, *values):
    cells = [[None] for _ in node.outputs]
    node.op.perform(node, list(values), cells)
    return cells[0][0]
