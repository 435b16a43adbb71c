"""Scalar variables and constants, with Python operators that build scalar-op graphs."""

from __future__ import annotations

from arignote.graph.basic import Constant, Variable
from arignote.scalar import arithmetic as ar
from arignote.scalar import math as sm
from arignote.scalar.basic import ScalarType, constant


class _ScalarOperators:
    """Python operators on scalar variables."""

    def __add__(self, other):
        return ar.add(self, other)

    def __radd__(self, other):
        return ar.add(other, self)

    def __sub__(self, other):
        return ar.sub(self, other)

    def __rsub__(self, other):
        return ar.sub(other, self)

    def __mul__(self, other):
        return ar.mul(self, other)

    def __rmul__(self, other):
        return ar.mul(other, self)

    def __truediv__(self, other):
        return ar.true_div(self, other)

    def __rtruediv__(self, other):
        return ar.true_div(other, self)

    def __floordiv__(self, other):
        return ar.int_div(self, other)

    def __rfloordiv__(self, other):
        return ar.int_div(other, self)

    def __mod__(self, other):
        return ar.mod(self, other)

    def __rmod__(self, other):
        return ar.mod(other, self)

    def __pow__(self, other):
        return sm.pow(self, other)

    def __rpow__(self, other):
        return sm.pow(other, self)

    def __neg__(self):
        return ar.neg(self)

    def __abs__(self):
        return ar.abs(self)

    def __lt__(self, other):
        return ar.lt(self, other)

    def __le__(self, other):
        return ar.le(self, other)

    def __gt__(self, other):
        return ar.gt(self, other)

    def __ge__(self, other):
        return ar.ge(self, other)

    @property
    def dtype(self) -> str:
        return self.type.dtype

    def zeros_like(self, dtype: str | None = None):
        return constant(0, dtype or self.type.dtype)

    def ones_like(self, dtype: str | None = None):
        return constant(1, dtype or self.type.dtype)

    def astype(self, dtype: str):
        return ar.cast(self, dtype)


class ScalarVariable(_ScalarOperators, Variable):
    """A variable holding one number."""


class ScalarConstant(_ScalarOperators, Constant):
    """A constant number."""


ScalarType.variable_type = ScalarVariable
ScalarType.constant_type = ScalarConstant
