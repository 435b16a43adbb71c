"""Native ``Generator.integers`` draws beyond numba's own (``dispatch/random.py`` uses them).

NumPy (``_bounded_integers.pyx``, 2.4) has two paths:

- 0-d bounds: ``int(low)``, ``int(high)`` (a float bound is truncated), checked, then one
  fill of the whole draw; numba's ``integers`` reproduces it (its small dtypes share one
  32-bit buffer across the entries, as NumPy's fill does);
- array bounds: for dtypes of at most 32 bits NumPy checks the bounds as given (floats
  compared as floats), casts them to a wider integer type (truncating floats), then draws
  entry by entry in C order with ONE 32-bit buffer for the whole call (bool, 8- and 16-bit
  draws take 1, 8 or 16 bits of it at a time); for 64-bit dtypes it truncates first, checks,
  then draws each entry with ``random_bounded_uint64`` (no buffer).

:func:`bounded_integer` is one entry of the array path; the kernel keeps the buffer in a
two-entry array ``[count, word]`` created once per call.
"""

from __future__ import annotations

import numpy as np

import numba
from numba.np.random.generator_core import next_uint32, next_uint64
from numba.np.random.random_methods import (
    bounded_lemire_uint64,
    buffered_bounded_bool,
    buffered_bounded_lemire_uint8,
    buffered_bounded_lemire_uint16,
    buffered_bounded_lemire_uint32,
    buffered_uint8,
    buffered_uint16,
)

_jit = numba.njit(error_model="numpy", cache=False)


@_jit
def _buffered(bitgen, span, bits, buffer):
    """NumPy's ``random_buffered_bounded_uint{8,16}``/``_bool`` value in [0, span]."""
    count, word = np.int32(buffer[0]), np.uint32(buffer[1])
    if bits == 1:
        value, count, word = buffered_bounded_bool(bitgen, False, True, count, word)
        value = np.int64(value)
    elif bits == 8 and span == 0xFF:
        value, count, word = buffered_uint8(bitgen, count, word)
    elif bits == 8:
        value, count, word = buffered_bounded_lemire_uint8(bitgen, np.uint8(span), count, word)
    elif span == 0xFFFF:
        value, count, word = buffered_uint16(bitgen, count, word)
    else:
        value, count, word = buffered_bounded_lemire_uint16(bitgen, np.uint16(span), count, word)
    buffer[0], buffer[1] = np.uint64(count), np.uint64(word)
    return np.uint64(value)


@_jit
def _unbuffered(bitgen, span, bits):
    """NumPy's ``random_buffered_bounded_uint32`` (bits 32) or ``random_bounded_uint64``."""
    if bits == 32 and span == 0xFFFFFFFF:
        return np.uint64(next_uint32(bitgen))
    if span <= 0xFFFFFFFF:
        return np.uint64(buffered_bounded_lemire_uint32(bitgen, np.uint32(span)))
    if span == 0xFFFFFFFFFFFFFFFF:
        return next_uint64(bitgen)
    return np.uint64(bounded_lemire_uint64(bitgen, span))


@_jit
def bounded_integer(bitgen, low, high, bits, buffer):
    """One integer in the closed interval [low, high] (int64 bit patterns, wrapping as
    NumPy's unsigned arithmetic does), drawn as NumPy's array path draws it."""
    span = np.uint64(high) - np.uint64(low)
    if span == 0:
        return low
    if bits <= 16:
        value = _buffered(bitgen, span, bits, buffer)
    else:
        value = _unbuffered(bitgen, span, bits)
    return np.int64(np.uint64(low) + value)


def _bits(dtype: str) -> int:
    return 1 if dtype == "bool" else np.dtype(dtype).itemsize * 8


def _limits(dtype: str) -> tuple[int, int]:
    if dtype == "bool":
        return 0, 1
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


def _param_condition(dtype: str) -> str:
    """Values the kernel converts to int64 exactly as NumPy does (floats: truncation)."""
    if np.issubdtype(dtype, np.floating):
        return "np.isfinite({x}) and abs({x}) < 4e18"
    if dtype == "uint64":
        return "{x} <= 9223372036854775807"
    return "True"


def integers_sampler(op, node, array_bounds: bool) -> tuple[str, tuple[str, ...], str]:
    """(draw of one entry, condition per bound, joint condition) for an ``IntegersRV`` node;
    ``array_bounds``: whether a bound has dimensions (NumPy's array path)."""
    dtypes = [var.type.dtype for var in node.inputs[2:]]
    t0, t1 = (
        f"np.int64(x{k})" if np.issubdtype(dtypes[k], np.floating) else f"x{k}" for k in range(2)
    )
    shift = 0 if op.endpoint else 1
    conditions = tuple(_param_condition(d) for d in dtypes)
    bits = _bits(op.dtype)
    joint = _joint(op, array_bounds and bits <= 32, t0, t1, shift)
    if bits == 64:  # a span of exactly 2**32 - 1 hits a wrap in NumPy's 32-bit Lemire step
        joint += f" and {t1} - {shift} - {t0} != 4294967295"
    call = f"DT(bounded_integer(rng.bit_generator, {t0}, {t1} - {shift}, {bits}, ibuffer))"
    return call, conditions, joint


def _joint(op, checked_as_given: bool, t0: str, t1: str, shift: int) -> str:
    """NumPy's bound checks (``t0``, ``t1``: the truncated bounds)."""
    lowest, highest = _limits(op.dtype)
    if checked_as_given:  # NumPy checks the bounds as given, then truncates them
        top = f"x1 < {highest + 1}" if op.endpoint else f"x1 <= {highest + 1}"
        order = "x0 <= x1" if op.endpoint else "x0 < x1"
        return f"x0 >= {lowest} and {top} and {order} and {t0} <= {t1} - {shift}"
    if op.dtype == "int64":  # every int64 bound is in range; no overflow in the order test
        return f"{t0} <= {t1}" if op.endpoint else f"{t0} < {t1}"
    joint = f"{t0} >= {lowest} and {t0} <= {t1} - {shift}"  # truncated first, then checked
    if highest < 2**63:  # (every int64 lies below uint64's top)
        joint += f" and {t1} - {shift} <= {highest}"
    return joint


def scalar_fill_call(op, node) -> str:
    """NumPy's 0-d path, one fill (numba's ``integers``, given int64 bounds)."""
    return f"rng.integers(x0, x1, dtype=DT, endpoint={op.endpoint})"


__all__ = ["bounded_integer", "integers_sampler", "scalar_fill_call"]
