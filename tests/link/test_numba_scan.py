"""Native ``Scan`` loops (``arignote/link/numba/dispatch/scan.py``) against the Python VM.

Every loop runs natively (no object-mode node) and gives the VM's values on seeded random
non-square inputs: recurrences with one and several taps, mapped outputs, non-sequences,
``n_steps`` without sequences, ``until``, the memory rewrite's circular buffers (``keep``),
shared-variable updates, and the gradient loops ``grad`` builds. Numba compiles slowly: the
default run compiles two functions, the rest is slow-marked.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import arignote
import arignote.tensor as pt

numba_backend = pytest.importorskip("arignote.link.numba")


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba's performance hints on non-contiguous dots
        yield


def _compare(inputs, outputs, values, updates=None, native_ops=("Scan",)):
    """Compile natively and on the VM; same values, and the named ops run natively."""
    native = arignote.function(inputs, outputs, mode="NUMBA", updates=updates)
    for node, why in native.runner.fallbacks.items():
        assert node is None or type(node.op).__name__ not in native_ops, f"{node}: {why}"
    assert None not in native.runner.fallbacks
    names = {type(n.op).__name__ for n in native.runner.fgraph.apply_nodes}
    assert set(native_ops) <= names
    reference = arignote.function(inputs, outputs, updates=updates)
    got, expected = native(*values), reference(*values)
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
        assert np.asarray(a).dtype == np.asarray(b).dtype
    return native, got


def _rnn_step(x_t, h, w):
    return pt.tanh(pt.dot(w, h) + x_t)


def test_recurrences_taps_mapped_and_gradient(rng):
    """One function: a one-tap RNN and its gradient (a reverse loop with a mapped output),
    a two-tap recurrence (taps -3 and -1), a mapped output, a non-sequence."""
    x, h0, w = pt.dmatrix("x"), pt.dvector("h0"), pt.dmatrix("w")
    hs = arignote.scan(
        _rnn_step, sequences=x, outputs_info=h0, non_sequences=w, return_updates=False
    )
    cost = hs[-1].sum()
    fib0 = pt.dvector("fib0")
    fib, doubled = arignote.scan(
        lambda a, b, c: (a * 0.5 + b * c, 2 * b),
        outputs_info=[{"initial": fib0, "taps": [-3, -1]}, None],
        non_sequences=pt.constant(1.25),
        n_steps=6,
        return_updates=False,
    )
    outputs = [hs, cost, *arignote.grad(cost, [w, x, h0]), fib, doubled]
    values = [rng.normal(size=(7, 3)), rng.normal(size=3), rng.normal(size=(3, 3))]
    values.append(rng.normal(size=4))
    _compare([x, h0, w, fib0], outputs, values)


def test_until_and_last_value_only(rng):
    """A while loop (``until``) and a loop whose result is only its last row (the memory
    rewrite's circular buffer)."""
    limit, start = pt.dscalar("limit"), pt.dvector("start")
    grown = arignote.scan(
        lambda v, lim: (v * 1.5, arignote.scan.until(v.sum() > lim)),
        outputs_info=start,
        non_sequences=limit,
        n_steps=50,
        return_updates=False,
    )
    x = pt.dmatrix("x")
    total = arignote.scan(
        lambda row, acc: acc + row, sequences=x, outputs_info=pt.zeros(5), return_updates=False
    )[-1]
    values = [np.float64(40.0), np.abs(rng.normal(size=3)) + 0.5, rng.normal(size=(6, 5))]
    _, (steps, last) = _compare([limit, start, x], [grown, total], values)
    assert 1 < len(steps) < 50
    np.testing.assert_allclose(last, values[2].sum(axis=0))


@pytest.mark.slow
def test_zero_steps_and_errors(rng):
    x, h0 = pt.dmatrix("x"), pt.dvector("h0")
    n = pt.iscalar("n")
    hs, rows = arignote.scan(
        lambda x_t, h: (h + x_t, x_t * 2),
        sequences=x,
        outputs_info=[h0, None],
        n_steps=n,
        return_updates=False,
    )
    native, _ = _compare([x, h0, n], [hs, rows], [rng.normal(size=(0, 4)), np.ones(4), 0])
    got = native(rng.normal(size=(5, 4)), np.ones(4), 0)
    assert got[0].shape == (0, 4) and got[1].shape == (0, 4)
    with pytest.raises(ValueError, match="fewer rows"):
        native(rng.normal(size=(2, 4)), np.ones(4), 3)
    with pytest.raises(ValueError, match="negative"):
        native(rng.normal(size=(2, 4)), np.ones(4), -1)


@pytest.mark.slow
def test_shared_updates_and_scalar_rows(rng):
    """A loop over a vector (0-d rows) whose result updates a shared variable."""
    acc = arignote.shared(np.float64(1.5), name="acc")
    v = pt.dvector("v")
    partial = arignote.scan(
        lambda v_t, s: s * 0.9 + v_t, sequences=v, outputs_info=acc, return_updates=False
    )
    values = rng.normal(size=9)
    native = arignote.function([v], partial, mode="NUMBA", updates={acc: partial[-1]})
    state = 1.5
    for _ in range(2):
        expected = []
        for v_t in values:
            state = state * 0.9 + v_t
            expected.append(state)
        np.testing.assert_allclose(native(values), expected, rtol=1e-12)
        np.testing.assert_allclose(acc.get_value(), state, rtol=1e-12)


@pytest.mark.slow
def test_second_order_gradient_of_a_loop(rng):
    x, w = pt.dvector("x"), pt.dmatrix("w")
    hs = arignote.scan(
        lambda h, w: pt.tanh(pt.dot(w, h)),
        outputs_info=x,
        non_sequences=w,
        n_steps=4,
        return_updates=False,
    )
    cost = (hs[-1] ** 2).sum()
    g = arignote.grad(cost, x)
    hessian_vector = arignote.grad((g * pt.arange(3)).sum(), x)
    _compare([x, w], [g, hessian_vector], [rng.normal(size=3), rng.normal(size=(3, 3)) * 0.5])


@pytest.mark.slow
def test_random_state_loop_runs_natively(rng):
    """A loop drawing random numbers feeds its generator from step to step natively."""
    srng = pt.random.RandomStream(3)
    draws, updates = arignote.scan(lambda: srng.normal(size=(2,)), n_steps=3)
    f = arignote.function([], draws, mode="NUMBA", updates=updates)
    assert f.runner.fallbacks == {}
    assert f().shape == (3, 2)


@pytest.mark.slow
def test_outputs_that_are_views_of_taps(rng):
    """Inner outputs aliasing the rows read this step (a swap, a reversed row) are copied
    before the buffers are written, also in circular buffers of one row."""
    a0, b0, m0 = pt.dvector("a0"), pt.dvector("b0"), pt.dmatrix("m0")
    a, b = arignote.scan(
        lambda a, b: (b, a), outputs_info=[a0, b0], n_steps=5, return_updates=False
    )
    c = arignote.scan(
        lambda older, newer: older[::-1],
        outputs_info=[{"initial": m0, "taps": [-2, -1]}],
        n_steps=4,
        return_updates=False,
    )
    values = [rng.normal(size=3), rng.normal(size=3), rng.normal(size=(2, 3))]
    _compare([a0, b0, m0], [a[-1], b[-1], a, c, c[-1]], values)
