"""wrap_jax: a JAX function as an op, on the VM and in JAX mode, with its gradient."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="wrap_jax needs jax (pip install arignote[jax])")
import jax.numpy as jnp  # noqa: E402

import arignote  # noqa: E402
import arignote.tensor as pt  # noqa: E402
from arignote.testing import verify_grad  # noqa: E402


def _vector(name):
    return pt.tensor(name, dtype="float64", shape=(3,))


def test_import_arignote_does_not_import_jax():
    code = "import sys, arignote; assert 'jax' not in sys.modules; arignote.wrap_jax; "
    code += "assert 'jax' in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_pytrees_in_and_out_with_fixed_leaves():
    @arignote.wrap_jax
    def fn(x, y, scale=1.0):
        return {"s": jnp.sin(x) * y * scale, "n": jnp.sum(x**2)}

    x, y = _vector("x"), _vector("y")
    out = fn(x, y, scale=2.0)
    a, b = np.array([1.0, 2.0, 3.0]), np.array([0.5, 1.0, 2.0])
    s, n = arignote.function([x, y], [out["s"], out["n"]])(a, b)
    np.testing.assert_allclose(s, np.sin(a) * b * 2)
    assert n == pytest.approx(14.0) and out["n"].type.shape == ()


def test_gradient_is_jax_vjp_and_checks_against_finite_differences(rng):
    fn = arignote.wrap_jax(lambda x, y: jnp.tanh(x) * jnp.exp(y))
    a, b = rng.normal(size=3), rng.normal(size=3)
    verify_grad(lambda u, v: fn(pt.specify_shape(u, (3,)), pt.specify_shape(v, (3,))), [a, b])


def test_jax_mode_calls_the_function_inside_the_compiled_graph():
    fn = arignote.wrap_jax(lambda x: jnp.cumsum(x) * 2)
    x = _vector("x")
    out = fn(x) + 1
    got = arignote.function([x], out, mode="JAX")(np.array([1.0, 2.0, 3.0]))
    np.testing.assert_allclose(np.asarray(got), [3.0, 7.0, 13.0])


def test_unknown_shapes_are_refused_with_a_clear_error():
    fn = arignote.wrap_jax(allow_eval=False)(lambda x: x * 2)
    with pytest.raises(ValueError, match="static shapes"):
        fn(pt.dvector())
    with pytest.raises(ValueError, match="specify_shape"):
        arignote.wrap_jax(lambda x: x * 2)(pt.dvector())
