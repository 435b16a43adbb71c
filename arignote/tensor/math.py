"""Elementwise math on tensors, with NumPy's names (``Elemwise`` instances and helpers)."""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from arignote import scalar as ps
from arignote.graph.basic import Variable
from arignote.tensor.basic import as_tensor_variable, constant, constant_value_rule
from arignote.tensor.elemwise import Elemwise

# -- elementwise ----------------------------------------------------------------------------

add = Elemwise(ps.add)
sub = Elemwise(ps.sub)
mul = Elemwise(ps.mul)
true_div = Elemwise(ps.true_div)
int_div = Elemwise(ps.int_div)
mod = Elemwise(ps.mod)
pow = Elemwise(ps.pow)
neg = Elemwise(ps.neg)
abs = Elemwise(ps.abs)
sign = Elemwise(ps.sign)
floor = Elemwise(ps.floor)
maximum = Elemwise(ps.maximum)
minimum = Elemwise(ps.minimum)
lt = Elemwise(ps.lt)
gt = Elemwise(ps.gt)
le = Elemwise(ps.le)
ge = Elemwise(ps.ge)
eq = Elemwise(ps.eq)
neq = Elemwise(ps.neq)
and_ = Elemwise(ps.and_)
or_ = Elemwise(ps.or_)
xor = Elemwise(ps.xor)
invert = Elemwise(ps.invert)
switch = Elemwise(ps.switch)
second = Elemwise(ps.second)
identity = Elemwise(ps.identity)
exp = Elemwise(ps.exp)
exp2 = Elemwise(ps.exp2)
expm1 = Elemwise(ps.expm1)
log = Elemwise(ps.log)
log2 = Elemwise(ps.log2)
log10 = Elemwise(ps.log10)
log1p = Elemwise(ps.log1p)
sqrt = Elemwise(ps.sqrt)
sqr = Elemwise(ps.sqr)
sin = Elemwise(ps.sin)
cos = Elemwise(ps.cos)
tan = Elemwise(ps.tan)
tanh = Elemwise(ps.tanh)
sinh = Elemwise(ps.sinh)
cosh = Elemwise(ps.cosh)
sigmoid = Elemwise(ps.sigmoid)
softplus = Elemwise(ps.softplus)

# NumPy spellings of the same ops.
subtract = sub
multiply = mul
divide = true_div
true_divide = true_div
floor_divide = int_div
power = pow
negative = neg
absolute = abs
less = lt
greater = gt
less_equal = le
greater_equal = ge
equal = eq
not_equal = neq
bitwise_and = and_
bitwise_or = or_
bitwise_xor = xor
bitwise_not = invert
square = sqr
expit = sigmoid
fill = second


@cache
def _cast_elemwise(dtype: str) -> Elemwise:
    return Elemwise(ps.Cast(ps.get_scalar_type(dtype)))


def cast(x: Any, dtype: Any) -> Variable:
    """``x`` converted to ``dtype`` (``x.astype(dtype)``); ``x`` itself if it already has it."""
    x = as_tensor_variable(x)
    dtype = x.type.dtype if dtype is None else np.dtype(dtype).name
    if x.type.dtype == dtype:
        return x
    return _cast_elemwise(dtype)(x)


@constant_value_rule.register(Elemwise)
def _elemwise_value(op, node, index, recurse):
    values = [recurse(i) for i in node.inputs]
    result = op.scalar_op.impl(*values)
    if op.scalar_op.nout > 1:
        result = result[index]
    return np.asarray(result, dtype=node.outputs[index].type.dtype)


def zeros_like(x: Any, dtype: Any = None) -> Variable:
    """Zeros with the shape of ``x`` (and its dtype unless ``dtype`` is given)."""
    x = as_tensor_variable(x)
    return fill(x, constant(0, dtype=dtype or x.type.dtype))


def ones_like(x: Any, dtype: Any = None) -> Variable:
    """Ones with the shape of ``x`` (and its dtype unless ``dtype`` is given)."""
    x = as_tensor_variable(x)
    return fill(x, constant(1, dtype=dtype or x.type.dtype))


# Every elementwise op instance (both spellings) plus the helpers below them.
__all__ = sorted(
    [
        name
        for name, value in list(globals().items())
        if isinstance(value, Elemwise) and not name.startswith("_")
    ]
    + ["cast", "ones_like", "zeros_like"]
)
