"""``subgraph_grad``: differentiating a graph one piece at a time."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.gradient import grad, subgraph_grad


def _mlp(rng):
    x, t = pt.dvector("x"), pt.dvector("t")
    w1 = arignote.shared(rng.normal(size=(3, 4)), name="w1")
    w2 = arignote.shared(rng.normal(size=(4, 2)), name="w2")
    a1 = pt.tanh(pt.dot(x, w1))
    a2 = pt.tanh(pt.dot(a1, w2))
    cost2 = pt.sqr(a2 - t).sum() + pt.sqr(w2.sum())
    cost1 = pt.sqr(w1.sum())
    return x, t, w1, w2, a1, cost1, cost2


def test_layer_by_layer_equals_the_full_gradient(rng):
    x, t, w1, w2, a1, cost1, cost2 = _mlp(rng)
    params, costs, ends = [[w2], [w1]], [cost2, cost1], [[a1], [x]]
    next_grad, param_grads = None, []
    for i in range(2):
        param_grad, end_grad = subgraph_grad(
            wrt=params[i], end=ends[i], start=next_grad, cost=costs[i]
        )
        next_grad = dict(zip(ends[i], end_grad))
        param_grads.extend(param_grad)
    full = grad(cost1 + cost2, [w2, w1])
    xv, tv = rng.normal(size=3), rng.normal(size=2)
    got = arignote.function([x, t], param_grads + full)(xv, tv)
    np.testing.assert_allclose(got[0], got[2])
    np.testing.assert_allclose(got[1], got[3])


def test_details_separate_start_and_cost(rng):
    x, t, w1, w2, a1, cost1, cost2 = _mlp(rng)
    g_a1 = pt.dvector("g_a1")
    wrt_grads, end_grads, start_grads, cost_grads = subgraph_grad(
        [w1], [x], start={a1: g_a1}, cost=cost1, details=True
    )
    assert len(start_grads) == len(cost_grads) == 1
    values = arignote.function([x, g_a1], wrt_grads + start_grads + cost_grads + end_grads)(
        rng.normal(size=3), rng.normal(size=4)
    )
    np.testing.assert_allclose(values[0], values[1] + values[2])
    assert values[3].shape == (3,)


def test_only_a_cost_and_bad_arguments(rng):
    x, t, w1, w2, a1, cost1, cost2 = _mlp(rng)
    wrt_grads, end_grads = subgraph_grad([w2], [a1], cost=cost2)
    assert len(wrt_grads) == 1 and len(end_grads) == 1
    with pytest.raises(ValueError, match="cost, a start"):
        subgraph_grad([w2], [a1])
    with pytest.raises(TypeError, match="lists"):
        subgraph_grad(w2, [a1], cost=cost2)
    with pytest.raises(TypeError, match="dict"):
        subgraph_grad([w2], [a1], start=[(a1, a1)])
