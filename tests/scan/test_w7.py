"""Workload W7 (../shared/BENCHMARKS.md) at a reduced size: an RNN ``h_t = tanh(W h_{t-1} +
U x_t)``, forward and the gradient of ``sum(h_T)`` with respect to W, against NumPy
back-propagation through time."""

import numpy as np

import arignote
import arignote.tensor as pt


def numpy_w7(w, u, x, h0):
    hs = [h0]
    for x_t in x:
        hs.append(np.tanh(w @ hs[-1] + u @ x_t))
    g_h, g_w = np.ones_like(h0), np.zeros_like(w)
    for t in range(len(x), 0, -1):
        g_pre = g_h * (1 - hs[t] ** 2)
        g_w += np.outer(g_pre, hs[t - 1])
        g_h = w.T @ g_pre
    return hs[-1], g_w


def test_w7_forward_and_gradient_match_numpy(rng):
    w, u, x, h0 = pt.dmatrix("w"), pt.dmatrix("u"), pt.dmatrix("x"), pt.dvector("h0")
    hs = arignote.scan(
        lambda x_t, h, w, u: pt.tanh(pt.dot(w, h) + pt.dot(u, x_t)),
        sequences=x,
        outputs_info=h0,
        non_sequences=[w, u],
        return_updates=False,
    )
    h_last = hs[-1]
    f = arignote.function([w, u, x, h0], [h_last, arignote.grad(h_last.sum(), w)])
    values = (
        rng.normal(size=(8, 8)) / np.sqrt(8),
        rng.normal(size=(8, 4)) / 2,
        rng.normal(size=(50, 4)),
        rng.normal(size=8),
    )
    got_h, got_g = f(*values)
    want_h, want_g = numpy_w7(*values)
    np.testing.assert_allclose(got_h, want_h, rtol=1e-12)
    np.testing.assert_allclose(got_g, want_g, rtol=1e-10, atol=1e-12)
