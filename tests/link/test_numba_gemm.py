"""Native ``Gemm`` and ``Gemv``: the product written into the result and scaled there gives
``perform``'s values (NaN from a zero coefficient times a non-finite value included), for
empty products, strided operands and complex dtypes, and ``perform``'s error class."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.tensor.blas import gemm, gemv

pytest.importorskip("arignote.link.numba")
# strided operands are part of the tests: numba's np.dot copies them (and says so)
pytestmark = pytest.mark.filterwarnings("ignore::numba.NumbaPerformanceWarning")


def _functions(dtype, kind):
    alpha, beta = pt.scalar(dtype=dtype), pt.scalar(dtype=dtype)
    if kind == "gemm":
        z, x, y = (pt.matrix(dtype=dtype) for _ in range(3))
        out = gemm(z, alpha, x, y, beta)
    else:
        z, x, y = pt.vector(dtype=dtype), pt.matrix(dtype=dtype), pt.vector(dtype=dtype)
        out = gemv(z, alpha, x, y, beta)
    inputs = [z, alpha, x, y, beta]
    native = arignote.function(inputs, out, mode="NUMBA")
    assert native.runner.fallbacks == {}
    return native, arignote.function(inputs, out, mode="VM")


def _values(rng, dtype, kind, m, k, n):
    def draw(*shape):
        value = rng.normal(size=shape)
        if dtype.startswith("complex"):
            value = value + 1j * rng.normal(size=shape)
        return value.astype(dtype)

    if kind == "gemm":
        return draw(m, n), draw(m, k), draw(k, n)
    return draw(m), draw(m, k), draw(k)


@pytest.mark.parametrize(
    ("kind", "dtype"),
    [("gemm", "float64"), ("gemv", "float64"), ("gemm", "complex128"), ("gemv", "float32")],
)
def test_scaled_product_is_performs(rng, kind, dtype):
    native, vm = _functions(dtype, kind)
    scalars = [np.asarray(c, dtype=dtype) for c in (0.7, -1.3)]
    rtol = 1e-5 if dtype == "float32" else 1e-12
    for m, k, n in ((5, 3, 4), (5, 0, 4), (0, 3, 4)):
        z, x, y = _values(rng, dtype, kind, m, k, n)
        for args in ((z, scalars[0], x, y, scalars[1]), (z[::-1], scalars[1], x[:, ::-1], y, 0)):
            args = [np.asarray(a, dtype=dtype) for a in args]
            got, expected = native(*args), vm(*args)
            assert got.dtype == expected.dtype and got.shape == expected.shape
            np.testing.assert_allclose(got, expected, rtol=rtol, atol=1e-6 * rtol)


@pytest.mark.parametrize("kind", ["gemm", "gemv"])
def test_zero_coefficients_keep_nan_and_shapes_are_checked(rng, kind):
    native, vm = _functions("float64", kind)
    z, x, y = _values(rng, "float64", kind, 4, 3, 2)
    z.flat[1] = np.inf
    x[0, 0] = np.nan
    zero, one = np.asarray(0.0), np.asarray(1.0)
    with np.errstate(invalid="ignore"):
        for args in ((z, one, x, y, zero), (z, zero, x, y, one)):
            np.testing.assert_array_equal(native(*args), vm(*args))  # NaN where perform has it
    assert np.isnan(native(z, zero, x, y, one)).any()
    with pytest.raises(ValueError):
        native(z[:-1], one, x, y, one)  # the product has another shape than z
    with pytest.raises(ValueError):
        native(z, one, x[:, :-1], y, one)  # the operands are not aligned
