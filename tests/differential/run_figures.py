"""The long differential run, as a script that logs its figures while it runs.

``test_differential.py::test_twenty_thousand_random_programs`` is the slow-marked test of the
same distribution (it stops at the first unexplained difference); this runner goes on, counts
differences by class and prints every unexplained program, so that a run cut short still says
what it reached::

    PYTHONPATH=. python -m tests.differential.run_figures 20000 --seed 17 > run.log

Every ``--every`` programs (and at the end) it prints one JSON line of cumulative counts
(:func:`tests.differential.compare.summary`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from tests.differential.compare import check_program, describe, pytensor, summary
from tests.differential.generate import random_program


def _figures(outcomes, started: float, unexplained: int) -> str:
    counts = summary(outcomes)
    counts["unexplained_programs"] = unexplained
    counts["seconds"] = round(time.time() - started)
    return json.dumps(counts, sort_keys=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("programs", type=int, nargs="?", default=20_000)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--every", type=int, default=250)
    parser.add_argument("--no-pytensor", action="store_true")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    with_pytensor = pytensor is not None and not args.no_pytensor
    outcomes, unexplained, started = [], 0, time.time()
    for count in range(1, args.programs + 1):
        outcome = check_program(random_program(rng), with_pytensor=with_pytensor)
        outcome.realized = None  # keep the memory of a long run flat
        outcomes.append(outcome)
        if outcome.unexplained:
            unexplained += 1
            print("UNEXPLAINED", describe(outcome), flush=True)
        if count % args.every == 0:
            print(_figures(outcomes, started, unexplained), flush=True)
    print(_figures(outcomes, started, unexplained), flush=True)
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
