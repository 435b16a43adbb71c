"""Stabilizing rules on the factors of products and quotients (phase "stabilize").

After canonicalization a quotient is ``(a * b * ...) / (c * d * ...)`` (see ``muldiv``), so a
rule about a ratio of two factors holds wherever they appear, whatever the spelling and
whatever else multiplies them; differentiation creates exactly such quotients
(``(1 / f(x)) * f'(x)``). Each rule replaces one factor above and one below (or two above) by
a factor that neither overflows nor cancels::

    exp(x) / (1 + exp(x))        -> sigmoid(x)          (also 1 / (1 + exp(-x)))
    1 / (1 + exp(x))             -> sigmoid(-x)
    exp(x) / (exp(x) + exp(y))   -> sigmoid(x - y)      (the gradient of logaddexp by hand)
    exp(x) / exp(y)              -> exp(x - y)
    exp(x) * exp(y)              -> exp(x + y)
    sigmoid(x) / sigmoid(-x)     -> exp(x)
    sigmoid(x) * exp(-x)         -> sigmoid(-x)
    sigmoid(-x) * (1 + exp(x))   -> 1
    exp(x) / sum(exp(x), axes)   -> softmax(x, axes)    (the gradient of log-sum-exp by hand)
    sinh(x) / cosh(x)            -> tanh(x)
    exp(-x^2) / erfc(x)          -> 1 / erfcx(x)        (the gradient of log(erfc(x)))
    exp(x) / expm1(x)            -> 1 / -expm1(-x)      (the gradient of log(expm1(x)))
    exp(x) / -expm1(x)           -> 1 / expm1(-x)       (the gradient of log1mexp(x))
    cosh(x) / sinh(x)            -> 1 / tanh(x)         (the gradient of log(sinh(x)))
    exp(x) / (exp(x) - exp(y))   -> 1 / -expm1(y - x)   (the gradient of log(e^x - e^y))
    exp(y) / (exp(x) - exp(y))   -> 1 / expm1(x - y)

Every rule is an identity of real numbers (of extended reals where both sides are defined).
"""

from __future__ import annotations

from arignote.graph.basic import Variable
from arignote.graph.rewriting.basic import copy_stack_trace, node_rewriter
from arignote.graph.rewriting.db import register_rewrite
from arignote.graph.rewriting.pattern import _match, build, pattern_vars
from arignote.tensor.elemwise import DimShuffle
from arignote.tensor.math import (
    add,
    cosh,
    erfc,
    erfcx,
    exp,
    expm1,
    mul,
    neg,
    reciprocal,
    sigmoid,
    sinh,
    sqr,
    sub,
    tanh,
    true_div,
)
from arignote.tensor.reduction import Sum
from arignote.tensor.rewriting.basic import broadcast_like
from arignote.tensor.rewriting.muldiv import Factors, _as_product, build_quotient
from arignote.tensor.rewriting.special import _restores_axes
from arignote.tensor.special import Softmax

__all__: list[str] = []

x, y = pattern_vars("x y")
ONE = None  # "no factor": the rule reads 1 / d

# (factor above, factor below, replacement above, replacement below)
RATIO_RULES = [
    ((exp, x), (add, 1, (exp, x)), (sigmoid, x), ONE),
    (ONE, (add, 1, (exp, (neg, x))), (sigmoid, x), ONE),
    (ONE, (add, 1, (exp, x)), (sigmoid, (neg, x)), ONE),
    ((exp, x), (add, (exp, x), (exp, y)), (sigmoid, (sub, x, y)), ONE),
    ((exp, x), (exp, y), (exp, (sub, x, y)), ONE),
    ((sigmoid, x), (sigmoid, (neg, x)), (exp, x), ONE),
    ((sinh, x), (cosh, x), (tanh, x), ONE),
    ((cosh, x), (sinh, x), ONE, (tanh, x)),
    ((exp, x), (sub, (exp, x), (exp, y)), ONE, (neg, (expm1, (sub, y, x)))),
    ((exp, y), (sub, (exp, x), (exp, y)), ONE, (expm1, (sub, x, y))),
    ((exp, (neg, (sqr, x))), (erfc, x), ONE, (erfcx, x)),
    ((exp, x), (expm1, x), ONE, (neg, (expm1, (neg, x)))),
    ((exp, x), (neg, (expm1, x)), ONE, (expm1, (neg, x))),
]
# (factor, other factor, replacement): both above
PRODUCT_RULES = [
    ((exp, x), (exp, y), (exp, (add, x, y))),
    ((sigmoid, x), (exp, (neg, x)), (sigmoid, (neg, x))),
    ((sigmoid, (neg, x)), (exp, x), (sigmoid, x)),
    # sigmoid(-x) (1 + e^x) = 1, which overflowed from x = 710 (the gradient of
    # log(sigmoid(x) / (1 - sigmoid(x))), with sigmoid' = sigmoid(x) sigmoid(-x))
    ((sigmoid, (neg, x)), (add, 1, (exp, x)), ONE),
    ((sigmoid, x), (add, 1, (exp, (neg, x))), ONE),
]


def _float_chain(node) -> bool:
    out = node.outputs[0]
    dtype = out.type.dtype
    return dtype.startswith("float") and all(i.type.dtype == dtype for i in node.inputs)


def _factors(fgraph, node) -> Factors:
    factors = Factors()
    factors.collect(fgraph, node.outputs[0], True, root=True)
    # squares as products, so that exp(x)^2 / (1 + exp(x))^2 is seen as a ratio twice
    factors.num = [f for v in factors.num for f in _as_product(v)]
    factors.den = [f for v in factors.den for f in _as_product(v)]
    return factors


def _candidates(pattern, side: list[Variable], bindings: dict):
    """(index, bindings) for each factor of ``side`` matching ``pattern`` consistently with
    ``bindings`` (ONE: no factor)."""
    if pattern is ONE:
        yield None, bindings
        return
    for index, var in enumerate(side):
        found = _match(pattern, var, bindings)
        if found is not None:
            yield index, found


def _try_ratio(rule, factors: Factors):
    above, below, new_above, new_below = rule
    for i, found in _candidates(above, factors.num, {}):
        for j, bindings in _candidates(below, factors.den, found):
            if i is None and j is None:
                continue
            return _replace(factors, i, j, new_above, new_below, bindings, factors.den)
    return None


def _try_product(rule, factors: Factors):
    first, second, new = rule
    for i, found in _candidates(first, factors.num, {}):
        for j, bindings in _candidates(second, factors.num, found):
            if i == j:
                continue
            num = [f for k, f in enumerate(factors.num) if k not in (i, j)]
            if new is not ONE:
                num.append(build(new, bindings))
            return num, list(factors.den)
    return None


def _replace(factors, i, j, new_above, new_below, bindings, den):
    num = [f for k, f in enumerate(factors.num) if k != i]
    den = [f for k, f in enumerate(den) if k != j]
    if new_above is not ONE:
        num.append(build(new_above, bindings))
    if new_below is not ONE:
        den.append(build(new_below, bindings))
    return num, den


def _summed_exp(var: Variable):
    """(x, axes) where ``var`` is sum(exp(x), axes) broadcast back over the summed axes."""
    owner = var.owner
    restore = None
    if owner is not None and isinstance(owner.op, DimShuffle):
        restore, var = owner, owner.inputs[0]
        owner = var.owner
    if owner is None or not isinstance(owner.op, Sum):
        return None
    exps = owner.inputs[0].owner
    if exps is None or exps.op != exp:
        return None
    (x,) = exps.inputs
    axes = tuple(range(x.type.ndim)) if owner.op.axis is None else tuple(owner.op.axis)
    if len(axes) != x.type.ndim and not _restores_axes(restore, axes, x.type.ndim):
        return None
    return x, axes


def _try_softmax(factors: Factors):
    """exp(x) / sum(exp(x), axes) -> softmax(x, axes), the sum broadcast back."""
    for j, d in enumerate(factors.den):
        found = _summed_exp(d)
        if found is None:
            continue
        x_, axes = found
        for i, n in enumerate(factors.num):
            if n.owner is not None and n.owner.op == exp and n.owner.inputs[0] is x_:
                num = [f for k, f in enumerate(factors.num) if k != i] + [Softmax(axes)(x_)]
                den = [f for k, f in enumerate(factors.den) if k != j]
                return num, den
    return None


# the ops at the root of some factor of a rule (a quotient without one is left at once)
_RULE_OPS = frozenset((exp, add, sub, sigmoid, sinh, cosh, erfc, expm1, neg))


def _may_match(factors: Factors) -> bool:
    owners = [f.owner for f in (*factors.num, *factors.den)]
    return any(
        o is not None and (o.op in _RULE_OPS or isinstance(o.op, DimShuffle | Sum)) for o in owners
    )


def _rewritten(factors: Factors):
    if not _may_match(factors):
        return None
    found = _try_softmax(factors)
    if found is not None:
        return found
    for rule in RATIO_RULES:
        found = _try_ratio(rule, factors)
        if found is not None:
            return found
    for rule in PRODUCT_RULES:
        found = _try_product(rule, factors)
        if found is not None:
            return found
    return None


@register_rewrite("stabilize", "ratios")
@node_rewriter([mul, true_div, reciprocal])
def local_stable_ratio(fgraph, node):
    """Ratios and products of factors that overflow or cancel -> one stable factor."""
    if not _float_chain(node) or not any(i.owner is not None for i in node.inputs):
        return None
    factors = _factors(fgraph, node)
    found = _rewritten(factors)
    if found is None:
        return None
    out = node.outputs[0]
    num, den = found
    new = build_quotient(num, den, None, out, factors.negations % 2 == 1)
    if new.type.dtype != out.type.dtype:
        return None
    new = broadcast_like(new, out, [*node.inputs, *factors.num, *factors.den, *factors.shapes])
    if new is None:
        return None
    copy_stack_trace(out, new)
    return [new]
