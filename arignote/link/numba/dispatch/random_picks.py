"""Native index draws of NumPy's ``Generator.choice`` (``dispatch/random_vector.py`` uses them).

Each function follows ``_generator.pyx`` (NumPy 2.4) step by step on numba's bit-generator
primitives, so the indices and the generator's next state are NumPy's:

- with replacement: one bounded integer per pick (``integers(0, n)``), or, with
  probabilities, one uniform per pick located in the normalised cumulative sums;
- without replacement and without probabilities: Floyd's algorithm over a linear-probing hash
  set (then a shuffle of the picks), or, for a large population and a large sample, a partial
  shuffle of ``arange(n)`` (its tail is the sample);
- without replacement, with probabilities: rounds of uniforms, each round keeping the first
  occurrence of every new index and zeroing the probabilities picked so far.
"""

from __future__ import annotations

import numpy as np

import numba
from arignote.link.numba.dispatch.random_samplers import categorical_cdf, search_right
from numba.np.random.generator_core import next_double
from numba.np.random.random_methods import (
    bounded_lemire_uint64,
    buffered_bounded_lemire_uint32,
)

_jit = numba.njit(error_model="numpy", cache=False)


@_jit
def bounded_index(bitgen, top):
    """NumPy's ``random_bounded_uint64(0, top)`` with Lemire's rejection (not the masked
    one): 32-bit words for a range that fits them."""
    if top == 0:
        return np.int64(0)
    if top <= 0xFFFFFFFF:
        return np.int64(buffered_bounded_lemire_uint32(bitgen, np.uint32(top)))
    return np.int64(bounded_lemire_uint64(bitgen, np.uint64(top)))


@_jit
def _shuffle_tail(bitgen, values, first):
    """NumPy's ``_shuffle_int``: swaps from the end down to ``first``."""
    for i in range(values.shape[0] - 1, first - 1, -1):
        j = bounded_index(bitgen, i)
        values[i], values[j] = values[j], values[i]


@_jit
def _gen_mask(value):
    mask = np.uint64(value)
    for shift in (1, 2, 4, 8, 16, 32):
        mask |= mask >> np.uint64(shift)
    return mask


@_jit
def _floyd(bitgen, population, count):
    """Floyd's sampling of ``count`` distinct indices, NumPy's hash set included (its probe
    order decides nothing, but its size decides nothing either: only the draws matter)."""
    picks = np.empty(count, np.int64)
    mask = _gen_mask(np.uint64(1.2 * count))
    empty = np.uint64(0xFFFFFFFFFFFFFFFF)
    table = np.full(np.int64(mask) + 1, empty, np.uint64)
    for j in range(population - count, population):
        val = np.uint64(bounded_index(bitgen, j))
        loc = val & mask
        while table[loc] != empty and table[loc] != val:
            loc = (loc + np.uint64(1)) & mask
        if table[loc] == empty:
            table[loc] = val
            picks[j - population + count] = np.int64(val)
        else:
            loc = np.uint64(j) & mask
            while table[loc] != empty:
                loc = (loc + np.uint64(1)) & mask
            table[loc] = np.uint64(j)
            picks[j - population + count] = j
    return picks


@_jit
def distinct_indices(bitgen, population, count, shuffle):
    """``count`` distinct indices below ``population`` as ``Generator.choice(replace=False)``
    without probabilities picks them."""
    cutoff = 50 if shuffle else 20
    if population > 10000 and count > population // cutoff:
        order = np.arange(population)
        _shuffle_tail(bitgen, order, max(population - count, 1))
        return order[population - count :].copy()
    picks = _floyd(bitgen, population, count)
    if shuffle:
        _shuffle_tail(bitgen, picks, 1)
    return picks


@_jit
def weighted_indices(bitgen, p, count):
    """``count`` indices drawn with probabilities ``p`` (one uniform each)."""
    cdf = categorical_cdf(p)
    picks = np.empty(count, np.int64)
    for i in range(count):
        picks[i] = search_right(cdf, next_double(bitgen))
    return picks


@_jit
def weighted_distinct_indices(bitgen, p, count):
    """``count`` distinct indices drawn with probabilities ``p``, by NumPy's rounds."""
    weights = p.astype(np.float64)
    picks = np.empty(count, np.int64)
    found = 0
    while found < count:
        uniforms = np.empty(count - found)
        for i in range(count - found):
            uniforms[i] = next_double(bitgen)
        for i in range(found):
            weights[picks[i]] = 0.0
        cdf = categorical_cdf(weights)
        start = found
        for u in uniforms:
            index = search_right(cdf, u)
            if not _contains(picks, start, found, index):  # each new index's first occurrence
                picks[found] = index
                found += 1
    return picks


@_jit
def _contains(values, start, stop, value):
    return bool(np.any(values[start:stop] == value))


__all__ = ["bounded_index", "distinct_indices", "weighted_distinct_indices", "weighted_indices"]
