"""Compile-time scaling (workload W6): ``sum_{i<N} (x*c_i + exp(x*d_i))``.

Each size runs in a fresh process (cold caches, clean peak-memory figure). For every N the
script reports the number of nodes before and after rewriting, the time to build the graph,
to compile it with the default pipeline (rewriting + linking), to run it once, and the peak
resident memory; then the exponent k of compile time ~ N^k fitted over the sizes.

    PYTHONPATH=. python bench/compile_scaling.py                # N = 250, 1000, 4000
    PYTHONPATH=. python bench/compile_scaling.py --sizes 100 250 1000 4000 --repeat 3
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np


def build(n: int):
    """The W6 graph for ``n`` terms, and its input."""
    import arignote.tensor as pt

    rng = np.random.default_rng(0)
    c, d = rng.normal(size=n), rng.normal(size=n) * 0.1
    x = pt.dvector("x")
    total = x * c[0] + pt.exp(x * d[0])
    for i in range(1, n):
        total = total + (x * c[i] + pt.exp(x * d[i]))
    return x, total, (c, d)


def measure(n: int) -> dict:
    """One size, in this process."""
    import arignote
    from arignote.graph.basic import io_toposort

    start = time.perf_counter()
    x, total, (c, d) = build(n)
    built = time.perf_counter()
    nodes_before = len(io_toposort([x], [total]))
    fn = arignote.function([x], total)
    compiled = time.perf_counter()
    value = np.linspace(-1, 1, 1000)
    result = fn(value)
    ran = time.perf_counter()
    expected = sum(value * ci + np.exp(value * di) for ci, di in zip(c, d))
    return {
        "n": n,
        "nodes_before": nodes_before,
        "nodes_after": len(fn.maker.fgraph.apply_nodes),
        "build_s": built - start,
        "compile_s": compiled - built,
        "rewrite_s": fn.maker.timings.get("rewrite", float("nan")),
        "first_call_s": ran - compiled,
        "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "correct": bool(np.allclose(result, expected)),
    }


def run_child(n: int) -> dict:
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    out = subprocess.run(
        [sys.executable, __file__, "--child", str(n)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def fitted_exponent(rows: list[dict]) -> float:
    """k in compile_s ~ N^k (least squares on logs)."""
    sizes = np.log([r["n"] for r in rows])
    times = np.log([r["compile_s"] for r in rows])
    return float(np.polyfit(sizes, times, 1)[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[250, 1000, 4000])
    parser.add_argument("--repeat", type=int, default=1, help="runs per size (median kept)")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        print(json.dumps(measure(args.child)))
        return
    rows = []
    for n in args.sizes:
        runs = sorted((run_child(n) for _ in range(args.repeat)), key=lambda r: r["compile_s"])
        rows.append(runs[len(runs) // 2])
    header = (
        f"{'N':>6} {'nodes':>7} {'after':>6} {'build s':>8} {'compile s':>10} "
        f"{'rewrite s':>10} {'1st call s':>11} {'peak MiB':>9} ok"
    )
    print(header)
    for r in rows:
        print(
            f"{r['n']:>6} {r['nodes_before']:>7} {r['nodes_after']:>6} {r['build_s']:>8.3f} "
            f"{r['compile_s']:>10.3f} {r['rewrite_s']:>10.3f} {r['first_call_s']:>11.4f} "
            f"{r['peak_mib']:>9.0f} {r['correct']}"
        )
    if len(rows) > 1:
        print(f"compile time ~ N^{fitted_exponent(rows):.2f}")


if __name__ == "__main__":
    main()
