"""The long fuzzing run of every execution path, in several processes, with a log.

``python -m tests.reliability.run_fuzz --graphs 10000 --workers 16 --minutes 9`` draws graphs
with :func:`fuzz_paths.random_graph` (the distribution of the Hypothesis strategy of
``test_fuzz_paths.py``), checks each on every path and prints every mismatch as it is found,
then a summary: graphs checked, skipped (the pieces make no graph), with a path that has no
conversion for an op, and mismatching. Worker ``w`` draws from seed ``seed + w``.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import tempfile
import time
import warnings

import numpy as np

from tests.reliability.fuzz_paths import check_graph, random_graph


def _work(worker: int, args: argparse.Namespace, queue) -> None:
    os.environ["ARIGNOTE_CACHE_DIR"] = tempfile.mkdtemp(prefix=f"fuzz{worker}_")
    warnings.simplefilter("ignore")
    rng = np.random.default_rng(args.seed + worker)
    counts = {"graphs": 0, "skipped": 0, "unsupported": 0, "mismatching": 0}
    deadline = time.monotonic() + 60 * args.minutes
    share = args.graphs // args.workers + (worker < args.graphs % args.workers)
    for _ in range(share):
        if time.monotonic() > deadline:
            break
        graph = random_graph(rng)
        try:
            outcome = check_graph(graph)
        except Exception as err:  # the harness itself failed: reported, the run goes on
            print("CRASH", graph, repr(err)[:500], flush=True)
            continue
        counts["graphs"] += 1
        if counts["graphs"] % 25 == 0:
            print("PROGRESS", worker, json.dumps(counts), flush=True)
        counts["skipped"] += outcome.skipped is not None
        counts["unsupported"] += bool(outcome.unsupported)
        if outcome.mismatches:
            counts["mismatching"] += 1
            print("MISMATCH", outcome.describe()[:3000], flush=True)
    queue.put(counts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--graphs", type=int, default=10_000)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=14)
    args = parser.parse_args()
    queue = multiprocessing.get_context("fork").Queue()
    workers = [
        multiprocessing.get_context("fork").Process(target=_work, args=(w, args, queue))
        for w in range(args.workers)
    ]
    start = time.monotonic()
    for process in workers:
        process.start()
    totals: dict[str, int] = {}
    for _ in workers:
        for key, value in queue.get().items():
            totals[key] = totals.get(key, 0) + value
    for process in workers:
        process.join()
    totals["seconds"] = round(time.monotonic() - start)
    print("SUMMARY", json.dumps(totals), flush=True)


if __name__ == "__main__":
    main()
