"""Benchmark workloads of ../shared/BENCHMARKS.md on arignote and, when installed, other engines.

Usage::

    python bench/run.py                     # every workload defined here
    python bench/run.py W1 W2 --rounds 31   # some workloads, more rounds

Each workload builds one callable per engine (arignote with its default checks, arignote with
``trust_input``, NumPy eager, and PyTensor / JAX when they can be imported: they are skipped
cleanly otherwise). Engines are *interleaved*: every round times a batch of calls of each
engine in turn, so that machine noise hits them alike; the table shows the median time per
call over the rounds and its ratio to NumPy eager measured in the same run. Thread counts are
set to 1 before NumPy is imported.

Adding a workload: write ``def workload_<id>() -> Workload`` returning the engines' callables
(built once, outside the timing) and a check that they agree, and list it in ``WORKLOADS``.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false")

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import platform  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from blas_cores import blas_cores  # noqa: E402

import arignote  # noqa: E402
import arignote.tensor as pt  # noqa: E402
from arignote.compile.mode import Mode  # noqa: E402
from arignote.link.tiered import TieredLinker, TieredRunner  # noqa: E402
from arignote.tensor.nnet import conv2d  # noqa: E402
from arignote.tensor.signal.pool import pool_2d  # noqa: E402


@dataclass
class Workload:
    """One benchmark: a description, the unit, and ``{engine: zero-argument callable}``."""

    name: str
    unit: str  # "us" or "ms"
    calls: dict[str, Callable[[], object]] = field(default_factory=dict)
    reference: str = "numpy eager"
    tolerant: bool = False  # report engines that disagree with the reference instead of failing


def _have(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def _add_arignote_jax(workload: Workload, inputs: list, outputs, args: tuple) -> None:
    """arignote's JAX mode (results waited for, as raw ``jax.jit``'s are), when jax is there."""
    if not _have("jax"):
        return
    import jax

    for label, trust in (("arignote JAX", False), ("arignote JAX trust_input", True)):
        f = arignote.function(inputs, outputs, mode="JAX", trust_input=trust)
        jax.block_until_ready(f(*args))
        if isinstance(outputs, list):
            workload.calls[label] = lambda f=f: jax.block_until_ready(f(*args))
        else:  # one array: wait as the raw jax.jit engines do (the tree walk costs ~1.5 us)
            workload.calls[label] = lambda f=f: f(*args).block_until_ready()


def _hot(f, *args) -> None:
    """Call a default-mode (tiered) function until it is hot and wait for its native code."""
    runner = f.runner
    if isinstance(runner, TieredRunner):
        while not runner.is_hot:
            f(*args)
        runner.wait()


#: The tiered linker that never becomes hot: its calls all pay the counting wrapper.
_COUNTING = Mode(TieredLinker(hot_calls=1 << 62, hot_seconds=1e30, warm_calls=0), "fast_run")


def _add_default_tiers(workload: Workload, inputs: list, outputs, args: tuple) -> None:
    """The default mode before the swap (VM behind the counting wrapper) and the VM alone."""
    for label, mode in (("arignote VM", "VM"), ("arignote tiered, before swap", _COUNTING)):
        for suffix, trust in (("", False), (" trust_input", True)):
            f = arignote.function(inputs, outputs, mode=mode, trust_input=trust)
            workload.calls[label + suffix] = lambda f=f: f(*args)


def _add_arignote_native(workload: Workload, inputs: list, outputs, args: tuple) -> None:
    """``mode="NUMBA"`` with and without ``trust_input`` (compiled outside the timing)."""
    if not _have("numba"):
        return
    for label, trust in (("arignote NUMBA", False), ("arignote NUMBA trust_input", True)):
        f = arignote.function(inputs, outputs, mode="NUMBA", trust_input=trust)
        f(*args)
        workload.calls[label] = lambda f=f: f(*args)


# -- W1: per-call overhead of a tiny elementwise function -----------------------------------------


def _w1_arignote(a_value: np.ndarray, b_value: np.ndarray, workload: Workload) -> None:
    ttype = pt.TensorType("float64", (None,) * a_value.ndim)
    a, b = ttype("a"), ttype("b")
    f = arignote.function([a, b], a * b + pt.exp(a) - pt.log(b))
    trusted = arignote.function([a, b], a * b + pt.exp(a) - pt.log(b), trust_input=True)
    _hot(f, a_value, b_value), _hot(trusted, a_value, b_value)  # the default: tiered, swapped
    _add_default_tiers(workload, [a, b], a * b + pt.exp(a) - pt.log(b), (a_value, b_value))
    workload.calls["arignote"] = lambda: f(a_value, b_value)
    workload.calls["arignote trust_input"] = lambda: trusted(a_value, b_value)
    _add_arignote_jax(workload, [a, b], a * b + pt.exp(a) - pt.log(b), (a_value, b_value))
    if _have("numba"):
        out = a * b + pt.exp(a) - pt.log(b)
        native = arignote.function([a, b], out, mode="NUMBA")
        native_trusted = arignote.function([a, b], out, mode="NUMBA", trust_input=True)
        workload.calls["arignote NUMBA"] = lambda: native(a_value, b_value)
        workload.calls["arignote NUMBA trust_input"] = lambda: native_trusted(a_value, b_value)


def _w1_pytensor(a_value: np.ndarray, b_value: np.ndarray, workload: Workload) -> None:
    if not _have("pytensor"):
        return
    import pytensor
    import pytensor.tensor as ptt

    a = ptt.tensor("a", dtype="float64", shape=(None,) * a_value.ndim)
    b = ptt.tensor("b", dtype="float64", shape=(None,) * a_value.ndim)
    out = a * b + ptt.exp(a) - ptt.log(b)
    for label, mode in (("pytensor default", None), ("pytensor C", "FAST_RUN")):
        try:
            f = pytensor.function([a, b], out, mode=mode)
        except Exception as err:  # a missing compiler or backend: report and go on
            print(f"  ({label} unavailable: {type(err).__name__})")
            continue
        workload.calls[label] = lambda f=f: f(a_value, b_value)
        trusted = pytensor.function([a, b], out, mode=mode)
        trusted.trust_input = True
        workload.calls[f"{label} trust_input"] = lambda f=trusted: f(a_value, b_value)


def _w1_jax(a_value: np.ndarray, b_value: np.ndarray, workload: Workload) -> None:
    if not _have("jax"):
        return
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)
    f = jax.jit(lambda a, b: a * b + jnp.exp(a) - jnp.log(b))
    f(a_value, b_value).block_until_ready()
    workload.calls["jax jit"] = lambda: f(a_value, b_value).block_until_ready()


def _w1(shape: tuple) -> Workload:
    rng = np.random.default_rng(0)
    a_value = rng.uniform(0.5, 1.5, size=shape)
    b_value = rng.uniform(0.5, 1.5, size=shape)
    name = "W1 f(a, b) = a*b + exp(a) - log(b), " + ("0-d" if not shape else f"shape {shape}")
    workload = Workload(name, "us")
    workload.calls["numpy eager"] = lambda: a_value * b_value + np.exp(a_value) - np.log(b_value)
    _w1_arignote(a_value, b_value, workload)
    _w1_pytensor(a_value, b_value, workload)
    _w1_jax(a_value, b_value, workload)
    return workload


def workload_W1() -> Workload:
    return _w1(())


def workload_W1v() -> Workload:
    return _w1((10,))


# -- W2: log-density and gradient (the sampler's hot loop) ----------------------------------------

LOG_2PI = float(np.log(2 * np.pi))


def _w2_data() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(1)
    y = rng.normal(0.3, 1.7, size=100)
    return y, np.array(0.2), np.array(0.4)


def _w2_numpy(y: np.ndarray) -> Callable:
    def logp_and_grad(mu: np.ndarray, log_sigma: np.ndarray) -> list:
        sigma = np.exp(log_sigma)
        z = (y - mu) / sigma
        logp = np.sum(-0.5 * z**2 - log_sigma - 0.5 * LOG_2PI)
        return [logp, np.sum(z / sigma), np.sum(z**2 - 1.0)]

    return logp_and_grad


def _w2_arignote(y: np.ndarray, workload: Workload, mu_v, ls_v) -> None:
    mu, log_sigma = pt.dscalar("mu"), pt.dscalar("log_sigma")
    data = pt.constant(y, name="y")
    logp = (-0.5 * ((data - mu) / pt.exp(log_sigma)) ** 2 - log_sigma - 0.5 * LOG_2PI).sum()
    outputs = [logp, *arignote.grad(logp, [mu, log_sigma])]
    f = arignote.function([mu, log_sigma], outputs)
    trusted = arignote.function([mu, log_sigma], outputs, trust_input=True)
    _hot(f, mu_v, ls_v), _hot(trusted, mu_v, ls_v)  # the default: tiered, swapped
    _add_default_tiers(workload, [mu, log_sigma], outputs, (mu_v, ls_v))
    workload.calls["arignote"] = lambda: f(mu_v, ls_v)
    workload.calls["arignote trust_input"] = lambda: trusted(mu_v, ls_v)
    if _have("numba"):
        native = arignote.function([mu, log_sigma], outputs, mode="NUMBA")
        native_trusted = arignote.function([mu, log_sigma], outputs, mode="NUMBA", trust_input=True)
        workload.calls["arignote NUMBA"] = lambda: native(mu_v, ls_v)
        workload.calls["arignote NUMBA trust_input"] = lambda: native_trusted(mu_v, ls_v)


def _w2_pytensor(y: np.ndarray, workload: Workload, mu_v, ls_v) -> None:
    if not _have("pytensor"):
        return
    import pytensor
    import pytensor.tensor as ptt

    mu, log_sigma = ptt.dscalar("mu"), ptt.dscalar("log_sigma")
    logp = (-0.5 * ((y - mu) / ptt.exp(log_sigma)) ** 2 - log_sigma - 0.5 * LOG_2PI).sum()
    outputs = [logp, *pytensor.grad(logp, [mu, log_sigma])]
    for label, mode in (("pytensor default", None), ("pytensor C", "FAST_RUN")):
        try:
            f = pytensor.function([mu, log_sigma], outputs, mode=mode)
        except Exception as err:
            print(f"  ({label} unavailable: {type(err).__name__})")
            continue
        workload.calls[label] = lambda f=f: f(mu_v, ls_v)
        trusted = pytensor.function([mu, log_sigma], outputs, mode=mode)
        trusted.trust_input = True
        workload.calls[f"{label} trust_input"] = lambda f=trusted: f(mu_v, ls_v)


def _w2_jax(y: np.ndarray, workload: Workload, mu_v, ls_v) -> None:
    if not _have("jax"):
        return
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)

    def logp(mu, log_sigma):
        return jnp.sum(-0.5 * ((y - mu) / jnp.exp(log_sigma)) ** 2 - log_sigma - 0.5 * LOG_2PI)

    both = jax.jit(lambda mu, ls: [logp(mu, ls), *jax.grad(logp, argnums=(0, 1))(mu, ls)])
    jax.block_until_ready(both(mu_v, ls_v))
    workload.calls["jax jit"] = lambda: jax.block_until_ready(both(mu_v, ls_v))


def workload_W2() -> Workload:
    y, mu_v, ls_v = _w2_data()
    workload = Workload("W2 normal log-density + gradient, 100 points", "us")
    numpy_fn = _w2_numpy(y)
    workload.calls["numpy eager"] = lambda: numpy_fn(mu_v, ls_v)
    _w2_arignote(y, workload, mu_v, ls_v)
    _w2_pytensor(y, workload, mu_v, ls_v)
    _w2_jax(y, workload, mu_v, ls_v)
    return workload


# -- W3: large elementwise throughput ---------------------------------------------------------


def _w3_expression(lib, x, y, z):
    return lib.exp(-(x**2)) * lib.sin(y) + lib.log1p(lib.abs(z))


def workload_W3(n: int = 10**7) -> Workload:
    rng = np.random.default_rng(3)
    x, y, z = (rng.normal(size=n) for _ in range(3))
    workload = Workload(f"W3 exp(-x**2)*sin(y) + log1p(abs(z)), N={n:.0e}", "ms")
    workload.calls["numpy eager"] = lambda: _w3_expression(np, x, y, z)
    xs, ys, zs = pt.dvectors("x", "y", "z")
    f = arignote.function([xs, ys, zs], _w3_expression(pt, xs, ys, zs))
    workload.calls["arignote"] = lambda: f(x, y, z)
    _add_arignote_jax(workload, [xs, ys, zs], _w3_expression(pt, xs, ys, zs), (x, y, z))
    _add_arignote_native(workload, [xs, ys, zs], _w3_expression(pt, xs, ys, zs), (x, y, z))
    if _have("pytensor"):
        import pytensor
        import pytensor.tensor as ptt

        xp, yp, zp = ptt.dvectors("x", "y", "z")
        for label, mode in (("pytensor default", None), ("pytensor C", "FAST_RUN")):
            g = pytensor.function([xp, yp, zp], _w3_expression(ptt, xp, yp, zp), mode=mode)
            workload.calls[label] = lambda g=g: g(x, y, z)
    if _have("jax"):
        import jax
        import jax.numpy as jnp

        jax.config.update("jax_enable_x64", True)
        h = jax.jit(lambda a, b, c: _w3_expression(jnp, a, b, c))
        workload.calls["jax jit"] = lambda: h(x, y, z).block_until_ready()
    return workload


# -- W4: a training step of a small MLP --------------------------------------------------------


def _w4_data():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(256, 784))
    labels = np.eye(10)[rng.integers(0, 10, size=256)]
    params = [
        rng.normal(scale=0.05, size=(784, 256)),
        np.zeros(256),
        rng.normal(scale=0.05, size=(256, 10)),
        np.zeros(10),
    ]
    return x, labels, params


def _w4_numpy(x, labels, params):
    w1, b1, w2, b2 = params
    n = x.shape[0]
    h = np.tanh(x @ w1 + b1)
    logits = h @ w2 + b2
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    loss = -(labels * log_probs).sum() / n
    g_logits = (np.exp(log_probs) - labels) / n
    g_w2, g_b2 = h.T @ g_logits, g_logits.sum(axis=0)
    g_h = (g_logits @ w2.T) * (1 - h**2)
    return [loss, x.T @ g_h, g_h.sum(axis=0), g_w2, g_b2]


def _w4_graph(lib, grad_fn, x, labels, w1, b1, w2, b2):
    h = lib.tanh(lib.dot(x, w1) + b1)
    logits = lib.dot(h, w2) + b2
    loss = -(labels * lib.special.log_softmax(logits, axis=1)).sum() / x.shape[0]
    return [loss, *grad_fn(loss, [w1, b1, w2, b2])]


def workload_W4() -> Workload:
    x, labels, params = _w4_data()
    workload = Workload("W4 MLP step (256x784 -> 256 tanh -> 10 softmax), loss + 4 grads", "ms")
    workload.calls["numpy eager"] = lambda: _w4_numpy(x, labels, params)
    sym = [pt.dmatrix("x"), pt.dmatrix("t"), pt.dmatrix("w1"), pt.dvector("b1")]
    sym += [pt.dmatrix("w2"), pt.dvector("b2")]
    f = arignote.function(sym, _w4_graph(pt, arignote.grad, *sym))
    _hot(f, x, labels, *params)
    workload.calls["arignote"] = lambda: f(x, labels, *params)
    _add_arignote_native(workload, sym, _w4_graph(pt, arignote.grad, *sym), (x, labels, *params))
    _add_arignote_jax(workload, sym, _w4_graph(pt, arignote.grad, *sym), (x, labels, *params))
    if _have("pytensor"):
        import pytensor
        import pytensor.tensor as ptt

        psym = [
            ptt.dmatrix(),
            ptt.dmatrix(),
            ptt.dmatrix(),
            ptt.dvector(),
            ptt.dmatrix(),
            ptt.dvector(),
        ]
        outs = _w4_graph(ptt, pytensor.grad, *psym)
        for label, mode in (("pytensor default", None), ("pytensor C", "FAST_RUN")):
            g = pytensor.function(psym, outs, mode=mode)
            workload.calls[label] = lambda g=g: g(x, labels, *params)
    if _have("jax"):
        import jax
        import jax.numpy as jnp

        jax.config.update("jax_enable_x64", True)

        def loss(ps, xv, tv):
            w1, b1, w2, b2 = ps
            h = jnp.tanh(xv @ w1 + b1)
            return -(tv * jax.nn.log_softmax(h @ w2 + b2, axis=1)).sum() / xv.shape[0]

        step = jax.jit(lambda ps, xv, tv: [loss(ps, xv, tv), *jax.grad(loss)(ps, xv, tv)])
        workload.calls["jax jit"] = lambda: jax.block_until_ready(step(params, x, labels))
    return workload


# -- W4b: the MLP step of W4 with a batch of 4096 (where accelerators pay off) ------------------


def _w4_jax_engine(workload: Workload, x, labels, params) -> None:
    """Raw ``jax.jit`` of the W4 step (loss and the 4 gradients), when jax is there."""
    if not _have("jax"):
        return
    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)

    def loss(ps, xv, tv):
        w1, b1, w2, b2 = ps
        h = jnp.tanh(xv @ w1 + b1)
        return -(tv * jax.nn.log_softmax(h @ w2 + b2, axis=1)).sum() / xv.shape[0]

    step = jax.jit(lambda ps, xv, tv: [loss(ps, xv, tv), *jax.grad(loss)(ps, xv, tv)])
    workload.calls["jax jit"] = lambda: jax.block_until_ready(step(params, x, labels))


def workload_W4b() -> Workload:
    _, _, params = _w4_data()
    rng = np.random.default_rng(41)
    x = rng.normal(size=(4096, 784))
    labels = np.eye(10)[rng.integers(0, 10, size=4096)]
    workload = Workload("W4b MLP step of W4 with batch 4096, loss + 4 grads", "ms")
    workload.calls["numpy eager"] = lambda: _w4_numpy(x, labels, params)
    sym = [pt.dmatrix("x"), pt.dmatrix("t"), pt.dmatrix("w1"), pt.dvector("b1")]
    sym += [pt.dmatrix("w2"), pt.dvector("b2")]
    outputs = _w4_graph(pt, arignote.grad, *sym)
    f = arignote.function(sym, outputs)
    workload.calls["arignote"] = lambda: f(x, labels, *params)
    _add_arignote_jax(workload, sym, outputs, (x, labels, *params))
    _w4_jax_engine(workload, x, labels, params)
    return workload


# -- W8: a numerically naive log-sum-exp ----------------------------------------------------


def workload_W8() -> Workload:
    rng = np.random.default_rng(8)
    x = 1000 + rng.normal(size=(2000, 2000))
    import scipy.special

    workload = Workload(
        "W8 log(sum(exp(X), axis=1)), X 2000x2000 near 1000", "ms", reference="scipy logsumexp"
    )
    workload.calls["scipy logsumexp"] = lambda: scipy.special.logsumexp(x, axis=1)
    workload.calls["numpy eager"] = lambda: np.log(np.sum(np.exp(x), axis=1))
    xs = pt.dmatrix("x")
    f = arignote.function([xs], pt.log(pt.sum(pt.exp(xs), axis=1)))
    workload.calls["arignote"] = lambda: f(x)
    _add_arignote_jax(workload, [xs], pt.log(pt.sum(pt.exp(xs), axis=1)), (x,))
    if _have("pytensor"):
        import pytensor
        import pytensor.tensor as ptt

        xp = ptt.dmatrix()
        for label, mode in (("pytensor default", None), ("pytensor C", "FAST_RUN")):
            g = pytensor.function([xp], ptt.log(ptt.sum(ptt.exp(xp), axis=1)), mode=mode)
            workload.calls[label] = lambda g=g: g(x)
    if _have("jax"):
        import jax
        import jax.numpy as jnp

        jax.config.update("jax_enable_x64", True)
        h = jax.jit(lambda a: jnp.log(jnp.sum(jnp.exp(a), axis=1)))
        workload.calls["jax jit"] = lambda: h(x).block_until_ready()
        # the same function computed stably by JAX itself: the fair anchor for a finite result
        stable = jax.jit(lambda a: jax.scipy.special.logsumexp(a, axis=1))
        workload.calls["jax jit logsumexp"] = lambda: stable(x).block_until_ready()
    _add_arignote_native(workload, [xs], pt.log(pt.sum(pt.exp(xs), axis=1)), (x,))
    workload.tolerant = True  # engines may be wrong here: report it, do not stop
    return workload


# -- W10: a LeNet training step (convolution and pooling with their gradients) -------------------


def _w10_data():
    rng = np.random.default_rng(10)
    x = rng.normal(size=(64, 1, 28, 28))
    labels = np.eye(10)[rng.integers(0, 10, size=64)]
    params = [
        rng.normal(scale=0.1, size=(20, 1, 5, 5)),
        np.zeros(20),
        rng.normal(scale=0.05, size=(50, 20, 5, 5)),
        np.zeros(50),
        rng.normal(scale=0.05, size=(800, 500)),
        np.zeros(500),
        rng.normal(scale=0.05, size=(500, 10)),
        np.zeros(10),
    ]
    return x, labels, params


def _w10_arignote(x, labels, params, mode=None):
    sym, outputs = _w10_graph(params)
    f = arignote.function(sym, outputs, mode=mode)
    f(x, labels, *params)  # native code is compiled at the first call, outside the timing
    return lambda: f(x, labels, *params)


def _w10_graph(params):
    """The symbolic inputs and the outputs (loss and its 8 gradients) of the LeNet step."""
    sym = [pt.dtensor4("x"), pt.dmatrix("t")] + [
        pt.tensor(f"p{i}", dtype="float64", shape=(None,) * p.ndim) for i, p in enumerate(params)
    ]
    xs, ts, w1, b1, w2, b2, w3, b3, w4, b4 = sym

    def block(h, w, b):
        conv = conv2d(h, w, filter_flip=False)
        return pt.tanh(pool_2d(conv, (2, 2), ignore_border=True) + b.dimshuffle("x", 0, "x", "x"))

    h = block(block(xs, w1, b1), w2, b2).flatten(2)
    h = pt.tanh(pt.dot(h, w3) + b3)
    loss = -(ts * pt.special.log_softmax(pt.dot(h, w4) + b4, axis=1)).sum() / xs.shape[0]
    return sym, [loss, *arignote.grad(loss, sym[2:])]


def _w10_jax(x, labels, params):
    import jax
    import jax.numpy as jnp
    from jax import lax

    jax.config.update("jax_enable_x64", True)
    dims = ("NCHW", "OIHW", "NCHW")

    def block(h, w, b):
        conv = lax.conv_general_dilated(h, w, (1, 1), "VALID", dimension_numbers=dims)
        pooled = lax.reduce_window(conv, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")
        return jnp.tanh(pooled + b[None, :, None, None])

    def loss(ps, xv, tv):
        w1, b1, w2, b2, w3, b3, w4, b4 = ps
        h = block(block(xv, w1, b1), w2, b2).reshape(xv.shape[0], -1)
        h = jnp.tanh(h @ w3 + b3)
        return -(tv * jax.nn.log_softmax(h @ w4 + b4, axis=1)).sum() / xv.shape[0]

    step = jax.jit(lambda ps, xv, tv: [loss(ps, xv, tv), *jax.grad(loss)(ps, xv, tv)])
    return lambda: jax.block_until_ready(step(params, x, labels))


def workload_W10() -> Workload:
    x, labels, params = _w10_data()
    workload = Workload(
        "W10 LeNet step (64x1x28x28; conv 5x5x20, pool, conv 5x5x50, pool, 500, 10), 9 outputs",
        "ms",
        reference="arignote",
    )
    workload.calls["arignote"] = _w10_arignote(x, labels, params)
    sym, outputs = _w10_graph(params)
    _add_arignote_jax(workload, sym, outputs, (x, labels, *params))
    if _have("numba"):
        workload.calls["arignote NUMBA"] = _w10_arignote(x, labels, params, mode="NUMBA")
    if _have("jax"):
        workload.calls["jax jit"] = _w10_jax(x, labels, params)
    return workload


# -- W7: an RNN with scan, forward and gradient ------------------------------------------------


def _w7_data() -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(7)
    hidden, inputs, steps = 64, 32, 500
    w = rng.normal(size=(hidden, hidden)) / np.sqrt(hidden)
    u = rng.normal(size=(hidden, inputs)) / np.sqrt(inputs)
    x = rng.normal(size=(steps, inputs))
    h0 = np.zeros(hidden)
    return w, u, x, h0


def _w7_numpy(w, u, x, h0, gradient: bool) -> object:
    hs = [h0]
    for x_t in x:
        hs.append(np.tanh(w @ hs[-1] + u @ x_t))
    if not gradient:
        return hs[-1]
    g_h, g_w = np.ones_like(h0), np.zeros_like(w)
    for t in range(len(x), 0, -1):  # back-propagation through time
        g_pre = g_h * (1 - hs[t] ** 2)
        g_w += np.outer(g_pre, hs[t - 1])
        g_h = w.T @ g_pre
    return [hs[-1].sum(), g_w]


def _w7_graph(tensor, scan, grad, w, u, x, h0, gradient: bool) -> object:
    hs = scan(
        lambda x_t, h, w, u: tensor.tanh(tensor.dot(w, h) + tensor.dot(u, x_t)),
        sequences=x,
        outputs_info=h0,
        non_sequences=[w, u],
        return_updates=False,
    )
    if not gradient:
        return hs[-1]
    cost = hs[-1].sum()
    return [cost, grad(cost, w)]


def _w7_workload(gradient: bool) -> Workload:
    w, u, x, h0 = _w7_data()
    what = "sum(h_T) and its gradient wrt W" if gradient else "h_T (forward only)"
    workload = Workload(f"W7 RNN hidden 64, input 32, 500 steps: {what}", "ms")
    workload.calls["numpy eager"] = lambda: _w7_numpy(w, u, x, h0, gradient)
    sym = [pt.dmatrix("w"), pt.dmatrix("u"), pt.dmatrix("x"), pt.dvector("h0")]
    f = arignote.function(sym, _w7_graph(pt, arignote.scan, arignote.grad, *sym, gradient))
    trusted = arignote.function(
        sym, _w7_graph(pt, arignote.scan, arignote.grad, *sym, gradient), trust_input=True
    )
    for g in (f, trusted):  # the default mode once its native code is swapped in
        _hot(g, w, u, x, h0)
    workload.calls["arignote"] = lambda: f(w, u, x, h0)
    workload.calls["arignote trust_input"] = lambda: trusted(w, u, x, h0)
    _add_arignote_jax(
        workload,
        sym,
        _w7_graph(pt, arignote.scan, arignote.grad, *sym, gradient),
        (w, u, x, h0),
    )
    graph = _w7_graph(pt, arignote.scan, arignote.grad, *sym, gradient)
    _add_arignote_native(workload, sym, graph, (w, u, x, h0))
    if _have("pytensor"):
        import pytensor
        import pytensor.tensor as ptt

        psym = [ptt.dmatrix(), ptt.dmatrix(), ptt.dmatrix(), ptt.dvector()]
        outs = _w7_graph(ptt, pytensor.scan, pytensor.grad, *psym, gradient)
        for label, mode in (("pytensor default", None), ("pytensor C", "FAST_RUN")):
            g = pytensor.function(psym, outs, mode=mode)
            workload.calls[label] = lambda g=g: g(w, u, x, h0)
    if _have("jax"):
        import jax
        import jax.numpy as jnp

        jax.config.update("jax_enable_x64", True)

        def last(wv, uv, xv, hv):
            step = lambda h, x_t: (jnp.tanh(wv @ h + uv @ x_t), None)  # noqa: E731
            return jax.lax.scan(step, hv, xv)[0]

        if gradient:
            value_and_grad = jax.value_and_grad(lambda *a: last(*a).sum())
            h = jax.jit(lambda *a: list(value_and_grad(*a)))
        else:
            h = jax.jit(last)
        workload.calls["jax jit"] = lambda: jax.block_until_ready(h(w, u, x, h0))
    return workload


def workload_W7() -> Workload:
    return _w7_workload(gradient=True)


def workload_W7f() -> Workload:
    return _w7_workload(gradient=False)


# -- W9: time to solution of a sampler's job, in fresh processes -----------------------------

_W9_CALLS = 10**5
_W9_ARIGNOTE = """
import numpy as np, arignote, arignote.tensor as pt
rng = np.random.default_rng(1)
y = rng.normal(0.3, 1.7, size=100)
mu, log_sigma = pt.dscalar("mu"), pt.dscalar("log_sigma")
logp = (-0.5 * ((pt.constant(y) - mu) / pt.exp(log_sigma)) ** 2 - log_sigma
        - 0.5 * {log2pi!r}).sum()
f = arignote.function([mu, log_sigma], [logp, *arignote.grad(logp, [mu, log_sigma])], {mode})
m, s = np.array(0.2), np.array(0.4)
for _ in range({calls}):
    out = f(m, s)
print(float(out[0]))
"""
_W9_PYTENSOR = """
import numpy as np, pytensor, pytensor.tensor as ptt
rng = np.random.default_rng(1)
y = rng.normal(0.3, 1.7, size=100)
mu, log_sigma = ptt.dscalar("mu"), ptt.dscalar("log_sigma")
logp = (-0.5 * ((y - mu) / ptt.exp(log_sigma)) ** 2 - log_sigma - 0.5 * {log2pi!r}).sum()
f = pytensor.function([mu, log_sigma], [logp, *pytensor.grad(logp, [mu, log_sigma])],
                      mode="FAST_RUN")
m, s = np.array(0.2), np.array(0.4)
for _ in range({calls}):
    out = f(m, s)
print(float(out[0]))
"""
_W9_JAX = """
import numpy as np, jax, jax.numpy as jnp
jax.config.update("jax_enable_x64", True)
rng = np.random.default_rng(1)
y = rng.normal(0.3, 1.7, size=100)
def logp(mu, ls):
    return jnp.sum(-0.5 * ((y - mu) / jnp.exp(ls)) ** 2 - ls - 0.5 * {log2pi!r})
f = jax.jit(lambda mu, ls: [logp(mu, ls), *jax.grad(logp, argnums=(0, 1))(mu, ls)])
m, s = np.array(0.2), np.array(0.4)
for _ in range({calls}):
    out = jax.block_until_ready(f(m, s))
print(float(out[0]))
"""


def _fresh_process(script: str, env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds of a fresh Python process running ``script`` and the value it prints."""
    # Byte-compiled modules are written and used, as for an installed package (pip compiles
    # them at install time): otherwise every process compiles arignote's source again.
    env = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}, **env}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"W9 process failed:\n{done.stderr[-2000:]}")
    return seconds, float(done.stdout.split()[-1])


def run_w9(calls: int = _W9_CALLS, rounds: int = 1) -> str:
    """W9: fresh processes building, compiling and calling W2 ``calls`` times (whole wall time,
    interpreter start and imports included); arignote with a cold, then warm, native cache.
    With ``rounds`` > 1 the engines are interleaved round after round and the median is shown
    with the ratio to the best anchor of each column (JAX cold, PyTensor C warm)."""
    root = str(Path(__file__).resolve().parents[1])
    fill = {"log2pi": LOG_2PI, "calls": calls}
    runs: list[tuple[str, str, dict]] = []
    times: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as cache:
        env = {"PYTHONPATH": root, "ARIGNOTE_CACHE_DIR": cache}
        for label, mode in (("default (tiered)", ""), ("NUMBA", 'mode="NUMBA"')):
            script = _W9_ARIGNOTE.format(mode=mode, **fill)
            runs += [(f"arignote {label}, cold cache", script, env)]
            runs += [(f"arignote {label}, warm cache", script, env)]
        script = _W9_ARIGNOTE.format(mode='mode="VM"', **fill)
        runs.append(("arignote VM only", script, env))
        if _have("jax"):
            runs.append(("jax jit, cold", _W9_JAX.format(**fill), {}))
        if _have("pytensor"):
            script = _W9_PYTENSOR.format(**fill)
            _fresh_process(script, {})  # fills PyTensor's compile cache
            runs.append(("pytensor C, warm cache", script, {}))
        _fresh_process("import arignote.link.numba; print(0)", env)  # byte-compiles arignote
        values = []
        for _ in range(rounds):
            for label, script, run_env in runs:
                if label.endswith("cold cache"):
                    shutil.rmtree(Path(cache) / "numba", ignore_errors=True)
                seconds, value = _fresh_process(script, run_env)
                values.append(value)
                times.setdefault(label, []).append(seconds)
    if not np.allclose(values, values[0]):
        raise AssertionError(f"W9: the engines disagree: {values}")
    return _w9_report(calls, rounds, times)


def _w9_report(calls: int, rounds: int, times: dict[str, list[float]]) -> str:
    medians = {label: statistics.median(seconds) for label, seconds in times.items()}
    lines = [f"W9 fresh process: build, compile, {calls} calls of W2 (s, wall; median of {rounds})"]
    anchors = {"cold": medians.get("jax jit, cold"), "warm": medians.get("pytensor C, warm cache")}
    for label, seconds in medians.items():
        line = f"  {label:<36} {seconds:>8.2f}"
        anchor = anchors["cold" if "cold" in label else "warm"]
        if anchor and label.startswith("arignote"):
            line += f"   {seconds / anchor:.2f}x {'JAX cold' if 'cold' in label else 'PyTensor C'}"
        lines.append(line)
    return "\n".join(lines)


#: Workloads timed by their own function (fresh processes), not per call.
ONE_SHOT: dict[str, Callable[..., str]] = {"W9": run_w9}

WORKLOADS: dict[str, Callable[[], Workload]] = {
    "W1": workload_W1,
    "W1v": workload_W1v,
    "W2": workload_W2,
    "W3": workload_W3,
    "W4": workload_W4,
    "W4b": workload_W4b,
    "W7": workload_W7,
    "W7f": workload_W7f,
    "W8": workload_W8,
    "W10": workload_W10,
}


# -- timing --------------------------------------------------------------------------------------


def check_agreement(workload: Workload) -> None:
    """Every engine must compute what the reference computes (or the benchmark is meaningless).

    A ``tolerant`` workload (one about numerical stability) reports the engines that get a
    wrong or non-finite answer instead of stopping.
    """
    reference = workload.calls[workload.reference]()
    for engine, call in workload.calls.items():
        got = call()
        for expected, value in zip(_as_list(reference), _as_list(got)):
            value = np.asarray(value)
            if np.allclose(value, np.asarray(expected), rtol=1e-7, atol=1e-9):
                continue
            message = f"{workload.name}: {engine} disagrees with the reference"
            if not workload.tolerant:
                raise AssertionError(message)
            finite = "finite" if np.all(np.isfinite(value)) else "NOT finite"
            print(f"  ({engine}: wrong answer, {finite})")
            break


def _as_list(value: object) -> list:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def batch_size(call: Callable, target_seconds: float = 0.02) -> int:
    """Calls per timed batch so that one batch lasts about ``target_seconds``."""
    n = 1
    while True:
        start = time.perf_counter()
        for _ in range(n):
            call()
        elapsed = time.perf_counter() - start
        if elapsed > target_seconds / 4 or n >= 1 << 20:
            return max(1, int(n * target_seconds / max(elapsed, 1e-9)))
        n *= 2


#: Wall time, or the process's CPU time (all threads): on a shared machine it leaves out the
#: waits for a core, and equals wall time for the single-threaded runs compared here.
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def measure(workload: Workload, rounds: int, clock: str = "wall") -> dict[str, list[float]]:
    """Seconds per call of each engine, one sample per interleaved round."""
    now = CLOCKS[clock]
    sizes = {engine: batch_size(call) for engine, call in workload.calls.items()}
    samples: dict[str, list[float]] = {engine: [] for engine in workload.calls}
    for _ in range(rounds):
        for engine, call in workload.calls.items():
            n = sizes[engine]
            start = now()
            for _ in range(n):
                call()
            samples[engine].append((now() - start) / n)
    return samples


def report(workload: Workload, samples: dict[str, list[float]]) -> str:
    """Median and minimum per call, and the ratio of medians to the reference engine.

    The minimum is the least disturbed batch: on a shared, loaded machine it is the better
    estimate of the cost itself, the median of what a user sees.
    """
    scale = 1e6 if workload.unit == "us" else 1e3
    medians = {engine: statistics.median(values) for engine, values in samples.items()}
    anchor = medians[workload.reference]
    anchor_min = min(samples[workload.reference])
    lines = [
        f"{workload.name}  ({workload.unit} per call; ratios to {workload.reference})",
        f"  {'engine':<28} {'median':>10} {'min':>10} {'ratio':>7} {'ratio(min)':>10}",
    ]
    for engine, seconds in medians.items():
        best = min(samples[engine])
        lines.append(
            f"  {engine:<28} {seconds * scale:>10.3f} {best * scale:>10.3f} "
            f"{seconds / anchor:>6.2f}x {best / anchor_min:>9.2f}x"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "workloads", nargs="*", default=[*WORKLOADS, *ONE_SHOT], help="e.g. W1 W2 W9"
    )
    parser.add_argument("--rounds", type=int, default=21, help="interleaved rounds (median)")
    parser.add_argument("--w9-rounds", type=int, default=1, help="interleaved rounds of W9")
    parser.add_argument(
        "--clock", choices=sorted(CLOCKS), default="wall", help="wall or process CPU time"
    )
    args = parser.parse_args(argv)
    unknown = [w for w in args.workloads if w not in WORKLOADS and w not in ONE_SHOT]
    if unknown:
        parser.error(f"unknown workloads {unknown}; known: {sorted([*WORKLOADS, *ONE_SHOT])}")
    print(
        f"arignote {arignote.__version__}, NumPy {np.__version__}, "
        f"Python {platform.python_version()}"
    )
    print(
        f"{platform.machine()}, {os.cpu_count()} CPUs, threads: OMP={os.environ['OMP_NUM_THREADS']}"
    )
    print(f"clock: {args.clock}; OpenBLAS kernels: {blas_cores()}")
    skipped = [name for name in ("pytensor", "jax") if not _have(name)]
    if skipped:
        print(f"not installed, skipped: {', '.join(skipped)}")
    for name in args.workloads:
        if name in ONE_SHOT:
            print(ONE_SHOT[name](rounds=args.w9_rounds))
            continue
        workload = WORKLOADS[name]()
        check_agreement(workload)
        print(report(workload, measure(workload, args.rounds, args.clock)))


if __name__ == "__main__":
    main()
