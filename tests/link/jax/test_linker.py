"""The JAX linker and mode: lazy import, device-resident shared values, random keys, errors,
platforms, 64-bit scoping and sharding over several (CPU) devices."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="the JAX backend needs jax (pip install arignote[jax])")

import arignote  # noqa: E402
import arignote.tensor as pt  # noqa: E402
from arignote.compile import mode as mode_module  # noqa: E402
from arignote.compile.mode import get_mode, jax_mode  # noqa: E402
from arignote.compile.ops import as_op  # noqa: E402
from arignote.link.jax import (  # noqa: E402
    UNSUPPORTED,
    DynamicShapeError,
    JAXLinker,
    UnsupportedOpError,
    jax_funcify,
)
from arignote.scan.index_map import index_map  # noqa: E402
from arignote.tensor.elemwise import Elemwise  # noqa: E402


def _run_python(code: str, **env: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.getcwd(), **env},
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_import_arignote_does_not_import_jax_until_the_mode_is_used():
    out = _run_python(
        """
        import sys
        import arignote, arignote.tensor as pt
        print("jax" in sys.modules)
        x = pt.dvector("x")
        arignote.function([x], x + 1, mode="JAX")
        print("jax" in sys.modules)
        """
    )
    assert out.split() == ["False", "True"]


def test_JAX_mode_links_with_jax_and_leaves_out_inplace_and_fusion(rng):
    mode = get_mode("JAX")
    assert isinstance(mode.linker, JAXLinker)
    assert set(JAXLinker.incompatible_rewrites) <= set(mode.exclude)
    x = pt.dmatrix("x")
    f = arignote.function([x], pt.exp(x) * 2 + pt.sin(x) - 1, mode="JAX")
    nodes = f.maker.fgraph.apply_nodes
    assert all(not getattr(n.op, "destroy_map", None) for n in nodes)
    assert not any(type(getattr(n.op, "scalar_op", None)).__name__ == "Composite" for n in nodes)
    value = rng.normal(size=(3, 4))
    np.testing.assert_allclose(f(value), np.exp(value) * 2 + np.sin(value) - 1, rtol=1e-12)


def test_results_are_jax_arrays_and_arguments_may_be_jax_arrays(rng):
    x, y = pt.dvector("x"), pt.dvector("y")
    f = arignote.function([x, y], x * y + 1, mode="JAX")
    a, b = rng.normal(size=5), rng.normal(size=5)
    from_numpy = f(a, b)
    with jax.enable_x64(True):  # float64 arrays on the device
        from_device = f(jax.numpy.asarray(a), jax.device_put(b))
    assert isinstance(from_numpy, jax.Array) and from_numpy.dtype == np.float64
    np.testing.assert_allclose(np.asarray(from_device), a * b + 1, rtol=1e-15)


def test_shared_values_stay_on_the_device_and_get_value_returns_numpy(rng):
    start = rng.normal(size=4)
    w = arignote.shared(start.copy(), name="w")
    x = pt.dvector("x")
    f = arignote.function([x], (w * x).sum(), updates=[(w, w - 0.5 * x)], mode="JAX")
    step = rng.normal(size=4)
    first = f(step)
    assert isinstance(w.get_value(borrow=True, return_internal_type=True), jax.Array)
    f(step)
    value = w.get_value()
    assert type(value) is np.ndarray
    np.testing.assert_allclose(value, start - step, rtol=1e-14)
    np.testing.assert_allclose(first, (start * step).sum(), rtol=1e-14)
    w.set_value(np.zeros(4))  # a NumPy value is moved to the device at the next call
    assert float(f(step)) == 0.0
    # a function of another mode reads the device value too
    g = arignote.function([], w * 2)
    np.testing.assert_allclose(g(), -step, rtol=1e-14)


def test_random_draws_advance_the_key_of_the_functions_copy_of_the_generator():
    srng = pt.random.RandomStream(seed=7)
    draw = srng.normal(0, 1, size=(3,))
    with pytest.warns(UserWarning, match="draws from a copy"):
        f = arignote.function([], draw, mode="JAX")
    first, second = np.asarray(f()), np.asarray(f())
    assert first.shape == (3,) and first.dtype == np.float64
    assert not np.allclose(first, second)
    with pytest.warns(UserWarning, match="draws from a copy"):
        g = arignote.function([], draw, mode="JAX")  # copies the untouched shared generator
    np.testing.assert_array_equal(np.asarray(g()), first)
    (rng_var,) = g.get_shared()
    key = rng_var.get_value()
    assert jax.dtypes.issubdtype(key.dtype, jax.dtypes.prng_key)  # the copy's state is a key
    rng_var.set_value(np.random.default_rng(3))  # reseeding with a NumPy generator works
    reseeded = np.asarray(g())
    rng_var.set_value(np.random.default_rng(3))
    np.testing.assert_array_equal(np.asarray(g()), reseeded)


def test_a_shared_generator_stays_numpys_for_the_other_functions():
    rng = arignote.shared(np.random.default_rng(5), name="rng")
    draw = pt.random.normal(0, 1, size=(4,), rng=rng)
    with pytest.warns(UserWarning, match=r"\[rng\]"):
        f = arignote.function([], draw, mode="JAX")
    f(), f()
    assert isinstance(rng.get_value(borrow=True), np.random.Generator)
    vm = arignote.function([], draw, mode="FAST_RUN")  # the VM draws on from the generator
    np.testing.assert_array_equal(vm(), np.random.default_rng(5).normal(0, 1, size=4))
    np.testing.assert_array_equal(vm(), _second_draw(5, 4))


def _second_draw(seed: int, n: int) -> np.ndarray:
    generator = np.random.default_rng(seed)
    generator.normal(0, 1, size=n)
    return generator.normal(0, 1, size=n)


def test_random_draws_of_a_constant_generator_are_reproducible():
    x = pt.random.uniform(2.0, 3.0, size=(1000,), rng=np.random.default_rng(1))
    values = np.asarray(arignote.function([], x, mode="JAX")())
    assert values.min() >= 2.0 and values.max() < 3.0
    assert abs(values.mean() - 2.5) < 0.05
    again = np.asarray(arignote.function([], x, mode="JAX")())
    np.testing.assert_array_equal(values, again)


def test_an_unsupported_op_is_refused_with_the_op_and_the_node():
    @as_op(itypes=[pt.dvector], otypes=[pt.dvector])
    def double(v):
        return 2 * v

    x = pt.dvector("x")
    with pytest.raises(UnsupportedOpError, match=r"FromFunctionOp.*node.*arbitrary Python"):
        arignote.function([x], double(x) + 1, mode="JAX")


def test_an_unsupported_scalar_op_inside_Elemwise_is_refused():
    x = pt.dvector("x")
    with pytest.raises(UnsupportedOpError, match="real order"):
        arignote.function([x], pt.math.jv(x, x), mode="JAX")
    assert any("Iv" in name for name in UNSUPPORTED)


def test_a_dynamic_shape_names_the_node_and_the_fix(rng):
    x = pt.dvector("x")
    n = pt.lscalar("n")
    f = arignote.function([x, n], pt.alloc(x.sum(), n, 2), mode="JAX")
    with pytest.raises(DynamicShapeError, match=r"(?s)shape of node Alloc.*specify_shape"):
        f(rng.normal(size=3), 4)
    # a shape taken from a static input shape is static: no error
    y = pt.tensor("y", dtype="float64", shape=(3,))
    g = arignote.function([y], pt.zeros((y.shape[0] * 2, 2)) + y.sum(), mode="JAX")
    assert g(rng.normal(size=3)).shape == (6, 2)


def test_x64_applies_to_this_function_only(rng):
    x = pt.dvector("x")
    f = arignote.function([x], x * 2, mode="JAX")
    assert f(rng.normal(size=2)).dtype == np.float64
    assert not jax.config.jax_enable_x64  # the rest of the program keeps JAX's default
    assert jax.numpy.asarray(np.ones(2)).dtype == np.float32


def test_float32_graphs_do_not_need_x64(rng):
    x = pt.fvector("x")
    mode = jax_mode()
    f = arignote.function([x], pt.exp(x), mode=mode)
    assert not mode.linker.uses_x64(f.maker.fgraph)
    assert f(rng.normal(size=3).astype("float32")).dtype == np.float32


def test_platform_option_places_the_computation(rng):
    x = pt.dvector("x")
    f = arignote.function([x], x + 1, mode=jax_mode(platform="cpu"))
    result = f(rng.normal(size=3))
    assert {d.platform for d in result.devices()} == {"cpu"}


def test_index_map_becomes_a_vmap(rng):
    x = pt.dmatrix("x")
    rows = index_map(lambda i, row: row * pt.cast(i, "float64"), x.shape[0], sequences=[x])
    f = arignote.function([x], rows, mode="JAX")
    value = rng.normal(size=(4, 3))
    np.testing.assert_allclose(f(value), value * np.arange(4)[:, None], rtol=1e-15)


def test_jacobian_in_jax_mode(rng):
    x = pt.tensor("x", dtype="float64", shape=(3,))
    jac = pt.jacobian(pt.exp(x) * x.sum(), x)
    f = arignote.function([x], jac, mode="JAX")
    value = rng.normal(size=3)
    expected = np.diag(np.exp(value) * value.sum()) + np.exp(value)[:, None]
    np.testing.assert_allclose(f(value), expected, rtol=1e-12)


SHARDING_SCRIPT = """
import numpy as np, jax
import arignote, arignote.tensor as pt
from arignote.compile.mode import jax_mode
assert len(jax.devices()) == 4
rng = np.random.default_rng(0)
x, t = pt.dmatrix("x"), pt.dvector("t")
w = arignote.shared(rng.normal(size=3), name="w")
loss = ((pt.dot(x, w) - t) ** 2).mean()
updates = [(w, w - 0.1 * pt.grad(loss, w))]
sharded = arignote.function([x, t], [loss, pt.dot(x, w)], updates=updates,
                            mode=jax_mode(shard_batch=("x", "t")))
xs, ts = rng.normal(size=(8, 3)), rng.normal(size=8)
loss_s, pred_s = sharded(xs, ts)
print(len(pred_s.sharding.device_set), len(w.container.storage[0].sharding.device_set))
w_sharded = w.get_value()
w.set_value(w_sharded * 0 + rng.normal(size=3))
w2 = arignote.shared(np.random.default_rng(0).normal(size=3))
single = arignote.function([x, t], loss, updates=[(w2, w2 - 0.1 * pt.grad(
    ((pt.dot(x, w2) - t) ** 2).mean(), w2))], mode="JAX")
loss_1 = arignote.function([x, t], ((pt.dot(x, w2) - t) ** 2).mean(), mode="JAX")(xs, ts)
single(xs, ts)
np.testing.assert_allclose(float(loss_s), float(loss_1), rtol=1e-12)
np.testing.assert_allclose(w_sharded, w2.get_value(), rtol=1e-12)
print("ok")
"""


def test_sharding_over_four_cpu_devices_matches_one_device():
    # JAX_PLATFORMS=cpu: on a GPU machine the default platform would be the (single) GPU
    out = _run_python(
        SHARDING_SCRIPT, XLA_FLAGS="--xla_force_host_platform_device_count=4", JAX_PLATFORMS="cpu"
    )
    assert out.split() == ["4", "4", "ok"]


def test_scalar_conversions_cover_every_elemwise_in_a_fused_graph(rng):
    # a Composite built by the default pipeline's fusion still converts (inner graph walked)
    x = pt.dvector("x")
    fused = arignote.function([x], pt.exp(x) * 2 + pt.log1p(x * x), mode="FAST_RUN")
    composite = next(n.op for n in fused.maker.fgraph.apply_nodes if isinstance(n.op, Elemwise))
    value = rng.uniform(size=4)
    with jax.enable_x64(True):
        result = jax_funcify(composite.scalar_op)(value)
    np.testing.assert_allclose(result, np.exp(value) * 2 + np.log1p(value**2), rtol=1e-12)


def test_a_mode_naming_the_jax_linker_leaves_out_what_it_cannot_take(rng):
    # Mode builds the pipeline from the linker's declaration: no fusion, no in-place rewrites
    x, y = pt.dmatrix("x"), pt.dvector("y")
    out = pt.inc_subtensor(pt.exp(x)[1:], pt.tanh(y) * 2) + pt.log1p(x * x)
    mode = arignote.Mode(linker="jax", optimizer="fast_run")
    f = arignote.function([x, y], out, mode=mode)
    ops = [n.op for n in f.maker.fgraph.apply_nodes]
    assert not any(type(getattr(op, "scalar_op", None)).__name__ == "Composite" for op in ops)
    assert not any(getattr(op, "destroy_map", None) for op in ops)
    xv, yv = rng.normal(size=(3, 4)), rng.normal(size=4)
    expected = np.exp(xv)
    expected[1:] += np.tanh(yv) * 2
    np.testing.assert_allclose(f(xv, yv), expected + np.log1p(xv * xv), rtol=1e-12)


def test_without_jax_the_mode_says_how_to_install_it(monkeypatch):
    def missing(name):
        raise ModuleNotFoundError("No module named 'jax'", name="jax")

    monkeypatch.setattr(mode_module.importlib, "import_module", missing)
    with pytest.raises(ImportError, match=r"arignote\[jax\]"):
        mode_module.jax_mode()


def test_matmul_precision_is_an_option_checked_when_the_linker_is_made(rng):
    with pytest.raises(ValueError, match="matmul_precision"):
        JAXLinker(matmul_precision="tf32")
    x, y = pt.fmatrix("x"), pt.fmatrix("y")
    xv = rng.normal(size=(3, 5)).astype("float32")
    yv = rng.normal(size=(5, 2)).astype("float32")
    for precision in ("highest", "default", None):
        f = arignote.function([x, y], pt.dot(x, y), mode=jax_mode(matmul_precision=precision))
        assert f.maker.linker.matmul_precision == precision
        np.testing.assert_allclose(np.asarray(f(xv, yv)), xv @ yv, rtol=1e-2, atol=1e-3)


def test_a_copy_of_a_jax_function_draws_from_its_own_generator_copy():
    rng = arignote.shared(np.random.default_rng(2), name="rng")
    draw = pt.random.uniform(size=(3,), rng=rng)
    with pytest.warns(UserWarning, match="draws from a copy"):
        f = arignote.function([], draw, mode="JAX")
    f()
    with pytest.warns(UserWarning, match="draws from a copy"):
        g = f.copy()
    g()
    assert isinstance(rng.get_value(borrow=True), np.random.Generator)
    assert g.get_shared()[0] is not f.get_shared()[0] is not rng
