"""scan_checkpoints: the same values and gradients as scan, one stored state per block."""

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.scan import Scan, scan_checkpoints


def _step(s, h, a):
    return pt.tanh(a.dot(h) + s)


@pytest.fixture
def loop(rng):
    seq, h0, a = pt.dmatrix("seq"), pt.dvector("h0"), pt.dmatrix("a")
    values = [rng.normal(size=(10, 3)), rng.normal(size=3), rng.normal(size=(3, 3)) * 0.5]
    return seq, h0, a, values


@pytest.mark.parametrize("every, rows", [(4, [3, 7, 9]), (5, [4, 9]), (1, list(range(10)))])
def test_values_are_scans_at_the_end_of_each_block(loop, every, rows):
    seq, h0, a, values = loop
    out, _ = scan_checkpoints(_step, [seq], [h0], [a], save_every_N=every)
    ref, _ = arignote.scan(_step, sequences=[seq], outputs_info=[h0], non_sequences=[a])
    got, want = arignote.function([seq, h0, a], [out, ref])(*values)
    np.testing.assert_allclose(got, want[rows], rtol=1e-12)


def test_gradient_equals_the_plain_scans(loop):
    seq, h0, a, values = loop
    out = scan_checkpoints(_step, [seq], [h0], [a], save_every_N=3, return_updates=False)
    ref, _ = arignote.scan(_step, sequences=[seq], outputs_info=[h0], non_sequences=[a])
    cost, ref_cost = (out[-1] ** 2).sum(), (ref[-1] ** 2).sum()
    grads = arignote.grad(cost, [a, h0, seq]) + arignote.grad(ref_cost, [a, h0, seq])
    results = arignote.function([seq, h0, a], grads)(*values)
    for got, want in zip(results[:3], results[3:]):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_the_loop_is_a_scan_of_scans(loop):
    seq, h0, a, _ = loop
    out = scan_checkpoints(_step, [seq], [h0], [a], return_updates=False)
    outer = out.owner.op if isinstance(out.owner.op, Scan) else out.owner.inputs[0].owner.op
    assert isinstance(outer, Scan)
    assert any(isinstance(n.op, Scan) for n in outer.fgraph.apply_nodes)


def test_without_padding_a_multiple_length_works_and_taps_are_refused(loop):
    seq, h0, a, values = loop
    out, _ = scan_checkpoints(_step, [seq], [h0], [a], save_every_N=5, padding=False)
    assert arignote.function([seq, h0, a], out)(*values).shape == (2, 3)
    with pytest.raises(ValueError):
        scan_checkpoints(_step, [seq], [{"initial": h0, "taps": [-1]}], [a])
