"""Hand-written checks of arignote.tensor.special: numerical stability, edge values, axes, dtypes,
argument errors and second derivatives."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sp

import arignote
import arignote.tensor as pt
from arignote.gradient import grad
from arignote.testing import verify_grad


def _eval(outputs, inputs=(), values=()):
    return arignote.function(list(inputs), outputs, on_unused_input="ignore")(*values)


# -- softmax family: stability and edge values --------------------------------------------------

AXIS_FUNCTIONS = [
    (pt.softmax, sp.softmax),
    (pt.log_softmax, sp.log_softmax),
]


@pytest.mark.parametrize(("fn", "ref"), AXIS_FUNCTIONS, ids=["softmax", "log_softmax"])
def test_stable_for_huge_inputs(fn, ref):
    x = pt.matrix("x")
    values = np.array([[1e4, 1e4 + 1, -1e4], [-1e4, -1e4 - 2, -1e4 - 1]])
    (out,) = _eval([fn(x, axis=-1)], [x], [values])
    assert np.all(np.isfinite(out))
    np.testing.assert_allclose(out, ref(values, axis=-1), rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize(("fn", "ref"), AXIS_FUNCTIONS, ids=["softmax", "log_softmax"])
@pytest.mark.parametrize("big", [1000.0, -1000.0])
def test_stable_at_plus_and_minus_1000(fn, ref, big):
    """Values near +-1000 overflow or underflow exp: the shifted formula must not."""
    x = pt.matrix("x")
    values = np.array([[big, big + 1.0, big - 3.0], [big, 0.0, -big]])
    for axis in (None, 0, -1):
        (out,) = _eval([fn(x, axis=axis)], [x], [values])
        assert not np.any(np.isnan(out))
        np.testing.assert_allclose(out, ref(values, axis=axis), rtol=1e-12, atol=1e-300)


def test_softmax_default_axis_is_all_axes_as_in_scipy(rng):
    x = pt.tensor3("x")
    values = rng.normal(size=(2, 3, 4))
    soft, log_soft = _eval([pt.softmax(x), pt.log_softmax(x)], [x], [values])
    np.testing.assert_allclose(soft, sp.softmax(values))
    np.testing.assert_allclose(log_soft, sp.log_softmax(values))
    np.testing.assert_allclose(soft.sum(), 1.0)
    assert pt.softmax(x).owner.op.axis == (0, 1, 2)
    assert pt.log_softmax(x).owner.op.axis == (0, 1, 2)


@pytest.mark.parametrize(("fn", "ref"), AXIS_FUNCTIONS, ids=["softmax", "log_softmax"])
def test_infinite_entries_like_scipy(fn, ref):
    x = pt.matrix("x")
    values = np.array([[-np.inf, 0.0, 1.0], [-np.inf, -np.inf, -np.inf], [np.nan, 0.0, 1.0]])
    with np.errstate(all="ignore"):
        expected = ref(values, axis=1)
    (out,) = _eval([fn(x, axis=1)], [x], [values])
    np.testing.assert_allclose(out, expected, equal_nan=True)


@pytest.mark.parametrize("fn", [pt.softmax, pt.log_softmax, pt.logsumexp])
def test_empty_inputs(fn):
    x = pt.matrix("x")
    out = fn(x, axis=1)
    (value,) = _eval([out], [x], [np.zeros((0, 3))])
    expected_shape = (0,) if fn is pt.logsumexp else (0, 3)
    assert value.shape == expected_shape


def test_logsumexp_edge_values():
    x = pt.matrix("x")
    values = np.array(
        [
            [-np.inf, -np.inf],
            [np.inf, 0.0],
            [np.inf, -np.inf],
            [np.nan, 1.0],
            [1e308, 1e308],
            [-1e308, 0.0],
        ]
    )
    (out,) = _eval([pt.logsumexp(x, axis=1)], [x], [values])
    with np.errstate(all="ignore"):
        expected = sp.logsumexp(values, axis=1)
    np.testing.assert_allclose(out, expected, equal_nan=True)


def test_logsumexp_of_empty_is_minus_infinity():
    x = pt.matrix("x")
    whole, by_row, by_col = _eval(
        [pt.logsumexp(x), pt.logsumexp(x, axis=1), pt.logsumexp(x, axis=0)], [x], [np.zeros((2, 0))]
    )
    assert whole == -np.inf
    np.testing.assert_array_equal(by_row, [-np.inf, -np.inf])
    assert by_col.shape == (0,)


def test_logsumexp_axes_and_keepdims(rng):
    x = pt.tensor3("x")
    values = rng.normal(size=(2, 3, 4))
    outputs = [
        pt.logsumexp(x, axis=(0, 2)),
        pt.logsumexp(x, axis=-1, keepdims=True),
        pt.logsumexp(x, keepdims=True),
    ]
    assert [o.type.ndim for o in outputs] == [1, 3, 3]
    got = _eval(outputs, [x], [values])
    expected = [
        sp.logsumexp(values, axis=(0, 2)),
        sp.logsumexp(values, axis=-1, keepdims=True),
        sp.logsumexp(values, keepdims=True),
    ]
    for a, e in zip(got, expected):
        np.testing.assert_allclose(a, e)
        assert a.shape == e.shape


@pytest.mark.parametrize(
    ("dtype", "expected"), [("float32", "float32"), ("float16", "float16"), ("int8", "float16")]
)
@pytest.mark.parametrize("fn", [pt.softmax, pt.log_softmax, pt.logsumexp])
def test_output_dtype_follows_exp(fn, dtype, expected):
    x = pt.vector(dtype=dtype)
    out = fn(x)
    assert out.type.dtype == expected
    assert _eval([out], [x], [np.arange(3, dtype=dtype)])[0].dtype == expected


def test_static_shapes():
    x = pt.tensor(dtype="float64", shape=(2, None, 4))
    assert pt.softmax(x, axis=1).type.shape == (2, None, 4)
    assert pt.logsumexp(x, axis=(0, 1)).type.shape == (4,)
    assert pt.logsumexp(x, axis=1, keepdims=True).type.shape == (2, 1, 4)


@pytest.mark.parametrize(
    ("build", "error", "match"),
    [
        (lambda x: pt.softmax(x, axis=2), ValueError, "out of bounds"),
        (lambda x: pt.log_softmax(x, axis=(0, 0)), ValueError, "repeated"),
        (lambda x: pt.logsumexp(x, axis=-3), ValueError, "out of bounds"),
        (lambda x: pt.softmax(pt.zmatrix()), TypeError, "real"),
        (lambda x: pt.softmax(x, axis=1.5), TypeError, "softmax: axis entries must be integers"),
        (lambda x: pt.logsumexp(x, axis=(0, "1")), TypeError, "logsumexp: axis"),
        (lambda x: pt.Softmax((-1,)), ValueError, ">= 0"),
        (lambda x: pt.Softmax((3,))(x), ValueError, "out of range"),
    ],
)
def test_bad_arguments(build, error, match):
    with pytest.raises(error, match=match):
        build(pt.matrix("x"))


# -- derivatives -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "build",
    [
        lambda x: grad((pt.softmax(x, axis=0) ** 2).sum(), x),
        lambda x: grad((pt.log_softmax(x, axis=-1) * x).sum(), x),
        lambda x: grad(pt.logsumexp(x, axis=1).sum() ** 2, x),
    ],
    ids=["softmax", "log_softmax", "logsumexp"],
)
def test_second_derivatives(rng, build):
    verify_grad(build, [rng.normal(size=(3, 4))], rng=rng)


def test_log_softmax_gradient_where_softmax_underflows():
    x = pt.vector("x")
    g = grad(pt.log_softmax(x, axis=0).sum(), x)
    (value,) = _eval([g], [x], [np.array([0.0, -800.0, 800.0])])
    # d sum(log_softmax)/dx = 1 - n softmax(x): finite everywhere
    np.testing.assert_allclose(value, 1 - 3 * sp.softmax([0.0, -800.0, 800.0]))


# -- factorial, poch, beta, logit ------------------------------------------------------------------


def test_factorial_like_scipy():
    x, n = pt.vector("x"), pt.lvector("n")
    reals = np.array([-1.0, -0.5, 0.0, 0.5, 3.0, 4.5, np.nan, 170.0, 171.0])
    ints = np.array([-3, 0, 1, 5, 20])
    approx, exact, exact_int8 = _eval(
        [pt.factorial(x), pt.factorial(n, exact=True), pt.factorial(pt.cast(n, "int8"))],
        [x, n],
        [reals, ints],
    )
    np.testing.assert_allclose(approx, sp.factorial(reals), equal_nan=True)
    np.testing.assert_array_equal(exact, sp.factorial(ints, exact=True))
    assert exact.dtype == "int64"
    np.testing.assert_allclose(exact_int8, sp.factorial(ints.astype("int8")))


def test_factorial_gradient_is_zero_below_zero():
    x = pt.vector("x")
    (g,) = _eval([grad(pt.factorial(x).sum(), x)], [x], [np.array([-1.5, 2.0])])
    assert g[0] == 0
    np.testing.assert_allclose(g[1], sp.gamma(3.0) * sp.psi(3.0))


def test_poch_beta_logit_edges():
    x, y = pt.vector("x"), pt.vector("y")
    a = np.array([0.0, 1.0, 0.5, -1.5, 3.0])
    b = np.array([0.0, 0.0, 2.0, 2.0, -3.0])
    with np.errstate(all="ignore"):
        got = _eval(
            [pt.poch(x, y), pt.betaln(x + 1, y + 1), pt.beta(x + 1, y + 1), pt.logit(x / 3)],
            [x, y],
            [a, b],
        )
        expected = [sp.poch(a, b), sp.betaln(a + 1, b + 1), sp.beta(a + 1, b + 1), sp.logit(a / 3)]
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, equal_nan=True)
