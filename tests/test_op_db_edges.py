"""The op database swept over 0-d and zero-length inputs (tests/op_db/edges.py).

Each entry's samples are turned into 0-d versions (every array argument replaced by one element)
and zero-length versions (cut to length 0 along the first or last dimension). Where NumPy's
reference accepts them and the graph builds, every mode must run the function, return arrays of
the declared dtype and rank (never NumPy scalars), and agree with the reference.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

import arignote
from tests.op_db import REGISTRY
from tests.op_db.edges import DERIVATIONS, REFUSED, swept
from tests.test_op_db import NO_REWRITES, _check_values, _outputs, _symbolic


def _edge_cases():
    for info in REGISTRY:
        if not swept(info):
            continue
        rng = np.random.default_rng(zlib.crc32(info.name.encode()))
        for sample in info.samples(rng):
            for derive in DERIVATIONS.values():
                derived = derive(sample)
                if derived is not None:
                    yield pytest.param(info, derived, id=f"{info.name}-{derived.name}")


EDGE_CASES = list(_edge_cases())


def _reference(info, sample):
    with np.errstate(all="ignore"):
        return info.ref(*sample.args, **sample.kwargs)


def _build(info, sample):
    symbols, values, call_args = _symbolic(sample)
    return symbols, values, _outputs(info.build(*call_args, **sample.kwargs))


def _assert_declared_types(outputs, results):
    for out, value in zip(outputs, results):
        assert type(value) is np.ndarray, f"{out}: {type(value).__name__}, not an ndarray"
        assert value.dtype == np.dtype(out.type.dtype), (value.dtype, out.type)
        assert out.type.is_valid_value(value), f"{value.shape} does not fit {out.type}"


@pytest.mark.parametrize(("info", "sample"), EDGE_CASES)
def test_edge_inputs_run_with_declared_types(info, sample):
    reason = REFUSED.get((info.name, sample.name))
    if reason is not None:
        pytest.skip(reason)
    try:
        expected = _reference(info, sample)
    except Exception:  # NumPy refuses these arguments too: nothing to compare
        pytest.skip("the NumPy reference refuses these arguments")
    try:
        symbols, values, outputs = _build(info, sample)
    except (TypeError, ValueError):  # refused when the graph is built: a static error
        pytest.skip("refused when the graph is built")
    for mode in (NO_REWRITES, "FAST_RUN"):
        fn = arignote.function(symbols, outputs, mode=mode, on_unused_input="ignore")
        with np.errstate(all="ignore"):
            results = fn(*[v.copy() for v in values])
        _assert_declared_types(outputs, results)
        _check_values(info, results, expected, "float64")


def test_the_sweep_covers_every_swept_entry():
    covered = {case.values[0].name for case in EDGE_CASES}
    entries = {info.name for info in REGISTRY if swept(info)}
    # an entry whose samples are all 0-d (or all static) has nothing to derive
    assert len(covered) > 0.9 * len(entries), sorted(entries - covered)
