"""Differential fuzzing of every execution path (issue 14, point 2).

Hypothesis draws random graphs over the whole op database (``fuzz_paths.Graph``: elementwise,
reductions, indexing, shapes, dots, scan, ifelse, OpFromGraph, random draws from fixed
generators) and runs each with no rewrites (the reference: every op's ``perform``),
FAST_COMPILE, FAST_RUN, the VM and the Python linker with ``fast_run``, ``mode="NUMBA"``,
``mode="JAX"`` (left out when jax is absent) and DebugMode; the differential harness's
programs (``tests/differential``, compared with NumPy) go through the same extra paths. The
default run checks a few dozen graphs; the slow run checks 10,000. A failure prints the
shrunk graph: it goes into ``test_fuzz_regressions.py``.
"""

from __future__ import annotations

import argparse
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.differential.compare import check_program, describe
from tests.differential.generate import programs
from tests.reliability import fuzz_paths, run_fuzz
from tests.reliability.fuzz_paths import (
    FINISH_NAMES,
    HAVE_JAX,
    NAMES,
    Graph,
    Piece,
    check_graph,
    check_graphs,
)
from tests.reliability.run_fuzz import graph_at

pytest.importorskip("numba")

COMMON = {
    "deadline": None,
    "database": None,
    "suppress_health_check": list(HealthCheck),
}
#: The harness's programs also run on these paths (their own modes run in tests/differential).
EXTRA = ("no_rewrites", "NUMBA", "DebugMode") + (("JAX",) if HAVE_JAX else ())

pieces = st.builds(
    Piece,
    entry=st.sampled_from(NAMES),
    sample=st.integers(0, 3),
    feed=st.integers(-1, 2),
    finish=st.sampled_from(FINISH_NAMES),
)
graphs = st.builds(Graph, st.lists(pieces, min_size=1, max_size=3).map(tuple))


def _assert_agree(graph: Graph) -> None:
    outcome = check_graph(graph)
    assert not outcome.mismatches, outcome.describe()


@settings(max_examples=12, derandomize=True, **COMMON)
@given(graphs)
def test_random_graphs_agree_on_every_path(graph):
    _assert_agree(graph)


def _jax_limit(difference) -> bool:
    """JAX saying it has no conversion of an op, or needs a shape at compile time."""
    return difference.mode == "JAX" and difference.error.startswith(
        ("UnsupportedOpError", "DynamicShapeError")
    )


@settings(max_examples=6, derandomize=True, **COMMON)
@given(programs())
def test_harness_programs_agree_with_numpy_on_the_backends(program):
    outcome = check_program(program, modes=EXTRA, with_pytensor=False)
    unexplained = [d for d in outcome.unexplained if not _jax_limit(d)]
    assert not unexplained, describe(outcome)


def test_jax_is_fuzzed_or_says_why():
    if not HAVE_JAX:
        pytest.skip("jax is not installed: the JAX path is left out of the fuzzing")
    assert "JAX" in EXTRA


@pytest.mark.slow
@settings(max_examples=10_000, derandomize=False, **COMMON)
@given(graphs)
def test_ten_thousand_random_graphs(graph):
    _assert_agree(graph)


CHEAP = ("no_rewrites", "vm", "FAST_COMPILE")


def test_graphs_checked_together_give_the_outcomes_of_each_alone():
    graphs = [graph_at(14, index) for index in range(6)]
    together = check_graphs(graphs, paths=CHEAP)
    alone = [check_graph(graph, paths=CHEAP) for graph in graphs]
    assert [o.graph for o in together] == graphs
    for joint, single in zip(together, alone):
        assert (joint.skipped, joint.unsupported) == (single.skipped, single.unsupported)
        assert [str(m) for m in joint.mismatches] == [str(m) for m in single.mismatches]


def test_a_mismatch_in_a_joint_function_is_attributed_to_its_graph(monkeypatch):
    graphs = [graph_at(14, index) for index in (3, 11, 15)]  # plain float graphs
    wrong = set()  # ids of the outputs of the middle graph, whose values "vm" gets wrong
    build, run = fuzz_paths.build, fuzz_paths._run

    def recording_build(graph):
        built = build(graph)
        if graph == graphs[1]:
            wrong.update(id(out) for out in built.outputs)
        return built

    def wrong_run(built, path):
        got = run(built, path)
        if path != "vm" or isinstance(got, BaseException):
            return got
        return [g + 1 if id(o) in wrong else g for o, g in zip(built.outputs, got)]

    monkeypatch.setattr(fuzz_paths, "build", recording_build)
    monkeypatch.setattr(fuzz_paths, "_run", wrong_run)
    outcomes = check_graphs(graphs, paths=CHEAP)
    assert [bool(o.mismatches) for o in outcomes] == [False, True, False]
    assert {m.path for m in outcomes[1].mismatches} == {"vm"}
    assert "only compiled with other graphs" not in outcomes[1].describe()


def test_the_long_run_goes_in_fresh_processes_chunk_by_chunk(capsys):
    # 7 graphs, 2 workers, 2 graphs a process: chunks of 4 (graphs 20-23, then 24-26)
    args = argparse.Namespace(
        start=20, stop=27, paths="FAST_COMPILE", workers=2, minutes=5.0, seed=14,
        graph_seconds=60, batch=1, graphs_per_process=2,
    )  # fmt: skip
    totals = run_fuzz._run_in_chunks(args, deadline=time.monotonic() + 300)
    assert totals["graphs"] == 7 and totals["next"] == 27
    assert totals["FAST_COMPILE:compared"] + totals["skipped"] == 7
    stopped = run_fuzz._run_in_chunks(args, deadline=time.monotonic() - 1)
    assert stopped == {"next": 20}  # the deadline has passed: nothing is checked
