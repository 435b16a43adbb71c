"""``scan`` over random step functions against a plain Python loop: values and gradients.

The step functions draw their sequence taps, output taps, length (0, 1 and more), direction
and an optional ``until`` condition at random; the reference implements the documented
semantics (sequence slicing by taps, initial rows, stopping after the first true condition)
with NumPy, and its directional derivatives by central differences."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import arignote
import arignote.tensor as pt
from arignote.scan.utils import until

D = 3  # length of every row


@st.composite
def loops(draw):
    n_seqs = draw(st.integers(0, 2))
    seq_taps = [
        sorted(draw(st.sets(st.integers(-2, 1), min_size=1, max_size=2))) for _ in range(n_seqs)
    ]
    out_taps = sorted(draw(st.sets(st.integers(-3, -1), min_size=1, max_size=2)))
    return {
        "seq_taps": seq_taps,
        "out_taps": out_taps,
        "mapped": draw(st.booleans()),
        "steps": draw(st.sampled_from([0, 1, 2, 5])),
        "backwards": draw(st.booleans()),
        "until": draw(st.booleans()),
        "coef": draw(st.lists(st.floats(-1, 1), min_size=3, max_size=3)),
        "seed": draw(st.integers(0, 2**16)),
    }


def _step(spec, xp, tanh, sin, stop):
    """The step as a function of (sequence taps..., output taps..., w) for both engines."""
    a, b, c = spec["coef"]
    n_seq_args = sum(len(t) for t in spec["seq_taps"])
    n_out_args = len(spec["out_taps"])

    def step(*args):
        seq_args = args[:n_seq_args]
        out_args = args[n_seq_args : n_seq_args + n_out_args]
        w = args[-1]
        s = sum(seq_args) if seq_args else 0.0
        new = tanh(a * s + b * sum(out_args) + c * w)
        results = [new]
        if spec["mapped"]:
            results.append(sin(new * w) + s)
        if spec["until"]:
            return results, stop(new)
        return results

    return step


def _reference(spec, seqs, init, w):
    """The loop written out in NumPy."""
    step = _step(spec, np, np.tanh, np.sin, lambda new: new.sum() > 0.5)
    sliced = []
    for seq, taps in zip(seqs, spec["seq_taps"]):
        low, high = min(min(taps), 0), max(max(taps), 0)
        for k in taps:
            part = seq[k - low : len(seq) - (high - k)]
            sliced.append(part[::-1] if spec["backwards"] else part)
    lag = -min(spec["out_taps"])
    states = list(init[:lag])
    mapped = []
    for t in range(spec["steps"]):
        args = [s[t] for s in sliced] + [states[len(states) + k] for k in spec["out_taps"]]
        result = step(*args, w)
        outs, stop = result if spec["until"] else (result, False)
        states.append(outs[0])
        if spec["mapped"]:
            mapped.append(outs[1])
        if stop:
            break
    traced = np.array(states[lag:]).reshape(-1, D)
    return [traced] + ([np.array(mapped).reshape(-1, D)] if spec["mapped"] else [])


def _symbolic(spec, seqs, init, w):
    step = _step(spec, pt, pt.tanh, pt.sin, lambda new: until(new.sum() > 0.5))
    # taps [-1]: the initial value is the state itself, not a block of rows
    initial = init[-1] if spec["out_taps"] == [-1] else init
    outputs_info = [{"initial": initial, "taps": spec["out_taps"]}]
    if spec["mapped"]:
        outputs_info.append(None)
    outs = arignote.scan(
        step,
        sequences=[{"input": s, "taps": t} for s, t in zip(seqs, spec["seq_taps"])],
        outputs_info=outputs_info,
        non_sequences=w,
        n_steps=spec["steps"],
        go_backwards=spec["backwards"],
        return_list=True,
        return_updates=False,
    )
    return outs


def _cost(outputs, weights):
    return sum((o * wt[: o.shape[0]]).sum() for o, wt in zip(outputs, weights))


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(loops())
def test_scan_matches_a_python_loop(spec):
    rng = np.random.default_rng(spec["seed"])
    lengths = [
        spec["steps"] + max(max(t), 0) - min(min(t), 0) + int(rng.integers(0, 2))
        for t in spec["seq_taps"]
    ]
    seq_values = [rng.normal(size=(n, D)) for n in lengths]
    init_value = rng.normal(size=(-min(spec["out_taps"]), D))
    w_value = rng.normal(size=D)
    seqs = [pt.dmatrix(f"s{i}") for i in range(len(seq_values))]
    init, w = pt.dmatrix("init"), pt.dvector("w")
    outs = _symbolic(spec, seqs, init, w)
    expected = _reference(spec, seq_values, init_value, w_value)
    weights = [rng.normal(size=(spec["steps"], D)) for _ in outs]
    cost = _cost(outs, [pt.constant(wt) for wt in weights])
    inputs = [*seqs, init, w]
    grads = arignote.grad(cost, inputs)
    f = arignote.function(inputs, [*outs, *grads])
    values = [*seq_values, init_value, w_value]
    got = f(*values)
    for g, e in zip(got[: len(outs)], expected):
        np.testing.assert_allclose(g, e, rtol=1e-10, atol=1e-12)

    def reference_cost(*vals):
        return _cost(_reference(spec, list(vals[:-2]), vals[-2], vals[-1]), weights)

    directions = [rng.normal(size=v.shape) for v in values]
    eps = 1e-6
    plus = reference_cost(*[v + eps * d for v, d in zip(values, directions)])
    minus = reference_cost(*[v - eps * d for v, d in zip(values, directions)])
    numeric = (plus - minus) / (2 * eps)
    analytic = sum((g * d).sum() for g, d in zip(got[len(outs) :], directions))
    np.testing.assert_allclose(analytic, numeric, rtol=1e-5, atol=1e-7)
