"""W5: graph to first result, in a fresh process, for W2's and W4's functions.

Usage::

    python bench/compile_latency.py             # every engine that is installed, 3 repeats
    python bench/compile_latency.py --repeat 5

Each measurement starts a new Python process that imports the engine, builds the graph,
compiles it and calls it once; the time from just before building the graph to the first
result is reported (imports are excluded, and listed separately). "cold" runs with an empty
compilation cache directory, "warm" runs again with the cache the cold run filled. arignote
compiles to Python and NumPy and keeps no disk cache, so its cold and warm runs differ only by
noise; PyTensor's C and Numba backends and JAX's XLA do compile to machine code.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Each program prints one JSON line: {"import": seconds, "first_result": seconds}.
PROGRAMS = {
    "arignote": """
import time; t0 = time.perf_counter()
import numpy as np, arignote, arignote.tensor as pt
t1 = time.perf_counter()
{build}
print(json.dumps({{"import": t1 - t0, "first_result": time.perf_counter() - t1}}))
""",
    "pytensor default": """
import time; t0 = time.perf_counter()
import numpy as np, pytensor, pytensor.tensor as pt
t1 = time.perf_counter()
{build}
print(json.dumps({{"import": t1 - t0, "first_result": time.perf_counter() - t1}}))
""",
    "pytensor C": """
import time; t0 = time.perf_counter()
import numpy as np, pytensor, pytensor.tensor as pt
t1 = time.perf_counter()
{build}
print(json.dumps({{"import": t1 - t0, "first_result": time.perf_counter() - t1}}))
""",
    "jax jit": """
import time; t0 = time.perf_counter()
import numpy as np, jax, jax.numpy as jnp
jax.config.update("jax_enable_x64", True)
t1 = time.perf_counter()
{build}
print(json.dumps({{"import": t1 - t0, "first_result": time.perf_counter() - t1}}))
""",
}

W2_BUILD = {
    "graph": """
rng = np.random.default_rng(1); y = rng.normal(0.3, 1.7, size=100)
mu, ls = pt.dscalar("mu"), pt.dscalar("ls")
logp = (-0.5 * ((y - mu) / pt.exp(ls)) ** 2 - ls - 0.5 * np.log(2 * np.pi)).sum()
f = {lib}.function([mu, ls], [logp, *{lib}.grad(logp, [mu, ls])]{mode})
f(np.array(0.2), np.array(0.4))
""",
    "jax": """
rng = np.random.default_rng(1); y = rng.normal(0.3, 1.7, size=100)
def logp(mu, ls):
    return jnp.sum(-0.5 * ((y - mu) / jnp.exp(ls)) ** 2 - ls - 0.5 * np.log(2 * np.pi))
f = jax.jit(lambda mu, ls: [logp(mu, ls), *jax.grad(logp, argnums=(0, 1))(mu, ls)])
jax.block_until_ready(f(0.2, 0.4))
""",
}

W4_BUILD = {
    "graph": """
rng = np.random.default_rng(4)
xv = rng.normal(size=(256, 784)); tv = np.eye(10)[rng.integers(0, 10, size=256)]
pv = [rng.normal(scale=0.05, size=(784, 256)), np.zeros(256),
      rng.normal(scale=0.05, size=(256, 10)), np.zeros(10)]
x, t, w1, w2 = pt.dmatrix(), pt.dmatrix(), pt.dmatrix(), pt.dmatrix()
b1, b2 = pt.dvector(), pt.dvector()
h = pt.tanh(pt.dot(x, w1) + b1)
loss = -(t * pt.special.log_softmax(pt.dot(h, w2) + b2, axis=1)).sum() / x.shape[0]
f = {lib}.function([x, t, w1, b1, w2, b2], [loss, *{lib}.grad(loss, [w1, b1, w2, b2])]{mode})
f(xv, tv, *pv)
""",
    "jax": """
rng = np.random.default_rng(4)
xv = rng.normal(size=(256, 784)); tv = np.eye(10)[rng.integers(0, 10, size=256)]
pv = [rng.normal(scale=0.05, size=(784, 256)), np.zeros(256),
      rng.normal(scale=0.05, size=(256, 10)), np.zeros(10)]
def loss(ps, x, t):
    w1, b1, w2, b2 = ps
    h = jnp.tanh(x @ w1 + b1)
    return -(t * jax.nn.log_softmax(h @ w2 + b2, axis=1)).sum() / x.shape[0]
f = jax.jit(lambda ps, x, t: [loss(ps, x, t), *jax.grad(loss)(ps, x, t)])
jax.block_until_ready(f(pv, xv, tv))
""",
}


def program(engine: str, builds: dict) -> str:
    if engine == "jax jit":
        body = builds["jax"]
    else:
        lib = "arignote" if engine == "arignote" else "pytensor"
        mode = ', mode="FAST_RUN"' if engine == "pytensor C" else ""
        body = builds["graph"].format(lib=lib, mode=mode)
    return "import json\n" + PROGRAMS[engine].format(build=body)


def run_once(engine: str, source: str, cache: str) -> dict:
    env = dict(
        os.environ,
        OMP_NUM_THREADS="1",
        OPENBLAS_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
        NUMBA_NUM_THREADS="1",
        PYTHONPATH=str(ROOT),
    )
    env["PYTENSOR_FLAGS"] = f"compiledir={cache}"
    env["NUMBA_CACHE_DIR"] = cache
    env["JAX_COMPILATION_CACHE_DIR"] = cache
    env["XLA_FLAGS"] = "--xla_cpu_multi_thread_eigen=false"
    out = subprocess.run(
        [sys.executable, "-c", source],
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    if out.returncode != 0:
        raise RuntimeError(f"{engine} failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def installed(engine: str) -> bool:
    module = {"arignote": "arignote", "jax jit": "jax"}.get(engine, "pytensor")
    check = subprocess.run(
        [sys.executable, "-c", f"import {module}"],
        capture_output=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        check=False,
    )
    return check.returncode == 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="cold/warm pairs per engine")
    args = parser.parse_args()
    engines = [e for e in PROGRAMS if installed(e)]
    print(f"engines: {', '.join(engines)}; seconds, median of {args.repeat} fresh processes")
    for label, builds in (("W2 logp + grad", W2_BUILD), ("W4 MLP step", W4_BUILD)):
        print(label)
        print(f"  {'engine':<20} {'cold':>8} {'warm':>8} {'import':>8}")
        for engine in engines:
            cold, warm, imports = [], [], []
            for _ in range(args.repeat):
                with tempfile.TemporaryDirectory() as cache:
                    first = run_once(engine, program(engine, builds), cache)
                    second = run_once(engine, program(engine, builds), cache)
                cold.append(first["first_result"])
                warm.append(second["first_result"])
                imports.append(first["import"])
            print(
                f"  {engine:<20} {statistics.median(cold):>8.3f} {statistics.median(warm):>8.3f}"
                f" {statistics.median(imports):>8.3f}"
            )


if __name__ == "__main__":
    main()
