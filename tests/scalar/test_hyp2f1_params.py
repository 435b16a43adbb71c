"""Derivatives of 2F1(a, b; c; z) in its parameters (``Hyp2F1Grad``) against mpmath."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.scalar as ps
import arignote.tensor as pt
from arignote.gradient import grad, verify_grad
from arignote.graph.grad_types import NullTypeGradError

mp = pytest.importorskip("mpmath")

# inside the disc and below it (Pfaff's transformation), polynomials (a = -2: the derivative
# series does not end), b = 0 (2F1 = 1), negative non-integer parameters, z near 1 and -1
POINTS = [
    (0.5, 1.5, 2.5, 0.3), (1.0, 2.0, 3.0, -0.5), (2.3, -1.7, 4.1, 0.9), (-2.0, 1.5, 2.5, 0.4),
    (0.5, 1.5, 2.5, -3.0), (3.0, 4.0, 5.5, -20.0), (1.2, 0.0, 2.0, 0.5), (-0.5, -1.5, 0.7, 0.6),
    (10.0, 12.0, 15.0, 0.2), (0.1, 0.2, 0.3, 0.99), (1.0, 1.0, 2.0, -0.999), (-3.0, 2.0, 1.5, -0.7),
]  # fmt: skip


def _exact(a, b, c, z, wrt):
    with mp.workdps(40):
        args = [mp.mpf(a), mp.mpf(b), mp.mpf(c)]

        def moved(t):
            return mp.hyp2f1(*[t if k == wrt else v for k, v in enumerate(args)], mp.mpf(z))

        return float(mp.diff(moved, args[wrt]))


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE", "NUMBA", "JAX"])
def test_parameter_derivatives_match_mpmath(mode):
    if mode == "JAX":
        pytest.importorskip("jax")
    a, b, c, z = pt.dvectors("a", "b", "c", "z")
    # (JAX has no hyp2f1 of its own for every z: the derivatives alone are compiled there)
    fn = arignote.function([a, b, c, z], grad(pt.hyp2f1(a, b, c, z).sum(), [a, b, c]), mode=mode)
    got = fn(*(np.array(column) for column in zip(*POINTS, strict=True)))
    for wrt in range(3):
        expected = [_exact(*p, wrt) for p in POINTS]
        np.testing.assert_allclose(got[wrt], expected, rtol=1e-11, atol=1e-14)


def test_where_the_series_cannot_be_summed_the_derivative_is_nan():
    a, b, c, z = pt.dvectors("a", "b", "c", "z")
    fn = arignote.function([a, b, c, z], grad(pt.hyp2f1(a, b, c, z).sum(), a))
    got = fn([0.5, 0.5, 0.5, 0.5], [1.5, 1.5, 1.5, 1.5], [2.5, -1.0, 2.5, 2.5], [1.0, 0.5, 2.0, 0])
    np.testing.assert_array_equal(got, [np.nan, np.nan, np.nan, 0.0])


def test_pytensor_spelling_and_second_derivatives():
    a, b, c, z = (ps.float64(n) for n in "abcz")
    partials = ps.hyp2f1_grad(a, b, c, z, (0, 2))
    got = arignote.function([a, b, c, z], partials)(0.5, 1.5, 2.5, 0.3)
    np.testing.assert_allclose(got, [_exact(0.5, 1.5, 2.5, 0.3, k) for k in (0, 2)], rtol=1e-12)
    with pytest.raises(NullTypeGradError, match="not implemented"):
        grad(partials[0], a)
    rng = np.random.default_rng(5)
    for wrt in range(3):
        op = pt.Elemwise(ps.Hyp2F1Grad(wrt))
        verify_grad(lambda x, op=op: op(0.7, -1.3, 2.2, x), [rng.uniform(-2, 0.8, (2, 3))], rng=rng)
