"""DebugMode over the whole op database: no false positives on correct ops.

Every entry of ``tests/op_db`` is compiled with ``DebugMode`` (all checks on: reference
``perform`` vs the compiled graph, ``infer_shape``, ``destroy_map``/``view_map``, every
preallocated-output layout, NaN/infinity creation, and the rewrites) and must run without a
report, giving the entry's reference values. The default run covers the float64 samples with the
full FAST_RUN pipeline; the other dtypes and pipelines are marked slow.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import arignote
from arignote.compile.debugmode import DebugMode
from tests.test_op_db import CASES, _check_values, _outputs, _symbolic


def _checked_cases(dtype_filter, marks=()):
    for case in CASES:
        info, sample, dtype = case.values
        if not dtype_filter(dtype):
            continue
        if info.directive_for("perform", dtype, sample.name) is not None:
            continue  # a known wrong value is not what DebugMode is tested on
        yield pytest.param(info, sample, dtype, id=case.id, marks=marks)


def _run_in_debug_mode(info, sample, dtype, optimizer):
    symbols, values, call_args = _symbolic(sample)
    outputs = _outputs(info.build(*call_args, **sample.kwargs))
    mode = DebugMode(optimizer=optimizer)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # samples probe domain edges
        fn = arignote.function(symbols, outputs, mode=mode, on_unused_input="ignore")
        actual = fn(*values)
        again = fn(*values)  # the second call also tries the "previous output" preallocation
    _check_values(info, actual, info.ref(*sample.args, **sample.kwargs), dtype)
    for first, second in zip(_outputs(actual), _outputs(again)):
        np.testing.assert_array_equal(first, second)


@pytest.mark.parametrize(
    ("info", "sample", "dtype"), list(_checked_cases(lambda d: d == "float64"))
)
def test_op_db_entry_passes_debug_mode(info, sample, dtype):
    _run_in_debug_mode(info, sample, dtype, "fast_run")


@pytest.mark.slow
@pytest.mark.parametrize("optimizer", [None, "fast_compile"])
@pytest.mark.parametrize(("info", "sample", "dtype"), list(_checked_cases(lambda d: True)))
def test_op_db_entry_passes_debug_mode_in_every_pipeline(info, sample, dtype, optimizer):
    _run_in_debug_mode(info, sample, dtype, optimizer)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("info", "sample", "dtype"), list(_checked_cases(lambda d: d != "float64"))
)
def test_op_db_entry_passes_debug_mode_other_dtypes(info, sample, dtype):
    _run_in_debug_mode(info, sample, dtype, "fast_run")
