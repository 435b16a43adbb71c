"""``ProdWithoutZeros``: the product of the nonzero elements over axes (PyTensor's
``pytensor.tensor.math.ProdWithoutZeros``, a reduction by ``mul_without_zeros``)."""

from __future__ import annotations

import numpy as np

from arignote.scalar.basic import discrete_dtypes, grad_dtype
from arignote.scalar.without_zeros import MulWithoutZeros, mul_without_zeros
from arignote.tensor.math import eq, switch
from arignote.tensor.reduction import Accumulation, Sum, _restore_axes


class ProdWithoutZeros(Accumulation):
    """The product of the nonzero elements over ``axis`` (None: all axes); 0 where every
    element (or none: an empty group) is zero. Output and accumulator dtypes are ``prod``'s.

    Its derivative with respect to a nonzero element is the product of the group's other
    nonzero elements; a zero element is skipped, so its derivative is 0.
    """

    __props__ = ("axis", "dtype", "acc_dtype")
    scalar = mul_without_zeros

    def _reduce(self, x: np.ndarray, axes: tuple[int, ...], acc_dtype: str) -> np.ndarray:
        if not axes:
            return x.astype(acc_dtype)
        nonzero = x != 0
        product = np.multiply.reduce(np.where(nonzero, x, 1), axis=axes, dtype=acc_dtype)
        return np.where(np.logical_or.reduce(nonzero, axis=axes), product, 0)

    def L_op(self, inputs, outputs, output_grads):
        (x,), (out,), (gz,) = inputs, outputs, output_grads
        if out.type.dtype in discrete_dtypes:
            return [x.zeros_like(dtype=grad_dtype(x))]
        axes = self._reduced_axes(x.type.ndim)
        product = _restore_axes(out, axes, x.type.ndim)
        gz = _restore_axes(gz, axes, x.type.ndim)
        is_zero = eq(x, 0)
        # a nonzero x_i: the product of the others is out / x_i (out holds x_i once)
        partial = switch(is_zero, 0, product / switch(is_zero, 1, x))
        return [(partial * gz).astype(grad_dtype(x))]

    def R_op(self, inputs, eval_points):
        (x,), (ev,) = inputs, eval_points
        if ev is None:
            return [None]
        out = self(x)
        axes = self._reduced_axes(x.type.ndim)
        product = _restore_axes(out, axes, x.type.ndim)
        is_zero = eq(x, 0)
        partial = switch(is_zero, 0, product / switch(is_zero, 1, x))
        return [Sum(self.axis, dtype=out.type.dtype)(partial * ev)]

    def __str__(self) -> str:
        axis = "" if self.axis is None else "axis=[" + ", ".join(map(str, self.axis)) + "], "
        return f"ProdWithoutZeros{{{axis}acc_dtype={self.acc_dtype}}}"


__all__ = ["MulWithoutZeros", "ProdWithoutZeros", "mul_without_zeros"]
