"""Scalar arithmetic, comparison, logical, selection and cast ops, with their derivatives."""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from arignote.graph.grad_types import disconnected, grad_not_implemented
from arignote.scalar.basic import (
    BinaryScalarOp,
    ScalarOp,
    ScalarType,
    UnaryScalarOp,
    as_scalar,
    complex_dtypes,
    conj_if_complex,
    get_scalar_type,
    grad_dtype,
    gradient_mask,
    integer_dtypes,
    is_complex,
    is_discrete,
    zero_grad_for,
)
from arignote.scalar.logical import signbit
from arignote.scalar.rounding import floor, trunc


def _grad_or_zero(x, term):
    """``term`` as the gradient for ``x``, in the gradient dtype of ``x``.

    Callers return zeros (``_zero_grads``) when the *output* is integer-valued. An integer
    *input* of a float-valued output has the same gradient as a float one would: the function
    is defined between the integers (the Op contract's mixed-dot example). Only the dtype of
    the gradient differs (floatX).
    """
    return cast(term, grad_dtype(x)) if is_discrete(x) else term


def _zero_grads(inputs):
    return [zero_grad_for(x) for x in inputs]


class Add(ScalarOp):
    nfunc = np.add
    commutative = associative = True
    identity = 0

    def L_op(self, inputs, outputs, output_grads):
        (gz,) = output_grads
        if is_discrete(outputs[0]):
            return _zero_grads(inputs)
        return [_grad_or_zero(x, gz) for x in inputs]  # d(sum)/dx_i = 1


class Mul(ScalarOp):
    nfunc = np.multiply
    commutative = associative = True
    identity = 1

    def L_op(self, inputs, outputs, output_grads):
        (gz,) = output_grads
        if is_discrete(outputs[0]):
            return _zero_grads(inputs)
        # d(prod)/dx_i = product of the other factors (conjugated for complex inputs)
        others = _products_of_the_others(inputs)
        return [_grad_or_zero(x, gz * conj_if_complex(o)) for x, o in zip(inputs, others)]


def _products_of_the_others(factors: list) -> list:
    """For each factor, the product of all the others, in a graph linear in their number.

    Multiplying the n - 1 others for each of n factors would make the gradient of an n-ary
    product quadratic in n; prefix and suffix products (x_0 ... x_{i-1} and
    x_{i+1} ... x_{n-1}) give every product of the others with about 3n multiplications.
    """
    if len(factors) == 2:
        return [factors[1], factors[0]]
    prefix = [None]  # prefix[i]: product of factors[:i] (None: empty)
    for x in factors[:-1]:
        prefix.append(x if prefix[-1] is None else mul(prefix[-1], x))
    suffix = [None]  # suffix[k]: product of the last k factors
    for x in reversed(factors[1:]):
        suffix.append(x if suffix[-1] is None else mul(x, suffix[-1]))
    suffix.reverse()  # now suffix[i]: product of factors[i + 1:]
    others = []
    for before, after in zip(prefix, suffix):
        if before is None or after is None:
            others.append(after if before is None else before)
        else:
            others.append(mul(before, after))
    return others


class Sub(BinaryScalarOp):
    nfunc = np.subtract

    def L_op(self, inputs, outputs, output_grads):
        (x, y), (gz,) = inputs, output_grads
        if is_discrete(outputs[0]):
            return _zero_grads(inputs)
        return [_grad_or_zero(x, gz), _grad_or_zero(y, neg(gz))]


class TrueDiv(BinaryScalarOp):
    nfunc = np.true_divide

    def L_op(self, inputs, outputs, output_grads):
        (x, y), (z,), (gz,) = inputs, outputs, output_grads
        # z = x / y: dz/dx = 1/y, dz/dy = -x/y^2 = -z/y  (conjugated for complex inputs)
        gx = gz / conj_if_complex(y)
        gy = neg(gz) * conj_if_complex(z / y)
        return [_grad_or_zero(x, gx), _grad_or_zero(y, gy)]


class IntDiv(BinaryScalarOp):
    nfunc = np.floor_divide

    def L_op(self, inputs, outputs, output_grads):
        return _zero_grads(inputs)  # floor(x / y) is piecewise constant


class Mod(BinaryScalarOp):
    nfunc = np.mod

    def L_op(self, inputs, outputs, output_grads):
        (x, y), (gz,) = inputs, output_grads
        if is_discrete(outputs[0]):
            return _zero_grads(inputs)
        # x mod y = x - y * floor(x / y): d/dx = 1, d/dy = -floor(x / y)
        return [_grad_or_zero(x, gz), _grad_or_zero(y, neg(gz) * floor(x / y))]


class Neg(UnaryScalarOp):
    nfunc = np.negative

    def L_op(self, inputs, outputs, output_grads):
        (x,), (gz,) = inputs, output_grads
        return [_grad_or_zero(x, neg(gz))] if not is_discrete(outputs[0]) else _zero_grads(inputs)


class Abs(UnaryScalarOp):
    nfunc = np.absolute

    def L_op(self, inputs, outputs, output_grads):
        (x,), (gz,) = inputs, output_grads
        if is_discrete(outputs[0]):
            return _zero_grads(inputs)
        if x.type.dtype.startswith("complex"):
            return [gz * x / outputs[0]]  # d|x| along the real direction of x
        return [gz * sign(x)]


class Sign(UnaryScalarOp):
    nfunc = np.sign

    def L_op(self, inputs, outputs, output_grads):
        (x,) = inputs
        if is_complex(x):
            # sign(z) = z / |z| is smooth away from 0 but not holomorphic
            return [grad_not_implemented(self, 0, x, "sign of a complex number")]
        return _zero_grads(inputs)  # piecewise constant on real numbers


class Maximum(BinaryScalarOp):
    nfunc = np.maximum
    commutative = associative = True

    def L_op(self, inputs, outputs, output_grads):
        (x, y), (gz,) = inputs, output_grads
        if is_discrete(outputs[0]):
            return _zero_grads(inputs)
        # the gradient flows to the larger input (to x on ties)
        x_wins = ge(x, y)
        return [_grad_or_zero(x, switch(x_wins, gz, 0)), _grad_or_zero(y, switch(x_wins, 0, gz))]


class Minimum(BinaryScalarOp):
    nfunc = np.minimum
    commutative = associative = True

    def L_op(self, inputs, outputs, output_grads):
        (x, y), (gz,) = inputs, output_grads
        if is_discrete(outputs[0]):
            return _zero_grads(inputs)
        x_wins = le(x, y)
        return [_grad_or_zero(x, switch(x_wins, gz, 0)), _grad_or_zero(y, switch(x_wins, 0, gz))]


class Clip(ScalarOp):
    """``clip(x, lo, hi)`` = ``minimum(maximum(x, lo), hi)``, as ``np.clip``.

    ``nfunc`` is the ternary ufunc ``np.clip`` calls after checking its arguments: its loop
    selection gives NumPy's output dtypes (``clip(int8, uint8, float16)`` is float16, which
    two binary ufuncs in a row would make float32).
    """

    nin = 3
    nfunc = np._core.umath.clip

    def L_op(self, inputs, outputs, output_grads):
        (x, lo, hi), (gz,) = inputs, output_grads
        if is_discrete(outputs[0]):
            return _zero_grads(inputs)
        # The output is exactly one of x, lo, hi at each point; that input gets the gradient.
        # hi wins when max(x, lo) > hi (also when lo > hi, as in np.clip); lo wins when x < lo.
        takes_hi = gt(maximum(x, lo), hi)
        below = lt(x, lo)
        takes_lo = and_(invert(takes_hi), below)
        return [
            _grad_or_zero(x, switch(or_(takes_hi, below), 0, gz)),
            _grad_or_zero(lo, switch(takes_lo, gz, 0)),
            _grad_or_zero(hi, switch(takes_hi, gz, 0)),
        ]


class Fmax(Maximum):
    """The larger of x and y, ignoring NaN unless both are NaN (``np.fmax``)."""

    nfunc = np.fmax

    def L_op(self, inputs, outputs, output_grads):
        (x, y), (gz,) = inputs, output_grads
        if is_discrete(outputs[0]):
            return _zero_grads(inputs)
        x_wins = or_(ge(x, y), neq(y, y))  # y != y: y is NaN
        return [_grad_or_zero(x, switch(x_wins, gz, 0)), _grad_or_zero(y, switch(x_wins, 0, gz))]


class Fmin(Minimum):
    """The smaller of x and y, ignoring NaN unless both are NaN (``np.fmin``)."""

    nfunc = np.fmin

    def L_op(self, inputs, outputs, output_grads):
        (x, y), (gz,) = inputs, output_grads
        if is_discrete(outputs[0]):
            return _zero_grads(inputs)
        x_wins = or_(le(x, y), neq(y, y))
        return [_grad_or_zero(x, switch(x_wins, gz, 0)), _grad_or_zero(y, switch(x_wins, 0, gz))]


class Fmod(BinaryScalarOp):
    """The remainder of C's division, with the sign of x (``np.fmod``; ``mod`` follows y)."""

    nfunc = np.fmod

    def L_op(self, inputs, outputs, output_grads):
        (x, y), (gz,) = inputs, output_grads
        if is_discrete(outputs[0]):
            return _zero_grads(inputs)
        # fmod(x, y) = x - y * trunc(x / y): d/dx = 1, d/dy = -trunc(x / y)
        return [_grad_or_zero(x, gz), _grad_or_zero(y, neg(gz) * trunc(x / y))]


class CopySign(BinaryScalarOp):
    """``|x|`` with the sign (bit) of y (``np.copysign``)."""

    nfunc = np.copysign

    def L_op(self, inputs, outputs, output_grads):
        (x, y), (gz,) = inputs, output_grads
        if is_discrete(outputs[0]):
            return _zero_grads(inputs)
        # |x| s(y): d/dx = s(x) s(y) = +1 when the sign bits agree, -1 otherwise; d/dy = 0
        same_sign = eq(signbit(x), signbit(y))
        return [_grad_or_zero(x, switch(same_sign, gz, neg(gz))), zero_grad_for(y)]


class Comparison(BinaryScalarOp):
    """A boolean-valued comparison: its gradient is zero almost everywhere."""

    def weak_scalar_dtype(self, value, loop_dtype):
        # NumPy compares integers with Python integers beyond their range exactly
        # (int8_array < 300 is all True) instead of raising OverflowError: give the number a
        # dtype that holds it, so that the loop NumPy picks for the pair compares exactly.
        if type(value) is not int or loop_dtype not in integer_dtypes:
            return loop_dtype
        info = np.iinfo(loop_dtype)
        if info.min <= value <= info.max:
            return loop_dtype
        fitting = np.min_scalar_type(value)
        return fitting.name if fitting.kind in "iu" else "float64"

    def L_op(self, inputs, outputs, output_grads):
        return _zero_grads(inputs)


class LT(Comparison):
    nfunc = np.less


class GT(Comparison):
    nfunc = np.greater


class LE(Comparison):
    nfunc = np.less_equal


class GE(Comparison):
    nfunc = np.greater_equal


class EQ(Comparison):
    nfunc = np.equal
    commutative = True


class NEQ(Comparison):
    nfunc = np.not_equal
    commutative = True


class BitwiseOp(ScalarOp):
    """Logical on booleans, bitwise on integers; undefined on floats (as in NumPy)."""

    def L_op(self, inputs, outputs, output_grads):
        return _zero_grads(inputs)


class AND(BitwiseOp):
    nfunc = np.bitwise_and
    nin = 2
    commutative = associative = True


class OR(BitwiseOp):
    nfunc = np.bitwise_or
    nin = 2
    commutative = associative = True


class XOR(BitwiseOp):
    nfunc = np.bitwise_xor
    nin = 2
    commutative = associative = True


class Invert(BitwiseOp):
    nfunc = np.invert
    nin = 1


class Gcd(BitwiseOp):
    """Greatest common divisor of integers (``np.gcd``)."""

    nfunc = np.gcd
    nin = 2
    commutative = associative = True


class Lcm(BitwiseOp):
    """Least common multiple of integers (``np.lcm``)."""

    nfunc = np.lcm
    nin = 2
    commutative = associative = True


class LeftShift(BitwiseOp):
    nfunc = np.left_shift
    nin = 2


class RightShift(BitwiseOp):
    nfunc = np.right_shift
    nin = 2


class Switch(ScalarOp):
    """``switch(cond, a, b)``: ``a`` where ``cond`` is true, else ``b`` (``np.where``)."""

    nin = 3
    nfunc = staticmethod(np.where)
    typing_positions = (1, 2)  # the condition does not take part in dtype promotion

    def L_op(self, inputs, outputs, output_grads):
        (cond, a, b), (gz,) = inputs, output_grads
        if is_discrete(outputs[0]):
            return _zero_grads(inputs)
        return [
            zero_grad_for(cond),
            _grad_or_zero(a, gradient_mask(switch(cond, gz, 0))),
            _grad_or_zero(b, gradient_mask(switch(cond, 0, gz))),
        ]


class Second(BinaryScalarOp):
    """``second(x, y)``: ``y`` broadcast to the shape of ``x`` and ``y`` (``fill``)."""

    def elementwise(self, x, y):
        shape = np.broadcast_shapes(np.shape(x), np.shape(y))
        out = np.empty(shape, dtype=np.asarray(y).dtype)
        out[...] = y
        return out

    def connection_pattern(self, node):
        return [[False], [True]]  # only the shape of x matters

    def L_op(self, inputs, outputs, output_grads):
        (_x, y), (gz,) = inputs, output_grads
        if is_discrete(outputs[0]):
            return [disconnected(), zero_grad_for(y)]
        return [disconnected(), _grad_or_zero(y, gz)]


class Identity(UnaryScalarOp):
    nfunc = staticmethod(np.positive)

    def elementwise(self, x):
        return np.array(x, copy=True) if isinstance(x, np.ndarray) else x

    def L_op(self, inputs, outputs, output_grads):
        (x,), (gz,) = inputs, output_grads
        if is_discrete(outputs[0]):
            return _zero_grads(inputs)
        return [_grad_or_zero(x, gz)]


class Cast(UnaryScalarOp):
    """Conversion to the dtype of ``o_type`` (``x.astype(dtype)``)."""

    __props__ = ("o_type",)

    def __init__(self, o_type: ScalarType, name: str | None = None) -> None:
        if not isinstance(o_type, ScalarType):
            raise TypeError(f"Cast expects a ScalarType, got {o_type!r}")
        super().__init__(name=name or f"convert_to_{o_type.dtype}")
        self.o_type = o_type

    def elementwise(self, x: Any) -> Any:
        x = np.asarray(x)
        if x.dtype.kind == "c" and self.o_type.dtype not in complex_dtypes:
            x = x.real  # what astype keeps anyway, without its ComplexWarning
        return x.astype(self.o_type.dtype)

    def L_op(self, inputs, outputs, output_grads):
        (x,), (gz,) = inputs, output_grads
        if is_discrete(outputs[0]) or is_discrete(x):
            # int(x) is piecewise constant; an integer input gets a float zero (see the contract)
            if is_discrete(outputs[0]):
                return [zero_grad_for(x)]
            return [cast(gz, grad_dtype(x))]
        return [cast(gz, x.type.dtype)]


@cache
def _cast_op(dtype: str) -> Cast:
    return Cast(get_scalar_type(dtype))


def cast(x: Any, dtype: str) -> Any:
    """``x`` converted to ``dtype`` (the variable itself when it already has it)."""
    x = as_scalar(x)
    dtype = np.dtype(dtype).name
    if x.type.dtype == dtype:
        return x
    return _cast_op(dtype)(x)


add = Add(name="add")
mul = Mul(name="mul")
sub = Sub(name="sub")
true_div = TrueDiv(name="true_div")
int_div = IntDiv(name="int_div")
mod = Mod(name="mod")
neg = Neg(name="neg")
abs = Abs(name="abs")
sign = Sign(name="sign")
maximum = Maximum(name="maximum")
minimum = Minimum(name="minimum")
clip = Clip(name="clip")
fmax = Fmax(name="fmax")
fmin = Fmin(name="fmin")
fmod = Fmod(name="fmod")
copysign = CopySign(name="copysign")
lt = LT(name="lt")
gt = GT(name="gt")
le = LE(name="le")
ge = GE(name="ge")
eq = EQ(name="eq")
neq = NEQ(name="neq")
and_ = AND(name="and_")
or_ = OR(name="or_")
xor = XOR(name="xor")
invert = Invert(name="invert")
gcd = Gcd(name="gcd")
lcm = Lcm(name="lcm")
left_shift = LeftShift(name="left_shift")
right_shift = RightShift(name="right_shift")
switch = Switch(name="switch")
identity = Identity(name="identity")
second = Second(name="second")
