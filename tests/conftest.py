"""Test-wide settings: rewrite errors raise, and each test gets its own seeded generator."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from arignote.config import config


@pytest.fixture(autouse=True)
def _strict_rewrites():
    """Rewrites that fail raise in tests instead of being skipped with a warning."""
    with config.change_flags(on_rewrite_error="raise"):
        yield


@pytest.fixture
def rng(request) -> np.random.Generator:
    """A generator seeded from the test's name: reproducible, different per test."""
    return np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))
