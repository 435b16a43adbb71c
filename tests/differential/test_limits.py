"""The harness's time limits: a hanging program is a finding and the run goes on (issue 17)."""

from __future__ import annotations

import contextlib
import signal
import time

import pytest

from tests.differential import compare, limits, programs
from tests.differential.limits import ArignoteHangs, PyTensorHangs, time_limit
from tests.differential.programs import Program, Step

PROGRAM = Program((Step(entry="exp", sample=0, variant="plain", feeds=(-1,), shapes="runtime"),))


def _spin(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def _swallowing_spin(seconds: float) -> None:
    """Catches every exception, as PyTensor's rewriters do with a failing rewrite's."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        with contextlib.suppress(Exception):
            _spin(0.05)


def _swallowing_everything(seconds: float) -> None:
    """Catches even BaseException (a bare except)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        with contextlib.suppress(BaseException):
            _spin(0.05)


def _call_reference(*args):
    """A NumPy reference too slow to use (as factorial_exact of large numbers)."""
    _spin(5)


def test_a_limit_interrupts_and_a_finished_block_is_left_alone():
    with pytest.raises(ArignoteHangs, match="took more than 0.1 s"), time_limit(0.1, ArignoteHangs):
        _spin(5)
    with time_limit(5, ArignoteHangs) as limit:
        _spin(0.05)
    assert not limit.fired


def test_limits_nest_and_the_outer_one_still_fires():
    started = time.monotonic()
    with pytest.raises(ArignoteHangs), time_limit(0.3, ArignoteHangs):
        with pytest.raises(PyTensorHangs), time_limit(0.1, PyTensorHangs, nested=True):
            _spin(5)
        _spin(5)
    assert time.monotonic() - started < 2


def test_code_that_catches_every_exception_is_still_interrupted():
    # PyTensor's rewriters log and skip a failing rewrite: that must not swallow the limit
    started = time.monotonic()
    with pytest.raises(ArignoteHangs), time_limit(0.1, ArignoteHangs):
        _swallowing_spin(5)
    assert time.monotonic() - started < 1


def test_an_interruption_caught_even_so_is_recorded_and_fires_again():
    with time_limit(0.1, ArignoteHangs) as limit:
        _swallowing_everything(0.4)
    assert limit.fired


def test_an_arignote_hang_is_an_unexplained_difference_with_the_program(monkeypatch):
    monkeypatch.setattr(compare, "ARIGNOTE_TIME_LIMIT", 0.1)
    monkeypatch.setattr(compare, "_compile_and_call", lambda *args: _swallowing_everything(0.5))
    outcome = compare.check_program(PROGRAM, modes=("FAST_RUN",), with_pytensor=False)
    kinds = {(d.kind, d.against) for d in outcome.unexplained}
    assert ("hangs", "numpy") in kinds, compare.describe(outcome)
    assert "Step(entry='exp'" in compare.describe(outcome)
    assert "[hangs vs numpy] FAST_RUN: arignote hangs" in compare.describe(outcome)


def test_a_hang_while_building_is_a_finding_and_a_slow_reference_is_skipped(monkeypatch):
    monkeypatch.setattr(compare, "REFERENCE_TIME_LIMIT", 0.1)
    monkeypatch.setattr(compare, "_gradient_outputs", lambda realized: _spin(5))
    outcome = compare.check_program(PROGRAM, with_pytensor=False)
    assert [(d.kind, d.mode) for d in outcome.unexplained] == [("hangs", "build")]
    monkeypatch.undo()
    monkeypatch.setattr(compare, "REFERENCE_TIME_LIMIT", 0.1)
    monkeypatch.setattr(programs, "_call_reference", _call_reference)
    outcome = compare.check_program(PROGRAM, with_pytensor=False)
    assert outcome.skipped is not None and not outcome.differences


@pytest.mark.skipif(compare.pytensor is None, reason="PyTensor is not installed (`reference`)")
def test_pytensors_endless_logsumexp_rewrite_is_counted_and_ends_on_time(monkeypatch):
    # the program that stalled the long run: PyTensor's FAST_RUN rewrites of logsumexp loop
    # and log every interruption raised as an Exception (0.5 s here instead of 20 s)
    monkeypatch.setattr(compare, "PYTENSOR_TIME_LIMIT", 0.5)
    program = Program((Step(entry="logsumexp", sample=4, feeds=(-1,), shapes="runtime"),))
    started = time.monotonic()
    outcome = compare.check_program(program, with_pytensor=True)
    assert outcome.pytensor_hangs and not outcome.unexplained, compare.describe(outcome)
    assert time.monotonic() - started < 10


def test_a_stale_limit_cannot_fire_in_a_later_stage():
    # what an interruption landing while a block is left can leave behind: its expired limit
    # still listed, with the harness's handler installed
    limits._PREVIOUS_HANDLERS.append(signal.signal(signal.SIGALRM, limits._interrupt))
    limits._ACTIVE.append(limits.Limit(time.monotonic() - 1, PyTensorHangs, 0.1))
    with time_limit(0.5, ArignoteHangs) as fresh:
        _spin(0.2)  # the stale, expired limit would fire at once
    assert not fresh.fired and not limits._ACTIVE
    assert signal.getsignal(signal.SIGALRM) is not limits._interrupt


def test_a_stage_that_stalls_once_is_tried_again_and_not_reported(monkeypatch):
    # a loaded machine can stall a stage for seconds: only a second stall is a hang
    calls, real = [], compare._compile_and_call

    def stalls_once(*args):
        calls.append(1)
        return _spin(5) if len(calls) == 1 else real(*args)

    monkeypatch.setattr(compare, "ARIGNOTE_TIME_LIMIT", 0.2)
    monkeypatch.setattr(compare, "_compile_and_call", stalls_once)
    outcome = compare.check_program(PROGRAM, modes=("FAST_RUN",), with_pytensor=False)
    assert len(calls) == 2 and not outcome.unexplained, compare.describe(outcome)
