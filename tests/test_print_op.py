"""``printing.Print``: Theano's debugging identity."""

from __future__ import annotations

import numpy as np

import arignote
import arignote.tensor as pt
from arignote.printing import Print


def test_print_op_prints_when_computed_and_passes_gradients(capsys):
    x = pt.dvector("x")
    shown = Print("value of x", attrs=("__str__", "shape"))(x)
    fn = arignote.function([x], [(shown**2).sum(), arignote.grad((shown**2).sum(), x)])
    total, gx = fn(np.array([1.0, 2.0]))
    out = capsys.readouterr().out
    assert "value of x __str__ = [1. 2.]" in out and "value of x shape = (2,)" in out
    assert total == 5.0 and np.allclose(gx, [2.0, 4.0])


def test_print_op_calls_global_fn_at_each_call():
    seen = []
    x = pt.dscalar("x")
    fn = arignote.function([x], Print(global_fn=lambda op, v: seen.append(float(v)))(x) + 1)
    fn(1.0)
    fn(2.0)
    assert seen == [1.0, 2.0]
