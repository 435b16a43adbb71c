"""arignote.tensor.optimize: SciPy's optimisers as ops, against SciPy itself and closed forms;
gradients (implicit function theorem) and R_op against finite differences."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.optimize
from arignote.tensor.optimize import (
    LRUCache1,
    MinimizeOp,
    RootOp,
    minimize,
    minimize_scalar,
    pack_inputs_of_objective,
    root,
    root_scalar,
)

import arignote
import arignote.tensor as pt
from arignote.gradient import Rop, grad


def _rosenbrock(x, a, b):
    # a Rosenbrock valley with parameters (a, b)
    return (b * (x[1:] - x[:-1] ** 2) ** 2 + (a - x[:-1]) ** 2).sum()


def _inner_functions(f):
    runner = getattr(f.runner, "vm", f.runner)
    return [s.kernel.inner_function for s in runner.steps if hasattr(s.kernel, "inner_function")]


def _numeric_grad(f, values, k, eps):
    """Central differences of the scalar ``f(*values)`` with respect to ``values[k]``."""
    base = np.asarray(values[k], dtype="float64")
    out = np.zeros_like(base)
    for index in np.ndindex(base.shape):
        shifted = [list(values), list(values)]
        for sign, row in zip((1, -1), shifted):
            moved = base.copy()
            moved[index] += sign * eps
            row[k] = moved
        out[index] = (f(*shifted[0]) - f(*shifted[1])) / (2 * eps)
    return out


def test_minimize_matches_scipy_and_its_gradient_matches_finite_differences():
    x, a, b = pt.dvector("x"), pt.dscalar("a"), pt.dscalar("b")
    tight = {"options": {"gtol": 1e-8}}
    x_star, success = minimize(_rosenbrock(x, a, b), x, optimizer_kwargs=tight)
    f = arignote.function([x, a, b], [x_star, success])
    x0 = np.array([0.3, -0.2, 0.5, 0.1])
    got, ok = f(x0, 1.3, 7.0)
    expected = scipy.optimize.minimize(
        lambda v: 7.0 * np.sum((v[1:] - v[:-1] ** 2) ** 2) + np.sum((1.3 - v[:-1]) ** 2),
        x0,
        method="BFGS",
        options={"gtol": 1e-10},
    ).x
    np.testing.assert_allclose(got, expected, atol=1e-5)
    assert bool(ok)
    weights = np.array([1.0, -2.0, 0.5, 3.0])
    loss = (x_star * weights).sum()
    grads = arignote.function([x, a, b], grad(loss, [a, b]))(x0, 1.3, 7.0)

    def value(a_, b_):
        return float(f(x0, a_, b_)[0] @ weights)

    for k in (0, 1):
        numeric = _numeric_grad(value, [1.3, 7.0], k, 1e-5)
        np.testing.assert_allclose(grads[k], numeric, rtol=1e-4, atol=1e-6)


def test_minimize_gradient_with_respect_to_a_matrix_and_a_shared_variable():
    rng = np.random.default_rng(4)
    a_value, b_value = rng.normal(size=(6, 3)), rng.normal(size=(6,))
    a = pt.dmatrix("a")
    b = arignote.shared(b_value, name="b")
    x = pt.dvector("x")
    objective = ((pt.dot(a, x) - b) ** 2).sum() + 0.1 * (x**4).sum()
    x_star, _ = minimize(objective, x, method="trust-exact", hess=True)
    f = arignote.function([x, a], x_star)
    g = arignote.function([x, a], grad(x_star.sum(), [a, b]))
    x0 = np.zeros(3)
    got_a, got_b = g(x0, a_value)

    def value_a(m):
        return float(f(x0, m).sum())

    def value_b(v):
        b.set_value(v)
        total = float(f(x0, a_value).sum())
        b.set_value(b_value)
        return total

    np.testing.assert_allclose(got_a, _numeric_grad(value_a, [a_value], 0, 1e-6), atol=1e-6)
    np.testing.assert_allclose(got_b, _numeric_grad(value_b, [b_value], 0, 1e-6), atol=1e-6)


@pytest.mark.parametrize("method", ["Newton-CG", "trust-exact", "L-BFGS-B"])
def test_minimize_methods_using_the_hessian_or_not(method):
    x, c = pt.dvector("x"), pt.dvector("c")
    hess = method != "L-BFGS-B"
    x_star, ok = minimize(pt.cosh(x - c).sum(), x, method=method, hess=hess)
    got, flag = arignote.function([x, c], [x_star, ok])(np.zeros(5), np.arange(5.0) / 3)
    np.testing.assert_allclose(got, np.arange(5.0) / 3, atol=1e-5)
    assert bool(flag)
    assert isinstance(x_star.owner.op, MinimizeOp) and x_star.owner.op.hess is hess


def test_minimize_several_variables_returns_each_in_its_shape():
    m, v = pt.dmatrix("m"), pt.dvector("v")
    target_m, target_v = np.arange(6.0).reshape(2, 3), np.array([-1.0, 4.0])
    objective = ((m - target_m) ** 2).sum() + ((v - target_v) ** 2).sum() + (m.sum() * v[0]) ** 2
    (m_star, v_star), _ = minimize(objective, [m, v], optimizer_kwargs={"tol": 1e-12})
    got_m, got_v = arignote.function([m, v], [m_star, v_star])(np.zeros((2, 3)), np.ones(2))
    assert got_m.shape == (2, 3) and got_v.shape == (2,)
    flat = scipy.optimize.minimize(
        lambda z: (
            np.sum((z[:6].reshape(2, 3) - target_m) ** 2)
            + np.sum((z[6:] - target_v) ** 2)
            + (z[:6].sum() * z[6]) ** 2
        ),
        np.concatenate([np.zeros(6), np.ones(2)]),
        tol=1e-12,
    ).x
    np.testing.assert_allclose(np.concatenate([got_m.ravel(), got_v]), flat, atol=1e-4)


def test_minimize_keeps_float32():
    x, a = pt.fvector("x"), pt.fvector("a")
    x_star, _ = minimize(((x - a) ** 2).sum(), x)
    assert x_star.dtype == "float32"
    got = arignote.function([x, a], x_star)(np.zeros(3, "float32"), np.ones(3, "float32"))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, 1.0, atol=1e-5)


def test_minimize_reports_failure():
    x = pt.dvector("x")
    a = pt.dscalar("a")
    x_star, ok = minimize(_rosenbrock(x, a, 100.0), x, optimizer_kwargs={"options": {"maxiter": 2}})
    got, flag = arignote.function([x, a], [x_star, ok])(np.zeros(3), 1.0)
    assert not bool(flag)
    assert not np.allclose(got, 1.0)


def test_minimize_scalar_matches_scipy_with_bounds():
    x, a = pt.dscalar("x"), pt.dscalar("a")
    objective = pt.sin(x) + 0.1 * (x - a) ** 2
    for method, kwargs in [("brent", {}), ("bounded", {"bounds": (2.0, 6.0)})]:
        x_star, ok = minimize_scalar(objective, x, method=method, optimizer_kwargs=kwargs)
        got, flag = arignote.function([x, a], [x_star, ok])(0.0, 4.0)
        expected = scipy.optimize.minimize_scalar(
            lambda v: np.sin(v) + 0.1 * (v - 4.0) ** 2, method=method, **kwargs
        ).x
        np.testing.assert_allclose(got, expected, rtol=1e-7)
        assert bool(flag)


def test_minimize_scalar_gradient_and_rop_against_finite_differences():
    x, a = pt.dscalar("x"), pt.dscalar("a")
    x_star, _ = minimize_scalar(pt.cosh(x - a) + 0.5 * x**2, x, optimizer_kwargs={"tol": 1e-12})
    f = arignote.function([x, a], x_star)
    da = pt.dscalar("da")
    g, jvp = arignote.function([x, a, da], [grad(x_star, a), Rop(x_star, a, da)])(0.0, 1.5, 1.0)
    numeric = (f(0.0, 1.5 + 1e-3) - f(0.0, 1.5 - 1e-3)) / 2e-3
    np.testing.assert_allclose(g, numeric, rtol=1e-5)
    np.testing.assert_allclose(jvp, numeric, rtol=1e-5)


def test_root_matches_scipy_and_its_gradient_and_rop_match_finite_differences():
    rng = np.random.default_rng(7)
    x, m, c = pt.dvector("x"), pt.dmatrix("m"), pt.dvector("c")
    # a nonlinear system: m x + x^3 / 3 = c
    x_star, ok = root(pt.dot(m, x) + x**3 / 3 - c, x, optimizer_kwargs={"tol": 1e-14})
    m0 = np.eye(3) * 2 + 0.3 * rng.normal(size=(3, 3))
    c0 = rng.normal(size=3)
    f = arignote.function([x, m, c], [x_star, ok])
    got, flag = f(np.zeros(3), m0, c0)
    expected = scipy.optimize.root(lambda v: m0 @ v + v**3 / 3 - c0, np.zeros(3), tol=1e-14).x
    np.testing.assert_allclose(got, expected, atol=1e-10)
    assert bool(flag)
    gm, gc = arignote.function([x, m, c], grad(x_star[1], [m, c]))(np.zeros(3), m0, c0)

    def value(m_, c_):
        return float(f(np.zeros(3), m_, c_)[0][1])

    np.testing.assert_allclose(gm, _numeric_grad(value, [m0, c0], 0, 1e-6), atol=1e-7)
    np.testing.assert_allclose(gc, _numeric_grad(value, [m0, c0], 1, 1e-6), atol=1e-7)
    dc = pt.dvector("dc")
    tangent = rng.normal(size=3)
    jvp = arignote.function([x, m, c, dc], Rop(x_star, c, dc))(np.zeros(3), m0, c0, tangent)
    numeric = (
        f(np.zeros(3), m0, c0 + 1e-6 * tangent)[0] - f(np.zeros(3), m0, c0 - 1e-6 * tangent)[0]
    ) / 2e-6
    np.testing.assert_allclose(jvp, numeric, atol=1e-7)


def test_root_without_jacobian_and_for_a_scalar():
    x, a = pt.dvector("x"), pt.dvector("a")
    x_star, _ = root(pt.exp(x) - a, x, method="lm", jac=False)
    got = arignote.function([x, a], x_star)(np.zeros(2), np.array([2.0, 5.0]))
    np.testing.assert_allclose(got, np.log([2.0, 5.0]), atol=1e-5)
    s, b = pt.dscalar("s"), pt.dscalar("b")
    s_star, _ = root(s**3 - b, s)
    assert s_star.ndim == 0
    value, g = arignote.function([s, b], [s_star, grad(s_star, b)])(1.0, 8.0)
    np.testing.assert_allclose([value, g], [2.0, 1 / 12])


@pytest.mark.parametrize(
    ("method", "jac", "hess", "kwargs"),
    [
        ("secant", False, False, {}),
        ("newton", True, False, {}),
        ("halley", True, True, {}),
        ("brentq", False, False, {"bracket": (0.0, 3.0)}),
    ],
)
def test_root_scalar_methods_and_gradient(method, jac, hess, kwargs):
    x, a = pt.dscalar("x"), pt.dscalar("a")
    x_star, ok = root_scalar(
        x**3 + x - a, x, method=method, jac=jac, hess=hess, optimizer_kwargs=kwargs
    )
    f = arignote.function([x, a], [x_star, ok, grad(x_star, a)])
    value, flag, g = f(1.0, 4.0)
    expected = scipy.optimize.root_scalar(
        lambda v: v**3 + v - 4.0,
        x0=1.0,
        **kwargs,
        method=method,
        fprime=(lambda v: 3 * v**2 + 1) if jac else None,
        fprime2=(lambda v: 6 * v) if hess else None,
    ).root
    np.testing.assert_allclose(value, expected, rtol=1e-8)
    assert bool(flag)
    # implicit function: (3 x^2 + 1) dx = da
    np.testing.assert_allclose(g, 1 / (3 * value**2 + 1), rtol=1e-6)


def test_errors_name_what_is_wrong():
    x, v, a = pt.dscalar("x"), pt.dvector("v"), pt.dscalar("a")
    with pytest.raises(ValueError, match="scalar"):
        minimize_scalar(v.sum(), v)
    with pytest.raises(ValueError, match="objective function must be a scalar"):
        minimize(v * a, v)
    with pytest.raises(ValueError, match="input to the computational graph"):
        minimize(a**2, x)
    with pytest.raises(ValueError, match="hess=True"):
        root_scalar(x**2 - a, x, hess=True)
    with pytest.raises(ValueError, match="same number of dimensions"):
        root((v**2).sum() - a, v)


def test_inner_graph_is_compiled_per_function_not_per_call_and_perform_agrees():
    x, a = pt.dvector("x"), pt.dvector("a")
    x_star, ok = root(x**3 - a, x)
    op = x_star.owner.op
    assert isinstance(op, RootOp)
    f = arignote.function([x, a], x_star, mode=arignote.Mode("vm", "fast_run"))
    (inner,) = _inner_functions(f)
    f(np.ones(2), np.array([8.0, 1.0]))
    assert _inner_functions(f) == [inner]
    assert op._fn is None  # nothing compiled is kept on the (shared) op
    # perform (the node-by-node reference) gives the same answer
    storage = [[None], [None]]
    op.perform(x_star.owner, [np.ones(2), np.array([8.0, 1.0])], storage)
    np.testing.assert_allclose(storage[0][0], [2.0, 1.0])
    assert storage[1][0]


def test_ops_compare_by_graph_and_settings():
    x, a = pt.dvector("x"), pt.dvector("a")
    first, _ = minimize(((x - a) ** 2).sum(), x)
    second, _ = minimize(((x - a) ** 2).sum(), x)
    third, _ = minimize(((x - a) ** 2).sum(), x, method="CG")
    assert first.owner.op == second.owner.op
    assert hash(first.owner.op) == hash(second.owner.op)
    assert first.owner.op != third.owner.op
    assert "method=CG" in str(third.owner.op)


def test_pack_inputs_of_objective():
    m, v = pt.dmatrix("m"), pt.dvector("v")
    packed, shapes, objective = pack_inputs_of_objective((m**2).sum() + v.sum(), [m, v])
    assert packed.ndim == 1 and len(shapes) == 2
    value = arignote.function([m, v], objective, on_unused_input="ignore")
    assert value(np.ones((2, 3)), np.ones(4)) == pytest.approx(10.0)
    alone, none, same = pack_inputs_of_objective(v.sum(), v)
    assert alone is v and none is None


def test_lru_cache_answers_repeated_points_once():
    calls = []

    def fn(x, scale):
        calls.append(x.copy())
        return [float(scale * x @ x), 2 * scale * x]

    cache = LRUCache1(fn, copy_x=True)
    point = np.array([1.0, 2.0])
    assert cache.value(point, 3.0) == 15.0
    np.testing.assert_allclose(cache.grad(point, 3.0), [6.0, 12.0])
    assert (cache.cache_hits, cache.cache_misses, len(calls)) == (1, 1, 1)
    point[0] = 0.0  # SciPy changes its array in place: a copy keeps the entry honest
    assert cache.value(point, 3.0) == 12.0
    assert cache.cache_misses == 2
    cache.clear_cache()
    assert cache.last_result is None and cache.value_calls == 0
