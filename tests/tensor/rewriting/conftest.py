"""Every rewrite test runs with integrity checks, and every graph it rewrote is re-evaluated.

The autouse fixture below is the test-wide numeric check: graphs rewritten through
``tests.tensor.rewriting.utils.rewrite`` are evaluated before and after rewriting on the same
random inputs, and must agree (within float tolerance, NaN equal to NaN).
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from arignote.config import config
from tests.tensor.rewriting import utils


@pytest.fixture(autouse=True)
def _numeric_check_of_rewrites(request):
    utils.RECORDS.clear()
    with config.change_flags(check_integrity=True):
        yield
    rng = np.random.default_rng(zlib.crc32(request.node.nodeid.encode()) + 1)
    records = list(utils.RECORDS)
    utils.RECORDS.clear()
    for record in records:
        utils.check_record(record, rng)
