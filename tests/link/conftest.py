"""Fixtures shared by the backend tests."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True, scope="module")
def _private_cache(tmp_path_factory):
    """Native code compiled by a test module goes to a fresh cache directory, never the user's
    (modules that need one directory per test override this fixture)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ARIGNOTE_CACHE_DIR", str(tmp_path_factory.mktemp("numba_cache")))
        yield
