"""Tiered execution: the Python VM at once, Numba's native code once a function is hot.

The default linker ("auto", see :mod:`arignote.compile.mode`) links every graph for the
Python VM, which costs nothing to start, and counts the calls. A function becomes *hot* after
:data:`HOT_CALLS` calls, or once its calls have spent about :data:`HOT_SECONDS` on the VM
(estimated from timed sample calls). Only then does the call that made it hot import numba
(never earlier: ``import arignote`` and short-lived functions, such as the tens of thousands
of a test suite, never pay for it), compile the whole graph natively (or load it from the
disk cache), check it against the VM on a copy of that call's inputs, and swap it in; other
threads keep calling the VM meanwhile. The swap is one attribute assignment (``runner.run``),
read once per call: concurrent callers see either version, and both compute the same values.
Listeners (the Functions using the runner) then rebuild their entry points to call the
jitted graph directly.

A graph that went native in an earlier process (:mod:`arignote.link.hot_index`, a hash of
the graph computed without numba) is hot from :data:`WARM_CALLS` calls on: its native code
is most likely cached, and loads in a fraction of a second.

Why these thresholds (measured, see ``docs/tutorial/modes.md``): compiling a graph natively
costs 0.3 to a few seconds of CPU (far less from the disk cache). Waiting for
:data:`HOT_SECONDS` of VM time bounds the work a function that stops being called can waste
to about what it already used (the ski-rental rule); :data:`HOT_CALLS` makes the cheap
per-call functions of samplers (tens of microseconds on the VM, a few natively) go native
within a fraction of a second. Why in the caller: a background thread competes with it for
the GIL, and numba's many short GIL-releasing calls each wait for the caller to hand the GIL
back (on W9 a warm swap took 3x longer than the loading itself, and the whole job was slower
than the VM alone). The "TIERED" mode (hot at the first call) compiles in a background
thread, so that its first call stays instant.

A graph stays on the VM, without error, when it cannot be compiled as a whole (a random
generator among its values, an op without a native kernel), when compiling fails, or when
the native results differ from the VM's: ``runner.native_error`` then says why. Profiled
functions, NanGuardMode's and DebugMode's stay on the VM (their checks are VM callbacks).
"""

from __future__ import annotations

import atexit
import importlib
import importlib.util
import itertools
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from arignote.config import config
from arignote.link import hot_index
from arignote.link.basic import Runner
from arignote.link.vm import VMLinker, VMRunner
from arignote.tensor.random.type import copy_generator

#: Calls after which a function is hot (the native version is compiled then).
HOT_CALLS = 2000
#: Estimated seconds spent on the VM after which a function is hot, whatever its call count.
HOT_SECONDS = 1.0
#: Calls (1, 2, 4, 8, ...) that are timed to estimate the VM time of a function.
_FIRST_SAMPLE = 1
#: From this call on (at the next timed one: 16 is one), a function whose graph went native
#: in an earlier process is hot (:mod:`arignote.link.hot_index`): its native code loads from
#: the disk cache; a function called fewer times never pays for hashing its graph.
WARM_CALLS = 16

_NUMBA: list[bool] = []
_COMPILERS: set[threading.Thread] = set()


def numba_available() -> bool:
    """Whether numba can be imported (found without importing it; answered once)."""
    if not _NUMBA:
        _NUMBA.append(importlib.util.find_spec("numba") is not None)
    return _NUMBA[0]


class TieredLinker(VMLinker):
    """Links for the Python VM; the runner swaps in native code when hot (module docstring).

    Parameters
    ----------
    hot_calls, hot_seconds
        The thresholds (default :data:`HOT_CALLS`, :data:`HOT_SECONDS`); ``hot_calls=1``
        starts compiling at the first call (the "TIERED" mode).
    background
        Compile in a background thread (default: only when ``hot_calls`` is 1, so that the
        first call stays instant) instead of in the call that makes the function hot.
    warm_calls
        From this call on (at the next timed one), a function whose graph went native in an
        earlier process is hot at once (default :data:`WARM_CALLS`; 0: never).
    allow_gc, impl, callback, callback_input
        As for :class:`~arignote.link.vm.VMLinker`; a linker with callbacks or
        ``impl="debug"`` stays on the VM.
    """

    def __init__(
        self,
        allow_gc: bool | None = None,
        impl: str | None = None,
        callback: Any = None,
        callback_input: Any = None,
        hot_calls: int | None = None,
        hot_seconds: float | None = None,
        background: bool | None = None,
        warm_calls: int | None = None,
    ) -> None:
        super().__init__(allow_gc, impl, callback, callback_input)
        self.hot_calls = HOT_CALLS if hot_calls is None else hot_calls
        self.hot_seconds = HOT_SECONDS if hot_seconds is None else hot_seconds
        # hot at the first call: compile beside it, so that the first call stays instant
        self.background = self.hot_calls <= 1 if background is None else background
        self.warm_calls = WARM_CALLS if warm_calls is None else warm_calls

    def clone(self, allow_gc: bool | None = None) -> TieredLinker:
        return type(self)(
            self.allow_gc if allow_gc is None else allow_gc,
            self.impl,
            self.callback,
            self.callback_input,
            self.hot_calls,
            self.hot_seconds,
            self.background,
            self.warm_calls,
        )

    def make_runner(self) -> Runner:
        vm = super().make_runner()
        if not self._may_go_native():
            return vm
        runner = TieredRunner(vm, self.hot_calls, self.hot_seconds, self.background)
        runner.warm_calls = self.warm_calls
        return runner

    def _may_go_native(self) -> bool:
        plain = self.callback is None and self.callback_input is None and self.impl is None
        return plain and not self.profile and config.tiered and numba_available()

    def __str__(self) -> str:
        return "auto" if self.allow_gc is not False else "auto_nogc"


class TieredRunner(Runner):
    """Runs ``vm`` until native code replaces it (see the module docstring).

    ``run`` is an attribute: the counting wrapper until the function is hot, then the VM's
    own ``run`` (no wrapper), then the native function's. Other attributes (``generated``,
    ``steps``, ``program``...) are the VM runner's.

    Attributes
    ----------
    native
        The native runner once swapped in (None before, and if the graph stays on the VM).
    native_error
        Why the graph stays on the VM (None while it may still go native).
    background
        Whether the native version is compiled in a background thread (else by the caller
        that makes the function hot, while other threads go on calling the VM).
    """

    def __init__(
        self, vm: VMRunner, hot_calls: int, hot_seconds: float, background: bool = False
    ) -> None:
        self.vm = vm
        self.fgraph = vm.fgraph
        self.order = vm.order
        self.hot_calls = hot_calls
        self.hot_seconds = hot_seconds
        self.background = background
        self.native: Runner | None = None
        self.native_error: str | None = None
        self.fallbacks: dict = {}
        self._calls = itertools.count(1)
        self._next_sample = _FIRST_SAMPLE
        self._sampled = [0, 0.0]  # timed calls, their seconds
        self._hot = False
        self._key: str | None = None  # the graph's hash in the hot index, once computed
        self.warm_calls = WARM_CALLS
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._listeners: list[Callable[[], Any]] = []
        self.run = self._counting if hot_calls > 1 else self._first_call

    def __getattr__(self, name: str) -> Any:
        if name == "vm":  # not set yet (unpickling, copying): no recursion
            raise AttributeError(name)
        return getattr(self.vm, name)

    # -- calls ------------------------------------------------------------------------------

    def _counting(self, inputs: Sequence[Any]) -> list[Any]:
        calls = next(self._calls)
        if calls < self._next_sample:
            return self.vm.run(inputs)
        return self._sample(calls, inputs)

    def _sample(self, calls: int, inputs: Sequence[Any]) -> list[Any]:
        # Timed calls 1, 2, 4, 8...: their mean estimates the VM time of all calls so far.
        self._next_sample = 2 * calls
        start = time.perf_counter()
        outputs = self.vm.run(inputs)
        timed, seconds = self._sampled
        self._sampled = [timed + 1, seconds + time.perf_counter() - start]
        spent = calls * self._sampled[1] / self._sampled[0]
        if calls >= self.hot_calls or spent >= self.hot_seconds or self._went_native(calls):
            self._become_hot(inputs)
        elif self._next_sample > self.hot_calls:
            self._next_sample = self.hot_calls
        return outputs

    def _went_native(self, calls: int) -> bool:
        """At the first timed call from ``warm_calls`` on (0: never): whether this graph went
        native in an earlier process (its native code is then most likely in the disk cache,
        and loads at once)."""
        if self._key is not None or not 0 < self.warm_calls <= calls:
            return False
        return hot_index.went_native(self._graph_hash())

    def _graph_hash(self) -> str:
        if self._key is None:
            try:
                self._key = hot_index.graph_hash(self.fgraph)
            except Exception:  # some property without a usable repr: no hint for this graph
                self._key = ""
        return self._key

    def _first_call(self, inputs: Sequence[Any]) -> list[Any]:
        self._become_hot(inputs)
        return self.run(inputs)

    def fail(self, error: BaseException) -> None:
        native = self.native
        if native is not None and self.run == native.run:
            native.fail(error)
        self.vm.fail(error)

    def free(self) -> None:
        self.vm.free()

    def report_profile(self, stats: Any) -> None:
        self.vm.report_profile(stats)

    # -- going native -----------------------------------------------------------------------

    @property
    def is_native(self) -> bool:
        """Whether calls now run the native function."""
        native = self.native
        return native is not None and self.run == native.run

    @property
    def native_call(self) -> tuple | None:
        """The native runner's ``native_call`` once swapped in (see ``compile.entry``)."""
        native = self.native
        return getattr(native, "native_call", None) if self.is_native else None

    def when_native(self, listener: Callable[[], Any]) -> None:
        """After the swap, call ``listener()()`` (a weak method: skipped once its object is
        gone). A Function rebuilds its entry point then, to call native code directly."""
        self._listeners.append(listener)

    @property
    def is_hot(self) -> bool:
        """Whether the native version was asked for (compiling, swapped in, or refused)."""
        return self._hot

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the background compilation, if started; True if calls now run natively."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        return self.is_native

    def _become_hot(self, inputs: Sequence[Any]) -> None:
        with self._lock:
            if self._hot:
                return
            self._hot = True
            self.vm.generate()  # the VM's final form (no-op when it stays interpreted)
            self.run = self.vm.run  # other callers go on with the VM meanwhile
            samples = [_sample(v) for v in inputs]
            if self.background:
                self._thread = threading.Thread(
                    target=self._compile, args=(samples,), name="arignote-native", daemon=True
                )
                _COMPILERS.add(self._thread)
                self._thread.start()
                return
        self._compile(samples)  # by this caller, outside the lock (see the module docstring)

    def _compile(self, samples: list) -> None:
        try:
            backend = importlib.import_module("arignote.link.numba.tiered")
            native, reason = backend.compile_checked(self.fgraph, self.vm, samples)
        except Exception as err:  # stay on the VM, say why
            native, reason = None, f"{type(err).__name__}: {err}"
        finally:
            _COMPILERS.discard(threading.current_thread())
        if native is None:
            self.native_error = reason
            return
        self.fallbacks = native.fallbacks
        self.native = native
        self.run = native.run  # one assignment: every later call runs natively
        for listener in self._listeners:
            method = listener()
            if method is not None:
                method()
        if self._graph_hash():
            hot_index.record_native(self._key)


def _sample(value: Any) -> Any:
    """A copy of an input value kept for the check of the native version: arrays and random
    generators (the calls that follow advance a shared one)."""
    if isinstance(value, np.random.Generator):
        return copy_generator(value)
    return value.copy() if isinstance(value, np.ndarray) else value


@atexit.register
def _join_compilers() -> None:
    # A compilation still running when the interpreter exits would die inside LLVM: let it end.
    for thread in list(_COMPILERS):
        thread.join(60)
