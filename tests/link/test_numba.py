"""The Numba backend: whole graphs compiled natively, compared with the Python VM."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from arignote.tensor.optimize import root_scalar

import arignote
import arignote.tensor as pt
from arignote.link.jit import JITRunner

numba_backend = pytest.importorskip("arignote.link.numba")


def _both(inputs, outputs):
    native = arignote.function(inputs, outputs, mode="NUMBA", on_unused_input="ignore")
    vm = arignote.function(inputs, outputs, mode="FAST_RUN", on_unused_input="ignore")
    return native, vm


def _compare(inputs, outputs, values, rtol=1e-12):
    """Values, dtypes and shapes of NUMBA equal the VM's; no output aliases an input."""
    native, vm = _both(inputs, outputs)
    assert isinstance(native.runner, JITRunner)
    assert native.runner.fallbacks == {}, native.runner.fallbacks
    got, expected = native(*values), vm(*values)
    got = got if isinstance(got, list) else [got]
    expected = expected if isinstance(expected, list) else [expected]
    for g, e in zip(got, expected):
        assert isinstance(g, np.ndarray)
        assert g.dtype == e.dtype and g.shape == e.shape
        np.testing.assert_allclose(g, e, rtol=rtol)
        assert not any(np.shares_memory(g, v) for v in values)
    return native


def test_import_arignote_does_not_import_numba():
    code = "import sys, arignote; assert 'numba' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_w2_log_density_and_gradient_runs_natively(rng):
    mu, log_sigma = pt.dscalar("mu"), pt.dscalar("log_sigma")
    data = pt.constant(rng.normal(size=37), name="y")
    logp = (-0.5 * ((data - mu) / pt.exp(log_sigma)) ** 2 - log_sigma).sum()
    outputs = [logp, *arignote.grad(logp, [mu, log_sigma])]
    _compare([mu, log_sigma], outputs, [np.array(0.2), np.array(0.4)])


def test_elemwise_broadcasting_casts_and_fused_expressions(rng):
    x = pt.tensor("x", dtype="float64", shape=(None, None))
    row = pt.tensor("row", dtype="float32", shape=(1, None))
    n = pt.tensor("n", dtype="int32", shape=(None, 1))
    outputs = [
        pt.exp(-(x**2)) * pt.sin(row) + pt.log1p(pt.abs(x)),
        pt.switch(x > 0, x, row) // 2,
        (n * 3 + 1) % 5,
        pt.cast(x * 4, "int16"),
        pt.sigmoid(x) + pt.softplus(row) + pt.erf(x),
        pt.maximum(x, n).astype("float32"),
        x >= row,
    ]
    values = [rng.normal(size=(3, 4)), rng.normal(size=(1, 4)).astype("float32")]
    values.append(rng.integers(-5, 5, size=(3, 1)).astype("int32"))
    _compare([x, row, n], outputs, values, rtol=1e-6)


def test_runtime_broadcasting_is_refused_as_on_the_vm():
    x, y = pt.dvector("x"), pt.dvector("y")
    native = arignote.function([x, y], x + y, mode="NUMBA")
    with pytest.raises(ValueError, match="runtime broadcasting"):
        native(np.ones(3), np.ones(1))


def test_reductions_over_axes(rng):
    x = pt.tensor("x", dtype="float64", shape=(None, None, None))
    b = pt.tensor("b", dtype="int64", shape=(None, None))
    outputs = [
        x.sum(),
        x.sum(axis=1),
        x.prod(axis=(0, 2)),
        x.max(axis=2),
        x.min(),
        x.mean(axis=0),
        b.sum(axis=0),
        (x > 0).all(axis=1),
        (b > 0).any(),
    ]
    values = [rng.normal(size=(2, 3, 4)), rng.integers(-3, 3, size=(3, 5))]
    _compare([x, b], outputs, values, rtol=1e-12)


def test_products_and_blas(rng):
    a, m = pt.dmatrix("a"), pt.dmatrix("m")
    v, w = pt.dvector("v"), pt.dvector("w")
    outputs = [pt.dot(a, m), pt.dot(a, v), pt.dot(v, v), pt.matmul(a, m), 2.0 * pt.dot(a, v) + w]
    outputs.append(a + 3.0 * pt.outer(w, v))
    values = [rng.normal(size=(3, 4)), rng.normal(size=(4, 2))]
    values += [rng.normal(size=4), rng.normal(size=3)]
    _compare([a, m, v, w], outputs, values, rtol=1e-10)


def test_indexing_shapes_and_creation(rng):
    x = pt.dmatrix("x")
    i = pt.lscalar("i")
    y = pt.dvector("y")
    outputs = [
        x[1:, ::2],
        x[i],
        x[-1, i],
        x.T[None, 1],
        pt.set_subtensor(x[:, 1], y),
        pt.inc_subtensor(x[1:3], 1.5),
        x.reshape((x.shape[1], x.shape[0])),
        x.flatten(),
        pt.alloc(y, 2, y.shape[0]),
        pt.concatenate([x, x * 2], axis=1),
        pt.stack([x[0, 0], x[1, 1], y[0]]),
        pt.specify_shape(x, (3, 4)) + 1,
        x,
    ]
    values = [rng.normal(size=(3, 4)), np.array(2), rng.normal(size=3)]
    native = _compare([x, i, y], outputs, values)
    with pytest.raises(AssertionError):
        native(rng.normal(size=(4, 3)), np.array(1), rng.normal(size=4))


def test_an_op_without_kernel_runs_its_perform_in_object_mode(rng):
    # SciPy's root finders are Python code: their op runs perform in object mode
    a = pt.dscalar("a")
    x = pt.ones((), dtype="float64")
    solved = root_scalar(x**2 - (1 + a**2), x, method="newton", jac=True)[0]
    native, vm = _both([a], solved * 2)
    reasons = {why.key for why in native.runner.fallbacks.values()}
    assert reasons == {"RootScalarOp"}
    assert reasons <= set(numba_backend.FALLBACKS)
    value = rng.normal()
    np.testing.assert_allclose(native(value), vm(value))


def test_random_graphs_run_natively_with_the_vm_draws():
    rng_var = arignote.shared(np.random.default_rng(3))
    draw = pt.random.normal(0, 1, size=(3,), rng=rng_var)
    native = arignote.function([], draw, mode="NUMBA")
    assert native.runner.fallbacks == {}
    first, second = native(), native()  # the shared generator advances between calls
    reference = np.random.default_rng(3)
    np.testing.assert_array_equal(first, reference.normal(0, 1, size=3))
    np.testing.assert_array_equal(second, reference.normal(0, 1, size=3))


def test_trust_input_and_checks(rng):
    x = pt.dvector("x")
    native = arignote.function([x], pt.exp(x), mode="NUMBA")
    vm = arignote.function([x], pt.exp(x))
    with pytest.raises(TypeError) as native_error:
        native(np.ones((3, 2)))
    with pytest.raises(TypeError) as vm_error:
        vm(np.ones((3, 2)))
    assert str(native_error.value) == str(vm_error.value)
    native.trust_input = True
    value = rng.normal(size=4)
    np.testing.assert_allclose(native(value), np.exp(value))


def test_cumulative_sums_and_products_are_native(rng):
    x = pt.tensor("x", dtype="int32", shape=(None, None, None))
    y = pt.dmatrix("y")
    outputs = [pt.cumsum(x, axis=1), pt.cumprod(x, axis=2), pt.cumsum(x), pt.cumsum(y.T, axis=1)]
    values = [rng.integers(-3, 4, size=(2, 3, 4)).astype("int32"), rng.normal(size=(3, 5))]
    _compare([x, y], outputs, values, rtol=1e-14)


def test_logsumexp_in_two_passes_with_infinities(rng):
    x = pt.tensor("x", dtype="float64", shape=(None, None, None))
    y = pt.fvector("y")
    outputs = [pt.logsumexp(x, axis=1), pt.logsumexp(x), pt.logsumexp(x, axis=(0, 2))]
    outputs.append(pt.logsumexp(y))
    value = rng.normal(size=(2, 3, 4))
    value[0, 0, 0] = np.inf
    value[1, :, 1] = -np.inf
    _compare([x, y], outputs, [value, rng.normal(size=5).astype("float32")], rtol=1e-6)


def test_native_report_names_each_node():
    a = pt.dscalar("a")
    x = pt.ones((), dtype="float64")
    solved = root_scalar(x**2 - (1 + pt.exp(a)), x, method="newton", jac=True)[0]
    native = arignote.function([a], solved, mode="NUMBA")
    report = numba_backend.native_report(native.runner).splitlines()
    assert len(report) == len(native.maker.fgraph.apply_nodes)
    assert any(line.endswith(": native") for line in report)
    assert any("object mode (RootScalarOp" in line for line in report)


def test_tiered_mode_runs_the_vm_first_then_native_code(rng):
    x, y = pt.dvector("x"), pt.dvector("y")
    out = (pt.exp(x) * y).sum() + pt.log1p(x**2)
    f = arignote.function([x, y], out, mode="TIERED")
    runner = f.runner
    assert not runner.is_native
    values = [rng.normal(size=5), rng.normal(size=5)]
    expected = arignote.function([x, y], out)(*values)
    np.testing.assert_allclose(f(*values), expected)  # first call: on the VM
    assert runner.wait(timeout=300), runner.native_error
    assert runner.fallbacks == {}
    np.testing.assert_allclose(f(*values), expected, rtol=1e-12)
    assert f(*values).dtype == expected.dtype


_UNARY = [pt.exp, pt.tanh, pt.abs, pt.sigmoid, lambda v: pt.log1p(v * v), lambda v: v.sum(axis=0)]
_BINARY = [pt.add, pt.mul, pt.sub, pt.maximum, lambda u, v: pt.switch(u > v, u, v * 2)]


@pytest.mark.slow
def test_random_graphs_agree_with_the_vm():
    hypothesis = pytest.importorskip("hypothesis")
    st = hypothesis.strategies

    @hypothesis.settings(max_examples=25, deadline=None)
    @hypothesis.given(st.lists(st.tuples(st.integers(0, 10), st.integers(0, 10)), min_size=1))
    def check(steps):
        x, y = pt.dmatrix("x"), pt.dmatrix("y")
        pool = [x, y]
        for a, b in steps[:8]:
            u, v = pool[a % len(pool)], pool[b % len(pool)]
            if u.ndim != v.ndim:
                pool.append(_UNARY[a % 5](u))
            elif a % 2:
                pool.append(_BINARY[b % len(_BINARY)](u, v))
            else:
                pool.append(_UNARY[b % len(_UNARY)](u))
        values = [np.linspace(-1, 1, 12).reshape(3, 4), np.linspace(2, -1, 12).reshape(3, 4)]
        _compare([x, y], pool[2:], values)

    check()
