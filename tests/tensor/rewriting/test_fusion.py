"""Elementwise fusion: which nodes fuse, multi-output groups, cycles, reductions."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.graph.fg import FunctionGraph
from arignote.graph.rewriting.trace import RewriteTrace
from arignote.scalar.composite import Composite
from arignote.tensor.elemwise import Elemwise
from arignote.tensor.rewriting.fusion import (
    _break_cycles,
    _cyclic_groups,
    _Groups,
    find_fusion_groups,
    reduction_fusion_candidates,
)
from tests.tensor.rewriting.utils import rewrite

FUSION = ("fusion",)
x, y = pt.dvectors("x y")
m = pt.dmatrix("m")


def fused_nodes(outputs):
    fg = FunctionGraph(outputs=outputs if isinstance(outputs, list) else [outputs], clone=False)
    return [n for n in fg.toposort() if isinstance(getattr(n.op, "scalar_op", None), Composite)]


def test_chain_becomes_one_node():
    new = rewrite(pt.exp(x * 2) + y, include=FUSION)
    assert isinstance(new.owner.op, Elemwise)
    composite = new.owner.op.scalar_op
    assert isinstance(composite, Composite)
    assert [str(n.op) for n in composite.nodes] == ["mul", "exp", "add"]
    assert new.owner.inputs == [x, y]  # the scalar constant 2 lives inside the composite


def test_values_shared_inside_the_group_are_computed_once():
    shared = pt.exp(x)
    new = rewrite(shared * y + shared, include=FUSION)
    composite = new.owner.op.scalar_op
    assert [str(n.op) for n in composite.nodes].count("exp") == 1


def test_values_used_outside_become_extra_outputs():
    shared = pt.exp(x) + 1
    first, second = rewrite([shared * y, shared.sum()], include=FUSION)
    node = first.owner
    assert isinstance(node.op.scalar_op, Composite) and len(node.outputs) == 2
    assert second.owner.inputs[0] in node.outputs  # the sum reads the fused node's output


def test_outputs_of_the_graph_are_kept():
    a = pt.exp(x)
    outs = rewrite([a, a * y], include=FUSION)
    assert outs[0].owner is outs[1].owner
    assert len(fused_nodes(outs)) == 1


def test_different_broadcast_patterns_are_not_fused():
    row = pt.drow("row")
    new = rewrite(pt.exp(row) + m, include=FUSION)
    assert new.owner.op == pt.add  # exp(row) stays a row: fusing would recompute it per row


def test_no_cycle_through_a_reduction():
    a = pt.exp(x)
    out = a * a.sum()  # fusing exp with the product would make the sum depend on itself
    new = rewrite(out, include=FUSION)
    FunctionGraph(outputs=[new], clone=False).toposort()  # no cycle
    sums = [v for v in new.owner.inputs if v.owner is not None]
    assert sums  # the product still reads a value computed outside its node


def test_groups_join_across_branches_when_safe():
    left = pt.exp(x) * 2
    right = pt.log(y) + 1
    new = rewrite(left + right, include=FUSION)
    assert len(new.owner.op.scalar_op.nodes) == 5


def test_inplace_elementwise_ops_are_left_alone():
    inplace_add = Elemwise(pt.add.scalar_op, {0: 0})
    fg = FunctionGraph(outputs=[pt.exp(inplace_add(pt.exp(x), y))], clone=True)
    groups = find_fusion_groups(fg)
    assert all(not n.op.inplace_pattern for g in groups for n in g)


def test_single_nodes_are_not_wrapped():
    new = rewrite(pt.exp(x), include=FUSION)
    assert new.owner.op == pt.exp


def test_reductions_of_fused_expressions_are_listed_for_backends():
    total = (pt.exp(m) * 2).sum(axis=1)
    fn = arignote.function([m], total)
    pairs = reduction_fusion_candidates(fn.maker.fgraph)
    assert len(pairs) == 1
    reduction, producer = pairs[0]
    assert isinstance(producer.op.scalar_op, Composite)
    assert reduction.inputs[0] is producer.outputs[0]


def test_reduction_whose_input_is_used_elsewhere_is_not_a_candidate():
    e = pt.exp(m)
    fn = arignote.function([m], [e.sum(), e * 3])
    assert reduction_fusion_candidates(fn.maker.fgraph) == []


@pytest.mark.parametrize("shape", [(3, 4), (5,), ()])
def test_compiled_fused_function(rng, shape):
    a, b = (pt.tensor(dtype="float64", shape=(None,) * len(shape)) for _ in range(2))
    out = pt.sqrt(pt.exp(a) + b * b) - pt.tanh(a / (1 + b * b))
    fn = arignote.function([a, b], out)
    assert len(fn.maker.fgraph.apply_nodes) == 1
    va, vb = rng.normal(size=shape), rng.normal(size=shape)
    expected = np.sqrt(np.exp(va) + vb * vb) - np.tanh(va / (1 + vb * vb))
    np.testing.assert_allclose(fn(va, vb), expected)


def test_no_cycle_through_two_groups():
    """Fusing each of two groups alone is safe, but not both as first formed: the scale b's
    group feeds the second group's input, and the second group feeds b's group through a sum
    (found in the gradient of a norm)."""
    u = pt.dvector("u")
    b = 0.5 / pt.sqrt(pt.sqr(x).sum())
    k = x + x
    scaled = b * (u * k).sum()  # joins b's group: that group now needs (u * k).sum()
    m = pt.second(pt.sqr(x), b.dimshuffle("x"))  # needs b's group
    outs = rewrite([scaled, k * m], include=FUSION)
    fgraph = FunctionGraph(outputs=outs, clone=False)
    assert len(fgraph.toposort()) == len(fgraph.apply_nodes)  # toposort raises on a cycle


def test_contracted_graph_check_finds_cycles():
    a = pt.exp(x)
    s = a.sum()
    out = a * s
    fg = FunctionGraph(outputs=[out], clone=False)
    groups = _Groups()
    order = fg.toposort()
    exp_node, mul_node = order[0], order[-1]
    g = groups.new(exp_node, 0)
    groups.join(mul_node, [g], [], {})  # forced: exp and the product in one group
    assert _cyclic_groups(groups, order) == [g]


def test_dissolving_a_group_is_counted_and_noted_in_the_rewrite_trace():
    a = pt.exp(x)
    out = a * a.sum()
    fg = FunctionGraph(outputs=[out], clone=False)
    groups, order = _Groups(), fg.toposort()
    groups.join(order[-1], [groups.new(order[0], 0)], [], {})  # a group closing a cycle
    assert _break_cycles(groups, order) == 1 and _cyclic_groups(groups, order) == []


@pytest.mark.parametrize("which", ["w1", "w2", "chain"])
def test_fusion_dissolves_nothing_on_known_graphs(which):
    mu, log_sigma = pt.dscalars("mu", "log_sigma")
    data = pt.constant(np.linspace(-1, 1, 7))
    logp = (-0.5 * ((data - mu) / pt.exp(log_sigma)) ** 2 - log_sigma).sum()
    outputs = {
        "w1": [x * y + pt.exp(x) - pt.log(y)],
        "w2": [logp, *arignote.grad(logp, [mu, log_sigma])],
        "chain": [sum(x * float(c) + pt.exp(x * float(c + 1)) for c in range(30))],
    }[which]
    with arignote.config.change_flags(trace_rewrites=True):
        f = arignote.function([x, y, mu, log_sigma], outputs, on_unused_input="ignore")
    trace = f.maker.rewrite_trace
    assert isinstance(trace, RewriteTrace) and "fusion" in str(trace.fired) + str(trace.events)
    assert trace.notes == []  # no group formed and then given up
