"""SciPy's Python-level special functions written natively (``polygamma`` through the
Hurwitz zeta function, ``factorial`` exact and approximate): values against SciPy over
orders and arguments that take every branch, and no object-mode node."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sp

import arignote
import arignote.tensor as pt

numba_backend = pytest.importorskip("arignote.link.numba")


def _native(inputs, outputs):
    fn = arignote.function(inputs, outputs, mode="NUMBA")
    assert fn.runner.fallbacks == {}, numba_backend.native_report(fn.runner)
    return fn


def test_polygamma_and_factorial_match_scipy(rng):
    n, x, k = pt.dvector("n"), pt.dvector("x"), pt.lvector("k")
    fn = _native([n, x, k], [pt.polygamma(n, x), pt.factorial(x), pt.factorial(k, exact=True)])
    orders = np.array([0.0, 1, 2, 3, 4, 1, 2, 1, 2, 1.5, 1, 3])
    # small, moderate, large (asymptotic branch), negative non-integer, pole, random
    args = np.array([0.3, 2.5, 40.0, 1e9, -1.5, 7.25, -2.0, 0.0, 3.0, 2.0, 1e-3, 12.0])
    args[-1] = rng.uniform(0.1, 30.0)
    ints = rng.integers(-3, 21, size=12)
    with np.errstate(invalid="ignore"):
        expected = [sp.polygamma(orders, args), sp.factorial(args), sp.factorial(ints, exact=True)]
    got = fn(orders, args, ints)
    for g, e in zip(got, expected, strict=True):
        assert g.dtype == e.dtype
        np.testing.assert_allclose(g, e, rtol=1e-13)
    with pytest.raises(OverflowError):
        fn(orders, args, np.full(12, 21))  # 21! leaves int64, as perform's conversion says


def test_complex64_parts_are_numpys_bit_for_bit(rng):
    z, re, im = pt.tensor("z", dtype="complex64", shape=(None,)), pt.fvector("re"), pt.fvector("im")
    outputs = [pt.real(z), pt.imag(z), pt.conj(z), pt.complex(re, im)]
    fn = _native([z, re, im], outputs)
    rv, iv = rng.normal(size=(2, 7)).astype(np.float32)
    iv[0], rv[1], iv[1] = -0.0, -1.0, 0.0  # signed zeros
    zv = (rv + 1j * iv).astype(np.complex64)
    expected = [np.real(zv), np.imag(zv), np.conj(zv), zv]
    for got, want in zip(fn(zv, rv, iv), expected, strict=True):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_polygamma_at_infinities_and_poles_matches_scipy():
    # -inf overflowed math.floor's int64 in the zeta's pole test, and the sum then divided
    # 0 by 0 (ZeroDivisionError): found by the hostile-input sweep (issue 14)
    n, x = pt.dvector("n"), pt.dvector("x")
    fn = _native([n, x], pt.polygamma(n, x))
    orders = np.repeat([1.0, 2.0, 3.0], 5)
    args = np.tile([np.inf, -np.inf, np.nan, 0.0, -1e300], 3)
    with np.errstate(invalid="ignore"):
        expected = sp.polygamma(orders.astype(int), args)
    np.testing.assert_allclose(fn(orders, args), expected, equal_nan=True)


def test_polygamma_where_the_zeta_sum_passes_through_zero_matches_mpmath():
    # zeta(3, -0.5) starts (-0.5)^-3 + 0.5^-3 = 0: the convergence test's term / total raised
    # ZeroDivisionError under numba's Python error model (cephes divides to inf and goes on),
    # so tri_gamma's gradient at -0.5 failed in NUMBA mode (and once the default mode went native)
    mp = pytest.importorskip("mpmath")
    x = pt.dvector("x")
    fn = _native([x], pt.polygamma(2, x))
    args = np.array([-0.5, -1.5, -2.5, -4.5, 0.5])
    with mp.workdps(40):
        expected = [float(mp.polygamma(2, mp.mpf(float(v)))) for v in args]
    np.testing.assert_allclose(fn(args), expected, rtol=1e-13)
