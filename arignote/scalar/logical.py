"""Scalar logical connectives and floating-point classification (isnan, isinf, isclose).

All are boolean-valued, hence piecewise constant: their gradients are zero.
"""

from __future__ import annotations

import numbers

import numpy as np

from arignote.scalar.basic import (
    BinaryScalarOp,
    ScalarOp,
    UnaryScalarOp,
    zero_grad_for,
)


class BooleanOp(ScalarOp):
    """A boolean-valued op: zero gradient for every input."""

    def L_op(self, inputs, outputs, output_grads):
        return [zero_grad_for(x) for x in inputs]


class LogicalAnd(BooleanOp, BinaryScalarOp):
    """Truth of ``x and y`` for numbers of any dtype (``np.logical_and``)."""

    nfunc = np.logical_and
    commutative = associative = True


class LogicalOr(BooleanOp, BinaryScalarOp):
    nfunc = np.logical_or
    commutative = associative = True


class LogicalXor(BooleanOp, BinaryScalarOp):
    nfunc = np.logical_xor
    commutative = associative = True


class LogicalNot(BooleanOp, UnaryScalarOp):
    nfunc = np.logical_not


class IsNan(BooleanOp, UnaryScalarOp):
    nfunc = np.isnan


class IsInf(BooleanOp, UnaryScalarOp):
    nfunc = np.isinf


class IsFinite(BooleanOp, UnaryScalarOp):
    nfunc = np.isfinite


class SignBit(BooleanOp, UnaryScalarOp):
    """Whether the sign bit is set (true for -0.0 and -nan, unlike x < 0)."""

    nfunc = np.signbit


class IsClose(BooleanOp, BinaryScalarOp):
    """``np.isclose(a, b, rtol, atol, equal_nan)``: ``|a - b| <= atol + rtol * |b|``.

    Not symmetric in ``a`` and ``b`` (the tolerance scales with ``|b|``); infinities are close
    only to themselves, NaN only to NaN and only with ``equal_nan``.
    """

    __props__ = ("rtol", "atol", "equal_nan")

    def __init__(
        self, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False, name=None
    ) -> None:
        for label, value in (("rtol", rtol), ("atol", atol)):
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise TypeError(f"isclose: {label} must be a real number, got {value!r}")
        super().__init__(name=name)
        self.rtol = float(rtol)
        self.atol = float(atol)
        self.equal_nan = bool(equal_nan)

    def elementwise(self, a, b):
        # np.isclose's rule, without its per-call Python overhead (~3x faster on small arrays).
        # The tolerances are Python floats, hence weak: float32 inputs are compared in float32.
        a, b = np.asarray(a), np.asarray(b)
        b = b.astype(np.result_type(b, 1.0), copy=False)
        with np.errstate(invalid="ignore"):  # inf - inf
            close = np.less_equal(np.abs(a - b), self.atol + self.rtol * np.abs(b))
            close = (close & np.isfinite(b)) | (a == b)
            if self.equal_nan:
                close = close | (np.isnan(a) & np.isnan(b))
        return close

    def __str__(self) -> str:
        return f"isclose{{rtol={self.rtol:g}, atol={self.atol:g}, equal_nan={self.equal_nan}}}"


logical_and = LogicalAnd(name="logical_and")
logical_or = LogicalOr(name="logical_or")
logical_xor = LogicalXor(name="logical_xor")
logical_not = LogicalNot(name="logical_not")
isnan = IsNan(name="isnan")
isinf = IsInf(name="isinf")
isfinite = IsFinite(name="isfinite")
signbit = SignBit(name="signbit")
