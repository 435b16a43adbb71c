"""``ProfileStats``: where a compiled function spends its time and memory.

``function(..., profile=True)`` (or ``profile=ProfileStats(...)``, to accumulate several
functions into one report) runs the graph on a timing VM and records, for every Apply node:
the number of calls, the time spent, the bytes of its outputs and, for ops that define
``flops(input_shapes, output_shapes)`` (the Op contract's optional method), the floating-point
operations per call. It also records the compile phases (rewriting and linking) and the time
of whole calls. ``f.profile.summary()`` prints it all (to stderr, as PyTensor does) in PyTensor's
sections: the global one, whose "Message" is the function's name, then Class, Ops and Apply.

Functions compiled without profiling use a VM without any timing code.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

from arignote.config import config
from arignote.graph.basic import Apply


@dataclass
class ApplyStats:
    """What was measured for one Apply node."""

    node: Apply
    calls: int = 0
    time: float = 0.0
    output_bytes: int = 0
    flops_per_call: float | None = None

    @property
    def op_name(self) -> str:
        return str(self.node.op)


class ProfileStats:
    """Accumulated measurements of one or more compiled functions.

    Attributes
    ----------
    message
        Title of the report (the function's name by default).
    fct_callcount, fct_call_time
        Number of calls of the function(s) and their total time (argument checking included).
    vm_call_time
        Time spent running the graph (the VM), a part of ``fct_call_time``.
    rewriting_time, linker_time
        Compile phases: rewriting the graph, building the thunks.
    apply_stats
        ``{node: ApplyStats}`` for every node run.
    """

    def __init__(self, message: str | None = None) -> None:
        self.message = message
        self.fct_callcount = 0
        self.fct_call_time = 0.0
        self.vm_call_time = 0.0
        self.rewriting_time = 0.0
        self.linker_time = 0.0
        self.nb_nodes = 0
        self.apply_stats: dict[Apply, ApplyStats] = {}
        self.inner: list[ProfileStats] = []

    def inner_profile(self, message: str) -> ProfileStats:
        """A profile for an inner graph of the profiled function (shown in its summary)."""
        child = ProfileStats(message)
        self.inner.append(child)
        return child

    # -- recording -----------------------------------------------------------------------

    def record_vm(self, vm: Any) -> None:
        """Add the per-node measures accumulated by a ``ProfilingVM`` since its last update."""
        self.vm_call_time += vm.total_time
        for position, node in enumerate(vm.order):
            stats = self.apply_stats.get(node)
            if stats is None:
                stats = self.apply_stats[node] = ApplyStats(node)
            stats.calls += vm.call_counts[position]
            stats.time += vm.call_times[position]
            stats.output_bytes = max(stats.output_bytes, vm.output_bytes[position])
            shapes = vm.last_shapes[position]
            if shapes is not None:
                stats.flops_per_call = _flops(node, *shapes)

    def record_call(self, seconds: float) -> None:
        self.fct_callcount += 1
        self.fct_call_time += seconds

    def fresh(self) -> ProfileStats:
        """A new profile with this one's message and compile times, and no run measurements.

        Pickled functions carry this instead of their profile: the measurements are keyed by
        the Apply nodes of the original graph (pickling them would pickle the graph node by
        node, recursively), and the unpickled function runs new nodes anyway.
        """
        new = ProfileStats(self.message)
        new.rewriting_time, new.linker_time = self.rewriting_time, self.linker_time
        new.nb_nodes = self.nb_nodes
        return new

    def reset(self) -> None:
        """Forget the run-time measurements (compile times are kept)."""
        self.fct_callcount = 0
        self.fct_call_time = 0.0
        self.vm_call_time = 0.0
        self.apply_stats.clear()
        for child in self.inner:
            child.reset()

    # -- aggregating ---------------------------------------------------------------------

    @property
    def apply_time(self) -> dict[Apply, float]:
        return {node: s.time for node, s in self.apply_stats.items()}

    @property
    def apply_callcount(self) -> dict[Apply, int]:
        return {node: s.calls for node, s in self.apply_stats.items()}

    def op_stats(self) -> dict[str, dict[str, float]]:
        """Per-op totals: ``{op: {"time", "calls", "nodes", "output_bytes", "flops"}}``."""
        totals: dict[str, dict[str, float]] = defaultdict(
            lambda: {"time": 0.0, "calls": 0, "nodes": 0, "output_bytes": 0, "flops": 0.0}
        )
        for stats in self.apply_stats.values():
            entry = totals[stats.op_name]
            entry["time"] += stats.time
            entry["calls"] += stats.calls
            entry["nodes"] += 1
            entry["output_bytes"] += stats.output_bytes
            if stats.flops_per_call is not None:
                entry["flops"] += stats.flops_per_call * stats.calls
        return dict(totals)

    @property
    def compile_time(self) -> float:
        """Seconds spent compiling: rewriting plus linking."""
        return self.rewriting_time + self.linker_time

    def op_time(self) -> dict[str, float]:
        """Seconds per op (by its name), summed over its nodes."""
        return {name: entry["time"] for name, entry in self.op_stats().items()}

    def op_callcount(self) -> dict[str, int]:
        return {name: int(entry["calls"]) for name, entry in self.op_stats().items()}

    def op_nodes(self) -> dict[str, int]:
        return {name: int(entry["nodes"]) for name, entry in self.op_stats().items()}

    def class_time(self) -> dict[str, float]:
        """Seconds per op class (by its name), summed over its nodes."""
        return self._by_class(lambda stats: stats.time)

    def class_callcount(self) -> dict[str, int]:
        return self._by_class(lambda stats: stats.calls)

    def class_nodes(self) -> dict[str, int]:
        return self._by_class(lambda stats: 1)

    def _by_class(self, measure: Callable[[ApplyStats], Any]) -> dict[str, Any]:
        totals: dict[str, Any] = defaultdict(int)
        for stats in self.apply_stats.values():
            totals[type(stats.node.op).__name__] += measure(stats)
        return dict(totals)

    def total_apply_time(self) -> float:
        return sum(s.time for s in self.apply_stats.values())

    # -- printing ------------------------------------------------------------------------

    def summary(
        self,
        file: TextIO | None = None,
        n_ops_to_print: int | None = None,
        n_apply_to_print: int | None = None,
    ) -> None:
        """Print the global section and the class, op and node tables to ``file`` (default:
        stderr, as PyTensor does); the row counts default to ``config.profiling__n_ops`` and
        ``config.profiling__n_apply``."""
        out = file if file is not None else sys.stderr
        out.write(self.summary_text(n_apply_to_print, n_ops_to_print))

    def summary_text(
        self, n_apply_to_print: int | None = None, n_ops_to_print: int | None = None
    ) -> str:
        n_apply_to_print = n_apply_to_print or config.profiling__n_apply
        n_ops_to_print = n_ops_to_print or config.profiling__n_ops
        lines = self._function_lines() + [""] + self._class_lines(n_ops_to_print) + [""]
        lines += self._op_lines(n_ops_to_print) + [""] + self._apply_lines(n_apply_to_print)
        for child in self.inner:
            text = child.summary_text(n_apply_to_print, n_ops_to_print).rstrip("\n")
            lines += ["", "Inner graph:"] + ["    " + line for line in text.split("\n")]
        return "\n".join(lines) + "\n"

    def summary_function(self, file: TextIO | None = None) -> None:
        """Print the global section (calls, times, compilation) only."""
        _write(file, self._function_lines())

    def summary_class(self, file: TextIO | None = None, N: int | None = None) -> None:
        """Print the table of time per op class only."""
        _write(file, self._class_lines(N))

    def summary_ops(self, file: TextIO | None = None, N: int | None = None) -> None:
        """Print the table of time per op only."""
        _write(file, self._op_lines(N))

    def summary_nodes(self, file: TextIO | None = None, N: int | None = None) -> None:
        """Print the table of time per Apply node only."""
        _write(file, self._apply_lines(N if N is not None else len(self.apply_stats)))

    def _function_lines(self) -> list[str]:
        # PyTensor's global section, whose "Message" is the function's name
        calls = max(self.fct_callcount, 1)
        return [
            "Function profiling",
            "==================",
            f"  Message: {self.message}",
            f"  Time in {self.fct_callcount} calls to Function.__call__: "
            f"{self.fct_call_time:e}s ({1e6 * self.fct_call_time / calls:.2f}us per call)",
            f"  Time in Function.vm.__call__: {self.vm_call_time:e}s ("
            f"{_share(self.vm_call_time, self.fct_call_time)}%)",
            f"  Time in thunks: {self.total_apply_time():e}s ("
            f"{_share(self.total_apply_time(), self.fct_call_time)}%)",
            f"  Total compilation time: {self.compile_time:e}s",
            f"    Number of Apply nodes: {self.nb_nodes}",
            f"    Rewriting time: {self.rewriting_time:e}s",
            f"    Linker time: {self.linker_time:e}s",
        ]

    def _class_lines(self, limit: int | None) -> list[str]:
        total = self.total_apply_time()
        times, calls, nodes = self.class_time(), self.class_callcount(), self.class_nodes()
        lines = [
            "Class",
            "---",
            f"  {'<% time>':>8} {'<sum %>':>8} {'<time s>':>11} {'<per call>':>11} "
            f"{'<calls>':>8} {'<nodes>':>7}  <class name>",
        ]
        cumulated = 0.0
        for name in sorted(times, key=lambda name: -times[name])[:limit]:
            cumulated += times[name]
            per_call = times[name] / max(calls[name], 1)
            lines.append(
                f"  {_share(times[name], total):>7}% {_share(cumulated, total):>7}% "
                f"{times[name]:>10.6f}s {1e6 * per_call:>9.2f}us {calls[name]:>8} "
                f"{nodes[name]:>7}  {name}"
            )
        return lines

    def _op_lines(self, limit: int | None = None) -> list[str]:
        total = self.total_apply_time()
        rows = sorted(self.op_stats().items(), key=lambda item: -item[1]["time"])[:limit]
        lines = [
            "Ops",
            "---",
            f"  {'<% time>':>8} {'<sum %>':>8} {'<time s>':>11} {'<per call>':>11} "
            f"{'<calls>':>8} {'<nodes>':>7} {'<MFlops/s>':>10}  <op>",
        ]
        cumulated = 0.0
        for name, entry in rows:
            cumulated += entry["time"]
            per_call = entry["time"] / max(entry["calls"], 1)
            rate = _mflops(entry["flops"], entry["time"])
            lines.append(
                f"  {_share(entry['time'], total):>7}% {_share(cumulated, total):>7}% "
                f"{entry['time']:>10.6f}s {1e6 * per_call:>9.2f}us {int(entry['calls']):>8} "
                f"{int(entry['nodes']):>7} {rate:>10}  {name}"
            )
        return lines

    def _apply_lines(self, limit: int) -> list[str]:
        total = self.total_apply_time()
        rows = sorted(self.apply_stats.values(), key=lambda s: -s.time)
        lines = [
            "Apply",
            "------",
            f"  {'<% time>':>8} {'<time s>':>11} {'<per call>':>11} {'<calls>':>8} "
            f"{'<out bytes>':>11} {'<MFlops/s>':>10}  <apply>",
        ]
        for stats in rows[:limit]:
            flops = (stats.flops_per_call or 0.0) * stats.calls
            rate = _mflops(flops, stats.time) if stats.flops_per_call is not None else "-"
            lines.append(
                f"  {_share(stats.time, total):>7}% {stats.time:>10.6f}s "
                f"{1e6 * stats.time / max(stats.calls, 1):>9.2f}us {stats.calls:>8} "
                f"{stats.output_bytes:>11} {rate:>10}  {stats.node}"
            )
        if len(rows) > limit:
            lines.append(f"  ... {len(rows) - limit} more nodes")
        memory = sum(s.output_bytes for s in rows)
        lines.append(f"  Memory of all node outputs (largest seen per node): {memory} bytes")
        return lines


def _write(file: TextIO | None, lines: list[str]) -> None:
    (file if file is not None else sys.stderr).write("\n".join(lines) + "\n")


def _flops(node: Apply, input_shapes: list, output_shapes: list) -> float | None:
    flops = getattr(node.op, "flops", None)
    if flops is None:
        return None
    return float(flops(input_shapes, output_shapes))


def _share(part: float, whole: float) -> str:
    return f"{100.0 * part / whole:.1f}" if whole > 0 else "0.0"


def _mflops(flops: float, seconds: float) -> str:
    if flops <= 0 or seconds <= 0:
        return "-"
    return f"{flops / seconds / 1e6:.1f}"


def as_profile(profile: Any, name: str | None) -> ProfileStats | None:
    """The ProfileStats for ``function(profile=...)``: True, a message string, or an instance."""
    if profile is None or profile is False:
        return None
    if profile is True:
        return ProfileStats(message=name)
    if isinstance(profile, str):
        return ProfileStats(message=profile)
    if isinstance(profile, ProfileStats):
        return profile
    raise TypeError(f"profile must be a bool, a string or a ProfileStats, got {profile!r}")
