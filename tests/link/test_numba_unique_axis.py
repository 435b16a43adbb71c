"""Native ``unique`` along an axis: slices in NumPy's structured order (field by field, NaNs
last, NaN slices all distinct, -0.0 equal to 0.0), with every optional output."""

from __future__ import annotations

import numpy as np
import pytest

import arignote
import arignote.tensor as pt

numba_backend = pytest.importorskip("arignote.link.numba")


def test_unique_slices_match_numpy(rng):
    x = pt.dtensor3("x")
    kinds = {"return_index": True, "return_inverse": True, "return_counts": True}
    outputs = [*pt.unique(x, axis=1, **kinds), pt.unique(x, axis=0)]
    fn = arignote.function([x], outputs, mode="NUMBA")
    assert fn.runner.fallbacks == {}, numba_backend.native_report(fn.runner)
    value = rng.integers(0, 2, size=(2, 7, 2)).astype(float)
    value[:, 5] = value[:, 1]  # a repeated slice (first index 1)
    value[0, 3, 0] = value[0, 4, 0] = np.nan  # two NaN slices: never equal
    value[:, 6] = -value[:, 2] * 0.0  # -0.0 slices equal 0.0 ones
    value[:, 2] = value[:, 6] * 0.0 + 0.0
    expected = [*np.unique(value, axis=1, **kinds), np.unique(value, axis=0)]
    for got, want in zip(fn(value), expected, strict=True):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
