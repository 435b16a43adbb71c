"""A/B of the per-call workloads (W1, W1v, W2) of one source tree, for alternated comparisons.

Usage::

    python bench/ab_per_call.py /path/to/tree-before
    python bench/ab_per_call.py /path/to/tree-after      # alternate the two, several times

Each workload is timed for arignote (default checks and ``trust_input``) in 300 batches of 200
calls; the script prints the median per call and the mean of the fastest 10 % of the batches
(on a shared, loaded machine, the least disturbed batches estimate the cost itself).
"""

from __future__ import annotations

import os
import statistics
import sys
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"
TREE = sys.argv[1]
sys.path.insert(0, TREE)

import numpy as np  # noqa: E402

import arignote  # noqa: E402
import arignote.tensor as pt  # noqa: E402

LOG_2PI = float(np.log(2 * np.pi))


def w1(shape: tuple) -> tuple:
    ttype = pt.TensorType("float64", (None,) * len(shape))
    a, b = ttype("a"), ttype("b")
    out = a * b + pt.exp(a) - pt.log(b)
    f = arignote.function([a, b], out)
    g = arignote.function([a, b], out, trust_input=True)
    av, bv = np.full(shape, 0.5), np.full(shape, 1.5)
    return (lambda: f(av, bv)), (lambda: g(av, bv))


def w2() -> tuple:
    y = np.random.default_rng(0).normal(size=100)
    mu, log_sigma = pt.dscalar("mu"), pt.dscalar("log_sigma")
    data = pt.constant(y, name="y")
    logp = (-0.5 * ((data - mu) / pt.exp(log_sigma)) ** 2 - log_sigma - 0.5 * LOG_2PI).sum()
    outputs = [logp, *arignote.grad(logp, [mu, log_sigma])]
    f = arignote.function([mu, log_sigma], outputs)
    g = arignote.function([mu, log_sigma], outputs, trust_input=True)
    m, s = np.array(0.3), np.array(-0.2)
    return (lambda: f(m, s)), (lambda: g(m, s))


def measure(call, n: int = 200, rounds: int = 300) -> tuple[float, float]:
    for _ in range(50):
        call()
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(n):
            call()
        samples.append((time.perf_counter() - start) / n * 1e6)
    samples.sort()
    return statistics.median(samples), statistics.mean(samples[: max(1, rounds // 10)])


def main() -> None:
    results = {}
    for name, (plain, trusted) in {"W1": w1(()), "W1v": w1((10,)), "W2": w2()}.items():
        results[name] = measure(plain)
        results[name + " trust"] = measure(trusted)
    print(TREE, " ".join(f"{k}={v[0]:.2f}/{v[1]:.2f}" for k, v in results.items()))


if __name__ == "__main__":
    main()
