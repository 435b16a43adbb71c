"""Hand-written checks of the elementwise vocabulary (arignote.tensor.math): names, edge values,
dtype promotion, argument errors, rounding rules, gradients that the op database cannot see."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import scipy.special as sp

import arignote
import arignote.tensor as pt
from arignote.gradient import Rop, grad
from arignote.graph.grad_types import NullTypeGradError
from arignote.testing import verify_grad


def _eval(outputs, inputs=(), values=()):
    return arignote.function(list(inputs), outputs, on_unused_input="ignore")(*values)


# -- the public vocabulary -------------------------------------------------------------------------

# A word list reads better than 140 quoted names.
ELEMWISE_NAMES = """
add sub subtract mul multiply true_div true_divide divide int_div floor_divide mod remainder pow
power neg negative abs absolute sign sgn sqr square sqrt cbrt reciprocal exp exp2 expm1 log log2
log10 log1p sin cos tan arcsin arccos arctan arctan2 hypot deg2rad rad2deg sinh cosh tanh arcsinh
arccosh arctanh floor ceil trunc round round_half_to_even round_half_away_from_zero clip maximum
minimum switch where lt gt le ge eq neq less greater less_equal greater_equal equal not_equal and_
or_ xor invert bitwise_and bitwise_or bitwise_xor bitwise_not bitwise_invert left_shift right_shift
logical_and logical_or logical_xor logical_not isnan isinf isfinite isclose allclose real imag conj
conjugate angle complex sigmoid expit softplus log1pexp log1mexp logaddexp logaddexp2 erf erfc
erfcx erfinv erfcinv gamma gammaln psi digamma polygamma gammainc gammaincc betainc i0 i1 iv j0 j1
jv xlogy xlog1py cast astype acos asin atan atan2 acosh asinh atanh fmax fmin fmod divmod copysign
gcd lcm signbit float_power
""".split()  # noqa: SIM905

SPECIAL_NAMES = ["softmax", "log_softmax", "logit", "logsumexp", "beta", "betaln"]
SPECIAL_NAMES += ["factorial", "poch"]

ALIASES = [
    ("subtract", "sub"),
    ("multiply", "mul"),
    ("divide", "true_div"),
    ("true_divide", "true_div"),
    ("floor_divide", "int_div"),
    ("remainder", "mod"),
    ("power", "pow"),
    ("negative", "neg"),
    ("absolute", "abs"),
    ("sgn", "sign"),
    ("square", "sqr"),
    ("not_equal", "neq"),
    ("equal", "eq"),
    ("less", "lt"),
    ("bitwise_not", "invert"),
    ("bitwise_invert", "invert"),
    ("conjugate", "conj"),
    ("expit", "sigmoid"),
    ("log1pexp", "softplus"),
    ("digamma", "psi"),
    ("atan2", "arctan2"),
]


@pytest.mark.parametrize("name", ELEMWISE_NAMES + SPECIAL_NAMES)
def test_public_name_exists(name):
    assert callable(getattr(pt, name)), f"arignote.tensor.{name} is missing"


@pytest.mark.parametrize("name", SPECIAL_NAMES)
def test_special_module_names(name):
    assert getattr(pt.special, name) is getattr(pt, name)


@pytest.mark.parametrize(("alias", "name"), ALIASES)
def test_aliases_are_the_same_op(alias, name):
    assert getattr(pt, alias) is getattr(pt, name)


# -- NaN, infinities, empty arrays -----------------------------------------------------------------

EDGE_VALUES = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, 1e300, -1e-300])

UNARY_REFERENCES = [
    (pt.exp, np.exp),
    (pt.log, np.log),
    (pt.sqrt, np.sqrt),
    (pt.tanh, np.tanh),
    (pt.arcsin, np.arcsin),
    (pt.arccosh, np.arccosh),
    (pt.floor, np.floor),
    (pt.trunc, np.trunc),
    (pt.round, np.round),
    (pt.sign, np.sign),
    (pt.sigmoid, sp.expit),
    (pt.softplus, lambda x: np.logaddexp(0.0, x)),
    # log(1 - e^x) tends to 0 from below as x -> -inf: -0.0, which log1p(-e^x) gives
    (pt.log1mexp, lambda x: np.where(x < -1, np.log1p(-np.exp(x)), np.log(-np.expm1(x)))),
    (pt.erf, sp.erf),
    (pt.erfinv, sp.erfinv),
    (pt.gammaln, sp.gammaln),
    (pt.psi, sp.psi),
    (pt.i0, sp.i0),
    (pt.j1, sp.j1),
    (pt.isnan, np.isnan),
    (pt.isinf, np.isinf),
    (pt.isfinite, np.isfinite),
    (pt.angle, np.angle),
]


@pytest.mark.parametrize(("fn", "ref"), UNARY_REFERENCES, ids=lambda f: getattr(f, "name", "ref"))
def test_unary_edge_values(fn, ref):
    x = pt.vector("x")
    with np.errstate(all="ignore"):
        expected = ref(EDGE_VALUES)
        (actual,) = _eval([fn(x)], [x], [EDGE_VALUES])
    np.testing.assert_allclose(actual, expected, rtol=1e-12, equal_nan=True)
    np.testing.assert_array_equal(np.signbit(actual), np.signbit(expected))


@pytest.mark.parametrize(
    ("fn", "ref"),
    [
        (pt.add, np.add),
        (pt.true_div, np.true_divide),
        (pt.mod, np.mod),
        (pt.pow, np.power),
        (pt.arctan2, np.arctan2),
        (pt.maximum, np.maximum),
        (pt.logaddexp, np.logaddexp),
        (pt.xlogy, sp.xlogy),
        (pt.hypot, np.hypot),
    ],
    ids=lambda f: getattr(f, "name", "ref"),
)
def test_binary_edge_values(fn, ref):
    x, y = pt.vector("x"), pt.vector("y")
    a = np.repeat(EDGE_VALUES, EDGE_VALUES.size)
    b = np.tile(EDGE_VALUES, EDGE_VALUES.size)
    with np.errstate(all="ignore"):
        expected = ref(a, b)
        (actual,) = _eval([fn(x, y)], [x, y], [a, b])
    np.testing.assert_allclose(actual, expected, rtol=1e-12, equal_nan=True)


@pytest.mark.parametrize(
    "fn",
    [
        pt.exp,
        pt.sqrt,
        pt.floor,
        pt.round,
        pt.isnan,
        pt.sigmoid,
        pt.erf,
        pt.real,
        lambda x: pt.clip(x, 0, 1),
        lambda x: pt.isclose(x, 0.5),
        lambda x: pt.switch(x > 0, x, 1),
    ],
)
def test_empty_arrays(fn):
    x = pt.matrix("x")
    out = fn(x)
    (value,) = _eval([out], [x], [np.zeros((0, 3))])
    assert value.shape == (0, 3)
    assert value.dtype == out.type.dtype


def test_empty_allclose_is_true():
    x = pt.vector("x")
    assert bool(_eval([pt.allclose(x, x + 1)], [x], [np.zeros(0)])[0])


# -- dtype promotion (NumPy 2 rules) ---------------------------------------------------------------

DTYPES = ["bool", "int8", "uint8", "int32", "int64", "float16", "float32", "float64", "complex64"]
PROMOTING = [pt.add, pt.mul, pt.true_div, pt.maximum, pt.arctan2, pt.logaddexp, pt.hypot]
NUMPY_FOR = {
    pt.add: np.add,
    pt.mul: np.multiply,
    pt.true_div: np.true_divide,
    pt.maximum: np.maximum,
    pt.arctan2: np.arctan2,
    pt.logaddexp: np.logaddexp,
    pt.hypot: np.hypot,
}


def _numpy_dtype(ufunc, *operands):
    """The dtype NumPy gives, or None where NumPy refuses these operands."""
    try:
        with np.errstate(all="ignore"):
            return np.asarray(ufunc(*operands)).dtype.name
    except TypeError:
        return None


@pytest.mark.parametrize("fn", PROMOTING, ids=lambda f: f.name)
@pytest.mark.parametrize("left", DTYPES)
def test_dtype_promotion_matches_numpy(fn, left):
    for right in DTYPES:
        expected = _numpy_dtype(NUMPY_FOR[fn], np.ones(2, left), np.ones(2, right))
        x, y = pt.vector(dtype=left), pt.vector(dtype=right)
        if expected is None:
            with pytest.raises(TypeError, match=left):
                fn(x, y)
            continue
        assert fn(x, y).type.dtype == expected, (left, right)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("number", [2, 2.5, True, 1j])
def test_python_numbers_are_weak(dtype, number):
    expected = _numpy_dtype(np.multiply, np.ones(2, dtype), number)
    x = pt.vector(dtype=dtype)
    if expected is None:
        with pytest.raises(TypeError):
            x * number
        return
    out = x * number
    assert out.type.dtype == expected
    value = _eval([out], [x], [np.ones(2, dtype)])[0]
    assert value.dtype == expected


def test_weak_scalar_rule_examples():
    x32 = pt.vector(dtype="float32")
    assert (x32 * 2.0).dtype == "float32"
    assert (x32 * np.float64(2.0)).dtype == "float64"  # NumPy scalars are strong
    assert pt.clip(x32, 0, 1).dtype == "float32"
    assert pt.switch(pt.lvector() > 0, x32, 0.5).dtype == "float32"  # cond does not promote
    assert pt.arctan2(x32, 1).dtype == "float32"
    assert (pt.bvector() + 1).dtype == "int8"
    with pytest.raises(OverflowError, match="300"):
        pt.vector(dtype="uint8") + 300


@pytest.mark.parametrize(
    ("fn", "dtype", "expected"),
    [
        (pt.exp, "int8", "float16"),
        (pt.exp, "int64", "float64"),
        (pt.erf, "int8", "float64"),  # SciPy's ufunc loops, not NumPy's
        (pt.erf, "float32", "float32"),
        (pt.iv, "int8", "float32"),
        (pt.floor, "int32", "int32"),  # NumPy 2 keeps integers
        (pt.round, "int16", "int16"),
        (pt.round, "bool", "float16"),
        (pt.round_half_away_from_zero, "int16", "int16"),
        (pt.sign, "uint8", "uint8"),
        (pt.real, "complex64", "float32"),
        (pt.imag, "int8", "int8"),
        (pt.angle, "int8", "float16"),
        (pt.abs, "complex128", "float64"),
        (pt.isnan, "int64", "bool"),
        (pt.logical_and, "float32", "bool"),
        (pt.complex, "float32", "complex64"),
        (pt.complex, "int32", "complex128"),
        (pt.polygamma, "float32", "float32"),
        (pt.polygamma, "int8", "float64"),
    ],
)
def test_output_dtypes(fn, dtype, expected):
    x = pt.vector(dtype=dtype)
    nin = fn.scalar_op.nin if isinstance(fn, pt.Elemwise) else 1
    out = fn(*[x] * nin)
    assert out.type.dtype == expected
    value = _eval([out], [x], [np.ones(3, dtype)])[0]
    assert value.dtype == expected


# -- bad arguments ---------------------------------------------------------------------------------


def test_bitwise_on_floats_is_a_type_error():
    with pytest.raises(TypeError, match=r"and_.*float64"):
        pt.bitwise_and(pt.vector(), pt.vector())
    with pytest.raises(TypeError, match="float32"):
        ~pt.fvector()


@pytest.mark.parametrize(
    ("build", "error", "match"),
    [
        (lambda x: pt.round(x, mode="up"), ValueError, "mode"),
        (lambda x: pt.round(x, mode="half_away_from_zero", decimals=1), ValueError, "decimals"),
        (lambda x: pt.round(x, decimals=1.5), TypeError, "integer"),
        (lambda x: pt.round(x, 1.5), TypeError, "round: decimals must be an integer"),
        (lambda x: pt.isclose(x, x, rtol="big"), TypeError, "rtol"),
        (lambda x: pt.cast(x, "float128x"), TypeError, "float128x"),
        (lambda x: pt.clip(x, "low", 1.0), TypeError, "low"),
        (lambda x: pt.complex(pt.complex(x, x), x), TypeError, "real parts"),
        (lambda x: pt.factorial(x, exact=True), TypeError, "integers"),
        (lambda x: pt.sign(pt.vector(dtype="bool")), TypeError, "bool"),
        (lambda x: pt.gammaln(pt.cvector()), TypeError, "complex64"),
        (lambda x: pt.switch(x, x), TypeError, "3 inputs"),
        (lambda x: pt.add(x, pt.tensor(shape=(4,))) + pt.tensor(shape=(5,)), ValueError, "shape"),
    ],
)
def test_bad_arguments_raise_at_build_time(build, error, match):
    x = pt.vector("x")
    with pytest.raises(error, match=match):
        build(x)


def test_runtime_shape_mismatch_names_the_node():
    x, y = pt.vector("x"), pt.vector("y")
    fn = arignote.function([x, y], pt.hypot(x, y))
    with pytest.raises(ValueError, match="hypot"):
        fn(np.ones(3), np.ones(4))


# -- rounding --------------------------------------------------------------------------------------

HALVES = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49999999999999994, -0.49999999999999994])


def test_round_half_to_even_and_away_from_zero():
    x = pt.vector("x")
    even, away, method, builtin = _eval(
        [x.round(), x.round("half_away_from_zero"), pt.round_half_to_even(x), round(x)],
        [x],
        [HALVES],
    )
    np.testing.assert_array_equal(even, [-2, -2, -0.0, 0, 2, 2, 0, 0])
    np.testing.assert_array_equal(away, [-3, -2, -1, 1, 2, 3, 0, 0])
    np.testing.assert_array_equal(method, even)
    np.testing.assert_array_equal(builtin, even)


def test_round_decimals_like_numpy():
    x, n = pt.vector("x"), pt.lvector("n")
    values = np.array([1.2345, -2.675, 0.125, 1234.5])
    ints = np.array([14, 15, 25, -35, 1234])
    got = _eval(
        [pt.round(x, 2), x.round(decimals=1), round(x, 3), pt.round(n, -1)], [x, n], [values, ints]
    )
    expected = [np.round(values, 2), np.round(values, 1), np.round(values, 3), np.round(ints, -1)]
    for a, e in zip(got, expected):
        np.testing.assert_array_equal(a, e)
        assert a.dtype == e.dtype


def test_truncation_methods():
    x = pt.vector("x")
    values = np.array([-1.7, -0.2, 0.2, 1.7])
    trunc, floor, ceil = _eval([math.trunc(x), math.floor(x), math.ceil(x)], [x], [values])
    np.testing.assert_array_equal(trunc, np.trunc(values))
    np.testing.assert_array_equal(floor, np.floor(values))
    np.testing.assert_array_equal(ceil, np.ceil(values))


# -- methods ---------------------------------------------------------------------------------------


def test_elementwise_methods(rng):
    z = pt.zvector("z")
    n = pt.lvector("n")
    x = pt.matrix("x")
    zv = rng.normal(size=4) + 1j * rng.normal(size=4)
    nv = rng.integers(0, 16, size=4)
    xv = rng.normal(size=(2, 3))
    got = _eval(
        [
            z.real,
            z.imag,
            z.conj(),
            z.conjugate(),
            n << 2,
            3 << n % 4,
            n >> 1,
            x.clip(-0.5, 0.5),
            x.clip(max=0.1),
            x.trunc(),
        ],
        [z, n, x],
        [zv, nv, xv],
    )
    expected = [
        zv.real,
        zv.imag,
        zv.conj(),
        zv.conj(),
        nv << 2,
        3 << nv % 4,
        nv >> 1,
        xv.clip(-0.5, 0.5),
        xv.clip(max=0.1),
        np.trunc(xv),
    ]
    for a, e in zip(got, expected):
        np.testing.assert_array_equal(a, e)


# -- gradients -------------------------------------------------------------------------------------


def test_clip_gradient_passes_inside_the_bounds_only():
    x = pt.vector("x")
    lo, hi = pt.scalar("lo"), pt.scalar("hi")
    gx, glo, ghi = grad(pt.clip(x, lo, hi).sum(), [x, lo, hi])
    values = np.array([-2.0, -1.0, 0.0, 1.0, 2.0])
    got = _eval([gx, glo, ghi], [x, lo, hi], [values, -1.0, 1.0])
    np.testing.assert_array_equal(got[0], [0, 1, 1, 1, 0])  # bounds included
    assert got[1] == 1 and got[2] == 1
    got = _eval([gx, glo, ghi], [x, lo, hi], [values, 1.0, -1.0])  # lo > hi: all is hi
    np.testing.assert_array_equal(got[0], np.zeros(5))
    assert got[1] == 0 and got[2] == 5


@pytest.mark.parametrize(
    "build",
    [
        lambda x: pt.floor(x),
        lambda x: pt.round(x),
        lambda x: pt.cast(x, "int32"),
        lambda x: pt.sign(x),
        lambda x: pt.switch(x > 0, 1.0, 2.0),
        lambda x: pt.lt(x, 0.5),
        lambda x: pt.isnan(x),
        lambda x: pt.int_div(x, 0.3),
    ],
)
def test_piecewise_constant_functions_have_zero_float_gradients(build):
    x = pt.fvector("x")
    gx = grad(build(x).sum(), x)
    assert gx.type.dtype == "float32"
    np.testing.assert_array_equal(_eval([gx], [x], [np.array([0.3, 1.7], "float32")])[0], 0)


def test_gradients_with_respect_to_integers_are_never_integer():
    n = pt.lvector("n")
    for out in (pt.exp(n), pt.sqr(n), n * 3, pt.gammaln(n), pt.clip(n, 0, 2)):
        g = grad(out.sum(), n)
        assert g.type.dtype.startswith("float"), out


@pytest.mark.parametrize(
    ("name", "build", "wrt"),
    [
        # (the shapes of gammainc, gammaincc and betainc have computed derivatives:
        # tests/scalar/test_incomplete_shape.py)
        ("iv", lambda v, x: pt.iv(v, x), 0),
        ("jv", lambda v, x: pt.jv(v, x), 0),
        ("polygamma", lambda n, x: pt.polygamma(n, x), 0),
    ],
)
def test_gradients_without_closed_form_are_null(name, build, wrt):
    a, x = pt.vector("a"), pt.vector("x")
    with pytest.raises(NullTypeGradError, match=name):
        grad(build(a, x).sum(), [a, x][wrt])
    grad(build(a, x).sum(), x)  # the other argument is fine


COMPLEX_FUNCTIONS = {
    "abs": lambda z, w: pt.abs(z),
    "real_mul": lambda z, w: pt.real(z * w),
    "imag_div": lambda z, w: pt.imag(z / w),
    "angle": lambda z, w: pt.angle(z * w),
    "conj": lambda z, w: pt.real(pt.conj(z) * w),
    "exp": lambda z, w: pt.abs(pt.exp(z)) + pt.imag(pt.exp(w)),
    "sqrt_log": lambda z, w: pt.real(pt.sqrt(z)) * pt.imag(pt.log(w)),
    "pow": lambda z, w: pt.abs(z**w),
    "sum": lambda z, w: pt.real(z - w) + pt.imag(z + w),
}


@pytest.mark.parametrize("name", list(COMPLEX_FUNCTIONS))
def test_complex_gradients(rng, name):
    """d/da and d/db of a real function of z = a + ib follow the convention gz = dC/da + i dC/db,
    which conj_if_complex implements; checked against finite differences in a and b."""
    fn = COMPLEX_FUNCTIONS[name]

    def real_fn(a, b, c, d):
        return fn(pt.complex(a, b), pt.complex(c, d))

    points = [rng.uniform(0.5, 1.5, size=(2, 3)) for _ in range(4)]
    verify_grad(real_fn, points, rng=rng)


def test_complex_dtypes_of_gradients():
    z = pt.zvector("z")
    g = grad(pt.abs(pt.exp(z)).sum(), z)
    assert g.type.dtype == "complex128"


@pytest.mark.parametrize("fn", [pt.real, pt.imag, pt.conj, pt.round, pt.floor, pt.clip])
@pytest.mark.parametrize("dtype", ["float64", "int32", "complex128"])
def test_outputs_own_their_memory(fn, dtype):
    if fn is pt.clip and dtype == "complex128":
        pytest.skip("np.clip orders complex numbers lexicographically; not a concern here")
    if fn in (pt.round, pt.floor) and dtype == "complex128":
        pytest.skip("not defined for complex numbers")
    x = pt.vector(dtype=dtype)
    out = fn(x, 0, 1) if fn is pt.clip else fn(x)
    value = np.ones(3, dtype=dtype)
    result = arignote.function([x], out)(value)
    assert not np.shares_memory(result, value)


def test_rop_along_a_parameter_without_derivative_raises():
    a, x = pt.vector("a"), pt.vector("x")
    out = pt.iv(a, x)
    with pytest.raises(NullTypeGradError, match="order"):
        Rop(out, a, pt.vector("v"))
    Rop(out, x, pt.vector("v"))  # along x it is defined


def test_gradient_of_a_real_input_cast_to_complex_is_real(rng):
    verify_grad(lambda v: pt.abs(pt.cast(v, "complex128") * (1 + 2j)) ** 2, [rng.normal(size=3)])
    z = pt.zvector("z")
    (value,) = _eval([pt.cast(z, "float32")], [z], [np.array([1 + 2j, -3j])])
    np.testing.assert_array_equal(value, [1, 0])


# -- review regressions: NumPy's typing of Python numbers, NumPy's clip and isclose ---------------


def test_python_integers_beyond_an_integer_operand_follow_numpy(rng):
    """A Python integer takes the dtype of the loop NumPy runs: 300 fits the float loop of
    int8 / 300; comparisons with out-of-range integers are exact; add still overflows."""
    x, u = pt.bvector("x"), pt.vector("u", dtype="uint64")
    xv = rng.integers(-128, 127, size=5).astype("int8")
    uv = np.array([0, 1, 2**63, 2**64 - 1], dtype="uint64")
    outputs = [x / 300, pt.arctan2(x, 300), x < 300, pt.eq(x, 300), x > -1000, pt.eq(u, -1), u > -1]
    got = _eval(outputs, [x, u], [xv, uv])
    expected = [xv / 300, np.arctan2(xv, 300), xv < 300, xv == 300, xv > -1000, uv == -1, uv > -1]
    for out, g, e in zip(outputs, got, expected):
        assert out.type.dtype == e.dtype
        np.testing.assert_array_equal(g, e)
    with pytest.raises(OverflowError, match="300"):
        x + 300


def test_scipy_loop_order_types_python_numbers():
    """SciPy's beta has its float64 loop first: beta(float32, 2) is float64 in SciPy."""
    x = pt.fvector("x")
    assert pt.beta(x, 2).type.dtype == sp.beta(np.ones(2, "float32"), 2).dtype == "float64"
    assert pt.beta(x, x).type.dtype == "float32"
    assert pt.iv(2, pt.cvector()).type.dtype == "complex64"  # the order takes the float32 loop
    # scipy.special.polygamma makes its arguments arrays: Python numbers are int64/float64 there
    assert pt.polygamma(1, x).type.dtype == sp.polygamma(1, np.ones(2, "float32")).dtype


def test_clip_like_numpy_with_python_numbers_and_mixed_dtypes():
    x8, u8 = pt.bvector("x8"), pt.vector("u8", dtype="uint8")
    x8v = np.array([-128, -5, 0, 7, 127], dtype="int8")
    u8v = np.array([0, 3, 255], dtype="uint8")
    outputs = [pt.clip(x8, 0, 300), pt.clip(u8, -1, 3), pt.clip(x8, -1000, 1000)]
    expected = [np.clip(x8v, 0, 300), np.clip(u8v, -1, 3), np.clip(x8v, -1000, 1000)]
    for out, got, e in zip(outputs, _eval(outputs, [x8, u8], [x8v, u8v]), expected):
        assert out.type.dtype == e.dtype
        np.testing.assert_array_equal(got, e)
    # NumPy's ternary loop: int8, uint8, float16 -> float16 (not float32 via two binary ops)
    mixed = pt.clip(x8, u8[:1], pt.vector(dtype="float16"))
    assert mixed.type.dtype == "float16"
    assert pt.clip(2, x8, x8).type.dtype == "int64"  # np.clip makes a Python x an array


def test_isclose_with_python_integers_beyond_the_range():
    x = pt.bvector("x")
    xv = np.array([-3, 0, 100], dtype="int8")
    got = _eval([pt.isclose(x, 300), pt.isclose(300, x), pt.allclose(x, 1000)], [x], [xv])
    expected = [np.isclose(xv, 300), np.isclose(300, xv), np.allclose(xv, 1000)]
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)


def test_switch_condition_number_is_typed_on_its_own():
    x = pt.vector("x", dtype="uint8")
    (got,) = _eval([pt.switch(-1, x, 0)], [x], [np.array([4, 5], dtype="uint8")])
    np.testing.assert_array_equal(got, np.where(-1, np.array([4, 5], dtype="uint8"), 0))


def test_round_half_away_from_zero_of_infinities_gives_no_warning():
    x = pt.vector("x")
    values = np.array([np.inf, -np.inf, np.nan, 2.5])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (got,) = _eval([pt.round(x, "half_away_from_zero")], [x], [values])
    np.testing.assert_array_equal(got, [np.inf, -np.inf, np.nan, 3.0])


@pytest.mark.parametrize("fn", [pt.softplus, pt.log1mexp])
def test_real_log_exp_combinations_refuse_complex(fn):
    with pytest.raises(TypeError, match=r"(softplus|log1mexp).*complex128"):
        fn(pt.zvector())


def test_pow_gradient_with_respect_to_the_exponent_at_zero_base():
    """d(x^y)/dy = log(x) x^y is 0 at x = 0 for y > 0 (the formula alone gives NaN)."""
    x, y = pt.vector("x"), pt.vector("y")
    gx, gy = grad((x**y).sum(), [x, y])
    with np.errstate(divide="ignore", invalid="ignore"):  # the branch the switch discards
        got_x, got_y = _eval(
            [gx, gy], [x, y], [np.array([0.0, 0.0, 2.0]), np.array([2.0, 0.5, 3.0])]
        )
    np.testing.assert_array_equal(got_y[:2], [0.0, 0.0])
    np.testing.assert_allclose(got_y[2], np.log(2.0) * 8.0)
    np.testing.assert_array_equal(got_x, [0.0, np.inf, 12.0])


def test_newaxis_and_logsumexp_in_math():
    assert pt.newaxis is None is np.newaxis
    x = pt.matrix("x")
    assert x[:, pt.newaxis].type.ndim == 3
    assert arignote.tensor.math.logsumexp is pt.logsumexp is pt.special.logsumexp
    assert arignote.tensor.math.LogSumExp is pt.special.LogSumExp


def test_allclose_is_all_of_isclose():
    out = pt.allclose(pt.vector("a"), pt.vector("b"))
    assert isinstance(out.owner.op, pt.CAReduce) and out.type.dtype == "bool"
    assert out.owner.inputs[0].owner.op.scalar_op == arignote.scalar.IsClose()


# Gradients of the special functions against central differences at points spread over their
# domains (negative arguments, large ones, several orders), not one sample region.
SPECIAL_GRADIENT_POINTS = [
    (pt.erf, sp.erf, [-5.5, -0.7, 1e-3, 1.7, 4.2]),
    (pt.erfc, sp.erfc, [-5.5, -0.7, 1e-3, 1.7, 12.0]),
    (pt.erfcx, sp.erfcx, [-5.5, -0.7, 1e-3, 1.7, 40.0]),
    (pt.erfinv, sp.erfinv, [-0.99, -0.3, 0.0, 0.2, 0.9]),
    (pt.erfcinv, sp.erfcinv, [0.01, 0.3, 1.0, 1.5, 1.99]),
    (pt.gamma, sp.gamma, [-5.5, -2.3, -0.7, 0.3, 1.7, 4.2, 12.0]),
    (pt.gammaln, sp.gammaln, [-5.5, -2.3, -0.7, 0.3, 4.2, 40.0, 1e4]),
    (pt.psi, sp.psi, [-5.5, -2.3, -0.7, 0.3, 4.2, 40.0, 1e4]),
    (lambda x: pt.polygamma(2, x), lambda x: sp.polygamma(2, x), [-2.3, -0.7, 0.3, 4.2]),
    (pt.i0, sp.i0, [-5.5, -0.7, 1e-3, 4.2, 12.0]),
    (pt.i1, sp.i1, [-5.5, -0.7, 1e-3, 4.2, 12.0]),
    (pt.j0, sp.j0, [-30.0, -0.7, 1e-3, 4.2, 40.0]),
    (pt.j1, sp.j1, [-30.0, -0.7, 1e-3, 4.2, 40.0]),
    (lambda x: pt.iv(-2.5, x), lambda x: sp.iv(-2.5, x), [0.05, 0.3, 1.7, 12.0]),
    (lambda x: pt.iv(3.0, x), lambda x: sp.iv(3.0, x), [0.05, 0.3, 1.7, 12.0]),
    (lambda x: pt.jv(-2.5, x), lambda x: sp.jv(-2.5, x), [0.05, 0.3, 1.7, 40.0]),
    (lambda x: pt.jv(0.5, x), lambda x: sp.jv(0.5, x), [0.05, 0.3, 1.7, 40.0]),
    (lambda x: pt.gammainc(0.3, x), lambda x: sp.gammainc(0.3, x), [1e-3, 0.3, 4.2, 40.0]),
    (lambda x: pt.gammaincc(20.0, x), lambda x: sp.gammaincc(20.0, x), [1.0, 12.0, 40.0]),
    (
        lambda x: pt.betainc(0.5, 7.0, x),
        lambda x: sp.betainc(0.5, 7.0, x),
        [0.01, 0.3, 0.5, 0.99],
    ),
    (lambda x: pt.betainc(30.0, 2.0, x), lambda x: sp.betainc(30.0, 2.0, x), [0.3, 0.8, 0.99]),
    (lambda x: pt.xlogy(x, 1e-5), lambda x: sp.xlogy(x, 1e-5), [-5.5, 0.0, 4.2]),
    (lambda x: pt.xlogy(2.0, x), lambda x: sp.xlogy(2.0, x), [1e-3, 0.3, 40.0]),
    (lambda x: pt.xlog1py(2.0, x), lambda x: sp.xlog1py(2.0, x), [-0.9, 0.3, 40.0]),
    (pt.logit, sp.logit, [0.01, 0.3, 0.5, 0.999]),
    (lambda x: pt.beta(x, 2.0), lambda x: sp.beta(x, 2.0), [-2.3, -0.7, 0.3, 4.2, 12.0]),
    (lambda x: pt.betaln(7.5, x), lambda x: sp.betaln(7.5, x), [0.3, 4.2, 100.0]),
    (lambda x: pt.poch(x, -1.5), lambda x: sp.poch(x, -1.5), [-2.3, -0.7, 0.3, 4.2]),
    (lambda x: pt.poch(3.0, x), lambda x: sp.poch(3.0, x), [-2.3, -0.7, 0.3, 4.2]),
    (pt.factorial, sp.factorial, [0.3, 1.7, 4.2, 12.0]),
    (pt.sigmoid, sp.expit, [-30.0, -0.7, 1.7, 40.0]),
    (pt.softplus, lambda x: np.logaddexp(0.0, x), [-30.0, -0.7, 1.7, 40.0]),
    (pt.log1mexp, lambda x: np.log(-np.expm1(x)), [-50.0, -5.0, -0.6931, -0.5, -1e-3]),
]


@pytest.mark.parametrize(("fn", "ref", "points"), SPECIAL_GRADIENT_POINTS)
def test_special_function_gradients_over_their_domains(fn, ref, points):
    x = pt.vector("x")
    points = np.asarray(points)
    (got,) = _eval([grad(fn(x).sum(), x)], [x], [points])
    step = 1e-6 * np.maximum(1.0, np.abs(points))
    numeric = (ref(points + step) - ref(points - step)) / (2 * step)
    np.testing.assert_allclose(got, numeric, rtol=2e-5, atol=1e-8)


COMPLEX_TANGENT_FUNCTIONS = {
    "exp": lambda z, w: pt.exp(z),  # holomorphic: f'(z) v, not conj(f'(z)) v
    "abs": lambda z, w: pt.abs(z),  # complex to real
    "real_mul": lambda z, w: pt.real(z * w),
    "conj_mul": lambda z, w: pt.conj(z) * w,  # not holomorphic in z
    "angle": lambda z, w: pt.angle(z),
    "pow": lambda z, w: z**w,
    "div_sqrt": lambda z, w: pt.sqrt(z) / w,
    "complex_of_parts": lambda z, w: pt.complex(pt.real(z), pt.abs(w)),
    "imag_log": lambda z, w: pt.imag(pt.log(z)) * pt.real(w),
}


@pytest.mark.parametrize("name", list(COMPLEX_TANGENT_FUNCTIONS))
def test_complex_tangents_match_finite_differences(rng, name):
    """Elemwise.R_op through complex maps (complex tangents, complex or real outputs) equals
    central differences along the tangent: J v on the real pairs (Re, Im)."""
    fn = COMPLEX_TANGENT_FUNCTIONS[name]
    z, w = pt.zvector("z"), pt.zvector("w")
    v, u = pt.zvector("v"), pt.zvector("u")
    out = fn(z, w)
    jvp = Rop(out, [z, w], [v, u], disconnected_outputs="ignore")
    f_jvp = arignote.function([z, w, v, u], jvp, on_unused_input="ignore")
    f = arignote.function([z, w], out, on_unused_input="ignore")

    def draw(shape):
        return rng.uniform(0.5, 1.5, shape) + 1j * rng.uniform(-1.0, 1.0, shape)

    zv, wv, vv, uv = (draw(3) for _ in range(4))
    eps = 1e-6
    numeric = (f(zv + eps * vv, wv + eps * uv) - f(zv - eps * vv, wv - eps * uv)) / (2 * eps)
    got = f_jvp(zv, wv, vv, uv)
    assert got.dtype == out.type.dtype
    np.testing.assert_allclose(got, numeric, rtol=1e-6, atol=1e-8)


def test_scalar_op_tangents_through_complex_maps():
    z, v = arignote.scalar.scalar("z", "complex128"), arignote.scalar.scalar("v", "complex128")
    exp_t, abs_t = arignote.function(
        [z, v], Rop([arignote.scalar.exp(z), arignote.scalar.abs(z)], z, v)
    )(1 + 1j, 0.3 + 0.1j)
    assert exp_t == pytest.approx(np.exp(1 + 1j) * (0.3 + 0.1j))
    assert abs_t == pytest.approx(np.real(np.conj(1 + 1j) * (0.3 + 0.1j)) / np.sqrt(2))


def test_zeros_like_and_ones_like_accept_opt():
    x = pt.dmatrix("x")
    zeros, ones = pt.zeros_like(x, opt=True), pt.ones_like(x, dtype="int8", opt=True)
    assert zeros.type.dtype == "float64" and ones.type.dtype == "int8"
    got = arignote.function([x], [zeros, ones])(np.ones((2, 3)))
    assert got[0].shape == (2, 3) and not got[0].any() and (got[1] == 1).all()
