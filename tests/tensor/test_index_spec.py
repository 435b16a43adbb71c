"""Tests of the index helpers: slice lengths as ints and as graphs, idx_list entries."""

from __future__ import annotations

import pytest

from arignote.tensor.index_spec import FULL_SLICE, SliceSpec, entry_str, slice_length


@pytest.mark.parametrize("n", [0, 1, 2, 5, 8])
@pytest.mark.parametrize("step", [1, 2, 3, -1, -2, -3])
def test_slice_length_formula_matches_python(n, step):
    bounds = [None, -9, -3, -1, 0, 1, 2, 4, 9]
    for start in bounds:
        for stop in bounds:
            expected = len(range(n)[start:stop:step])
            assert slice_length(n, start, stop, step) == expected, (start, stop, step)


def test_slice_length_rejects_zero_step():
    with pytest.raises(ValueError, match="cannot be zero"):
        slice_length(4, None, None, 0)


def test_entry_str():
    assert [entry_str(e) for e in (FULL_SLICE, SliceSpec(False, True, False), None, ...)] == [
        ":",
        ":s",
        "newaxis",
        "...",
    ]
