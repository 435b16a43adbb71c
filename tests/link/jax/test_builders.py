"""OpFromGraph (inlined), run-time checks (CheckAndRaise, Assert) and Print in JAX mode."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="the JAX backend needs jax (pip install arignote[jax])")

import arignote  # noqa: E402
import arignote.tensor as pt  # noqa: E402
from arignote.compile.builders import OpFromGraph  # noqa: E402
from arignote.link.jax import UNSUPPORTED  # noqa: E402
from arignote.printing.print_op import Print  # noqa: E402
from arignote.raise_op import Assert, CheckAndRaise  # noqa: E402
from tests.link.jax._compare import check_vm_and_jax_agree  # noqa: E402


def test_none_of_these_ops_is_listed_unsupported():
    for name in (
        "arignote.compile.builders.OpFromGraph",
        "arignote.ifelse.IfElse",
        "arignote.printing.print_op.Print",
        "arignote.tensor.raise_op.CheckAndRaise",
        "arignote.tensor.raise_op.Assert",
    ):
        assert name not in UNSUPPORTED


def test_op_from_graph_values_and_gradients(rng):
    x, w = pt.dmatrix("x"), pt.dvector("w")
    inner_x, inner_w = pt.dmatrix(), pt.dvector()
    op = OpFromGraph([inner_x, inner_w], [pt.tanh(inner_x @ inner_w), inner_x.sum(axis=0)])
    hidden, colsum = op(x, w)
    cost = (hidden**2).sum() + (colsum * w[:2]).sum()
    args = (rng.normal(size=(4, 2)), rng.normal(size=2))
    check_vm_and_jax_agree([x, w], [hidden, colsum, *arignote.grad(cost, [x, w])], args)


def test_op_from_graph_with_a_shared_variable_and_nested(rng):
    scale = arignote.shared(np.array(1.5), name="scale")
    a = pt.dvector()
    scaled = OpFromGraph([a], [a * scale])
    b = pt.dvector()
    twice = OpFromGraph([b], [scaled(scaled(b))])
    v = pt.dvector("v")
    check_vm_and_jax_agree([v], [twice(v), arignote.grad(twice(v).sum(), v)], (rng.normal(size=3),))


def test_a_failing_assert_raises_its_exception_and_skips_updates(rng):
    count = arignote.shared(np.int64(0), name="count")
    v = pt.dvector("v")
    checked = Assert("v has a negative entry")(v, pt.all(v >= 0))
    f = arignote.function([v], checked * 2, updates=[(count, count + 1)], mode="JAX")
    good = np.abs(rng.normal(size=3))
    np.testing.assert_allclose(np.asarray(f(good)), good * 2)
    with pytest.raises(AssertionError, match="negative entry"):
        f(-good)
    assert int(count.get_value()) == 1


def test_check_and_raise_keeps_its_exception_class(rng):
    v = pt.dvector("v")
    f = arignote.function([v], CheckAndRaise(ValueError, "too big")(v, v.sum() < 10), mode="JAX")
    checked = CheckAndRaise(ValueError, "too big")(v, v.sum() < 10)
    check_vm_and_jax_agree([v], checked, (np.ones(2),))
    with pytest.raises(ValueError, match="too big"):
        f(np.full(3, 5.0))


def test_a_check_on_static_shapes_is_decided_when_tracing():
    v = pt.dvector("v")
    f = arignote.function([v], Assert("short")(v, v.shape[0] < 3), mode="JAX")
    assert f.runner.__class__.__name__ == "JAXRunner"  # no run-time check left
    np.testing.assert_allclose(np.asarray(f(np.ones(2))), np.ones(2))
    with pytest.raises(AssertionError, match="short"):
        f(np.ones(4))


def test_print_prints_what_the_vm_prints(capfd, rng):
    v = pt.dvector("v")
    out = Print("v is", attrs=("__str__", "shape"))(v) * 2
    value = rng.normal(size=3)
    arignote.function([v], out)(value)
    on_vm = capfd.readouterr().out
    result = arignote.function([v], out, mode="JAX")(value)
    np.asarray(result)
    jax.effects_barrier()
    assert capfd.readouterr().out == on_vm
    assert on_vm.startswith("v is __str__ = [")
