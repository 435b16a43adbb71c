"""Scan in JAX mode (lax.scan / lax.while_loop) against the VM: taps, sequences, gradients,
shared updates, random draws, ``until`` and step counts known only at run time."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("jax", reason="the JAX backend needs jax (pip install arignote[jax])")

import arignote
import arignote.tensor as pt
from arignote.link.jax import DynamicShapeError
from arignote.link.jax.dispatch import UNSUPPORTED
from arignote.scan.utils import until
from arignote.tensor.random import RandomStream
from tests.link.jax._compare import check_vm_and_jax_agree


def test_scan_is_no_longer_unsupported():
    assert "arignote.scan.op.Scan" not in UNSUPPORTED


def test_rnn_states_loss_and_gradients(rng):
    w, h0, xs = pt.dmatrix("w"), pt.dvector("h0"), pt.dmatrix("xs")
    u = pt.dmatrix("u")
    states = arignote.scan(
        lambda x_t, h, w, u: pt.tanh(w @ h + u @ x_t),
        sequences=xs,
        outputs_info=h0,
        non_sequences=[w, u],
        return_updates=False,
    )
    loss = (states[-1] ** 2).sum() + states.mean()
    args = (
        0.4 * rng.normal(size=(3, 3)),
        rng.normal(size=3),
        rng.normal(size=(5, 2)),
        rng.normal(size=(3, 2)),
    )
    outs = [states, loss, *arignote.grad(loss, [w, h0, xs, u])]
    check_vm_and_jax_agree([w, h0, xs, u], outs, args)


def test_several_taps_and_several_outputs(rng):
    x0, y0, seq = pt.dmatrix("x0"), pt.dvector("y0"), pt.dmatrix("seq")

    def step(s, x3, x1, y1):
        return x3 * 0.5 + x1 * s, y1 + s.sum()

    (xs, ys), _ = arignote.scan(
        step,
        sequences=seq,
        outputs_info=[{"initial": x0, "taps": [-3, -1]}, y0],
    )
    args = (rng.normal(size=(4, 2)), rng.normal(size=1), rng.normal(size=(6, 2)))
    cost = (xs**2).sum() + ys[-1].sum()
    check_vm_and_jax_agree([x0, y0, seq], [xs, ys, cost, *arignote.grad(cost, [x0, seq])], args)


def test_sequence_taps_mapped_outputs_and_go_backwards(rng):
    v = pt.dvector("v")
    diffs, _ = arignote.scan(lambda later, now: later - now, sequences={"input": v, "taps": [1, 0]})
    rev, _ = arignote.scan(
        lambda e, acc: acc + e, sequences=v, outputs_info=pt.constant(0.0), go_backwards=True
    )
    check_vm_and_jax_agree(
        [v], [diffs, rev, arignote.grad((diffs**2).sum() + rev.sum(), v)], (rng.normal(size=7),)
    )


def test_constant_and_symbolic_step_counts(rng):
    a, k = pt.dvector("a"), pt.iscalar("k")
    power = arignote.scan(
        lambda prior, a: prior * a,
        outputs_info=pt.ones_like(a),
        non_sequences=a,
        n_steps=k,
        return_updates=False,
    )
    # a run-time step count: a while loop, the output read through its last row only
    check_vm_and_jax_agree([a, k], power[-1], (rng.normal(size=4), 3))
    check_vm_and_jax_agree([a, k], power[-1], (rng.normal(size=4), 0))
    fixed = arignote.scan(
        lambda prior, a: prior * a,
        outputs_info=pt.ones_like(a),
        non_sequences=a,
        n_steps=4,
        return_updates=False,
    )
    check_vm_and_jax_agree([a], [fixed, arignote.grad(fixed[-1].sum(), a)], (rng.normal(size=3),))


def test_full_output_of_run_time_step_count_says_what_to_make_static():
    x0, n = pt.dvector("x0"), pt.iscalar("n")
    fib = arignote.scan(
        lambda a, b: a + b,
        outputs_info={"initial": x0, "taps": [-2, -1]},
        n_steps=n,
        return_updates=False,
    )
    f = arignote.function([x0, n], fib, mode="JAX")
    with pytest.raises(DynamicShapeError, match="make n_steps a constant"):
        f(np.array([0.0, 1.0]), 5)


def test_run_time_step_count_is_checked_like_the_vm():
    v, n = pt.dvector("v"), pt.iscalar("n")
    total = arignote.scan(
        lambda e, acc: acc + e,
        sequences=v,
        outputs_info=pt.constant(0.0),
        n_steps=n,
        return_updates=False,
    )[-1]
    f = arignote.function([v, n], total, mode="JAX")
    assert float(f(np.arange(4.0), 3)) == 3.0
    with pytest.raises(ValueError, match="negative"):
        f(np.arange(4.0), -1)
    with pytest.raises(ValueError, match="fewer than the steps"):
        f(np.arange(4.0), 9)


def test_until_stops_where_the_vm_stops():
    limit = pt.dscalar("limit")
    values, _ = arignote.scan(
        lambda value, limit: (value * 2, until(value * 2 > limit)),
        outputs_info=pt.constant(1.0),
        non_sequences=limit,
        n_steps=50,
    )
    for bound in (100.0, 0.5, 1e30):
        check_vm_and_jax_agree([limit], values[-1], (bound,))
    with pytest.raises(DynamicShapeError, match="until"):
        arignote.function([limit], values, mode="JAX")(100.0)


def test_shared_variables_updated_in_the_loop(rng):
    counter = arignote.shared(np.int64(0), name="counter")
    total = arignote.shared(np.zeros(2), name="total")
    steps, x = pt.iscalar("steps"), pt.dvector("x")
    _, updates = arignote.scan(
        lambda x: {counter: counter + 1, total: total + x}, non_sequences=x, n_steps=steps
    )
    run = arignote.function([steps, x], [], updates=updates, mode="JAX")
    xv = rng.normal(size=2)
    run(5, xv)
    run(2, xv)
    assert int(counter.get_value()) == 7
    np.testing.assert_allclose(total.get_value(), 7 * xv)


def test_random_draws_advance_at_every_step_and_call():
    srng = RandomStream(seed=3)
    walk, updates = arignote.scan(
        lambda position: position + srng.normal(0, 1),
        outputs_info=pt.constant(0.0),
        n_steps=6,
    )
    f = arignote.function([], walk, updates=updates, mode="JAX")
    first, second = np.asarray(f()), np.asarray(f())
    assert first.shape == second.shape == (6,)
    steps = np.diff(np.concatenate([[0.0], first]))
    assert len(set(np.round(steps, 12))) == 6  # a new draw at each step
    assert not np.allclose(first, second)  # and at each call (the key advanced)


def test_nested_loops_truncated_gradient_and_mapped_integers(rng):
    x, w = pt.dmatrix("x"), pt.dmatrix("w")

    def outer(row, acc, w):
        inner = arignote.scan(
            lambda e, a: a * 0.5 + e,
            sequences=row,
            outputs_info=pt.constant(0.0),
            return_updates=False,
        )
        return pt.tanh(w @ acc + inner[-1]), pt.argmax(row)

    (states, picks), _ = arignote.scan(
        outer,
        sequences=x,
        outputs_info=[pt.zeros(2), None],
        non_sequences=w,
        truncate_gradient=2,
    )
    cost = (states**2).sum()
    args = (rng.normal(size=(5, 3)), rng.normal(size=(2, 2)))
    check_vm_and_jax_agree([x, w], [states, picks, *arignote.grad(cost, [x, w])], args)
