"""Native code of the W4 and W7 benchmarks' steps: the transposes of an MLP's gradients
reach BLAS as Fortran-ordered views (no copy), views adding unit dimensions stay C-contiguous,
the derivative of tanh is one vectorised loop, the step's loss and gradients are NumPy's, and
a tiered RNN (an in-place gradient loop on the VM) goes native."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.compile.mode import Mode
from arignote.link.jit import JITRunner
from arignote.link.tiered import TieredLinker

numba = pytest.importorskip("numba")
numba_backend = pytest.importorskip("arignote.link.numba")
dispatch = pytest.importorskip("arignote.link.numba.dispatch")


def _kernel(var):
    return dispatch.numba_funcify(var.owner.op, var.owner)


@pytest.mark.parametrize("shape", [(3, 5), (2, 3, 4)])
def test_full_transpose_is_a_fortran_view(rng, shape):
    x = pt.tensor("float64", shape=(None,) * len(shape))
    kernel = _kernel(x.T)
    value = rng.normal(size=shape)
    out = kernel(value)
    np.testing.assert_array_equal(out, value.T)
    assert np.shares_memory(out, value) and out.flags.f_contiguous
    assert kernel.nopython_signatures[0].return_type.layout == "F"


def test_partial_transpose_stays_a_strided_view(rng):
    x = pt.tensor3("x")
    value = rng.normal(size=(2, 3, 4))
    out = _kernel(x.dimshuffle(1, 0, 2))(value)
    np.testing.assert_array_equal(out, value.transpose(1, 0, 2))
    assert np.shares_memory(out, value)


def test_transposed_products_call_blas_without_copies(rng):
    x, g = pt.dmatrices("x", "g")
    fn = arignote.function([x, g], [pt.dot(x.T, g), pt.dot(g.T, x)], mode="NUMBA")
    assert isinstance(fn.runner, JITRunner) and fn.runner.fallbacks == {}
    xv, gv = rng.normal(size=(7, 5)), rng.normal(size=(7, 4))
    with warnings.catch_warnings():
        # numba warns when np.dot must copy an operand of unknown layout to C order
        warnings.simplefilter("error", numba.NumbaPerformanceWarning)
        got = fn(xv, gv)
    np.testing.assert_allclose(got[0], xv.T @ gv, rtol=1e-13)
    np.testing.assert_allclose(got[1], gv.T @ xv, rtol=1e-13)
    # Fortran-ordered and strided inputs (other layouts, other kernels) give the same values
    for a, b in ((np.asfortranarray(xv), gv), (xv[::2], gv[::2])):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", numba.NumbaPerformanceWarning)  # copied: strided
            got = fn(a, b)
        np.testing.assert_allclose(got[0], a.T @ b, rtol=1e-13)
        np.testing.assert_allclose(got[1], b.T @ a, rtol=1e-13)


def _mlp_step(sym):
    x, labels, w1, b1, w2, b2 = sym
    h = pt.tanh(pt.dot(x, w1) + b1)
    log_probs = pt.special.log_softmax(pt.dot(h, w2) + b2, axis=1)
    loss = -(labels * log_probs).sum() / x.shape[0]
    return [loss, *arignote.grad(loss, [w1, b1, w2, b2])]


def _mlp_numpy(x, labels, w1, b1, w2, b2):
    h = np.tanh(x @ w1 + b1)
    logits = h @ w2 + b2
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    g_logits = (np.exp(log_probs) - labels) / x.shape[0]
    g_h = (g_logits @ w2.T) * (1 - h**2)
    loss = -(labels * log_probs).sum() / x.shape[0]
    return [loss, x.T @ g_h, g_h.sum(axis=0), h.T @ g_logits, g_logits.sum(axis=0)]


def test_mlp_step_is_numpys_and_its_tanh_derivative_is_one_fast_loop(rng):
    sym = [pt.dmatrix("x"), pt.dmatrix("t"), pt.dmatrix("w1"), pt.dvector("b1")]
    sym += [pt.dmatrix("w2"), pt.dvector("b2")]
    fn = arignote.function(sym, _mlp_step(sym), mode="NUMBA")
    assert fn.runner.fallbacks == {}
    n, d, hidden, classes = 9, 13, 6, 4
    x = rng.normal(size=(n, d)) * 3  # |pre-activations| up to ~20: tanh' tiny but not zero
    labels = np.eye(classes)[rng.integers(0, classes, size=n)]
    params = [rng.normal(size=(d, hidden)), rng.normal(size=hidden)]
    params += [rng.normal(size=(hidden, classes)), rng.normal(size=classes)]
    with warnings.catch_warnings():
        warnings.simplefilter("error", numba.NumbaPerformanceWarning)
        got = fn(x, labels, *params)
    for g, e in zip(got, _mlp_numpy(x, labels, *params)):
        np.testing.assert_allclose(g, e, rtol=1e-10, atol=1e-14)
    # the forward tanh and its derivative (sech^2, the stable form) share one loop, and every
    # transcendental in it is a vectorisable vmath function (no scalar C-library call)
    fused = [n for n in fn.runner.fgraph.toposort() if "tanh" in str(n.op)]
    assert len(fused) == 1
    source = dispatch.numba_funcify(fused[0].op, fused[0]).arignote_source
    assert "vmath.tanh" in source and "vmath.cosh" in source and "np.cosh" not in source


@pytest.mark.parametrize(
    ("order", "shape", "layout"),
    [
        (("x", 0), (5,), "C"),
        ((0, "x"), (5,), "C"),
        (("x", "x"), (), "C"),
        ((0, "x", 1), (2, 3), "C"),
    ],
)
def test_inserting_unit_dimensions_keeps_c_order(rng, order, shape, layout):
    x = pt.tensor("float64", shape=(None,) * len(shape))
    view = x.dimshuffle(*order)
    kernel = _kernel(view)
    value = rng.normal(size=shape)
    out = kernel(value)
    np.testing.assert_array_equal(
        out, np.expand_dims(value, [k for k, d in enumerate(order) if d == "x"])
    )
    assert np.shares_memory(out, value) or value.size == 1
    # the kernel is shared by the process: other tests may have compiled it for other layouts
    layouts = {s.args[0].layout: s.return_type.layout for s in kernel.nopython_signatures}
    assert layouts["C"] == layout


def test_unit_dimension_views_of_strided_and_dropped_dimensions(rng):
    column = pt.tensor("float64", shape=(None, 1))
    kernel = _kernel(column.dimshuffle(0))  # a length-1 dimension dropped
    contiguous = rng.normal(size=(4, 1))
    strided = rng.normal(size=(4, 2))[:, :1]  # not contiguous: the strided view
    for value in (contiguous, strided):
        out = kernel(value)
        np.testing.assert_array_equal(out, value[:, 0])
        assert np.shares_memory(out, value)
    layouts = {s.args[0].layout: s.return_type.layout for s in kernel.nopython_signatures}
    assert layouts == {"C": "C", "A": "A"}


def test_tiered_rnn_with_an_in_place_scan_goes_native(rng, tmp_path, monkeypatch):
    """The default mode's VM graph writes a gradient loop's buffer in place; the native
    version runs it out of place (``Scan.with_inplace(())``) instead of staying on the VM."""
    monkeypatch.setenv("ARIGNOTE_CACHE_DIR", str(tmp_path))
    w, x, h0 = pt.dmatrix("w"), pt.dmatrix("x"), pt.dvector("h0")
    hs = arignote.scan(
        lambda x_t, h, w: pt.tanh(pt.dot(w, h) + x_t),
        sequences=x,
        outputs_info=h0,
        non_sequences=[w],
        return_updates=False,
    )
    cost = hs[-1].sum()
    mode = Mode(TieredLinker(hot_calls=2, hot_seconds=1e9), "fast_run")
    f = arignote.function([w, x, h0], [cost, arignote.grad(cost, w)], mode=mode)
    assert any(getattr(n.op, "destroy_map", None) for n in f.maker.fgraph.apply_nodes)
    values = [rng.normal(size=(4, 4)) / 2, rng.normal(size=(6, 4)), rng.normal(size=4)]
    expected = arignote.function([w, x, h0], [cost, arignote.grad(cost, w)], mode="VM")(*values)
    for _ in range(3):
        f(*values)
    assert f.runner.wait(300), f.runner.native_error
    assert f.runner.is_native
    for got, want in zip(f(*values), expected):
        np.testing.assert_allclose(got, want, rtol=1e-12)
