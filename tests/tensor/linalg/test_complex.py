"""Complex matrices: values against NumPy/SciPy and gradients against finite differences.

For a real cost C of a complex z the gradient is dC/dRe(z) + i dC/dIm(z) (the convention of
the elementwise library); the checks below perturb real and imaginary parts separately.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

import arignote
import arignote.tensor as pt
from arignote.gradient import grad
from arignote.graph.grad_types import NullTypeGradError
from arignote.tensor import linalg as la


def _complex(rng, *shape):
    return rng.normal(size=shape) + 1j * rng.normal(size=shape)


def _hpd(rng, n):
    a = _complex(rng, n, n)
    return a @ a.conj().T + n * np.eye(n)


def _check(rng, build, reference, args, wrt=0, output=None):
    """Values of ``build`` against ``reference`` and the gradient of a random real-linear cost
    of its output with respect to argument ``wrt`` against central differences."""
    symbols = [pt.tensor(shape=(None,) * a.ndim, dtype=a.dtype.name) for a in args]
    out = build(*symbols)
    out = out if output is None else out[output]
    expected = reference(*args)
    expected = expected if output is None else expected[output]
    np.testing.assert_allclose(arignote.function(symbols, out)(*args), expected, rtol=1e-9)
    weights = (
        _complex(rng, *np.shape(expected))
        if np.iscomplexobj(expected)
        else rng.normal(size=np.shape(expected))
    )
    cost = pt.real((pt.constant(np.conj(weights)) * out).sum())
    symbolic = arignote.function(symbols, grad(cost, symbols[wrt]))(*args)

    def numeric_cost(value):
        shifted = list(args)
        shifted[wrt] = value
        result = reference(*shifted)
        result = result if output is None else result[output]
        return np.real(np.sum(np.conj(weights) * result))

    point, eps = args[wrt], 1e-6
    numeric = np.zeros(point.shape, dtype=point.dtype)
    for index in np.ndindex(point.shape):
        for unit in (1, 1j) if np.iscomplexobj(point) else (1,):
            step = np.zeros_like(point)
            step[index] = unit * eps
            slope = (numeric_cost(point + step) - numeric_cost(point - step)) / (2 * eps)
            numeric[index] += unit * slope
    np.testing.assert_allclose(symbolic, numeric, rtol=1e-5, atol=1e-6)


def test_inv_det_slogdet(rng):
    a = _complex(rng, 3, 3) + 3 * np.eye(3)
    _check(rng, la.inv, np.linalg.inv, [a])
    _check(rng, la.det, np.linalg.det, [a])
    _check(rng, la.slogdet, np.linalg.slogdet, [a], output=1)


@pytest.mark.parametrize("wrt", [0, 1])
def test_solve(rng, wrt):
    a, b = _complex(rng, 3, 3) + 3 * np.eye(3), _complex(rng, 3, 2)
    _check(rng, la.solve, np.linalg.solve, [a, b], wrt=wrt)


@pytest.mark.parametrize("assume_a", ["her", "pos"])
def test_solve_hermitian_reads_one_triangle(rng, assume_a):
    a, b = _hpd(rng, 3), _complex(rng, 3, 2)

    def reference(m, v):
        full = np.tril(m) + np.tril(m, -1).conj().T
        return scipy.linalg.solve(full, v, assume_a=assume_a, lower=True)

    _check(rng, lambda m, v: la.solve(m, v, assume_a=assume_a, lower=True), reference, [a, b])


@pytest.mark.parametrize("trans", [0, 1, 2])
@pytest.mark.parametrize("wrt", [0, 1])
def test_solve_triangular(rng, trans, wrt):
    a, b = _complex(rng, 3, 3) + 3 * np.eye(3), _complex(rng, 3, 2)
    _check(
        rng,
        lambda m, v: la.solve_triangular(m, v, trans=trans, lower=True),
        lambda m, v: scipy.linalg.solve_triangular(m, v, trans=trans, lower=True),
        [a, b],
        wrt=wrt,
    )


@pytest.mark.parametrize("lower", [True, False])
def test_cho_solve(rng, lower):
    c = scipy.linalg.cholesky(_hpd(rng, 3), lower=lower)
    b = _complex(rng, 3, 2)
    for wrt in (0, 1):
        _check(
            rng,
            lambda m, v: la.cho_solve((m, lower), v),
            lambda m, v: scipy.linalg.cho_solve((m, lower), v),
            [c, b],
            wrt=wrt,
        )


def test_pinv_lstsq_and_singular_values(rng):
    a = _complex(rng, 4, 3)
    _check(rng, la.pinv, np.linalg.pinv, [a])
    _check(
        rng,
        lambda m: la.svd(m, compute_uv=False),
        lambda m: np.linalg.svd(m, compute_uv=False),
        [a],
    )
    b = _complex(rng, 4, 2)
    for wrt in (0, 1):
        _check(
            rng,
            lambda m, v: la.lstsq(m, v)[0],
            lambda m, v: np.linalg.lstsq(m, v)[0],
            [a, b],
            wrt=wrt,
        )


def test_expm(rng):
    _check(rng, la.expm, scipy.linalg.expm, [_complex(rng, 3, 3) / 2])


@pytest.mark.parametrize("complex_input", [False, True])
def test_eig_eigenvalues(rng, complex_input):
    a = _complex(rng, 3, 3) if complex_input else rng.normal(size=(3, 3))

    def sorted_eigenvalues(m):
        # a smooth labelling of the eigenvalues for finite differences: sort by real part
        w = np.linalg.eigvals(m)
        return w[np.argsort(w.real)]

    x = pt.matrix(dtype=a.dtype.name)
    w, _ = la.eig(x)
    order = np.argsort(np.linalg.eigvals(a).real)
    weights = _complex(rng, 3)
    cost = pt.real((pt.constant(np.conj(weights[np.argsort(order)])) * w).sum())
    symbolic = arignote.function([x], grad(cost, x))(a)

    def numeric_cost(m):
        return np.real(np.sum(np.conj(weights) * sorted_eigenvalues(m)))

    numeric = np.zeros(a.shape, dtype=a.dtype)
    eps = 1e-6
    for index in np.ndindex(a.shape):
        for unit in (1, 1j) if complex_input else (1,):
            step = np.zeros_like(a)
            step[index] = unit * eps
            numeric[index] += unit * (numeric_cost(a + step) - numeric_cost(a - step)) / (2 * eps)
    np.testing.assert_allclose(symbolic, numeric, rtol=1e-5, atol=1e-6)


def test_decompositions_refuse_complex_gradients_with_a_reason(rng):
    x = pt.matrix(dtype="complex128")
    for out in (la.cholesky(x), la.eigh(x)[1], la.svd(x)[0], la.qr(x)[1]):
        with pytest.raises(NullTypeGradError, match="real matrices"):
            grad(pt.real(out.sum()), x)
