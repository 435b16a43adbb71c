"""``MulWithoutZeros``: multiplication that skips zero factors (PyTensor's
``pytensor.tensor.math.mul_without_zeros``), the scalar op of ``ProdWithoutZeros``."""

from __future__ import annotations

from typing import Any

import numpy as np

from arignote.scalar.arithmetic import _grad_or_zero, _zero_grads, eq, switch
from arignote.scalar.basic import (
    BinaryScalarOp,
    constant,
    is_discrete,
)


class MulWithoutZeros(BinaryScalarOp):
    """``x * y``, except that a zero factor is skipped: ``f(0, y) = y``, ``f(x, 0) = x``.

    Reducing with it multiplies the nonzero elements (0 when all are zero). Its identity is 0
    (not 1): a reduction starts from 0, which the first element then replaces. The output
    dtype is ``x * y``'s (``dtype_rules.DTYPE_RULES``).
    """

    commutative = associative = True
    identity = 0

    def elementwise(self, x: Any, y: Any) -> Any:
        x, y = np.asarray(x), np.asarray(y)
        return np.where(x == 0, y, np.where(y == 0, x, x * y))

    def L_op(self, inputs, outputs, output_grads):
        (x, y), (gz,) = inputs, output_grads
        if is_discrete(outputs[0]):
            return _zero_grads(inputs)
        zero, one = constant(0, gz.type.dtype), constant(1, gz.type.dtype)
        # away from x == 0: f = x * y (slope y), or f = x where y == 0 (slope 1); where x == 0
        # f = y does not depend on x. (f jumps across x == 0 when y != 1: the derivative is
        # the one of each piece, as for the other piecewise ops.)
        gx = switch(eq(x, 0), zero, switch(eq(y, 0), one, y))
        gy = switch(eq(y, 0), zero, switch(eq(x, 0), one, x))
        return [_grad_or_zero(x, gz * gx), _grad_or_zero(y, gz * gy)]


mul_without_zeros = MulWithoutZeros(name="mul_without_zeros")

__all__ = ["MulWithoutZeros", "mul_without_zeros"]
