"""Edge cases of the reductions (the generic checks are in tests/op_db/reduction.py)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.gradient import grad


def _run(inputs, outputs, *values):
    return arignote.function(inputs, outputs)(*values)


# -- dtypes ---------------------------------------------------------------------------------

DTYPE_CASES = ["bool", "int8", "uint8", "int32", "uint32", "int64", "float16", "float32"]


@pytest.mark.parametrize("dtype", DTYPE_CASES)
@pytest.mark.parametrize(
    ("name", "np_fn"),
    [
        ("sum", np.sum),
        ("prod", np.prod),
        ("mean", np.mean),
        ("var", np.var),
        ("std", np.std),
        ("max", np.max),
        ("argmin", np.argmin),
        ("all", np.all),
    ],
)
def test_reduction_dtype_matches_numpy(name, np_fn, dtype, rng):
    value = rng.integers(0, 3, size=(3, 4)).astype(dtype)
    x = pt.tensor(dtype=dtype, shape=(None, None))
    out = getattr(pt, name)(x, axis=0)
    expected = np_fn(value, axis=0)
    assert out.type.dtype == expected.dtype.name
    np.testing.assert_allclose(_run([x], out, value), expected, rtol=1e-3)


ALL_DTYPES = [
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128",
]  # fmt: skip
REDUCTIONS = {
    "sum": (pt.sum, np.sum),
    "prod": (pt.prod, np.prod),
    "mean": (pt.mean, np.mean),
    "var": (pt.var, np.var),
    "var[ddof=1]": (lambda x, **k: pt.var(x, ddof=1, **k), lambda x, **k: np.var(x, ddof=1, **k)),
    "std[ddof=2]": (lambda x, **k: pt.std(x, ddof=2, **k), lambda x, **k: np.std(x, ddof=2, **k)),
    "max": (pt.max, np.max),
    "min": (pt.min, np.min),
    "ptp": (pt.ptp, np.ptp),
    "argmax": (pt.argmax, np.argmax),
    "argmin": (pt.argmin, np.argmin),
    "all": (pt.all, np.all),
    "any": (pt.any, np.any),
}
AXES = [None, 0, -1, (0, 2), (-1, 0), ()]


def _random_values(rng, dtype, shape):
    if dtype == "bool":
        return rng.random(shape) > 0.5
    value = (rng.normal(size=shape) * 3).astype(dtype)
    if dtype.startswith("complex"):
        value = value + 1j * rng.normal(size=shape).astype(dtype)
    return value


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # var/std with N - ddof <= 0 (axis=())
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_every_reduction_matches_numpy_for_every_dtype(dtype, rng):
    """Values and dtypes over int, tuple, negative and empty axes, with and without keepdims
    (NumPy's argmax takes one axis; ptp refuses booleans, as NumPy's does)."""
    value = _random_values(rng, dtype, (3, 4, 2))
    x = pt.tensor(dtype=dtype, shape=(None, None, None))
    outputs, expected = [], []
    for name, (build, reference) in REDUCTIONS.items():
        for axis in AXES:
            if name.startswith("arg") and not (axis is None or isinstance(axis, int)):
                continue
            if name == "ptp" and dtype == "bool":
                continue
            for keepdims in (False, True):
                outputs.append(build(x, axis=axis, keepdims=keepdims))
                expected.append(reference(value, axis=axis, keepdims=keepdims))
    tol = 2e-2 if dtype in ("float16", "complex64", "float32") else 1e-7
    for out, got, want in zip(outputs, _run([x], outputs, value), expected):
        want = np.asarray(want)
        assert out.type.dtype == want.dtype.name == got.dtype.name, out
        assert got.shape == want.shape, out
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "float32"])
def test_reduction_dtype_argument(dtype, rng):
    x = pt.tensor(dtype=dtype, shape=(None,))
    value = rng.integers(0, 3, size=5).astype(dtype)
    out = pt.sum(x, dtype="float64")
    assert out.type.dtype == "float64"
    np.testing.assert_allclose(_run([x], out, value), np.sum(value, dtype="float64"))


# -- empty inputs ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [("sum", 0.0), ("prod", 1.0), ("all", True), ("any", False)],
)
def test_reduction_of_empty_has_identity(name, expected):
    x = pt.matrix("x")
    out = getattr(pt, name)(x)
    assert _run([x], out, np.zeros((0, 3))) == expected


def test_statistics_of_empty_are_nan_like_numpy():
    x = pt.matrix("x")
    value = np.zeros((0, 3))
    outputs = [pt.mean(x), pt.var(x, axis=0), pt.std(x, axis=0, keepdims=True), pt.sum(x, 0)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = _run([x], outputs, value)
        expected = [np.mean(value), np.var(value, 0), np.std(value, 0, keepdims=True)]
    for g, e in zip(got, [*expected, np.zeros(3)]):
        np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("name", ["max", "min", "argmax", "argmin", "ptp"])
def test_extreme_of_empty_raises_naming_the_op(name):
    x = pt.matrix("x")
    fn = arignote.function([x], getattr(pt, name)(x, axis=0))
    with pytest.raises(ValueError, match=r"(?i)(max|min|arg)"):
        fn(np.zeros((0, 3)))
    # reducing the non-empty axis of an empty array is fine (nothing to reduce)
    assert fn(np.zeros((3, 0))).shape == (0,)


@pytest.mark.parametrize("name", ["max", "min", "argmax", "argmin"])
def test_extreme_over_statically_empty_axis_raises_when_built(name):
    x = pt.tensor(shape=(0, 3))
    with pytest.raises(ValueError, match="empty"):
        getattr(pt, name)(x, axis=0)
    assert getattr(pt, name)(x, axis=1).type.shape == (0,)


# -- NaN ------------------------------------------------------------------------------------


def test_nan_propagates_like_numpy():
    value = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, 6.0]])
    x = pt.matrix("x")
    outs = [pt.max(x, 1), pt.min(x, 1), pt.sum(x, 1), pt.argmax(x, 1), pt.argmin(x, 1)]
    outs += [pt.all(x, 1), pt.any(x - x, 1), pt.var(x, 1), pt.ptp(x, 1)]
    refs = [np.max(value, 1), np.min(value, 1), np.sum(value, 1), np.argmax(value, 1)]
    refs += [np.argmin(value, 1), np.all(value, 1), np.any(value - value, 1), np.var(value, 1)]
    refs += [np.ptp(value, 1)]
    for got, expected in zip(_run([x], outs, value), refs):
        np.testing.assert_array_equal(got, expected)


# -- var / std ------------------------------------------------------------------------------


@pytest.mark.parametrize("ddof", [0, 1, 2, 3, 4])
def test_var_ddof_up_to_and_past_the_count(ddof, rng):
    value = rng.normal(size=(3, 5))
    x = pt.matrix("x")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = _run([x], [pt.var(x, axis=0, ddof=ddof), pt.std(x, axis=0, ddof=ddof)], value)
        expected = [np.var(value, 0, ddof=ddof), np.std(value, 0, ddof=ddof)]
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e)


def test_var_correction_is_ddof(rng):
    value = rng.normal(size=(3, 5))
    x = pt.matrix("x")
    out = pt.std(x, axis=1, correction=1)
    np.testing.assert_allclose(_run([x], out, value), np.std(value, axis=1, correction=1))
    with pytest.raises(ValueError, match="not both"):
        pt.var(x, ddof=1, correction=1)


def test_var_of_complex_is_real(rng):
    value = rng.normal(size=(4,)) + 1j * rng.normal(size=(4,))
    x = pt.tensor(dtype="complex128", shape=(None,))
    out = pt.var(x)
    assert out.type.dtype == "float64"
    np.testing.assert_allclose(_run([x], out, value), np.var(value))


# -- prod gradient with zeros ---------------------------------------------------------------


def _prod_grad_reference(value, axis):
    """d prod / d x_i as the product of the other elements, without division."""
    result = np.empty_like(value)
    for index in np.ndindex(value.shape):
        group = np.take(value, index[1 - axis], axis=1 - axis).copy()
        group[index[axis]] = 1.0
        result[index] = np.prod(group)
    return result


def test_prod_gradient_exact_with_zeros(rng):
    value = rng.uniform(0.5, 2.0, size=(4, 5))
    value[1, 0] = 0.0  # one zero in column 0
    value[0, 2] = value[3, 2] = 0.0  # two zeros in column 2
    x = pt.matrix("x")
    g = _run([x], grad(pt.prod(x, axis=0).sum(), x), value)
    assert np.all(np.isfinite(g))
    np.testing.assert_allclose(g, _prod_grad_reference(value, 0))
    assert g[1, 0] != 0 and np.all(g[:, 2] == 0)


def test_prod_rop_with_zeros(rng):
    value = rng.uniform(0.5, 2.0, size=(3, 4))
    value[0, 1] = 0.0
    tangent = rng.normal(size=value.shape)
    x, v = pt.matrix("x"), pt.matrix("v")
    jvp = arignote.Rop(pt.prod(x, axis=0), x, v)
    expected = (_prod_grad_reference(value, 0) * tangent).sum(axis=0)
    np.testing.assert_allclose(_run([x, v], jvp, value, tangent), expected)


# -- errors, static shapes and methods ------------------------------------------------------


@pytest.mark.parametrize("axis", [2, -3, (0, 0), (1, -1)])
def test_bad_axis_raises_when_built(axis):
    x = pt.matrix("x")
    for fn in (pt.sum, pt.prod, pt.max, pt.mean, pt.var, pt.argmax, pt.all):
        with pytest.raises(ValueError, match="axis"):
            fn(x, axis=axis)


def test_keepdims_static_shapes():
    x = pt.tensor(shape=(2, 3, None))
    assert pt.sum(x, axis=(0, 2), keepdims=True).type.shape == (1, 3, 1)
    assert pt.argmax(x, keepdims=True).type.shape == (1, 1, 1)
    assert pt.var(x, axis=1).type.shape == (2, None)


def test_tensor_variable_methods(rng):
    value = rng.normal(size=(3, 4))
    x = pt.matrix("x")
    methods = [
        (x.prod(axis=1), np.prod(value, axis=1)),
        (x.var(ddof=1), np.var(value, ddof=1)),
        (x.std(axis=0, keepdims=True), np.std(value, axis=0, keepdims=True)),
        (x.argmin(axis=-1), np.argmin(value, axis=-1)),
        ((x > 0).all(axis=0), np.all(value > 0, axis=0)),
        ((x > 0).any(), np.any(value > 0)),
        (x.ptp(axis=1), np.ptp(value, axis=1)),
        (x.cumsum(axis=0), np.cumsum(value, axis=0)),
        (x.cumprod(), np.cumprod(value)),
    ]
    results = _run([x], [m for m, _ in methods], value)
    for got, (_, expected) in zip(results, methods):
        np.testing.assert_allclose(got, expected)


def test_max_and_argmax_over_several_axes(rng):
    value = rng.normal(size=(2, 3, 4))
    x = pt.tensor3("x")
    top, where = pt.max_and_argmax(x, axis=(0, 2))
    got_top, got_where = _run([x], [top, where], value)
    np.testing.assert_allclose(got_top, value.max(axis=(0, 2)))
    flat = value.transpose(1, 0, 2).reshape(3, -1)  # the reduced axes read as one, C order
    np.testing.assert_array_equal(got_where, flat.argmax(axis=1))


def test_argmax_gradient_is_zero():
    x = pt.vector("x")
    g = grad(pt.argmax(x).astype("float64") + pt.max(x), x)
    np.testing.assert_array_equal(_run([x], g, np.array([1.0, 3.0, 2.0])), [0.0, 1.0, 0.0])


def test_pytensor_reduction_keywords(rng):
    # PyTensor's documented keywords: prod(no_zeros_in_input), mean(acc_dtype),
    # var/std(corrected); they change no value
    x = pt.dmatrix("x")
    outs = [
        pt.prod(x, axis=0, no_zeros_in_input=True),
        pt.mean(x, axis=1, dtype="float32", acc_dtype="float64"),
        pt.var(x, axis=0, ddof=1, corrected=True),
        pt.std(x, corrected=True),
    ]
    assert outs[1].type.dtype == "float32"
    value = rng.normal(size=(3, 4))
    got = arignote.function([x], outs)(value)
    expected = [value.prod(0), value.mean(1), value.var(0, ddof=1), value.std()]
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-6)
