"""Every op-database entry is in the random programs, or left out with its reason."""

from __future__ import annotations

from tests.differential.not_yet_swept import (
    NOT_SWEPT,
    NOT_YET_SWEPT,
    RANDOM_PREFIX,
    RANDOM_REASON,
)
from tests.differential.programs import NAMES
from tests.op_db import REGISTRY


def test_every_entry_is_swept_or_left_out_with_a_reason():
    unaccounted = [
        info.name
        for info in REGISTRY
        if info.name not in NAMES
        and not info.name.startswith(RANDOM_PREFIX)
        and info.name not in NOT_SWEPT
    ]
    assert unaccounted == []
    assert all(len(reason) > 10 for reason in [*NOT_SWEPT.values(), RANDOM_REASON])


def test_nothing_waits_to_be_swept():
    assert not NOT_YET_SWEPT
    assert not set(NAMES) & set(NOT_SWEPT)
    # the entries that landed beside the harness are in it now (a sample of each family)
    for name in ("scan[rnn]", "ifelse", "OpFromGraph", "conv2d", "pool_2d[max]", "hyp2f1"):
        assert name in NAMES
