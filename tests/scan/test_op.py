"""The Scan op's contract: values against Python loops, infer_shape, gradients (truncated,
second order), R_op, connection pattern, pickling, printing, errors."""

import pickle

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.graph.fg import MissingInputError
from arignote.sandbox.rng_mrg import MRG_RandomStreams
from arignote.scan.op import Scan
from arignote.scan.utils import until
from arignote.testing import verify_grad
from arignote.testing.rop import check_rop_lop


def _scan_nodes(f):
    return [n for n in f.maker.fgraph.toposort() if isinstance(n.op, Scan)]


def rnn(x, h0, W, U):
    hs, _ = arignote.scan(
        lambda x_t, h, W, U: pt.tanh(pt.dot(h, W) + pt.dot(x_t, U)),
        sequences=x,
        outputs_info=h0,
        non_sequences=[W, U],
    )
    return hs


def rnn_numpy(x, h0, W, U):
    h, out = h0, []
    for x_t in x:
        h = np.tanh(h @ W + x_t @ U)
        out.append(h)
    return np.array(out)


@pytest.fixture
def rnn_values(rng):
    return (
        rng.normal(size=(5, 3)),
        rng.normal(size=4),
        rng.normal(size=(4, 4)) * 0.5,
        rng.normal(size=(3, 4)) * 0.5,
    )


def test_rnn_values(rnn_values):
    x, h0, W, U = pt.dmatrix("x"), pt.dvector("h0"), pt.dmatrix("W"), pt.dmatrix("U")
    f = arignote.function([x, h0, W, U], rnn(x, h0, W, U))
    np.testing.assert_allclose(f(*rnn_values), rnn_numpy(*rnn_values))


def test_rnn_gradient_matches_finite_differences(rnn_values, rng):
    verify_grad(lambda *a: rnn(*a).sum(axis=0), list(rnn_values), rng=rng)


def test_sequence_taps_and_mit_sot_gradient(rng):
    def loop(seq, init, w):
        out, _ = arignote.scan(
            lambda s_m2, s_p1, y_m3, y_m1, w: pt.sin(s_m2 * y_m1) + s_p1 * w + 0.5 * y_m3,
            sequences={"input": seq, "taps": [-2, 1]},
            outputs_info={"initial": init, "taps": [-3, -1]},
            non_sequences=w,
        )
        return out

    values = [rng.normal(size=(9, 2)), rng.normal(size=(3, 2)), rng.normal(size=2)]
    s, i, w = pt.dmatrix(), pt.dmatrix(), pt.dvector()
    f = arignote.function([s, i, w], loop(s, i, w))
    seq, init, wv = values
    ys = list(init)
    for t in range(9 - 3):
        ys.append(np.sin(seq[t] * ys[-1]) + seq[t + 3] * wv + 0.5 * ys[-3])
    np.testing.assert_allclose(f(*values), np.array(ys[3:]))
    verify_grad(loop, values, rng=rng)


def test_truncated_gradient_only_reaches_the_last_steps(rng):
    x = pt.dvector("x")
    out, _ = arignote.scan(
        lambda x_t, h: h * 0.5 + x_t,
        sequences=x,
        outputs_info=pt.constant(0.0),
        truncate_gradient=2,
    )
    g = arignote.function([x], arignote.grad(out[-1], x))(rng.normal(size=6))
    np.testing.assert_allclose(g, [0, 0, 0, 0, 0.5, 1.0])


def test_go_backwards_gradient(rng):
    def loop(x):
        out, _ = arignote.scan(
            lambda x_t, h: h * x_t + 1.0,
            sequences=x,
            outputs_info=pt.constant(1.0),
            go_backwards=True,
        )
        return out

    verify_grad(loop, [rng.normal(size=5)], rng=rng)


def test_hessian_of_a_scanned_loss(rng):
    w = pt.dvector("w")
    out, _ = arignote.scan(
        lambda h, w: pt.tanh(h * w), outputs_info=pt.ones_like(w), non_sequences=w, n_steps=3
    )
    cost = (out[-1] ** 2).sum()
    H = arignote.function([w], arignote.gradient.hessian(cost, w))
    value = rng.normal(size=3)
    g = arignote.function([w], arignote.grad(cost, w))
    eps = 1e-6
    numeric = np.array([(g(value + eps * e) - g(value - eps * e)) / (2 * eps) for e in np.eye(3)])
    np.testing.assert_allclose(H(value), numeric, rtol=1e-5, atol=1e-7)


def test_rop_matches_finite_differences(rnn_values, rng):
    check_rop_lop(lambda *a: rnn(*a), list(rnn_values), rng=rng)


def test_infer_shape_does_not_run_the_loop():
    x, h0 = pt.dmatrix("x"), pt.dvector("h0")
    hs, _ = arignote.scan(lambda x_t, h: h + x_t.sum(), sequences=x, outputs_info=h0)
    mapped, _ = arignote.scan(lambda x_t: pt.outer(x_t, x_t), sequences=x)
    f = arignote.function([x, h0], [hs.shape, mapped.shape])
    assert not _scan_nodes(f)
    hs_shape, mapped_shape = f(np.ones((5, 3)), np.ones(2))
    assert tuple(hs_shape) == (5, 2) and tuple(mapped_shape) == (5, 3, 3)


def test_connection_pattern():
    x, a, b = pt.dvector("x"), pt.dscalar("a"), pt.dscalar("b")
    (h, m), _ = arignote.scan(
        lambda x_t, h, a, b: [h + a, x_t * b],
        sequences=x,
        outputs_info=[a, None],
        non_sequences=[a, b],
    )
    node = h.owner.inputs[0].owner
    pattern = node.op.connection_pattern(node)
    # rows: n_steps, x, h's initial rows, a, b; columns: h's trace, m
    assert pattern == [[False, False], [False, True], [True, False], [True, False], [False, True]]
    assert (
        arignote.grad(m.sum(), a, disconnected_inputs="ignore", return_disconnected="none") is None
    )


def test_pickling_a_scan_function(rnn_values):
    x, h0, W, U = pt.dmatrix("x"), pt.dvector("h0"), pt.dmatrix("W"), pt.dmatrix("U")
    f = arignote.function([x, h0, W, U], rnn(x, h0, W, U))
    g = pickle.loads(pickle.dumps(f))
    np.testing.assert_allclose(g(*rnn_values), f(*rnn_values))
    op = _scan_nodes(f)[0].op
    assert pickle.loads(pickle.dumps(op)) == op


def test_debugprint_shows_the_inner_graph():
    x = pt.dvector("x")
    out, _ = arignote.scan(
        lambda x_t, h: pt.exp(h) + x_t, sequences=x, outputs_info=pt.constant(0.0), name="loop"
    )
    text = arignote.dprint(out, file="str")
    assert "Scan{loop}" in text
    assert "Inner graphs:" in text and "exp" in text
    assert "Scan{loop}" in arignote.printing.pprint(out)


def test_debugmode_checks_the_inner_graph(rnn_values):
    x, h0, W, U = pt.dmatrix("x"), pt.dvector("h0"), pt.dmatrix("W"), pt.dmatrix("U")
    f = arignote.function([x, h0, W, U], rnn(x, h0, W, U), mode="DebugMode")
    np.testing.assert_allclose(f(*rnn_values), rnn_numpy(*rnn_values))


def test_inner_function_compiled_once_per_outer_function(monkeypatch):
    calls = []
    original = Scan.compile_inner

    def counting(self, mode):
        calls.append(mode)
        return original(self, mode)

    monkeypatch.setattr(Scan, "compile_inner", counting)
    x = pt.dvector("x")
    out, _ = arignote.scan(lambda x_t: x_t * 2, sequences=x)
    f = arignote.function([x], out, mode="FAST_COMPILE")
    for _ in range(3):
        f(np.ones(4))
    assert len(calls) == 1 and calls[0] is f.maker.mode


def test_zero_steps():
    x, h0 = pt.dmatrix("x"), pt.dvector("h0")
    hs, _ = arignote.scan(lambda x_t, h: h + x_t, sequences=x, outputs_info=h0)
    mapped, _ = arignote.scan(lambda x_t: x_t * 2, sequences=x)
    f = arignote.function([x, h0], [hs, mapped, arignote.grad(hs.sum() + mapped.sum(), h0)])
    a, b, g = f(np.ones((0, 3)), np.ones(3))
    assert a.shape == (0, 3) and b.shape == (0, 3)
    np.testing.assert_allclose(g, np.zeros(3))


def test_symbolic_n_steps_checked_at_run_time():
    x, n = pt.dvector("x"), pt.iscalar("n")
    out, _ = arignote.scan(lambda x_t: x_t * 2, sequences=x, n_steps=n)
    f = arignote.function([x, n], out)
    np.testing.assert_allclose(f(np.arange(5.0), 3), [0.0, 2.0, 4.0])
    with pytest.raises(ValueError, match="fewer than"):
        f(np.arange(2.0), 3)
    with pytest.raises(ValueError, match="negative"):
        f(np.arange(2.0), -1)


def test_return_updates_false_and_return_list():
    x = pt.dvector("x")
    out = arignote.scan(lambda x_t: x_t * 2, sequences=x, return_updates=False)
    assert isinstance(out, pt.TensorVariable)
    outs, updates = arignote.scan(lambda x_t: x_t * 2, sequences=x, return_list=True)
    assert isinstance(outs, list) and len(outs) == 1 and updates == {}
    counter = arignote.shared(0)
    with pytest.raises(ValueError, match="return_updates=False"):
        arignote.scan(lambda: {counter: counter + 1}, n_steps=3, return_updates=False)


def test_errors():
    x, h0 = pt.dvector("x"), pt.fscalar("h0")
    with pytest.raises(ValueError, match="has type .*float64.*float32"):
        arignote.scan(lambda x_t, h: h + x_t, sequences=x, outputs_info=h0)
    with pytest.raises(ValueError, match="must return its outputs"):
        arignote.scan(lambda x_t: "nonsense", sequences=x)
    with pytest.raises(TypeError, match="scan calls its step function with 2 arguments"):
        arignote.scan(lambda x_t: x_t, sequences=x, outputs_info=pt.constant(0.0))
    with pytest.raises(ValueError, match="No information about the number of steps"):
        arignote.scan(lambda h: h, outputs_info=h0)
    with pytest.raises(ValueError, match="Please provide None"):
        arignote.scan(lambda x_t, h: [x_t, x_t], sequences=x, outputs_info=[pt.constant(0.0)])
    with pytest.raises(ValueError, match="smaller than 0"):
        arignote.scan(lambda h: h, outputs_info={"initial": x, "taps": [0]}, n_steps=2)
    w = arignote.shared(1.0, name="w")
    with pytest.raises(MissingInputError, match="strict"):
        arignote.scan(lambda x_t: x_t * w, sequences=x, strict=True)


def test_while_loop_gradient(rng):
    x = pt.dscalar("x")
    out, _ = arignote.scan(
        lambda h, x: (h * x, until(h * x > 10.0)),
        outputs_info=pt.constant(1.0),
        non_sequences=x,
        n_steps=50,
    )
    f = arignote.function([x], [out, arignote.grad(out[-1], x)])
    values, g = f(2.0)
    np.testing.assert_allclose(values, [2.0, 4.0, 8.0, 16.0])
    assert g == pytest.approx(4 * 2.0**3)


def test_random_generator_threaded_through_outputs_info():
    rng = arignote.shared(np.random.default_rng(3))

    def step(rng):
        next_rng, x = pt.random.normal(rng=rng).owner.outputs
        return next_rng, x

    (rngs, xs), updates = arignote.scan(step, outputs_info=[rng, None], n_steps=4)
    f = arignote.function([], xs)
    draws = f()
    assert len(set(draws.tolist())) == 4
    np.testing.assert_allclose(draws, f())  # not an update: each call starts from rng

    fixed, _ = arignote.scan(lambda r: pt.random.normal(rng=r), non_sequences=rng, n_steps=4)
    same = arignote.function([], fixed, no_default_updates=True)()
    assert len(set(same.tolist())) == 1  # a generator passed as a non-sequence repeats


def test_gradient_through_random_draws_inside_the_step(rng):
    srng = arignote.tensor.random.utils.RandomStream(7)
    x, w = pt.dmatrix("x"), pt.dvector("w")

    def step(x_t, h, w):
        mask = srng.binomial(1, 0.5, size=x_t.shape)
        return pt.tanh(h * w + x_t * mask)

    out, updates = arignote.scan(step, sequences=x, outputs_info=pt.zeros_like(w), non_sequences=w)
    cost = (out**2).sum()
    # without the updates the generator does not move: the loss is a deterministic function
    f = arignote.function([x, w], cost)
    g = arignote.function([x, w], arignote.grad(cost, [x, w]))
    xv, wv = rng.normal(size=(4, 6)), rng.normal(size=6)
    gx, gw = g(xv, wv)
    eps = 1e-6
    numeric_w = [(f(xv, wv + eps * e) - f(xv, wv - eps * e)) / (2 * eps) for e in np.eye(6)]
    np.testing.assert_allclose(gw, numeric_w, rtol=1e-5, atol=1e-8)
    assert np.sum(gx == 0) > 0  # masked entries get no gradient


def test_gradient_through_mrg_draws_inside_the_step(rng):
    # MRG_RandomStreams keeps an int32 state that the loop carries as a traced state; its
    # (float zero) cotangent used to be substituted for an int32 placeholder (TypeError).
    srng = MRG_RandomStreams(7)
    x, w = pt.dmatrix("x"), pt.dvector("w")

    def step(x_t, h, w):
        mask = srng.binomial(size=x_t.shape, p=pt.sigmoid(w), dtype="float64")
        return pt.tanh(h * w + x_t * mask)

    out, updates = arignote.scan(step, sequences=x, outputs_info=pt.zeros_like(w), non_sequences=w)
    assert len(updates) == 1
    cost = (out**2).sum()
    # without the updates the state does not move: the loss is a deterministic function, and
    # the draw (a comparison of uniforms with p) passes no gradient to p, as in Theano
    f = arignote.function([x, w], cost)
    g = arignote.function([x, w], arignote.grad(cost, [x, w]))
    xv, wv = rng.normal(size=(4, 6)), rng.normal(size=6)
    gx, gw = g(xv, wv)
    eps = 1e-6
    numeric_w = [(f(xv, wv + eps * e) - f(xv, wv - eps * e)) / (2 * eps) for e in np.eye(6)]
    np.testing.assert_allclose(gw, numeric_w, rtol=1e-5, atol=1e-8)
    assert np.sum(gx == 0) > 0  # masked entries get no gradient


def test_random_generator_advanced_by_the_step_updates():
    rng = arignote.shared(np.random.default_rng(5))

    def step():
        next_rng, x = pt.random.normal(rng=rng).owner.outputs
        return x, {rng: next_rng}

    xs, updates = arignote.scan(step, n_steps=4)
    assert list(updates) == [rng]
    f = arignote.function([], xs, updates=updates)
    first, second = f(), f()
    assert len(set(first.tolist())) == 4
    assert not np.array_equal(first, second)  # the generator moved on after the first call
    expected = np.random.default_rng(5).normal(size=8)
    np.testing.assert_allclose(np.concatenate([first, second]), expected)


def test_inner_graph_accessors():
    x = pt.dvector("x")
    out, _ = arignote.scan(lambda x_t, h: h * x_t, sequences=x, outputs_info=pt.constant(1.0))
    op = out.owner.inputs[0].owner.op
    assert len(op.inner_inputs) == 2 and len(op.inner_outputs) == 1
    assert len(op.fgraph.apply_nodes) == 1
    twin = op.clone()
    assert twin == op and twin.inner_inputs[0] is not op.inner_inputs[0]
    assert float(op.fn(np.array(2.0), np.array(3.0))[0]) == 6.0


def test_shared_generator_given_to_a_step_draw_as_rng():
    """A draw given a shared generator (``rng=``) sets its default update to the step's next
    state: the front end drops it (no inner variable leaks into compiled functions). With the
    update in the step's updates dictionary (PyTensor's pattern) the generator is one state of
    the loop, not also a non-sequence, and gradients of other inputs go through the draws."""
    rng = arignote.shared(np.random.default_rng(3))
    fixed, _ = arignote.scan(lambda r: pt.random.normal(rng=r), non_sequences=rng, n_steps=4)
    assert rng.default_update is None
    assert len(set(arignote.function([], fixed)().tolist())) == 1

    def step(r, w):
        next_rng, draw = pt.random.normal(rng=r, size=(2,)).owner.outputs
        return draw * w, {r: next_rng}

    w = pt.dvector("w")
    out, updates = arignote.scan(step, non_sequences=[rng, w], n_steps=3)
    assert rng.default_update is None and list(updates) == [rng]
    node = out.owner
    assert isinstance(node.op, Scan)
    assert node.op.info.n_untraced == 1 and node.op.info.n_nonseqs == 1
    f = arignote.function([w], [out, arignote.grad(out.sum(), w)], updates=updates)
    first, second = f(np.ones(2)), f(np.ones(2))
    assert not np.array_equal(first[0], second[0])  # the update advanced the generator
    np.testing.assert_allclose(second[1], second[0].sum(axis=0))  # d/dw sum(draw * w)
