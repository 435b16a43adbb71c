"""Reproducible randomness for tests: ``fetch_seed``."""

from __future__ import annotations

import os
from typing import Any


def fetch_seed(pseed: Any = None) -> int:
    """A seed for test randomness: ``pseed``, else ``$ARIGNOTE_TEST_SEED``, else 42."""
    seed = pseed if pseed is not None else os.environ.get("ARIGNOTE_TEST_SEED", 42)
    try:
        return int(seed)
    except (TypeError, ValueError) as err:
        raise ValueError(f"A test seed must be an integer, got {seed!r}") from err
