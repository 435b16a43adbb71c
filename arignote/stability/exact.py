"""High-precision evaluation of a graph with mpmath (the reference of the stability audit).

Every variable is evaluated as a NumPy array of ``mpmath.mpf`` objects (``dtype=object``),
node by node in topological order, at a working precision of ``dps`` decimal digits. Elementwise
ops use the mpmath function of their scalar op; reductions and the softmax family have exact
versions here; structural ops (dimshuffles, reshapes, indexing, joins, allocations) run their
own ``perform`` on the object arrays, since they only move values. A node that none of these
covers is evaluated in its own floating-point dtype and flagged (its reference is then only as
good as the op's implementation).

mpmath is an optional dependency (the ``test`` extra): this module is imported only by
``arignote.stability``, which users import explicitly.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import singledispatch
from typing import Any

import mpmath
import numpy as np

from arignote.graph.basic import Constant, Variable, io_toposort
from arignote.scalar import arithmetic as sa
from arignote.scalar import math as sm
from arignote.scalar import special as ss
from arignote.tensor.elemwise import Elemwise
from arignote.tensor.reduction import Max, Min, Prod, Sum
from arignote.tensor.special import LogSoftmax, LogSumExp, Softmax

mp = mpmath.mp
NAN = mpmath.mpf("nan")


def _real(value: Any) -> Any:
    """A real result, NaN where the exact function leaves the reals (``log(-1)``)."""
    if isinstance(value, mpmath.mpc):
        return value.real if value.imag == 0 else NAN
    return value


def _guarded(fn: Callable) -> Callable:
    """``fn`` over reals: NaN in, NaN out; complex or failed results become NaN."""

    def apply(*args):
        if any(isinstance(a, mpmath.mpf) and mpmath.isnan(a) for a in args):
            return NAN
        try:
            return _real(fn(*args))
        except (ValueError, ZeroDivisionError, OverflowError):
            return NAN

    return apply


def _div(a, b):
    # mpmath has no signed zero: the sign of a division by zero, hence its limit, is unknown
    return NAN if b == 0 else a / b


def _log(a):
    return -mpmath.inf if a == 0 else mpmath.log(a)


def _log1p(a):
    return -mpmath.inf if a == -1 else mpmath.log1p(a)


def _pow(a, b):
    if a == 0 and b < 0:
        return mpmath.inf
    return mpmath.power(a, b)


def _sigmoid(a):
    return 1 / (1 + mpmath.exp(-a))


def _softplus(a):
    return mpmath.log1p(mpmath.exp(a)) if a < 0 else a + mpmath.log1p(mpmath.exp(-a))


def _log1mexp(a):
    return mpmath.log(-mpmath.expm1(a))


def _logaddexp(a, b):
    big = max(a, b)
    if mpmath.isinf(big):
        return big
    return big + mpmath.log1p(mpmath.exp(-abs(a - b)))


def _logit(a):
    # log(a / (1 - a)): 1 - a cancels when a rounded to the working precision is ~1
    if 0 < 1 - a < mpmath.mpf(10) ** (-(mp.dps - 20)) or a == 1:
        raise Unresolved("logit of a value within the working precision of 1")
    return _log(a) - _log1p(-a)


def _xlogy(a, b):
    return mpmath.mpf(0) if a == 0 else a * _log(b)


def _xlog1py(a, b):
    return mpmath.mpf(0) if a == 0 else a * _log1p(b)


def _erfcx(a):
    return mpmath.exp(a * a) * mpmath.erfc(a)


def _switch(c, a, b):
    return a if c else b


def _identity(a):
    return a


UNARY: dict[type, Callable] = {
    sa.Neg: lambda a: -a,
    sa.Abs: abs,
    sa.Sign: mpmath.sign,
    sa.Identity: _identity,
    sm.Exp: mpmath.exp,
    sm.Exp2: lambda a: mpmath.power(2, a),
    sm.Expm1: mpmath.expm1,
    sm.Log: _log,
    sm.Log2: lambda a: _log(a) / mpmath.log(2),
    sm.Log10: lambda a: _log(a) / mpmath.log(10),
    sm.Log1p: _log1p,
    sm.Sqrt: mpmath.sqrt,
    sm.Sqr: lambda a: a * a,
    sm.Cbrt: mpmath.cbrt,
    sm.Reciprocal: lambda a: _div(mpmath.mpf(1), a),
    sm.Sin: mpmath.sin,
    sm.Cos: mpmath.cos,
    sm.Tan: mpmath.tan,
    sm.ArcSin: mpmath.asin,
    sm.ArcCos: mpmath.acos,
    sm.ArcTan: mpmath.atan,
    sm.Deg2Rad: mpmath.radians,
    sm.Rad2Deg: mpmath.degrees,
    sm.Tanh: mpmath.tanh,
    sm.Sinh: mpmath.sinh,
    sm.Cosh: mpmath.cosh,
    sm.ArcSinh: mpmath.asinh,
    sm.ArcCosh: mpmath.acosh,
    sm.ArcTanh: mpmath.atanh,
    sm.Sigmoid: _sigmoid,
    sm.Softplus: _softplus,
    sm.Log1mexp: _log1mexp,
    ss.Erf: mpmath.erf,
    ss.Erfc: mpmath.erfc,
    ss.Erfcx: _erfcx,
    ss.Gamma: mpmath.gamma,
    ss.GammaLn: lambda a: mpmath.log(abs(mpmath.gamma(a))),
    ss.Psi: mpmath.digamma,
    ss.Logit: _logit,
}

BINARY: dict[type, Callable] = {
    sa.Add: lambda *args: mpmath.fsum(args),
    sa.Mul: lambda *args: mpmath.fprod(args),
    sa.Sub: lambda a, b: a - b,
    sa.TrueDiv: _div,
    sa.Maximum: max,
    sa.Minimum: min,
    sm.Pow: _pow,
    sm.ArcTan2: mpmath.atan2,
    sm.Hypot: mpmath.hypot,
    sm.LogAddExp: _logaddexp,
    sm.LogAddExp2: lambda a, b: _logaddexp(a * mpmath.ln2, b * mpmath.ln2) / mpmath.ln2,
    ss.XLogY: _xlogy,
    ss.XLog1pY: _xlog1py,
    ss.BetaLn: lambda a, b: mpmath.log(abs(mpmath.beta(a, b))),
    ss.Beta: mpmath.beta,
    sa.Switch: _switch,
    sa.Second: lambda a, b: b,
    sa.LT: lambda a, b: a < b,
    sa.GT: lambda a, b: a > b,
    sa.LE: lambda a, b: a <= b,
    sa.GE: lambda a, b: a >= b,
    sa.EQ: lambda a, b: a == b,
    sa.NEQ: lambda a, b: a != b,
}


class Inexact(Exception):
    """Raised by an exact implementation that does not cover a node."""


class Unresolved(Exception):
    """Raised when a sum cancels more digits than the working precision holds."""


def _check_node_cancellation(node: Any, args: list[np.ndarray], result: np.ndarray) -> None:
    if isinstance(node.op.scalar_op, sm.Log1p):
        # log1p(y) sums 1 + y first: that sum is what may cancel
        (y,) = args
        one = np.full(y.shape, mpmath.mpf(1), dtype=object)
        _check_cancellation([one, y], np.asarray(one + y, dtype=object))
        return
    _check_cancellation(args, result)


def _check_cancellation(inputs: list[np.ndarray], result: np.ndarray) -> None:
    """Raise :class:`Unresolved` where an addition lost (nearly) all of its digits.

    ``1 - sigmoid(1000)`` is ``1 - (1 - 5e-435)``: at 360 digits the operand rounds to 1 and
    the difference to 0. A result that is 0 while an operand is not, or smaller than the
    largest operand by about the working precision, is not trusted.
    """
    limit = mpmath.mpf(10) ** (-(mp.dps - 20))
    for index in np.ndindex(result.shape):
        value = abs(result[index])
        if not mpmath.isfinite(value):
            continue
        largest = max((abs(np.broadcast_to(i, result.shape)[index]) for i in inputs), default=0)
        if not mpmath.isfinite(largest) or largest == 0:
            continue
        if value <= largest * limit:
            raise Unresolved(f"cancellation below {mp.dps} digits")


def to_exact(value: Any) -> np.ndarray:
    """``value`` as an object array of mpf numbers (booleans and integers stay exact)."""
    array = np.asarray(value)
    if array.dtype.kind == "b":
        return array.astype(object)
    if array.dtype.kind in "iu":
        return _objects(np.frompyfunc(lambda v: mpmath.mpf(int(v)), 1, 1)(array))
    if array.dtype.kind == "c":
        raise Inexact("complex values")
    convert = np.frompyfunc(lambda v: mpmath.mpf(float(v)), 1, 1)
    return np.asarray(convert(array), dtype=object)


def to_float(exact: np.ndarray, dtype: str) -> np.ndarray:
    """The exact values rounded to ``dtype`` (overflow to infinity, underflow to zero)."""
    exact = np.asarray(exact, dtype=object)
    kind = np.dtype(dtype).kind
    if kind == "b":
        return exact.astype(bool)
    if kind in "iu":
        return _objects(np.frompyfunc(_to_int, 1, 1)(exact)).astype(dtype)
    with np.errstate(all="ignore"):
        return _objects(np.frompyfunc(_round_float, 1, 1)(exact)).astype(np.float64).astype(dtype)


def _objects(result: Any) -> np.ndarray:
    # np.frompyfunc returns a bare object (not a 0-d array) for 0-d inputs
    return np.asarray(result, dtype=object)


def _to_int(v: Any) -> int:
    return int(v) if mpmath.isfinite(v) else 0


def _round_float(v: Any) -> float:
    if isinstance(v, (bool, np.bool_)):
        return float(v)
    try:
        return float(v)
    except OverflowError:
        return math.copysign(math.inf, float(mpmath.sign(v)))


def _cast(dtype: str) -> Callable:
    kind = np.dtype(dtype).kind
    if kind == "b":
        return lambda a: bool(a != 0)
    if kind in "iu":
        return lambda a: mpmath.mpf(int(a)) if mpmath.isfinite(a) else NAN
    return lambda a: mpmath.mpf(a) if not isinstance(a, bool) else mpmath.mpf(int(a))


def _scalar_function(scalar_op: Any) -> Callable:
    if isinstance(scalar_op, sa.Cast):
        return _cast(scalar_op.o_type.dtype)
    for table in (UNARY, BINARY):
        fn = table.get(type(scalar_op))
        if fn is not None:
            return fn if isinstance(scalar_op, (sa.Switch, sa.Comparison)) else _guarded(fn)
    raise Inexact(f"no exact version of {scalar_op}")


@singledispatch
def exact_impl(op: Any, node: Any, inputs: list[np.ndarray]) -> list[np.ndarray]:
    """The exact outputs of ``node`` from the exact ``inputs`` (dispatched on the op).

    The generic rule runs the op's own ``perform`` on the object arrays: right for ops that
    only move or select values.
    """
    return _perform(node, inputs)


def _perform(node: Any, inputs: list[np.ndarray]) -> list[np.ndarray]:
    storage = [[None] for _ in node.outputs]
    node.op.perform(node, inputs, storage)
    results = [np.asarray(cell[0]) for cell in storage]
    for result, out in zip(results, node.outputs):
        if result.dtype != object and np.dtype(getattr(out.type, "dtype", "O")).kind == "f":
            raise Inexact(f"{node.op} computed in {result.dtype}")
    return results


@exact_impl.register(Elemwise)
def _elemwise(op: Elemwise, node: Any, inputs: list[np.ndarray]) -> list[np.ndarray]:
    if op.scalar_op.nout != 1:
        raise Inexact(f"{op} has several outputs")
    fn = _scalar_function(op.scalar_op)
    return [np.asarray(np.frompyfunc(fn, len(inputs), 1)(*inputs), dtype=object)]


def _cancels(node: Any) -> bool:
    op = node.op
    return isinstance(op, Elemwise) and isinstance(op.scalar_op, (sa.Add, sa.Sub, sm.Log1p))


def _axes(op: Any, ndim: int) -> tuple[int, ...]:
    return tuple(range(ndim)) if op.axis is None else tuple(op.axis)


def _reduce(fn: Callable, array: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    moved = np.moveaxis(array, axes, range(len(axes)))
    flat = moved.reshape((-1,) + moved.shape[len(axes) :])
    out = np.empty(flat.shape[1:], dtype=object)
    for index in np.ndindex(out.shape):
        column = [flat[(k, *index)] for k in range(flat.shape[0])]
        out[index] = fn(column)
    return out


@exact_impl.register(Sum)
def _sum(op, node, inputs):
    return [_reduce(lambda c: mpmath.fsum(c), inputs[0], _axes(op, inputs[0].ndim))]


@exact_impl.register(Prod)
def _prod(op, node, inputs):
    return [_reduce(lambda c: mpmath.fprod(c), inputs[0], _axes(op, inputs[0].ndim))]


@exact_impl.register(Max)
def _max(op, node, inputs):
    return [_reduce(max, inputs[0], _axes(op, inputs[0].ndim))]


@exact_impl.register(Min)
def _min(op, node, inputs):
    return [_reduce(min, inputs[0], _axes(op, inputs[0].ndim))]


def _logsumexp_keep(x: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    total = _reduce(lambda c: mpmath.log(mpmath.fsum(mpmath.exp(v) for v in c)), x, axes)
    return np.expand_dims(total, axes)


@exact_impl.register(LogSumExp)
def _logsumexp(op, node, inputs):
    (x,) = inputs
    axes = _axes(op, x.ndim)
    return [np.squeeze(_logsumexp_keep(x, axes), axes)]


@exact_impl.register(LogSoftmax)
def _log_softmax(op, node, inputs):
    (x,) = inputs
    return [x - _logsumexp_keep(x, _axes(op, x.ndim))]


@exact_impl.register(Softmax)
def _softmax(op, node, inputs):
    (x,) = inputs
    shifted = x - _logsumexp_keep(x, _axes(op, x.ndim))
    return [_objects(np.frompyfunc(mpmath.exp, 1, 1)(shifted))]


def evaluate_exact(
    outputs: Sequence[Variable],
    values: dict[Variable, Any],
    dps: int = 360,
    retries: int = 1,
    partial: bool = False,
) -> tuple[dict[Variable, np.ndarray], set]:
    """Every variable of the graph of ``outputs``, evaluated exactly (to ``dps`` digits).

    Where a sum cancels beyond the working precision, the evaluation is repeated at four
    times the precision (``retries`` times) before raising :class:`Unresolved`.

    Returns the values (object arrays of mpf) and the set of nodes that had to be evaluated in
    floating point (no exact version). With ``partial``, unresolved cancellations are kept
    as they are instead of raising.
    """
    for attempt in range(retries + 1):
        try:
            return _evaluate(outputs, values, dps * 4**attempt, partial)
        except Unresolved:
            if attempt == retries:
                raise
    raise AssertionError("unreachable")


def _evaluate(outputs, values, dps, partial):
    exact: dict[Variable, np.ndarray] = {v: to_exact(val) for v, val in values.items()}
    inexact = set()
    with mpmath.workdps(dps):
        for node in io_toposort(list(values), list(outputs)):
            for inp in node.inputs:
                if inp not in exact and isinstance(inp, Constant):
                    exact[inp] = to_exact(inp.data)
            args = [exact[i] for i in node.inputs]
            try:
                results = exact_impl(node.op, node, args)
            except (Inexact, TypeError, ValueError, AttributeError):
                results = [to_exact(r) for r in float_outputs(node, args)]
                inexact.add(node)
            if not partial and _cancels(node):
                _check_node_cancellation(node, args, results[0])
            exact.update(zip(node.outputs, results))
    for out in outputs:
        if out not in exact and isinstance(out, Constant):
            exact[out] = to_exact(out.data)
    return exact, inexact


def float_outputs(node: Any, exact_inputs: list[np.ndarray]) -> list[np.ndarray]:
    """``node`` evaluated by its own ``perform`` on its exact inputs rounded to their dtypes."""
    args = [
        to_float(v, i.type.dtype) if hasattr(i.type, "dtype") else v
        for v, i in zip(exact_inputs, node.inputs)
    ]
    storage = [[None] for _ in node.outputs]
    with np.errstate(all="ignore"):
        node.op.perform(node, args, storage)
    return [np.asarray(cell[0]) for cell in storage]


__all__ = ["Unresolved", "evaluate_exact", "exact_impl", "float_outputs", "to_exact", "to_float"]
