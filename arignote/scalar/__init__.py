"""Scalar types and scalar ops: the elementwise building blocks of tensor operations."""

from arignote.scalar.arithmetic import (
    Cast,
    Second,
    abs,
    add,
    and_,
    cast,
    eq,
    floor,
    ge,
    gt,
    identity,
    int_div,
    invert,
    le,
    lt,
    maximum,
    minimum,
    mod,
    mul,
    neg,
    neq,
    or_,
    second,
    sign,
    sub,
    switch,
    true_div,
    xor,
)
from arignote.scalar.basic import (
    ScalarOp,
    ScalarType,
    as_scalar,
    constant,
    get_scalar_type,
    upcast,
)
from arignote.scalar.math import (
    cos,
    cosh,
    exp,
    exp2,
    expm1,
    log,
    log1p,
    log2,
    log10,
    pow,
    sigmoid,
    sin,
    sinh,
    softplus,
    sqr,
    sqrt,
    tan,
    tanh,
)
from arignote.scalar.variable import ScalarConstant, ScalarVariable

float64 = get_scalar_type("float64")
float32 = get_scalar_type("float32")
int64 = get_scalar_type("int64")
int32 = get_scalar_type("int32")


def scalar(name=None, dtype="float64"):
    """A new scalar variable of ``dtype``."""
    return get_scalar_type(dtype)(name)


__all__ = [name for name in dir() if not name.startswith("_")]
