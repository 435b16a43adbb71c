"""The long fuzzing run of every execution path, in several processes, with a log.

``python -m tests.reliability.run_fuzz --stop 10000 --workers 16 --minutes 9`` draws graphs
with :func:`fuzz_paths.random_graph` (the distribution of the Hypothesis strategy of
``test_fuzz_paths.py``), checks each on every path and prints every mismatch as it is found,
then a summary: graphs checked, skipped (the pieces make no graph), with a path that has no
conversion for an op, mismatching, and per path the graphs compared and mismatching there.

Graph ``i`` is drawn from its own generator (``seed`` and ``i``), so a run is split by index:
``--start``/``--stop`` choose the graphs (to resume a stopped run, or to share one run among
machines) and ``--paths`` the paths compared (the reference is always run), for example
``--paths NUMBA,JAX``. Worker ``w`` checks the graphs ``start + w``, ``start + w + workers``,
..., ``--batch`` of them at a time in one compiled function per path (``check_graphs``: each
graph's outputs are compared on their own, and a graph that mismatches, or a batch that
raises, is checked again alone). Every ``--graphs-per-process`` graphs a worker's process
is replaced by a fresh one: a process keeps the kernels it compiles for reuse and numba's
compilation state, about 9 MB per new NUMBA graph, which 10,000 graphs would take past the
machine's memory.
The last lines (``SUMMARY`` as JSON, then ``FIGURE`` in words) are the run's record: graphs
checked, every index below which was checked, per path the graphs compared, those with an op
it cannot convert, and the mismatches.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import shutil
import signal
import tempfile
import time
import warnings

import numpy as np

from tests.reliability.fuzz_paths import (
    PATHS,
    REFERENCE,
    check_graph,
    check_graphs,
    random_graph,
)


def graph_at(seed: int, index: int):
    """Graph number ``index`` of the run with ``seed`` (independent of workers and shards)."""
    return random_graph(np.random.default_rng([seed, index]))


def _count(counts: dict, outcome, paths: tuple) -> None:
    counts["graphs"] += 1
    counts["skipped"] += outcome.skipped is not None
    counts["unsupported"] += bool(outcome.unsupported)
    counts["mismatching"] += bool(outcome.mismatches)
    if outcome.skipped is not None:
        return
    failed = {m.path for m in outcome.mismatches}
    for path in paths:
        if path == REFERENCE:
            continue
        state = "unsupported" if path in outcome.unsupported else "compared"
        counts[f"{path}:{state}"] = counts.get(f"{path}:{state}", 0) + 1
        counts[f"{path}:mismatching"] = counts.get(f"{path}:mismatching", 0) + (path in failed)


class GraphTimeout(BaseException):  # (not caught as a path's error)
    """A graph took longer than ``--graph-seconds`` (a hang is a finding too)."""


def _alarm(signum, frame):
    # raised inside a ctypes callback (llvmlite's object cache), the exception is printed and
    # ignored: the alarm is set again, and the caller's ``signal.alarm(0)`` ends the repeats
    signal.alarm(1)
    raise GraphTimeout


def _work(worker: int, args: argparse.Namespace, queue) -> None:
    # a private disk cache, so that the native path is compiled as users get it (written to
    # and loaded from the cache), removed at the end
    cache = os.environ["ARIGNOTE_CACHE_DIR"] = tempfile.mkdtemp(prefix=f"fuzz{worker}_")
    try:
        _fuzz(worker, args, queue)
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def _fuzz(worker: int, args: argparse.Namespace, queue) -> None:
    warnings.simplefilter("ignore")
    paths = tuple(args.paths.split(",")) if args.paths else tuple(PATHS)
    counts = {"graphs": 0, "skipped": 0, "unsupported": 0, "mismatching": 0, "timeouts": 0}
    counts["next"] = args.stop
    signal.signal(signal.SIGALRM, _alarm)
    deadline = time.monotonic() + 60 * args.minutes
    indices = list(range(args.start + worker, args.stop, args.workers))
    for first in range(0, len(indices), args.batch):
        if time.monotonic() > deadline:
            print("DEADLINE", worker, "next graph", indices[first], flush=True)
            counts["next"] = indices[first]
            break
        batch = indices[first : first + args.batch]
        for index, outcome in _checked(batch, args, paths):
            _count(counts, outcome, paths)
            if counts["graphs"] % 25 == 0:
                print("PROGRESS", worker, index, json.dumps(counts), flush=True)
            if outcome.mismatches:
                print("MISMATCH", index, outcome.describe()[:3000], flush=True)
        counts["timeouts"] += sum(1 for i in batch if i in _TIMED_OUT)
    queue.put(counts)


_TIMED_OUT: set[int] = set()


def _checked(batch: list[int], args: argparse.Namespace, paths: tuple) -> list:
    """``(index, outcome)`` of the graphs of ``batch``, checked together (one compiled function
    per path, see ``check_graphs``); alone, each with its own time limit, when the batch runs
    out of time or the harness fails on it."""
    graphs = [graph_at(args.seed, index) for index in batch]
    if len(batch) > 1:
        signal.alarm(args.graph_seconds * len(batch))
        try:
            return list(zip(batch, check_graphs(graphs, paths=paths)))
        except (GraphTimeout, Exception):
            pass  # each graph alone says which one it was
        finally:
            signal.alarm(0)
    return [(i, o) for i, g in zip(batch, graphs) if (o := _alone(i, g, args, paths))]


def _alone(index: int, graph, args: argparse.Namespace, paths: tuple):
    signal.alarm(args.graph_seconds)
    try:
        return check_graph(graph, paths=paths)
    except GraphTimeout:
        _TIMED_OUT.add(index)
        print("TIMEOUT", index, graph, flush=True)
    except Exception as err:  # the harness itself failed: reported, the run goes on
        print("CRASH", index, graph, repr(err)[:500], flush=True)
    finally:
        signal.alarm(0)
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--start", type=int, default=0, help="first graph index")
    parser.add_argument("--stop", type=int, default=10_000, help="graph index to stop before")
    parser.add_argument("--paths", default="", help="comma-separated paths (default: all)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--minutes", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--graph-seconds", type=int, default=300, help="a graph's time limit")
    parser.add_argument(
        "--batch", type=int, default=1, help="graphs compiled together (1: each alone)"
    )
    parser.add_argument(
        "--graphs-per-process",
        type=int,
        default=300,
        help="graphs a worker process checks before a fresh one takes over (a process keeps "
        "its compiled kernels: about 9 MB per NUMBA graph)",
    )
    args = parser.parse_args()
    start = time.monotonic()
    totals = _run_in_chunks(args, deadline=start + 60 * args.minutes)
    totals["seconds"] = round(time.monotonic() - start)
    print("SUMMARY", json.dumps(totals), flush=True)
    print(summary(totals, args), flush=True)


def _run_in_chunks(args: argparse.Namespace, deadline: float) -> dict:
    """The run, ``workers * graphs_per_process`` graphs at a time, each chunk in fresh worker
    processes; ``next`` is the index below which every graph was checked."""
    totals: dict[str, int] = {"next": args.start}
    span = args.workers * args.graphs_per_process
    for first in range(args.start, args.stop, span):
        minutes = (deadline - time.monotonic()) / 60
        if minutes <= 0:
            break
        stop = min(first + span, args.stop)
        chunk = _run_chunk(
            argparse.Namespace(**{**vars(args), "start": first, "stop": stop, "minutes": minutes})
        )
        for key, value in chunk.items():
            totals[key] = value if key == "next" else totals.get(key, 0) + value
        if chunk["next"] < stop:  # the deadline came inside this chunk
            break
    return totals


def _run_chunk(args: argparse.Namespace) -> dict:
    """The graphs ``args.start`` to ``args.stop``, shared among ``args.workers`` processes."""
    queue = multiprocessing.get_context("fork").Queue()
    workers = [
        multiprocessing.get_context("fork").Process(target=_work, args=(w, args, queue))
        for w in range(args.workers)
    ]
    for process in workers:
        process.start()
    totals: dict[str, int] = {}
    for _ in workers:
        for key, value in queue.get().items():
            merge = min if key == "next" else lambda a, b: a + b
            totals[key] = merge(totals[key], value) if key in totals else value
    for process in workers:
        process.join()
    return totals


def summary(totals: dict, args: argparse.Namespace) -> str:
    """The run's figure in words: graphs checked (every graph below ``complete below`` was),
    per path compared / unsupported / mismatching, and the throughput."""
    seconds = max(totals["seconds"], 1)
    per_graph = args.workers * seconds / max(totals["graphs"], 1)
    paths = [p for p in (args.paths.split(",") if args.paths else PATHS) if p != REFERENCE]
    lines = [
        f"FIGURE seed {args.seed}: {totals['graphs']} graphs checked (indices {args.start} to "
        f"{args.stop - 1}, complete below {totals['next']}), {totals['skipped']} skipped "
        f"(no graph), {totals['mismatching']} mismatching, {totals['timeouts']} timed out; "
        f"{seconds} s on {args.workers} workers, batch {args.batch}: "
        f"{totals['graphs'] / seconds:.2f} graphs/s, {per_graph:.2f} core-seconds per graph"
    ]
    for path in paths:
        compared = totals.get(f"{path}:compared", 0)
        lines.append(
            f"  {path}: {compared} compared, {totals.get(f'{path}:unsupported', 0)} with an op "
            f"it cannot convert, {totals.get(f'{path}:mismatching', 0)} mismatching"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
