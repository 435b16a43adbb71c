"""The per-call path: the positional fast path agrees with the general one."""

from __future__ import annotations

import gc
import inspect
import weakref

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import arignote
import arignote.tensor as pt
from arignote import In, function
from arignote.compile import Function


def test_fast_path_checks_dtype_ndim_and_static_lengths_and_falls_back(rng, monkeypatch):
    x = pt.dvector("x")
    y = pt.tensor("y", dtype="float64", shape=(2, None))
    general = []
    original = Function._call_general
    monkeypatch.setattr(
        Function, "_call_general", lambda self, a, k: general.append(1) or original(self, a, k)
    )
    f = function([x, y], [x.sum(), y.sum()])
    xv, yv = rng.normal(size=3), rng.normal(size=(2, 4))
    expected = [xv.sum(), yv.sum()]
    np.testing.assert_allclose(f(xv, yv), expected)
    assert general == []  # fast path
    np.testing.assert_allclose(f(list(xv), yv), expected)  # conversion: general path
    np.testing.assert_allclose(f(xv, y=yv), expected)  # keyword: general path
    np.testing.assert_allclose(f(xv.astype("float32"), yv), expected, rtol=1e-6)  # dtype
    assert len(general) == 3
    with pytest.raises(TypeError, match="'y'"):
        f(xv, np.ones((3, 4)))  # wrong static length, reported by the general check


def test_the_function_keeps_no_reference_to_arguments_or_results(rng):
    x = pt.dvector("x")
    f = function([x], [x * 2, x.sum()])
    value = rng.normal(size=3)
    refs = [weakref.ref(value), *(weakref.ref(r) for r in f(value))]
    del value
    gc.collect()
    assert all(ref() is None for ref in refs)


def test_trust_input_skips_the_checks():
    x = pt.dvector("x")
    f = function([x], x * 2)
    with pytest.raises(TypeError):
        f("not an array")
    f.trust_input = True
    np.testing.assert_array_equal(f(np.ones(2)), [2.0, 2.0])
    with pytest.raises(AttributeError):
        f([1.0, 2.0])  # passed on unchecked: the op receives a list
    f.trust_input = False
    np.testing.assert_array_equal(f([1.0, 2.0]), [2.0, 4.0])
    assert type(f) is type(function([x], x * 3)) is Function  # no class per function


def test_updates_swap_and_dict_results():
    s = arignote.shared(np.float64(1.0), name="s")
    t = arignote.shared(np.float64(2.0), name="t")
    x = pt.dscalar("x")
    f = function([x], {"sum": s + t + x}, updates=[(s, t), (t, s)])
    assert f(np.float64(0.0)) == {"sum": 3.0}
    assert (s.get_value(), t.get_value()) == (2.0, 1.0)


def test_stateful_and_profiled_functions_compute_the_same():
    x = pt.dvector("x")
    state = pt.dscalar("state")
    stateful = function([x, In(state, value=0.0, update=state + 1)], x + state)
    assert stateful(np.zeros(1))[0] == 0.0
    assert stateful(np.zeros(1))[0] == 1.0
    profiled = function([x], x + 1, profile=True)
    np.testing.assert_array_equal(profiled(np.zeros(2)), [1.0, 1.0])


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
    # every argument positionally as exact ndarrays: the fast path
    full = [np.full(2, v) for v in values]
    np.testing.assert_allclose(f(*full), np.full(2, sum((k + 1) * v for k, v in enumerate(values))))
    np.testing.assert_allclose(f(*args, **kwargs), np.full(2, expected))


def test_storage_call_convention_reads_containers_and_fills_output_cells(rng):
    x = pt.dvector("x")
    w = arignote.shared(np.float64(2.0), name="w")
    f = function([x], [x * w, x.sum()])
    value = rng.normal(size=3)
    f.input_storage[0].storage[0] = value
    f.vm()
    np.testing.assert_allclose(f.output_storage[0][0], value * 2)
    assert f.output_storage[1][0] == pytest.approx(value.sum())
    w.set_value(np.float64(3.0))
    f.vm()  # shared values are read at each run
    np.testing.assert_allclose(f.output_storage[0][0], value * 3)


def test_function_call_is_introspectable_and_callable_through_the_class():
    x = pt.dvector("x")
    f = function([x], x + 1)
    assert list(inspect.signature(f).parameters) == ["args", "kwargs"]
    np.testing.assert_array_equal(Function.__call__(f, np.zeros(2)), [1.0, 1.0])
    np.testing.assert_array_equal(f.__call__(np.zeros(2)), [1.0, 1.0])
