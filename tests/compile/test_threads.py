"""One compiled function called from several threads at once: every result must be right.

Each test runs ``THREADS`` threads of ``CALLS`` calls each, with inputs that differ per call,
and checks every result. The thread switch interval is shortened for the duration, so that
threads interleave within calls (including the switch from the interpreted loop to the
generated code after warm-up). The ``slow`` variants make 10^5 calls per thread.
"""

from __future__ import annotations

import gc
import itertools
import sys
import threading
from collections.abc import Callable

import numpy as np
import pytest

import arignote.tensor as pt
from arignote import function, shared
from arignote.scan import index_map

THREADS = 4


def _in_threads(work: Callable[[int, int], object], calls: int) -> list[list]:
    """``work(thread, i)`` for ``i < calls`` in each of THREADS threads; the results per thread."""
    results: list[list] = [[] for _ in range(THREADS)]
    errors: list[BaseException] = []
    barrier = threading.Barrier(THREADS)

    def run(t: int) -> None:
        try:
            barrier.wait()
            out = results[t]
            for i in range(calls):
                out.append(work(t, i))
        except BaseException as err:  # reported by the main thread
            errors.append(err)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=run, args=(t,)) for t in range(THREADS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    if errors:
        raise errors[0]
    return results


def check_plain(calls: int, mode=None) -> None:
    x = pt.dvector("x")
    f = function([x], ((x * 2 + 1) ** 2).sum(), mode=mode)

    def work(t: int, i: int) -> bool:
        v = float(t * calls + i)
        return f(np.full(3, v)) == 3 * (2 * v + 1) ** 2

    results = _in_threads(work, calls)
    assert all(all(r) for r in results)
    if mode is None:
        assert f.runner.generated is not None  # the generated code ran too


def check_updates(calls: int, mode=None) -> None:
    acc = shared(np.int64(0), name="acc")
    x = pt.lscalar("x")
    f = function([x], [acc, x], updates={acc: acc + x}, mode=mode)

    def work(t: int, i: int) -> tuple[int, int]:
        old, given = f(np.int64(t * calls + i + 1))
        return int(old), int(given)

    pairs = sorted(pair for r in _in_threads(work, calls) for pair in r)
    # Serialized calls: each saw the state the previous one left, and no update was lost.
    assert pairs[0][0] == 0
    assert all(b[0] == a[0] + a[1] for a, b in itertools.pairwise(pairs))
    total = THREADS * calls * (THREADS * calls + 1) // 2
    assert int(acc.get_value()) == total == pairs[-1][0] + pairs[-1][1]


def check_profiled(calls: int) -> None:
    x = pt.dvector("x")
    f = function([x], pt.exp(x).sum() + x.max(), profile=True)

    def work(t: int, i: int) -> bool:
        v = np.linspace(0, 1, 4) + (t * calls + i) * 1e-6
        return np.isclose(f(v), np.exp(v).sum() + v.max())

    results = _in_threads(work, calls)
    assert all(all(r) for r in results)
    assert f.profile.fct_callcount == THREADS * calls
    assert all(s.calls == THREADS * calls for s in f.profile.apply_stats.values())


def check_inner_graph(calls: int) -> None:
    x, c = pt.dvector("x"), pt.dscalar("c")
    out = index_map(lambda i, row, c: row * c + i, x.shape[0], sequences=[x], non_sequences=[c])
    f = function([x, c], out)

    def work(t: int, i: int) -> bool:
        v, cv = np.array([t, i, 1.0]), np.float64(i % 7)
        return np.array_equal(f(v, cv), v * cv + np.arange(3))

    results = _in_threads(work, calls)
    assert all(all(r) for r in results)


CHECKS = [check_plain, check_updates, check_profiled, check_inner_graph]


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_threads(check):
    check(calls=10_000 if check in (check_plain, check_updates) else 2_000)


@pytest.mark.slow
@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_threads_10_to_the_5(check):
    check(calls=100_000)


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["NUMBA", "JAX"])
@pytest.mark.parametrize("check", [check_plain, check_updates], ids=lambda c: c.__name__)
def test_threads_10_to_the_5_on_the_backends(check, mode):
    pytest.importorskip(mode.lower())
    check(calls=100_000, mode=mode)


def test_a_function_with_updates_swaps_atomically():
    a, b = shared(np.float64(1.0)), shared(np.float64(2.0))
    swap = function([], [], updates=[(a, b), (b, a)])
    reader = function([], a + b)
    seen = _in_threads(lambda t, i: swap() if t % 2 else float(reader()), 2_000)
    assert all(total == 3.0 for t in (0, 2) for total in seen[t])  # never half a swap
    assert sorted([a.get_value(), b.get_value()]) == [1.0, 2.0]


def test_compiling_leaves_the_collector_as_it_was():
    x = pt.dvector("x")
    gc.disable()
    try:
        function([x], x + 1)
        assert not gc.isenabled()  # a collector the user disabled stays disabled
    finally:
        gc.enable()
    function([x], x * 2)
    assert gc.isenabled()


def test_readers_never_see_an_update_half_done_in_place():
    w = shared(np.zeros(200_000), name="w")
    step = function([], [], updates={w: w + 1.0})  # may run in place on w's array
    spread = function([], w.max() - w.min())
    seen = _in_threads(lambda t, i: step() if t % 2 else float(spread()), 200)
    assert all(value == 0.0 for t in (0, 2) for value in seen[t])
    assert w.get_value()[0] == 400.0
