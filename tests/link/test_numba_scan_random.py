"""Native loops drawing random numbers, native ``IndexMap``, and inner nodes in object mode.

A ``Scan`` whose body draws (a ``RandomStream`` inside the step, a shared generator passed as a
non-sequence with its update in the step's updates dictionary, a generator carried as a state
in ``outputs_info``) runs natively with the Python VM's draws and final generator state, bit
for bit. An inner node without a native kernel leaves the loop native around it and is
reported under its own key of the fallback registry. Numba compiles slowly: the default run
compiles three functions, the rest is slow-marked.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.compile.builders import OpFromGraph
from arignote.printing.print_op import Print
from arignote.scan import IndexMap, index_map

numba_backend = pytest.importorskip("arignote.link.numba")
from arignote.link.numba.dispatch import InnerObjectMode  # noqa: E402


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba's performance hints on non-contiguous dots
        yield


def _states(shared):
    return [s.get_value(borrow=True).bit_generator.state for s in shared]


def check_native_matches_vm(inputs, outputs, values, updates, generators, calls=2):
    """Native and VM functions from the same generator states: the same draws and values bit
    for bit, and the same generator states after each call. Returns the native function."""
    start = [s.get_value(borrow=False) for s in generators]
    native = arignote.function(inputs, outputs, mode="NUMBA", updates=updates)
    got = [native(*values) for _ in range(calls)]
    native_states = _states(generators)
    for s, value in zip(generators, start):
        s.set_value(value, borrow=False)
    vm = arignote.function(inputs, outputs, mode="VM", updates=updates)
    expected = [vm(*values) for _ in range(calls)]
    for g, e in zip(got, expected):
        for a, b in zip(g, e):
            assert np.asarray(a).dtype == np.asarray(b).dtype
            np.testing.assert_array_equal(a, b)
    assert native_states == _states(generators)
    assert native_states != [v.bit_generator.state for v in start]  # the draws advanced them
    return native


def _scan_lines(native):
    report = numba_backend.native_report(native.runner)
    return [line for line in report.splitlines() if line.startswith("Scan")]


def test_random_loops_match_the_vm_bit_for_bit():
    """One function, three loops: a random walk drawing from a ``RandomStream`` inside the
    step; PyTensor's tutorial pattern (a shared generator as non-sequence, its update in the
    step's updates dictionary); a generator carried as a state of ``outputs_info``."""
    srng = pt.random.RandomStream(3)
    x0 = pt.dvector("x0")
    walk, walk_updates = arignote.scan(
        lambda x: x + srng.normal(size=x.shape), outputs_info=x0, n_steps=5
    )
    tutorial_rng = arignote.shared(np.random.default_rng(7), name="tutorial_rng")

    def tutorial_step(rng):
        next_rng, draw = pt.random.normal(rng=rng).owner.outputs
        return draw, {rng: next_rng}

    draws, tutorial_updates = arignote.scan(tutorial_step, non_sequences=[tutorial_rng], n_steps=4)
    state_rng = arignote.shared(np.random.default_rng(11), name="state_rng")

    def state_step(rng):
        next_rng, draw = pt.random.uniform(rng=rng, size=(2,)).owner.outputs
        return draw, next_rng

    (uniforms, last_rng), _ = arignote.scan(state_step, outputs_info=[None, state_rng], n_steps=3)
    updates = {**walk_updates, **tutorial_updates, state_rng: last_rng}
    generators = [u for u in updates if u.name != "x0"]
    native = check_native_matches_vm(
        [x0], [walk, draws, uniforms], [np.arange(3.0)], updates, generators
    )
    assert native.runner.fallbacks == {}
    lines = _scan_lines(native)
    assert len(lines) == 3 and all(line.endswith(": native") for line in lines), lines


def test_inner_node_in_object_mode_keeps_the_loop_native():
    """A node without a native kernel (Print, calling a Python function) inside a loop with
    draws: the loop stays native, the node is reported under its own registry key, draws and
    state as the VM's."""
    srng = pt.random.RandomStream(9)
    x = pt.dvector("x")
    seen = []
    show = Print("h", global_fn=lambda op, value: seen.append(value.copy()))
    walk, updates = arignote.scan(
        lambda h: show(h) + srng.normal(size=2), outputs_info=x, n_steps=3
    )
    generators = [u for u, _ in srng.state_updates]
    native = check_native_matches_vm([x], [walk], [np.ones(2)], updates, generators)
    (why,) = native.runner.fallbacks.values()
    assert isinstance(why, InnerObjectMode) and why.key == "Print"
    assert why.key in numba_backend.FALLBACKS
    (line,) = _scan_lines(native)
    assert "native loop" in line and "Print" in line, line
    assert len(seen) >= 3  # the Python function ran at each step


def test_index_map_runs_natively(rng):
    """``jacobian`` and ``hessian`` with a length known only at run time build IndexMaps:
    native loops with the VM's values, also for an empty input."""
    x = pt.dvector("x")
    outputs = [
        arignote.gradient.jacobian(pt.tanh(x) * x.sum(), x),
        arignote.gradient.hessian((pt.tanh(x) ** 2).sum(), x),
    ]
    native = arignote.function([x], outputs, mode="NUMBA")
    assert native.runner.fallbacks == {}
    names = [type(n.op).__name__ for n in native.runner.fgraph.apply_nodes]
    assert names.count("IndexMap") == 2
    vm = arignote.function([x], outputs, mode="VM")
    for value in (rng.normal(size=5), np.zeros(0)):
        for got, expected in zip(native(value), vm(value)):
            assert got.shape == expected.shape == (len(value), len(value))
            np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)


@pytest.mark.slow
def test_index_map_sequences_and_errors(rng):
    n = pt.lscalar("n")
    m, w = pt.dmatrix("m"), pt.dvector("w")
    rows, sums = index_map(
        lambda i, row, w: [w * row.sum() + i, (row**2).sum()], n, sequences=[m], non_sequences=[w]
    )
    native = arignote.function([n, m, w], [rows, sums], mode="NUMBA")
    assert native.runner.fallbacks == {}
    assert any(isinstance(node.op, IndexMap) for node in native.runner.fgraph.apply_nodes)
    vm = arignote.function([n, m, w], [rows, sums], mode="VM")
    for length in (4, 0):
        values = [length, rng.normal(size=(length, 3)), rng.normal(size=3)]
        for got, expected in zip(native(*values), vm(*values)):
            np.testing.assert_allclose(got, expected, rtol=1e-12)
            assert got.shape == expected.shape and got.dtype == expected.dtype
    with pytest.raises(ValueError, match="negative length"):
        native(-1, np.zeros((0, 3)), np.ones(3))
    with pytest.raises(ValueError, match="sequence 0"):
        native(3, np.zeros((2, 3)), np.ones(3))


@pytest.mark.slow
def test_dropout_in_a_loop_and_its_gradient(rng):
    """An RNN step with a dropout mask drawn at each step: masks bit for bit, values as the
    VM's; the gradient reuses the forward draws (finite differences from the same state)."""
    generator = arignote.shared(np.random.default_rng(5), name="dropout_rng")
    x, h0, w = pt.dmatrix("x"), pt.dvector("h0"), pt.dmatrix("w")

    def step(x_t, h, rng, w):
        next_rng, mask = pt.random.bernoulli(0.7, size=h.shape, rng=rng).owner.outputs
        return [pt.tanh(pt.dot(w, h) + x_t) * mask, mask], {rng: next_rng}

    (hs, masks), updates = arignote.scan(
        step, sequences=x, outputs_info=[h0, None], non_sequences=[generator, w]
    )
    cost = (hs[-1] ** 2).sum()
    grad_w = arignote.grad(cost, w)
    values = [rng.normal(size=(6, 3)), rng.normal(size=3), rng.normal(size=(3, 3))]
    native = arignote.function([x, h0, w], [cost, grad_w, masks], mode="NUMBA")
    assert native.runner.fallbacks == {}
    vm = arignote.function([x, h0, w], [cost, grad_w, masks], mode="VM")
    got, expected = native(*values), vm(*values)
    np.testing.assert_array_equal(got[2], expected[2])
    assert 0 < got[2].sum() < got[2].size  # some units dropped, some kept
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-12)
    np.testing.assert_allclose(got[1], expected[1], rtol=1e-10)
    # without updates the generator is not advanced: each call draws the same masks
    direction = rng.normal(size=(3, 3))
    eps = 1e-6
    plus = native(values[0], values[1], values[2] + eps * direction)[0]
    minus = native(values[0], values[1], values[2] - eps * direction)[0]
    np.testing.assert_allclose((plus - minus) / (2 * eps), (got[1] * direction).sum(), rtol=1e-6)
    # with the update, the native loop advances the shared generator as the VM does
    check_native_matches_vm([x, h0, w], [masks], values, updates, [generator])


@pytest.mark.slow
def test_op_from_graph_inlined_or_native():
    """``inline=True`` leaves no OpFromGraph in native or default compiled graphs; a kept
    one is native, and an inner Print runs in object mode inside it, under Print's key."""
    a = pt.dvector("a")
    inlined = OpFromGraph([a], [pt.exp(a) * 2], inline=True)
    kept = OpFromGraph([a], [pt.exp(a) * 2])
    printing = OpFromGraph([a], [Print("a", attrs=())(a) * 2])
    x = pt.dvector("x")
    for mode in ("NUMBA", "FAST_RUN"):
        f = arignote.function([x], inlined(x), mode=mode)
        assert not any(isinstance(n.op, OpFromGraph) for n in f.maker.fgraph.apply_nodes)
    native = arignote.function([x], [kept(x), printing(x)], mode="NUMBA")
    ((node, why),) = native.runner.fallbacks.items()  # the OpFromGraph holding the Print
    assert isinstance(node.op, OpFromGraph) and not node.op.is_inline
    assert isinstance(why, InnerObjectMode) and why.key == "Print"
    np.testing.assert_allclose(native(np.arange(3.0))[0], np.exp(np.arange(3.0)) * 2)


@pytest.mark.slow
def test_float16_inside_a_loop_runs_the_graph_on_the_vm():
    x = pt.dvector("x")
    out = arignote.scan(
        lambda h: pt.cast(pt.cast(h, "float16") * 2, "float64"),
        outputs_info=x,
        n_steps=3,
        return_updates=False,
    )
    f = arignote.function([x], out, mode="NUMBA")
    assert None in f.runner.fallbacks and "float16" in str(f.runner.fallbacks[None])
    np.testing.assert_array_equal(f(np.array([1.0, 3.0]))[-1], [8.0, 24.0])
