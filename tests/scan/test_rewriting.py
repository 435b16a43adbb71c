"""Scan rewrites in compiled functions: results equal to the unrewritten loop, and the
forward-only memory of a recurrence is O(taps), not O(steps)."""

import numpy as np
import pytest

import arignote
import arignote.scan.op as scan_op
import arignote.tensor as pt
from arignote.compile.mode import Mode
from arignote.scan.op import Scan

NO_REWRITES = Mode(linker="vm", optimizer=None)


def _scans(f):
    return [n for n in f.maker.fgraph.toposort() if isinstance(n.op, Scan)]


def rnn_last_state(taps):
    x, h0 = pt.dmatrix("x"), pt.dmatrix("h0")
    W, U = pt.dmatrix("W"), pt.dmatrix("U")

    def step(x_t, *args):
        *states, W, U = args
        return pt.tanh(pt.dot(sum(states), W) + pt.dot(x_t, U))

    hs, _ = arignote.scan(
        step,
        sequences=x,
        outputs_info={"initial": h0, "taps": taps},
        non_sequences=[W, U],
    )
    return [x, h0, W, U], hs[-1]


@pytest.mark.parametrize("taps", [[-1], [-3, -1]])
def test_forward_only_buffer_holds_o_taps_states(taps, rng, monkeypatch):
    inputs, last = rnn_last_state(taps)
    f = arignote.function(inputs, last)
    reference = arignote.function(inputs, last, mode=NO_REWRITES)
    (node,) = _scans(f)
    assert node.op.keep == (1,)
    sizes = []

    class Spy(scan_op._TracedBuffer):
        def __init__(self, *args):
            super().__init__(*args)
            sizes.append(self.rows.shape[0])

    monkeypatch.setattr(scan_op, "_TracedBuffer", Spy)
    lag = -min(taps)
    for steps in (10, 500):
        values = [
            rng.normal(size=(steps, 3)),
            rng.normal(size=(lag, 4)),
            rng.normal(size=(4, 4)) * 0.3,
            rng.normal(size=(3, 4)) * 0.3,
        ]
        np.testing.assert_allclose(f(*values), reference(*values))
    # the buffer has max(1, lag) rows whatever the number of steps; unrewritten, lag + steps
    assert sizes[0] == sizes[-2] == max(1, lag)
    assert sizes[-1] == lag + 500


def test_rewritten_gradient_of_an_rnn_matches_unrewritten(rng):
    inputs, last = rnn_last_state([-1])
    cost = (last**2).sum()
    grads = arignote.grad(cost, inputs[1:])
    f = arignote.function(inputs, [cost, *grads])
    reference = arignote.function(inputs, [cost, *grads], mode=NO_REWRITES)
    values = [
        rng.normal(size=(7, 3)),
        rng.normal(size=(1, 4)),
        rng.normal(size=(4, 4)) * 0.3,
        rng.normal(size=(3, 4)) * 0.3,
    ]
    for a, b in zip(f(*values), reference(*values)):
        np.testing.assert_allclose(a, b, rtol=1e-10)


def test_merged_loops_and_pushed_out_work(rng):
    x, w = pt.dvector("x"), pt.dvector("w")
    a, _ = arignote.scan(
        lambda x_t, h, w: h + pt.exp(x_t) * w.sum(),
        sequences=x,
        outputs_info=pt.constant(0.0),
        non_sequences=w,
    )
    b, _ = arignote.scan(lambda x_t: pt.sin(x_t), sequences=x)
    f = arignote.function([x, w], [a, b])
    reference = arignote.function([x, w], [a, b], mode=NO_REWRITES)
    (node,) = _scans(f)  # merged into one loop
    inner_ops = {
        type(n.op.scalar_op).__name__
        for n in node.op.fn.maker.fgraph.toposort()
        if hasattr(n.op, "scalar_op")
    }
    assert "Exp" not in inner_ops and "Sin" not in inner_ops  # computed on the whole sequence
    values = [rng.normal(size=6), rng.normal(size=3)]
    for got, want in zip(f(*values), reference(*values)):
        np.testing.assert_allclose(got, want)


def test_unused_outputs_are_dropped(rng):
    x = pt.dvector("x")
    (a, b), _ = arignote.scan(
        lambda x_t, h: [h * x_t, pt.exp(x_t)], sequences=x, outputs_info=[pt.constant(1.0), None]
    )
    f = arignote.function([x], a)
    (node,) = _scans(f)
    assert len(node.outputs) == 1
    xv = rng.normal(size=5)
    np.testing.assert_allclose(f(xv), np.cumprod(xv))


def test_one_step_loop_is_replaced_by_its_step(rng):
    x = pt.dvector("x")
    out, _ = arignote.scan(lambda h: pt.exp(h), outputs_info=x, n_steps=1)
    f = arignote.function([x], out)
    assert not _scans(f)
    xv = rng.normal(size=3)
    np.testing.assert_allclose(f(xv), np.exp(xv)[None])


def test_weight_gradient_accumulator_becomes_one_matrix_product(rng):
    inputs, last = rnn_last_state([-1])
    g_w = arignote.grad(last.sum(), inputs[2])
    f = arignote.function(inputs, g_w)
    reference = arignote.function(inputs, g_w, mode=NO_REWRITES)
    (backward,) = [n for n in _scans(f) if "grad" in str(n.op)]
    # the reverse loop carries only the adjoint of the state, no accumulator any more
    assert len(backward.op.info.traced_taps) == 1
    assert any(type(n.op).__name__ in ("Gemm", "Dot") for n in f.maker.fgraph.toposort())
    values = [
        rng.normal(size=(6, 3)),
        rng.normal(size=(1, 4)),
        rng.normal(size=(4, 4)) * 0.3,
        rng.normal(size=(3, 4)) * 0.3,
    ]
    np.testing.assert_allclose(f(*values), reference(*values), rtol=1e-10)
