"""complex64 elementwise work runs natively: computed in complex128, rounded once per op."""

import numpy as np
import pytest

import arignote
import arignote.tensor as pt

UNARY = ["exp", "sqrt", "log", "sin", "tanh", "cosh", "abs", "reciprocal", "expm1", "log1p"]


@pytest.fixture
def operands():
    rng = np.random.default_rng(64)
    z = (rng.normal(size=(3, 5)) + 1j * rng.normal(size=(3, 5))).astype(np.complex64)
    w = (rng.normal(size=(3, 5)) + 1j * rng.normal(size=(3, 5))).astype(np.complex64)
    return z, w, rng.normal(size=5).astype(np.float32)


def _symbols():
    z, w = pt.matrix("z", dtype="complex64"), pt.matrix("w", dtype="complex64")
    return z, w, pt.fvector("f")


def _expressions(z, w, f):
    found = {name: getattr(pt, name)(z) for name in UNARY}
    found.update(mul=z * w, div=z / w, power=z**w, mixed=z * f + f, equal=pt.eq(z, w))
    found["fused"] = pt.exp(z) * w + pt.sqrt(z) / (w + 1)
    return found


def test_complex64_elementwise_is_native_and_matches_numpy(operands):
    symbols = _symbols()
    for name, expr in _expressions(*symbols).items():
        fn = arignote.function(list(symbols), expr, mode="NUMBA", on_unused_input="ignore")
        assert not fn.runner.fallbacks, (name, fn.runner.fallbacks)
        ref = arignote.function(list(symbols), expr, mode="FAST_COMPILE", on_unused_input="ignore")
        got, want = fn(*operands), ref(*operands)
        assert got.dtype == want.dtype, name
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6, err_msg=name)


def test_complex64_product_rounds_once(operands):
    # (a+bi)(c+di) in double precision, rounded once: the correctly rounded float32 parts
    z, w, _ = operands
    x, y = pt.matrix("x", dtype="complex64"), pt.matrix("y", dtype="complex64")
    got = arignote.function([x, y], x * y, mode="NUMBA")(z, w)
    exact = (z.astype(np.complex128) * w.astype(np.complex128)).astype(np.complex64)
    np.testing.assert_array_equal(got, exact)
