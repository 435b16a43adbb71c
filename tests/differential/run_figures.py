"""The long differential run, as a script that logs its figures while it runs.

``test_differential.py::test_twenty_thousand_random_programs`` is the slow-marked test of the
same distribution (it stops at the first unexplained difference); this runner goes on, counts
differences by class and prints every unexplained program, so that a run cut short still says
what it reached::

    PYTHONPATH=. python -m tests.differential.run_figures 20000 --seed 17 > run.log

Every ``--every`` programs (and at the end) it prints one JSON line of cumulative counts
(:func:`tests.differential.compare.summary`).

A program cannot stall the run: building it, each arignote mode and PyTensor run under time
limits (``limits.py``); an arignote hang is an unexplained ``hangs`` difference, printed with
the whole program, and a PyTensor hang is counted as ``pytensor_hangs``. Should a program hang
where no signal reaches it (inside native code), a watchdog prints it with every thread's stack
and ends the run; ``--start N`` resumes the same draw at program N.
"""

from __future__ import annotations

import argparse
import faulthandler
import json
import os
import sys
import threading
import time

import numpy as np

from tests.differential.compare import check_program, describe, pytensor, summary
from tests.differential.generate import random_program


def _figures(outcomes, started: float, unexplained: int) -> str:
    counts = summary(outcomes)
    counts["unexplained_programs"] = unexplained
    counts["seconds"] = round(time.time() - started)
    return json.dumps(counts, sort_keys=True)


WATCHDOG = 600.0  # seconds: far beyond every time limit of one program


def _stuck(count: int, program) -> None:
    print(f"STUCK program {count} (no time limit could interrupt it): {program!r}", flush=True)
    faulthandler.dump_traceback(sys.stdout, all_threads=True)
    os._exit(3)


def _check(count: int, program, with_pytensor: bool):
    watchdog = threading.Timer(WATCHDOG, _stuck, (count, program))
    watchdog.daemon = True
    watchdog.start()
    try:
        return check_program(program, with_pytensor=with_pytensor)
    finally:
        watchdog.cancel()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("programs", type=int, nargs="?", default=20_000)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--every", type=int, default=250)
    parser.add_argument("--no-pytensor", action="store_true")
    parser.add_argument("--start", type=int, default=1, help="first program to check")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    with_pytensor = pytensor is not None and not args.no_pytensor
    outcomes, unexplained, started = [], 0, time.time()
    for count in range(1, args.programs + 1):
        program = random_program(rng)
        if count < args.start:
            continue  # drawn all the same, so that program N is the same in every run
        outcome = _check(count, program, with_pytensor)
        outcome.realized = None  # keep the memory of a long run flat
        outcomes.append(outcome)
        if outcome.unexplained:
            unexplained += 1
            print(f"UNEXPLAINED (program {count})", describe(outcome), flush=True)
        if count % args.every == 0:
            print(_figures(outcomes, started, unexplained), flush=True)
    print(_figures(outcomes, started, unexplained), flush=True)
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
