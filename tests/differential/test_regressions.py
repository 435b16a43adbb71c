"""Programs on which the differential harness found differences, replayed (issue 17).

Each failed before its fix (or before its deliberate difference was listed with a reason); the
comment says which. They run without PyTensor; the PyTensor-only ones are in
``test_pytensor_defects.py``.
"""

from __future__ import annotations

import pytest

from tests.differential.compare import check_program, describe
from tests.differential.programs import Program, Step

PROGRAMS = [
    Program(
        steps=(
            Step(entry="max_and_argmax", sample=1, variant="plain", feeds=(-1,), shapes="runtime"),
            Step(entry="factorial", sample=7, variant="0len", feeds=(5,), shapes="full"),
        ),
        grad_of=4,
    ),
    Program(
        steps=(
            Step(entry="join", sample=3, variant="plain", feeds=(-1,), shapes="ones"),
            Step(entry="svd", sample=3, variant="plain", feeds=(4,), shapes="ones"),
        ),
        grad_of=3,
    ),
    Program(
        steps=(
            Step(entry="broadcast_shape", sample=3, variant="plain", feeds=(), shapes="runtime"),
            Step(entry="take_along_axis", sample=1, variant="plain", feeds=(5, 4), shapes="ones"),
        ),
        grad_of=None,
    ),
    Program(
        steps=(
            Step(entry="bincount", sample=1, variant="0len", feeds=(), shapes="runtime"),
            Step(entry="angle", sample=2, variant="0last", feeds=(0,), shapes="ones"),
            Step(entry="sin", sample=5, variant="plain", feeds=(3, 2, 2), shapes="ones"),
        ),
        grad_of=None,
    ),
    Program(
        steps=(
            Step(entry="round_modes", sample=0, variant="plain", feeds=(-1,), shapes="runtime"),
            Step(entry="qr", sample=3, variant="0len", feeds=(5, -1, -1), shapes="full"),
        ),
        grad_of=2,
    ),
    Program(
        steps=(
            Step(entry="SegmentSum", sample=0, variant="bool", feeds=(-1, -1), shapes="runtime"),
            Step(entry="cho_solve", sample=7, variant="plain", feeds=(), shapes="full"),
        ),
        grad_of=1,
    ),
    Program(
        steps=(
            Step(entry="argmax", sample=2, variant="plain", feeds=(-1, -1), shapes="ones"),
            Step(entry="factorial", sample=7, variant="0last", feeds=(4, 3), shapes="runtime"),
            Step(entry="betaln", sample=4, variant="plain", feeds=(), shapes="runtime"),
        ),
        grad_of=6,
    ),
    Program(
        steps=(
            Step(entry="solve", sample=3, variant="plain", feeds=(-1, -1), shapes="runtime"),
            Step(entry="conj", sample=4, variant="bool", feeds=(4,), shapes="runtime"),
        ),
        grad_of=7,
    ),
    Program(
        steps=(
            Step(entry="broadcast_shape", sample=6, variant="0len", feeds=(), shapes="runtime"),
            Step(entry="eigvalsh", sample=3, variant="plain", feeds=(5, 5), shapes="runtime"),
        ),
        grad_of=None,
    ),
    Program(
        steps=(
            Step(entry="fmod", sample=6, variant="0d", feeds=(), shapes="ones"),
            Step(entry="factorial", sample=3, variant="0last", feeds=(3,), shapes="ones"),
            Step(entry="factorial", sample=4, variant="plain", feeds=(0, 2, 3), shapes="full"),
            Step(entry="eig", sample=2, variant="plain", feeds=(1,), shapes="full"),
        ),
        grad_of=None,
    ),
    Program(
        steps=(
            Step(entry="min", sample=6, variant="plain", feeds=(-1,), shapes="ones"),
            Step(
                entry="round_half_away_from_zero",
                sample=7,
                variant="plain",
                feeds=(5, 5, 6),
                shapes="runtime",
            ),
            Step(entry="zeros_like[dtype]", sample=5, variant="plain", feeds=(0,), shapes="full"),
            Step(entry="where", sample=1, variant="plain", feeds=(5,), shapes="ones"),
        ),
        grad_of=None,
    ),
    Program(
        steps=(Step(entry="cho_solve", sample=7, variant="bool", feeds=(-1,), shapes="runtime"),),
        grad_of=1,
    ),
    Program(
        steps=(
            Step(
                entry="broadcast_arrays",
                sample=3,
                variant="plain",
                feeds=(-1, -1),
                shapes="runtime",
            ),
            Step(entry="beta", sample=1, variant="plain", feeds=(7, 2, 6), shapes="full"),
        ),
        grad_of=2,
    ),
    Program(
        steps=(Step(entry="bincount", sample=1, variant="0len", feeds=(), shapes="ones"),),
        grad_of=None,
    ),
    Program(
        steps=(
            Step(entry="broadcast_arrays", sample=0, variant="plain", feeds=(), shapes="runtime"),
        ),
        grad_of=None,
    ),
    Program(
        steps=(
            Step(
                entry="broadcast_shape",
                sample=0,
                variant="bool",
                feeds=(-1, -1, -1),
                shapes="runtime",
            ),
            Step(entry="and_", sample=7, variant="plain", feeds=(), shapes="ones"),
            Step(entry="squeeze", sample=3, variant="plain", feeds=(-1, 2), shapes="ones"),
            Step(entry="sqr", sample=3, variant="plain", feeds=(), shapes="runtime"),
        ),
        grad_of=2,
    ),
    Program(
        steps=(
            Step(entry="complex", sample=5, variant="bool", feeds=(-1, -1, -1), shapes="ones"),
            Step(entry="matmul", sample=2, variant="plain", feeds=(7, -1), shapes="ones"),
            Step(entry="clip", sample=0, variant="0d", feeds=(), shapes="ones"),
            Step(entry="full_like", sample=1, variant="bool", feeds=(1, 3), shapes="runtime"),
        ),
        grad_of=None,
    ),
    Program(
        steps=(
            Step(entry="isfinite", sample=2, variant="plain", feeds=(-1, -1, -1), shapes="runtime"),
            Step(entry="eq", sample=2, variant="int", feeds=(5, 0, 4), shapes="full"),
            Step(entry="squeeze", sample=6, variant="0len", feeds=(1,), shapes="runtime"),
        ),
        grad_of=None,
    ),
    Program(
        steps=(
            Step(entry="stack", sample=2, variant="int", feeds=(-1,), shapes="ones"),
            Step(entry="logsumexp", sample=7, variant="bool", feeds=(3, 7), shapes="full"),
        ),
        grad_of=7,
    ),
]


@pytest.mark.parametrize("program", PROGRAMS, ids=[f"p{i}" for i in range(len(PROGRAMS))])
def test_program_has_no_unexplained_difference(program):
    outcome = check_program(program, with_pytensor=False)
    assert outcome.skipped is None, outcome.skipped
    assert not outcome.unexplained, describe(outcome)
