"""The generated ``__call__``: the unrolled per-call path agrees with the general one."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import arignote
import arignote.tensor as pt
from arignote import In, function


def test_generated_call_checks_dtype_and_ndim_and_falls_back(rng):
    x = pt.dvector("x")
    y = pt.tensor("y", dtype="float64", shape=(2, None))
    f = function([x, y], [x.sum(), y.sum()])
    source = f.__call__.source
    assert "is not dtype0" in source and ".ndim != 1" in source
    assert "shape[0] != 2" in source  # the static length
    xv, yv = rng.normal(size=3), rng.normal(size=(2, 4))
    expected = [xv.sum(), yv.sum()]
    np.testing.assert_allclose(f(xv, yv), expected)  # fast path
    np.testing.assert_allclose(f(list(xv), yv), expected)  # conversion: general path
    np.testing.assert_allclose(f(xv, y=yv), expected)  # keyword: general path
    with pytest.raises(TypeError, match="'y'"):
        f(xv, np.ones((3, 4)))  # wrong static length: general path reports it
    assert f.vm.storage_map[f.maker.fgraph.inputs[0]][0] is None  # no reference kept


def test_trust_input_switches_the_generated_call():
    x = pt.dvector("x")
    f = function([x], x * 2)
    checked = f.__call__.source
    f.trust_input = True
    assert "is not dtype0" not in f.__call__.source
    f.trust_input = False
    assert f.__call__.source == checked
    g = function([x], x * 2)
    assert type(g) is not type(f)  # each function has its own call
    assert isinstance(f, arignote.compile.Function)


def test_generated_call_applies_updates_and_returns_dicts():
    s = arignote.shared(np.float64(1.0), name="s")
    t = arignote.shared(np.float64(2.0), name="t")
    x = pt.dscalar("x")
    f = function([x], {"sum": s + t + x}, updates=[(s, t), (t, s)])
    assert "new1 = source1[0]" in f.__call__.source
    assert f(np.float64(0.0)) == {"sum": 3.0}
    assert (s.get_value(), t.get_value()) == (2.0, 1.0)


def test_functions_needing_the_general_call_get_none():
    x = pt.dvector("x")
    state = pt.dscalar("state")
    stateful = function([x, In(state, value=0.0, update=state + 1)], x + state)
    assert not hasattr(stateful.__call__, "source")
    assert stateful(np.zeros(1))[0] == 0.0
    profiled = function([x], x + 1, profile=True)
    assert not hasattr(profiled.__call__, "source")


@st.composite
def _signatures_and_calls(draw):
    """Inputs (name, default or None) and a call: positional prefix, keywords, omissions."""
    n = draw(st.integers(1, 4))
    defaults = [draw(st.one_of(st.none(), st.floats(-3, 3, allow_nan=False))) for _ in range(n)]
    values = [draw(st.floats(-3, 3, allow_nan=False)) for _ in range(n)]
    n_positional = draw(st.integers(0, n))
    forms = [draw(st.sampled_from(["array", "list", "float"])) for _ in range(n)]
    omitted = [
        k >= n_positional and defaults[k] is not None and draw(st.booleans()) for k in range(n)
    ]
    return defaults, values, n_positional, forms, omitted


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_signatures_and_calls())
def test_binding_agrees_with_python_semantics(case):
    defaults, values, n_positional, forms, omitted = case
    n = len(defaults)
    xs = [pt.dvector(f"x{k}") for k in range(n)]
    ins = [In(x, value=np.full(2, d)) if d is not None else x for x, d in zip(xs, defaults)]
    f = function(ins, sum((k + 1) * x for k, x in enumerate(xs)))
    as_form = {
        "array": lambda v: np.full(2, v),
        "list": lambda v: [v, v],
        "float": lambda v: np.full(2, v).tolist(),
    }
    args = [as_form[forms[k]](values[k]) for k in range(n_positional)]
    kwargs = {
        f"x{k}": as_form[forms[k]](values[k]) for k in range(n_positional, n) if not omitted[k]
    }
    used = [defaults[k] if omitted[k] else values[k] for k in range(n)]
    expected = sum((k + 1) * v for k, v in enumerate(used))
    for _ in range(2):  # a second call checks that omitted defaults come back
        np.testing.assert_allclose(f(*args, **kwargs), np.full(2, expected))
    # every argument positionally as exact ndarrays: the generated fast path
    full = [np.full(2, v) for v in values]
    np.testing.assert_allclose(f(*full), np.full(2, sum((k + 1) * v for k, v in enumerate(values))))
    np.testing.assert_allclose(f(*args, **kwargs), np.full(2, expected))
