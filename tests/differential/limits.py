"""Time limits for the differential harness: nestable, by ``SIGALRM``.

A program must not stall a long run: building it, each arignote mode and PyTensor each run
under a limit. Limits nest, so they share one timer set to the nearest deadline. The handler
raises the error of the outermost expired limit, a ``BaseException`` that ``except Exception``
does not catch, and fires again every second until that limit's block is left, should code
catch even that; ``limit.fired`` records it either way.
Signals reach only the main thread: elsewhere (pytest-xdist workers run tests in the main
thread too) the limits are not enforced.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
import traceback
from dataclasses import dataclass


class TimeLimitExceeded(BaseException):
    """A limit of the harness expired.

    A ``BaseException``, as ``KeyboardInterrupt``: PyTensor's rewriters catch every
    ``Exception`` of a failing rewrite, log it and go on, so an ``Exception`` raised inside
    an endless rewrite loop (``local_log_sum_exp``) was swallowed at each interruption and a
    long run stalled on one program.
    """


class PyTensorHangs(TimeLimitExceeded):
    """PyTensor (or the NumPy reference) did not finish within the time limit."""


class ArignoteHangs(TimeLimitExceeded):
    """arignote did not finish building, compiling or running a program within the limit."""


@dataclass
class Limit:
    deadline: float
    error: type
    seconds: float
    fired: bool = False


_ACTIVE: list[Limit] = []  # outermost first
_PREVIOUS_HANDLERS: list = []
REFIRE = 1.0  # seconds between repeated interruptions once a limit has expired


def _arm() -> None:
    if not _ACTIVE:
        signal.setitimer(signal.ITIMER_REAL, 0)
        return
    remaining = min(limit.deadline for limit in _ACTIVE) - time.monotonic()
    signal.setitimer(signal.ITIMER_REAL, max(remaining, 1e-3), REFIRE)


def _interrupt(signum, frame) -> None:
    now = time.monotonic()
    expired = [limit for limit in _ACTIVE if limit.deadline <= now]
    if not expired:
        _arm()  # an inner limit was left: wait for the next deadline
        return
    expired[0].fired = True
    raise expired[0].error(f"took more than {expired[0].seconds:g} s")


@contextlib.contextmanager
def time_limit(seconds: float, error: type = PyTensorHangs, nested: bool = False):
    """Interrupt the block with ``error`` after ``seconds``; yields the :class:`Limit`.

    Unless ``nested``, the block is outermost: limits still listed are stale (an interruption
    that arrived while their block was being left) and are dropped first, so that they cannot
    fire in a later stage.
    """
    limit = Limit(time.monotonic() + seconds, error, seconds)
    if threading.current_thread() is not threading.main_thread():
        yield limit
        return
    if not nested:
        _reset()
    if not _ACTIVE:
        _PREVIOUS_HANDLERS.append(signal.signal(signal.SIGALRM, _interrupt))
    _ACTIVE.append(limit)
    _arm()
    try:
        yield limit
    finally:
        _leave(limit)


def _leave(limit: Limit) -> None:
    for _ in range(100):  # an interruption may land here too: try again
        try:
            if limit in _ACTIVE:
                _ACTIVE.remove(limit)
            _arm()
            if not _ACTIVE and _PREVIOUS_HANDLERS:
                signal.signal(signal.SIGALRM, _PREVIOUS_HANDLERS.pop())
            return
        except TimeLimitExceeded:
            continue


def _reset() -> None:
    _ACTIVE.clear()
    signal.setitimer(signal.ITIMER_REAL, 0)
    while _PREVIOUS_HANDLERS:
        signal.signal(signal.SIGALRM, _PREVIOUS_HANDLERS.pop())


def where_interrupted(err: BaseException, depth: int = 3) -> str:
    """The innermost frames of ``err``'s traceback, as ``file:line function`` (for reports)."""
    frames = traceback.extract_tb(err.__traceback__)[-depth:]
    return " < ".join(f"{f.filename.rsplit('/', 2)[-1]}:{f.lineno} {f.name}" for f in frames[::-1])


def interrupted_in(err: BaseException, function: str) -> bool:
    """Whether ``function`` was running (anywhere on the stack) when ``err`` interrupted."""
    return any(f.name == function for f in traceback.extract_tb(err.__traceback__))
