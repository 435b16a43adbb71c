"""Random programs: a Hypothesis strategy (the tests) and a NumPy sampler (the figures run).

Both draw the same distribution: 1 to 4 steps over the op_db entries, half of them on the
plain samples, the rest 0-d, zero-length, integer or boolean; new inputs with static or
runtime-only length-1 dimensions; half the programs differentiate one of their values.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from tests.differential.programs import NAMES, SHAPES, Program, Step

MAX_STEPS = 4
MAX_FEEDS = 3
# plain samples half the time; the other variants share the rest
VARIANT_WEIGHTS = {"plain": 5, "0d": 1, "0len": 1, "0last": 1, "int": 1, "bool": 1}
_VARIANT_LIST = [v for v, w in VARIANT_WEIGHTS.items() for _ in range(w)]


@st.composite
def steps(draw, position: int) -> Step:
    feeds = draw(st.lists(st.integers(-1, 7) if position else st.just(-1), max_size=MAX_FEEDS))
    return Step(
        entry=draw(st.sampled_from(NAMES)),
        sample=draw(st.integers(0, 7)),
        variant=draw(st.sampled_from(_VARIANT_LIST)),
        feeds=tuple(feeds),
        shapes=draw(st.sampled_from(SHAPES)),
    )


@st.composite
def programs(draw) -> Program:
    n = draw(st.integers(1, MAX_STEPS))
    drawn = tuple(draw(steps(i)) for i in range(n))
    return Program(drawn, draw(st.none() | st.integers(0, 7)))


def random_program(rng: np.random.Generator) -> Program:
    """The same distribution as :func:`programs`, drawn with NumPy (for long runs)."""
    n = int(rng.integers(1, MAX_STEPS + 1))
    drawn = []
    for i in range(n):
        feeds = tuple(
            int(rng.integers(-1, 8)) if i else -1 for _ in range(rng.integers(0, MAX_FEEDS + 1))
        )
        drawn.append(
            Step(
                entry=str(rng.choice(NAMES)),
                sample=int(rng.integers(0, 8)),
                variant=str(rng.choice(_VARIANT_LIST)),
                feeds=feeds,
                shapes=str(rng.choice(SHAPES)),
            )
        )
    grad_of = None if rng.random() < 0.5 else int(rng.integers(0, 8))
    return Program(tuple(drawn), grad_of)
