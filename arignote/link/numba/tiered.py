"""Tiered execution: the Python VM at once, native code as soon as it is compiled.

``function(..., mode="TIERED")`` links the graph for the VM (instant) and runs the first
calls there. The first call also starts a background thread that converts the graph and
compiles it with numba for the types of that call's arguments (on copies of them: kernels
never write their inputs); when it is done, later calls run natively. Results are the same
either way (the native kernels are tested against ``perform``). If native compilation fails,
the function stays on the VM and ``runner.native_error`` says why.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from arignote.graph.fg import FunctionGraph
from arignote.link.basic import Runner
from arignote.link.jit import JITRunner
from arignote.link.numba.linker import NumbaLinker, convert, native_runner, whole_graph_fallback
from arignote.link.vm import VMLinker


class TieredLinker(NumbaLinker):
    """The VM first, then the whole graph compiled by numba (see the module docstring)."""

    def make_runner(self) -> Runner:
        fgraph = self._graph()
        vm = VMLinker().accept(fgraph, self.no_recycling, self.profile).make_runner()
        reason = whole_graph_fallback(fgraph)
        if reason is not None:
            vm.fallbacks = {None: reason}
            return vm
        return TieredRunner(fgraph, vm, str(self))


class TieredRunner(Runner):
    """Runs on ``vm`` until the native function compiled in the background is ready."""

    def __init__(self, fgraph: FunctionGraph, vm: Runner, name: str) -> None:
        self.fgraph = fgraph
        self.order = vm.order
        self.vm = vm
        self.name = name
        self.native: JITRunner | None = None
        self.native_error: BaseException | None = None
        self.fallbacks: dict = {}
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        self._current: Runner = vm

    def run(self, inputs: Sequence[Any]) -> list[Any]:
        if self._thread is None:
            self._start(inputs)
        return self._current.run(inputs)

    def fail(self, error: BaseException) -> None:
        self._current.fail(error)

    def free(self) -> None:
        self.vm.free()

    def report_profile(self, stats: Any) -> None:
        self.vm.report_profile(stats)

    @property
    def is_native(self) -> bool:
        """Whether calls now run the native function."""
        return self._current is self.native

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the background compilation (started by the first call); True if native."""
        if self._thread is not None:
            self._thread.join(timeout)
        return self.is_native

    def _start(self, inputs: Sequence[Any]) -> None:
        with self._start_lock:
            if self._thread is not None:
                return
            samples = [v.copy() if isinstance(v, np.ndarray) else v for v in inputs]
            self._thread = threading.Thread(
                target=self._compile, args=(samples,), name="arignote-numba", daemon=True
            )
            self._thread.start()

    def _compile(self, samples: list) -> None:
        try:
            graph, fallbacks = convert(self.fgraph)
            native = native_runner(self.fgraph, graph, fallbacks, self.name)
            native.run(samples)  # compiles for these argument types
        except Exception as err:  # stay on the VM, say why
            self.native_error = err
            return
        self.fallbacks = fallbacks
        self.native = native
        self._current = self.native  # one reference assignment: calls switch atomically
