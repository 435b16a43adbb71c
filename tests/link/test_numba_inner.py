"""Native ``IfElse`` (lazy ``if`` blocks), ``OpFromGraph`` (inlined) and ``CheckAndRaise``.

Checked against the Python VM on seeded random non-square inputs; laziness is checked with a
branch that would raise if it were computed.
"""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt
from arignote.compile.builders import OpFromGraph
from arignote.ifelse import ifelse
from arignote.raise_op import Assert, CheckAndRaise

numba_backend = pytest.importorskip("arignote.link.numba")


class _Custom(Exception):
    pass


def _all_native(fn) -> None:
    assert not fn.runner.fallbacks, numba_backend.native_report(fn.runner)


def test_branches_are_lazy_and_ops_native(rng):
    """One function: nested lazy branches, an assert inside the branch not taken, an
    OpFromGraph with a 0-d output and an output that is its input."""
    a, b, c = pt.dvector("a"), pt.dmatrix("b"), pt.dscalar("c")
    checked = Assert("a is too short")(a, a.shape[0] > 2)
    inner = ifelse(c > 2, b.sum(), pt.log(c))
    outer = ifelse(c > 0, pt.exp(checked).sum() * b + inner, (b**2).T.dot(b)[:2])
    x, y = pt.dmatrix("x"), pt.dvector("y")
    ofg = OpFromGraph([x, y], [pt.exp(x) + y, (x * y).sum(), x])
    outputs = [outer, *ofg(b, a[:3])]
    native = arignote.function([a, b, c], outputs, mode="NUMBA")
    _all_native(native)
    reference = arignote.function([a, b, c], outputs)
    b_value = rng.normal(size=(2, 3))
    for c_value in (3.5, 1.5, -1.0):
        values = [rng.normal(size=4), b_value, c_value]
        for got, expected in zip(native(*values), reference(*values)):
            np.testing.assert_allclose(got, expected, rtol=1e-12)
            assert not np.shares_memory(got, b_value)
    with pytest.raises(AssertionError, match="a is too short"):
        native(np.ones(2), b_value, 1.0)
    # the else branch never computes the check: no error
    native(np.ones(2), np.ones((3, 2)), -1.0)


@pytest.mark.slow
def test_check_and_raise_with_its_own_exception(rng):
    x = pt.dmatrix("x")
    checked = CheckAndRaise(_Custom, "x has a negative entry")(x, pt.all(x >= 0), x.shape[1] > 1)
    f = arignote.function([x], checked * 2, mode="NUMBA")
    _all_native(f)
    value = np.abs(rng.normal(size=(2, 3)))
    np.testing.assert_allclose(f(value), value * 2)
    with pytest.raises(_Custom, match="negative entry"):
        f(-value)


@pytest.mark.slow
def test_ifelse_inside_a_loop(rng):
    x = pt.dvector("x")
    out = arignote.scan(
        lambda x_t, h: ifelse(x_t > 0, h + x_t, h * 0.5),
        sequences=x,
        outputs_info=pt.constant(1.0, dtype="float64"),
        return_updates=False,
    )
    f = arignote.function([x], out, mode="NUMBA")
    _all_native(f)
    value = rng.normal(size=9)
    np.testing.assert_allclose(f(value), arignote.function([x], out)(value), rtol=1e-12)


@pytest.mark.slow
def test_nested_op_from_graph_and_gradient(rng):
    x, w = pt.dmatrix("x"), pt.dmatrix("w")
    layer = OpFromGraph([x, w], [pt.tanh(pt.dot(x, w))])
    twice = OpFromGraph([x, w], [layer(layer(x, w), w.T)])
    cost = twice(x, w).sum()
    outputs = [cost, arignote.grad(cost, w)]
    f = arignote.function([x, w], outputs, mode="NUMBA")
    _all_native(f)
    values = [rng.normal(size=(2, 3)), rng.normal(size=(3, 3))]
    reference = arignote.function([x, w], outputs)
    for got, expected in zip(f(*values), reference(*values)):
        np.testing.assert_allclose(got, expected, rtol=1e-10)
