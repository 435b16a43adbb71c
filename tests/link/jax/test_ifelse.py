"""IfElse in JAX mode (lax.cond) against the VM: several outputs, gradients, static
conditions, and branches of different shapes."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("jax", reason="the JAX backend needs jax (pip install arignote[jax])")

import arignote
import arignote.tensor as pt
from arignote.ifelse import ifelse
from arignote.link.jax import DynamicShapeError
from arignote.raise_op import Assert
from tests.link.jax._compare import check_vm_and_jax_agree


def test_both_branches_several_outputs_and_gradients(rng):
    a, b = pt.dscalars("a", "b")
    x, y = pt.dmatrix("x"), pt.dmatrix("y")
    first, second = ifelse(pt.lt(a, b), [pt.mean(x) * a, x * 2], [pt.mean(y), y + b])
    cost = first + (second**2).sum()
    outs = [first, second, *arignote.grad(cost, [a, b, x, y])]
    xv, yv = rng.normal(size=(2, 3)), rng.normal(size=(2, 3))
    for av, bv in ((1.0, 2.0), (3.0, 2.0)):
        check_vm_and_jax_agree([a, b, x, y], outs, (av, bv, xv, yv))


def test_integer_condition_and_integer_values(rng):
    c, i = pt.lscalar("c"), pt.lvector("i")
    out = ifelse(c, i * 2, i - 1)
    for cv in (0, 5):
        check_vm_and_jax_agree([c, i], out, (cv, rng.integers(-5, 5, size=4)))


def test_condition_known_while_tracing_may_pick_branches_of_other_shapes(rng):
    x = pt.dmatrix("x")
    out = ifelse(pt.gt(x.shape[0], 1), x[:1], x)  # a condition on a (static) shape
    check_vm_and_jax_agree([x], out, (rng.normal(size=(3, 2)),))
    check_vm_and_jax_agree([x], out, (rng.normal(size=(1, 2)),))


def test_branches_of_other_shapes_raise_a_clear_error(rng):
    a = pt.dscalar("a")
    x = pt.dmatrix("x")
    f = arignote.function([a, x], ifelse(pt.gt(a, 0), x, x[:1]), mode="JAX")
    with pytest.raises(DynamicShapeError, match="same shape"):
        f(1.0, rng.normal(size=(3, 2)))


def test_only_the_branch_taken_is_computed(rng):
    a = pt.dscalar("a")
    x = pt.dmatrix("x")
    # the else-branch fails its check unless a < -100: computing it eagerly would raise
    guarded = pt.exp(Assert("else-branch computed")(x, pt.lt(a, -100))).sum(axis=0)
    inner = ifelse(pt.gt(a, 10), x.sum(axis=0), guarded)
    out = ifelse(pt.gt(a, 0), x.mean(axis=0), inner)
    f = arignote.function([a, x], out, mode="JAX")
    xv = rng.normal(size=(3, 2))
    np.testing.assert_allclose(np.asarray(f(1.0, xv)), xv.mean(axis=0))
    with pytest.raises(AssertionError, match="else-branch computed"):
        f(-1.0, xv)
    np.testing.assert_allclose(np.asarray(f(-200.0, xv)), np.exp(xv).sum(axis=0))
