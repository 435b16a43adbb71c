"""Stabilizing rules for logarithms and exponentials beyond the textbook spellings.

Pattern tables (one rule per line, the identity as a comment) and node rewriters for what
needs a case split. Every rule is exact for every real input of its domain; the case splits
(``switch``) pick, for each input, a form that neither overflows nor cancels there.
"""

from __future__ import annotations

import numpy as np

from arignote.graph.basic import Variable
from arignote.graph.rewriting.basic import copy_stack_trace, node_rewriter
from arignote.graph.rewriting.db import register_rewrite
from arignote.graph.rewriting.pattern import pattern_vars, register_patterns
from arignote.tensor.elemwise import DimShuffle
from arignote.tensor.math import (
    abs,
    add,
    arcsinh,
    cosh,
    eq,
    erf,
    erfc,
    erfcx,
    exp,
    expm1,
    gt,
    hypot,
    isinf,
    log,
    log1mexp,
    log1p,
    logaddexp,
    lt,
    minimum,
    mul,
    neg,
    pow,
    sigmoid,
    sign,
    sinh,
    softplus,
    sqr,
    sqrt,
    sub,
    switch,
    tanh,
    true_div,
)
from arignote.tensor.pad import pad
from arignote.tensor.reduction import Prod, Sum
from arignote.tensor.reduction import max as reduce_max
from arignote.tensor.rewriting.basic import broadcast_like, scalar_constant
from arignote.tensor.rewriting.muldiv import Factors
from arignote.tensor.special import logit

__all__: list[str] = []

x, y = pattern_vars("x y")


def _is_real_float(x: Variable, **_) -> bool:
    return x.type.dtype.startswith("float")


REAL = {"constraint": _is_real_float}
LOG2 = float(np.log(2.0))

STABILIZE_EXP_FORMS = [
    ((log, (exp, x)), x, REAL),  # log(e^x) = x, again after the rules below create it
    ((log, (add, (exp, x), (exp, y))), (logaddexp, x, y), REAL),  # log(e^x + e^y)
    ((log, (sub, (exp, x), (exp, y))), (add, x, (log1mexp, (sub, y, x))), REAL),  # x+log(1-e^(y-x))
    ((log, (expm1, x)), (add, x, (log1mexp, (neg, x))), REAL),  # log(e^x - 1) = x + log(1 - e^-x)
    ((sub, 1, (exp, x)), (neg, (expm1, x)), REAL),  # 1 - e^x = -expm1(x)
    ((add, (expm1, x), 1), (exp, x), REAL),  # expm1(x) + 1 = e^x (d expm1)
    ((sub, x, (softplus, x)), (neg, (softplus, (neg, x))), REAL),  # x - log(1 + e^x)
    ((sub, (softplus, x), x), (softplus, (neg, x)), REAL),  # log(1 + e^x) - x
    ((logit, (sigmoid, x)), x, REAL),  # logit(sigmoid(x)) = x
    ((sigmoid, (logit, x)), x, REAL),  # sigmoid(logit(x)) = x on logit's domain [0, 1]
    ((log, (true_div, 1, x)), (neg, (log, x)), REAL),  # log(1 / x) = -log(x)
    ((sub, 1, (erf, x)), (erfc, x), REAL),  # 1 - erf(x) = erfc(x)
    ((add, 1, (erf, x)), (erfc, (neg, x)), REAL),  # 1 + erf(x) = erfc(-x)
    ((sub, (erf, x), 1), (neg, (erfc, x)), REAL),  # erf(x) - 1 = -erfc(x)
    ((sub, 1, (erfc, x)), (erf, x), REAL),  # 1 - erfc(x) = erf(x)
    ((sub, (erfc, x), 1), (neg, (erf, x)), REAL),  # erfc(x) - 1 = -erf(x)
    ((sub, (sigmoid, x), (sigmoid, (neg, x))), (tanh, (mul, 0.5, x)), REAL),  # = tanh(x/2)
    ((sub, (sigmoid, (neg, x)), (sigmoid, x)), (neg, (tanh, (mul, 0.5, x))), REAL),
    ((sub, (exp, x), (exp, (neg, x))), (mul, 2, (sinh, x)), REAL),  # e^x - e^-x = 2 sinh(x)
    ((add, (exp, x), (exp, (neg, x))), (mul, 2, (cosh, x)), REAL),  # e^x + e^-x = 2 cosh(x)
    ((sub, 1, (sqr, (tanh, x))), (true_div, 1, (sqr, (cosh, x))), REAL),  # 1 - tanh^2 = sech^2
    ((log, (sqrt, x)), (mul, 0.5, (log, x)), REAL),  # log(sqrt(x)) = log(x) / 2
    ((log, (sqr, x)), (mul, 2, (log, (abs, x))), REAL),  # log(x^2) = 2 log|x|
    ((sqrt, (pow, x, 2)), (abs, x), REAL),  # sqrt(x ** 2) = |x|
    ((log, (add, x, (hypot, 1, x))), (arcsinh, x), REAL),  # log(x + sqrt(x^2 + 1))
    # 1 + x / sqrt(1 + x^2) = (x + sqrt(1 + x^2)) / sqrt(1 + x^2) (in the derivative of the
    # above, which then divides by x + sqrt(1 + x^2): the quotient cancels to 1 / hypot(1, x))
    (
        (add, 1, (true_div, x, (hypot, 1, x))),
        (true_div, (add, x, (hypot, 1, x)), (hypot, 1, x)),
        REAL,
    ),
]
# same_dtype: the identities hold in one floating-point dtype (integers are cast first)
register_patterns("stabilize", STABILIZE_EXP_FORMS, same_dtype=True)


def _finish(node, new: Variable) -> list[Variable] | None:
    out = node.outputs[0]
    if new.type.dtype != out.type.dtype:
        return None
    new = broadcast_like(new, out, node.inputs)
    if new is None:
        return None
    copy_stack_trace(out, new)
    return [new]


def _argument(node, op) -> Variable | None:
    """The argument of ``op`` under the log ``node`` (None if the log is of something else)."""
    inner = node.inputs[0].owner
    if inner is None or inner.op != op or not _is_real_float(node.outputs[0]):
        return None
    return inner.inputs[0]


@register_rewrite("stabilize", "hyperbolic")
@node_rewriter([log])
def local_log_cosh(fgraph, node):
    """log(cosh(x)) -> log1p(2 sinh(x/2)^2) for |x| < 30, |x| - log 2 + log1p(e^(-2|x|)) beyond.

    cosh(x) - 1 = 2 sinh(x/2)^2 keeps the x^2/2 of small x; the other form never overflows.
    """
    z = _argument(node, cosh)
    if z is None:
        return None
    small = log1p(mul(2, sqr(sinh(mul(0.5, z)))))
    large = add(sub(abs(z), LOG2), log1p(exp(mul(-2, abs(z)))))
    return _finish(node, switch(lt(abs(z), 30), small, large))


def _clamped(z: Variable) -> bool:
    owner = z.owner
    return owner is not None and owner.op == minimum and scalar_constant(owner.inputs[1]) == 30


@register_rewrite("stabilize", "hyperbolic")
@node_rewriter([log])
def local_log_sinh(fgraph, node):
    """log(sinh(x)) -> x - log 2 + log1mexp(-2x) for x > 30 (no overflow), as it is below."""
    z = _argument(node, sinh)
    if z is None or _clamped(z):
        return None
    large = add(sub(z, LOG2), log1mexp(mul(-2, z)))
    small = log(sinh(minimum(z, 30)))
    return _finish(node, switch(gt(z, 30), large, small))


@register_rewrite("stabilize", "special")
@node_rewriter([log])
def local_log_erfc(fgraph, node):
    """log(erfc(x)) -> log(erfcx(x)) - x^2 for x > 1/2 (erfc underflows from x = 27), and
    log1p(-erf(x)) below (erf is accurate near 0, and 1 - erf(x) lies in (0.47, 2))."""
    z = _argument(node, erfc)
    if z is None:
        return None
    large = sub(log(erfcx(z)), sqr(z))
    moderate = log1p(neg(erf(z)))
    return _finish(node, switch(gt(z, 0.5), large, moderate))


_POSITIVE_OPS = (exp, sigmoid, softplus)


def _log_factor(var: Variable) -> tuple[Variable, bool]:
    """log|var|, and whether var is known positive (its sign then need not be tracked)."""
    owner = var.owner
    if owner is not None and owner.op in _POSITIVE_OPS:
        return log(var), True
    return log(abs(var)), False


def _signs(factors: list[Variable], below: set) -> Variable | None:
    # a / 0 is +-inf, whose logarithm is inf or nan: a zero divisor counts as positive
    signs = [switch(eq(f, 0), 1, sign(f)) if f in below else sign(f) for f in factors]
    if not signs:
        return None
    return signs[0] if len(signs) == 1 else mul(*signs)


@register_rewrite("stabilize", "logs")
@node_rewriter([log])
def local_log_of_product(fgraph, node):
    """log(a * b / c) -> log|a| + log|b| - log|c| + log(sign(a) sign(b) sign(c)).

    The product may overflow or underflow while its logarithm is moderate (log(1e200 * 1e200));
    the sign term is 0 for a positive product, -inf for a zero and nan for a negative one,
    as the logarithm of the product is (factors known positive, such as exp(u), carry no sign).
    """
    arg = node.inputs[0]
    if not _is_real_float(node.outputs[0]) or arg.owner is None:
        return None
    factors = Factors()
    factors.collect(fgraph, arg, True, root=True)
    if len(factors.num) + len(factors.den) < 2 or factors.divisions + len(factors.num) < 2:
        return None
    if any(f.type.dtype != arg.type.dtype for f in factors.num + factors.den):
        return None
    if all(f.owner is not None and f.owner.op == sign for f in factors.num + factors.den):
        return None  # the sign term this rule creates
    return _finish(node, _sum_of_logs(factors))


def _sum_of_logs(factors: Factors) -> Variable:
    terms, unsigned = [], []
    for side, subtract in ((factors.num, False), (factors.den, True)):
        for f in side:
            logged, positive = _log_factor(f)
            terms.append(neg(logged) if subtract else logged)
            if not positive:
                unsigned.append(f)
    signs = _signs(unsigned, set(factors.den))
    if factors.negations % 2:
        # a negated product of positive factors is negative: its logarithm is nan
        signs = neg(signs) if signs is not None else neg(sign(factors.num[0]))
    if signs is not None:
        terms.append(log(signs))
    return terms[0] if len(terms) == 1 else add(*terms)


@register_rewrite("stabilize", "logs")
@node_rewriter([log])
def local_log_of_power(fgraph, node):
    """log(x ** p) -> p log(x), or p log|x| for an even integer p (x ** p overflows first)."""
    inner = node.inputs[0].owner
    if inner is None or inner.op != pow or not _is_real_float(node.outputs[0]):
        return None
    base, exponent = inner.inputs
    p = scalar_constant(exponent)
    if p is None or np.ndim(p) or p == 0 or not np.isfinite(p):
        return None
    if base.type.dtype != node.outputs[0].type.dtype:
        return None
    even = float(p).is_integer() and int(p) % 2 == 0
    positive = base.owner is not None and base.owner.op in _POSITIVE_OPS
    logged = log(abs(base)) if even and not positive else log(base)
    return _finish(node, mul(float(p), logged))


@register_rewrite("stabilize", "logs")
@node_rewriter([log])
def local_log_of_prod(fgraph, node):
    """log(prod(v, axes)) -> sum(log|v|, axes) + log(prod(sign(v), axes)): a product of many
    small (or large) factors underflows (overflows) long before its logarithm does."""
    inner = node.inputs[0].owner
    if inner is None or not isinstance(inner.op, Prod) or not _is_real_float(node.outputs[0]):
        return None
    (v,) = inner.inputs
    if v.type.dtype != node.outputs[0].type.dtype or (v.owner and v.owner.op == sign):
        return None
    axis = inner.op.axis
    total = Sum(axis)(log(abs(v)))
    signs = Prod(axis)(sign(v))
    return _finish(node, add(total, log(signs)))


def _square_root_of(term: Variable) -> Variable | None:
    """u where ``term`` is u^2 (u ** 2, u * u, or a constant c >= 0 as sqrt(c))."""
    owner = term.owner
    if owner is not None and owner.op == sqr:
        return owner.inputs[0]
    if owner is not None and owner.op == pow and scalar_constant(owner.inputs[1]) == 2:
        return owner.inputs[0]
    if owner is not None and owner.op == mul and len(owner.inputs) == 2:
        a, b = owner.inputs
        return a if a is b else None
    value = scalar_constant(term)
    if value is not None and np.ndim(value) == 0 and value >= 0:
        return np.sqrt(np.asarray(value, dtype=term.type.dtype))
    return None


@register_rewrite("stabilize", "hypot")
@node_rewriter([sqrt])
def local_sqrt_sum_of_squares(fgraph, node):
    """sqrt(a^2 + b^2) -> hypot(a, b): the squares overflow (underflow) before the result."""
    inner = node.inputs[0].owner
    if inner is None or inner.op != add or len(inner.inputs) != 2:
        return None
    if not _is_real_float(node.outputs[0]):
        return None
    roots = [_square_root_of(t) for t in inner.inputs]
    if any(r is None for r in roots):
        return None
    constants = [r for r in roots if not isinstance(r, Variable)]
    if len(constants) == 2:
        return None
    roots.sort(key=lambda r: isinstance(r, Variable))  # a constant first: hypot(1, x)
    if any(isinstance(r, Variable) and r.type.dtype != node.outputs[0].type.dtype for r in roots):
        return None
    return _finish(node, hypot(*roots))


@register_rewrite("stabilize", "hypot")
@node_rewriter([sqrt])
def local_sqrt_sum_of_squares_reduced(fgraph, node):
    """sqrt(sum(v^2, axes)) -> m sqrt(sum((v / m)^2, axes)) with m = max|v| over the axes: the
    2-norm without overflow (|v| > 1e154) or underflow (|v| < 1e-154) of the squares.

    m = 0 (a zero vector) scales by 1 instead, m = inf is its own norm; the scaled square root
    is written as a power 1/2, which this rule does not match again.
    """
    inner = node.inputs[0].owner
    out = node.outputs[0]
    restore = None
    if inner is not None and isinstance(inner.op, DimShuffle) and _only_adds_dims(inner.op):
        restore, inner = inner.op, inner.inputs[0].owner  # sqrt commutes with broadcasting
    if inner is None or not isinstance(inner.op, Sum) or not _is_real_float(out):
        return None
    v = _square_root_of(inner.inputs[0])
    if not isinstance(v, Variable) or v.type.dtype != out.type.dtype:
        return None
    axes = inner.op.axis
    magnitudes = _with_a_zero(abs(v), axes)  # max of no elements: 0, the norm of nothing
    largest = reduce_max(magnitudes, axis=axes)
    kept = reduce_max(magnitudes, axis=axes, keepdims=True)
    scaled = Sum(axes)(sqr(true_div(v, switch(gt(kept, 0), kept, 1))))
    norm = mul(switch(gt(largest, 0), largest, 1), pow(scaled, 0.5))
    norm = switch(isinf(largest), largest, norm)
    return _finish(node, norm if restore is None else restore(norm))


def _with_a_zero(magnitudes: Variable, axes) -> Variable:
    """``magnitudes`` (>= 0) with one zero appended along each of ``axes``: their maximum over
    those axes is unchanged, and 0 where the axes are empty (NumPy's ``max(..., initial=0)``)."""
    ndim = magnitudes.type.ndim
    reduced = range(ndim) if axes is None else [a % ndim for a in axes]
    if not reduced:  # nothing reduced (a 0-d v): no empty axis to guard
        return magnitudes
    return pad(magnitudes, [(0, 1) if d in reduced else (0, 0) for d in range(ndim)])


def _only_adds_dims(op: DimShuffle) -> bool:
    kept = [d for d in op.new_order if d != "x"]
    return kept == list(range(len(kept)))
