"""Scalar rounding ops: floor, ceil, trunc and the two rounding rules for halves.

Each is piecewise constant, so its derivative is zero wherever it exists.
"""

from __future__ import annotations

import numpy as np

from arignote.scalar.basic import UnaryScalarOp, zero_grad_for


class RoundingOp(UnaryScalarOp):
    """A piecewise-constant function of one number: zero gradient almost everywhere."""

    def L_op(self, inputs, outputs, output_grads):
        return [zero_grad_for(inputs[0])]


class Floor(RoundingOp):
    """Largest integer <= x (``np.floor``; integers keep their dtype, as in NumPy 2)."""

    nfunc = np.floor


class Ceil(RoundingOp):
    """Smallest integer >= x (``np.ceil``)."""

    nfunc = np.ceil


class Trunc(RoundingOp):
    """x rounded towards zero (``np.trunc``)."""

    nfunc = np.trunc


class RoundHalfToEven(RoundingOp):
    """``np.round(x, decimals)``: halves go to the nearest even digit (banker's rounding)."""

    __props__ = ("decimals",)

    def __init__(self, decimals: int = 0, name: str | None = None) -> None:
        if isinstance(decimals, bool) or not isinstance(decimals, (int, np.integer)):
            raise TypeError(f"round: decimals must be an integer, got {decimals!r}")
        super().__init__(name=name)
        self.decimals = int(decimals)

    def elementwise(self, x):
        return np.round(x, self.decimals)

    def __str__(self) -> str:
        if self.decimals == 0:
            return "round_half_to_even"
        return f"round_half_to_even{{decimals={self.decimals}}}"


class RoundHalfAwayFromZero(RoundingOp):
    """x rounded to the nearest integer, halves away from zero (C's ``round``): 2.5 -> 3."""

    nfunc = np.trunc  # same output dtypes as trunc: integers and booleans are left as they are

    def elementwise(self, x):
        x = np.asarray(x)
        if x.dtype.kind != "f":
            return x.copy()
        truncated = np.trunc(x)
        # x - trunc(x) is exact in floating point, unlike x + 0.5 (0.49999999999999994 + 0.5
        # rounds up to 1.0), so comparing the fractional part with 1/2 is safe. For infinities
        # it is NaN (compared False: they stay), without the warning NumPy's rounding never gives.
        with np.errstate(invalid="ignore"):
            away = np.abs(x - truncated) >= 0.5
        return np.where(away, truncated + np.sign(x), truncated)


floor = Floor(name="floor")
ceil = Ceil(name="ceil")
trunc = Trunc(name="trunc")
round_half_to_even = RoundHalfToEven(name="round_half_to_even")
round_half_away_from_zero = RoundHalfAwayFromZero(name="round_half_away_from_zero")
