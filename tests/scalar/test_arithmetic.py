"""Scalar arithmetic: clip's gradient partition, complex chain rules, shifts."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.scalar as ps
from arignote.gradient import grad
from arignote.graph.grad_types import NullTypeGradError


@pytest.mark.parametrize(
    ("x", "lo", "hi", "expected"),
    [
        (0.5, 0.0, 1.0, (1, 0, 0)),
        (0.0, 0.0, 1.0, (1, 0, 0)),  # on a bound: still inside
        (1.0, 0.0, 1.0, (1, 0, 0)),
        (-1.0, 0.0, 1.0, (0, 1, 0)),
        (2.0, 0.0, 1.0, (0, 0, 1)),
        (0.5, 1.0, 0.0, (0, 0, 1)),  # lo > hi: np.clip returns hi everywhere
        (-5.0, 1.0, 0.0, (0, 0, 1)),
    ],
)
def test_clip_gradient_goes_to_the_active_input(x, lo, hi, expected):
    xs, los, his = ps.float64("x"), ps.float64("lo"), ps.float64("hi")
    out = ps.clip(xs, los, his)
    fn = arignote.function([xs, los, his], [out, *grad(out, [xs, los, his])])
    value, *grads = fn(x, lo, hi)
    assert value == np.clip(x, lo, hi)
    assert tuple(grads) == expected


def test_mul_and_div_conjugate_complex_partners():
    z, w = ps.scalar("z", "complex128"), ps.scalar("w", "complex128")
    gz = grad(ps.real(z * w), z)
    gw = grad(ps.real(z / w), w)
    fn = arignote.function([z, w], [gz, gw])
    zv, wv = 1 + 2j, 3 - 1j
    got_z, got_w = fn(zv, wv)
    # C = Re(z w): dC/da + i dC/db = conj(w); C = Re(z / w): -conj(z / w^2)
    assert got_z == pytest.approx(np.conj(wv))
    assert got_w == pytest.approx(-np.conj(zv / wv**2))


def test_sign_of_complex_has_no_gradient():
    z = ps.scalar("z", "complex128")
    with pytest.raises(NullTypeGradError, match="sign"):
        grad(ps.real(ps.sign(z)), z)


def test_shifts():
    a, b = ps.int64("a"), ps.int64("b")
    assert arignote.function([a, b], [ps.left_shift(a, b), ps.right_shift(a, b)])(5, 2) == [20, 1]
    with pytest.raises(TypeError, match="left_shift"):
        ps.left_shift(ps.float64(), ps.float64())


@pytest.mark.parametrize("dtype", ["float64", "float32", "int16", "uint8", "bool"])
def test_clip_is_numpy_clip(dtype):
    edges = np.array([np.nan, -np.inf, np.inf, -1.0, 0.0, 0.5, 2.0])
    with np.errstate(invalid="ignore"):
        x, lo, hi = (a.astype(dtype) for a in np.meshgrid(edges, edges, edges, indexing="ij"))
        expected = np.clip(x, lo, hi)
    got = ps.clip.elementwise(x, lo, hi)
    np.testing.assert_array_equal(got, expected)
    assert got.dtype == expected.dtype
