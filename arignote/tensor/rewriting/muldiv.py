"""The canonical form of products and quotients: one division of two flat products.

``a * (b / c)``, ``(a / b) / c``, ``a * reciprocal(b)`` and ``a / (b / c)`` all become
``(numerator factors) / (denominator factors)`` with the constants folded into one factor in
front (so that ``2.0 * x`` prints as the derivative of ``x ** 2`` is written in textbooks).
Stabilizing rules then see quotients in one place: ``exp(x) / (1 + exp(x))`` whatever the
spelling, and the quotients that differentiation creates (``(1 / f(x)) * f'(x)``).

Cancelling a factor that appears above and below (``(x * y) / y -> x``, PyTensor's default) is
a separate rewrite tagged "cancel": it is exact for every y but 0, inf and nan, where the
original is nan. Exclude the tag (``mode.excluding("cancel")``) to keep those nans.
"""

from __future__ import annotations

import numpy as np

from arignote.graph.basic import Constant, Variable
from arignote.graph.rewriting.basic import copy_stack_trace, node_rewriter
from arignote.graph.rewriting.db import register_rewrite
from arignote.tensor.basic import constant
from arignote.tensor.math import add, mul, neg, pow, reciprocal, second, sqr, sub, true_div
from arignote.tensor.rewriting.basic import (
    broadcast_like,
    keep_shape_checks,
    pad_to_ndim,
    scalar_constant,
    single_client,
)

__all__: list[str] = []

_QUOTIENT_OPS = frozenset((mul, true_div, reciprocal, neg, second))  # hashed: rewriters ask often


def _is_link(var: Variable, dtype: str) -> bool:
    """Whether ``var`` is a product or quotient of floats of ``dtype`` (flattened through)."""
    node = var.owner
    if node is None or node.op not in _QUOTIENT_OPS or not dtype.startswith("float"):
        return False
    if var.type.dtype != dtype:
        return False
    return all(v.type.dtype == dtype for v in node.inputs)


class Factors:
    """The numerator and denominator factors of a product/quotient chain."""

    def __init__(self) -> None:
        self.num: list[Variable] = []
        self.den: list[Variable] = []
        self.divisions = 0  # division and reciprocal nodes met
        self.negations = 0  # negations met (a sign in front of the result)
        self.shapes: list[Variable] = []  # what second(a, b) links broadcast b against

    def collect(self, fgraph, var: Variable, above: bool, root: bool = False) -> None:
        dtype = var.type.dtype
        if not _is_link(var, dtype) or not (root or single_client(fgraph, var)):
            (self.num if above else self.den).append(var)
            return
        node = var.owner
        if node.op == mul:
            for inp in node.inputs:
                self.collect(fgraph, inp, above)
        elif node.op == true_div:
            self.divisions += 1
            self.collect(fgraph, node.inputs[0], above)
            self.collect(fgraph, node.inputs[1], not above)
        elif node.op == reciprocal:
            self.divisions += 1
            self.collect(fgraph, node.inputs[0], not above)
        elif node.op == second:
            # second(a, b) is b broadcast to a's shape (gradients of sums make them)
            self.shapes.append(node.inputs[0])
            self.collect(fgraph, node.inputs[1], above)
        else:
            self.negations += 1
            self.collect(fgraph, node.inputs[0], above)


def _constant_of(var: Variable):
    value = scalar_constant(var)
    if value is None or np.ndim(value) != 0:
        return None
    return value


def _fold_constants(factors: Factors, dtype: str) -> tuple[bool, object]:
    """Remove uniform constants from both lists; returns (changed, their quotient or None)."""
    value, count, below = 1.0, 0, False
    for side, sign in ((factors.num, 1), (factors.den, -1)):
        for var in list(side):
            c = _constant_of(var)
            if c is None:
                continue
            side.remove(var)
            count += 1
            below |= sign < 0
            with np.errstate(all="ignore"):
                value = value * c if sign > 0 else value / c
    if count == 0:
        return False, None
    value = np.asarray(value).astype(dtype)
    useless_one = value == 1 and bool(factors.num)  # x * 1, (2 * x) / 2
    return count > 1 or below or useless_one, (None if value == 1 else value)


def _product(terms: list[Variable]) -> Variable | None:
    if not terms:
        return None
    return terms[0] if len(terms) == 1 else mul(*terms)


def _rank(var: Variable) -> tuple:
    return (not isinstance(var, Constant), int(var.auto_name.rsplit("_", 1)[1]))


def build_quotient(
    num: list[Variable], den: list[Variable], coefficient, like: Variable, negate: bool = False
):
    """``coefficient * prod(num) / prod(den)`` as one division of two sorted products
    (negated when ``negate``)."""
    quotient = _quotient(sorted(num, key=_rank), sorted(den, key=_rank), coefficient, like)
    return neg(quotient) if negate else quotient


def _quotient(num, den, coefficient, like):
    ndim = like.type.ndim
    if coefficient is not None:
        num = [constant(coefficient, ndim=ndim)] + num
    top = _product(num)
    bottom = _product(den)
    if bottom is None:
        return top if top is not None else constant(np.asarray(1, like.type.dtype), ndim=ndim)
    if top is None:
        top = constant(np.asarray(1, like.type.dtype), ndim=ndim)
    return true_div(top, bottom)


def _finish(node, new: Variable, references: list[Variable]) -> list[Variable] | None:
    out = node.outputs[0]
    if new.type.dtype != out.type.dtype:
        return None
    new = broadcast_like(new, out, [*node.inputs, *references])
    if new is None:
        return None
    copy_stack_trace(out, new)
    return [new]


def _flat_product(node) -> bool:
    """A product none of whose inputs is computed by a product or quotient (x * 2.0): the
    cheap test that lets most multiplications of a large graph through at once."""
    if node.op != mul:
        return False
    return not any(i.owner is not None and i.owner.op in _QUOTIENT_OPS for i in node.inputs)


def _root_factors(fgraph, node) -> Factors | None:
    out = node.outputs[0]
    if not _is_link(out, out.type.dtype):
        return None
    clients = fgraph.clients.get(out, [])
    if (
        len(clients) == 1
        and clients[0][0] != "output"
        and _is_link(clients[0][0].outputs[0], out.type.dtype)
    ):
        return None  # an inner link: its chain is rewritten from the root
    factors = Factors()
    factors.collect(fgraph, out, True, root=True)
    return factors


def _same_structure(new: Variable, old: Variable, leaves: set) -> bool:
    """Whether ``new`` computes ``old`` with the same nodes down to the factors ``leaves``."""
    if new is old:
        return True
    if new in leaves or old in leaves or new.owner is None or old.owner is None:
        return isinstance(new, Constant) and isinstance(old, Constant) and new.equals(old)
    if new.owner.op != old.owner.op or len(new.owner.inputs) != len(old.owner.inputs):
        return False
    pairs = zip(new.owner.inputs, old.owner.inputs)
    return all(_same_structure(a, b, leaves) for a, b in pairs)


# also in "stabilize": the stabilizing rules create quotients (exp(x) / (1 + exp(x)) becomes
# sigmoid(x), and sigmoid(x) / sigmoid(x) then cancels)
@register_rewrite("canonicalize", "stabilize", "algebra")
@node_rewriter([mul, true_div, reciprocal, neg])
def local_mul_div_canonical(fgraph, node):
    """a * (b / c) -> (a * b) / c, (a / b) / c -> a / (b * c), -a / b -> -(a / b), constants
    folded into one factor in front.

    Chains without a nested division are left to the simpler rules (flattening and sorting
    products, ``x * 1``, ``--x``, ``-x * -y``).
    """
    if _flat_product(node):
        return None
    factors = _root_factors(fgraph, node)
    if factors is None or factors.divisions <= int(node.op in (true_div, reciprocal)):
        return None
    references = factors.num + factors.den + factors.shapes
    _, coefficient = _fold_constants(factors, node.outputs[0].type.dtype)
    out = node.outputs[0]
    negate = factors.negations % 2 == 1
    new = build_quotient(factors.num, factors.den, coefficient, out, negate)
    if _same_structure(new, out, set(references)):
        return None
    return _finish(node, new, references)


def _as_product(var: Variable) -> list[Variable]:
    """``[u, u]`` for ``u^2`` or ``u ** 2`` (so that ``u / u^2`` cancels), else ``[var]``."""
    owner = var.owner
    if owner is not None and owner.op == sqr:
        return [owner.inputs[0]] * 2
    squared = owner is not None and owner.op == pow and scalar_constant(owner.inputs[1]) == 2
    if squared and owner.inputs[0].type.dtype == var.type.dtype:
        return [owner.inputs[0]] * 2
    return [var]


def _opened(factors: list[Variable], num: list[Variable], den: list[Variable]) -> int:
    """Split factors that are quotients used elsewhere too (``1 / s`` in ``(1 / s) * s``):
    cancelling through them removes this use, and computes nothing twice. Returns the number
    of negations opened."""
    negations = 0
    for var in factors:
        owner = var.owner
        link = owner is not None and _is_link(var, var.type.dtype)
        if link and owner.op == mul:
            negations += _opened(owner.inputs, num, den)
        elif link and owner.op == neg:
            negations += 1 + _opened(owner.inputs, num, den)
        elif link and owner.op == true_div:
            negations += _opened([owner.inputs[0]], num, den)
            negations += _opened([owner.inputs[1]], den, num)
        elif link and owner.op == reciprocal:
            negations += _opened([owner.inputs[0]], den, num)
        else:
            num.extend(_as_product(var))
    return negations


def _cancel(factors: Factors) -> list[Variable]:
    """Remove the factors found above and below; returns them (empty: nothing cancels)."""
    num: list[Variable] = []
    den: list[Variable] = []
    negations = _opened(factors.num, num, den) + _opened(factors.den, den, num)
    cancelled = []
    for var in list(den):
        if var in num:
            num.remove(var)
            den.remove(var)
            cancelled.append(var)
    if cancelled:
        factors.num, factors.den = num, den
        factors.negations += negations
    return cancelled


@register_rewrite("canonicalize", "stabilize", "algebra", "cancel")
@node_rewriter([mul, true_div, reciprocal, neg])
def local_mul_div_cancel(fgraph, node):
    """(x * y) / y -> x: a factor above and below cancels (nan where y is 0, inf or nan)."""
    if _flat_product(node):
        return None  # no quotient, hence nothing below to cancel
    factors = _root_factors(fgraph, node)
    if factors is None:
        return None
    references = factors.num + factors.den + factors.shapes
    cancelled = _cancel(factors)
    if not cancelled:
        return None
    _, coefficient = _fold_constants(factors, node.outputs[0].type.dtype)
    new = build_quotient(
        factors.num, factors.den, coefficient, node.outputs[0], factors.negations % 2 == 1
    )
    new = keep_shape_checks(pad_to_ndim(new, node.outputs[0].type.ndim), cancelled)
    return _finish(node, new, references)


def _term_cancels(term: Variable, others: list[Variable]) -> bool:
    """Whether ``term`` divides by one of ``others`` (so that multiplying them cancels)."""
    num: list[Variable] = []
    den: list[Variable] = []
    _opened([term], num, den)
    return any(d in others for d in den)


@register_rewrite("canonicalize", "stabilize", "algebra", "cancel")
@node_rewriter([mul, true_div])
def local_distribute_to_cancel(fgraph, node):
    """y * (g / y - z) -> g - y * z: distribute a product over a sum when a term then cancels.

    The gradient of log(softmax(x)) is written so (y the softmax): dividing by a softmax that
    underflowed to 0 gave nan. Exact wherever y is finite and nonzero (tag "cancel").
    """
    if _flat_product(node) and not any(
        i.owner is not None and i.owner.op in (add, sub) for i in node.inputs
    ):
        return None
    factors = _root_factors(fgraph, node)
    if factors is None:
        return None
    out = node.outputs[0]
    for k, factor in enumerate(factors.num):
        owner = factor.owner
        if owner is None or owner.op not in (add, sub) or factor.type.dtype != out.type.dtype:
            continue
        others = factors.num[:k] + factors.num[k + 1 :]
        if not any(_term_cancels(t, others) for t in owner.inputs):
            continue
        terms = [build_quotient([*others, t], factors.den, None, t) for t in owner.inputs]
        new = owner.op(*terms)
        new = neg(new) if factors.negations % 2 else new
        return _finish(node, new, factors.num + factors.den + factors.shapes)
    return None


def _term_factors(fgraph, term: Variable) -> Factors:
    """The factors of a term of a sum, through quotients used elsewhere too (the terms of a
    derivative share their quotients)."""
    factors = Factors()
    if not _is_link(term, term.type.dtype):
        factors.num.append(term)
        return factors
    factors.collect(fgraph, term, True, root=True)
    num: list[Variable] = []
    den: list[Variable] = []
    factors.negations += _opened(factors.num, num, den) + _opened(factors.den, den, num)
    factors.num, factors.den = num, den
    return factors


def _same_factor(a: Variable, b: Variable) -> bool:
    return a is b or (isinstance(a, Constant) and isinstance(b, Constant) and a.equals(b))


def _take_common(first: list[Variable], second: list[Variable]) -> list[Variable]:
    """Remove the factors ``first`` and ``second`` share from both; return them."""
    common = []
    for var in list(first):
        match = next((w for w in second if _same_factor(var, w)), None)
        if match is not None:
            first.remove(var)
            second.remove(match)
            common.append(var)
    return common


@register_rewrite("stabilize", "algebra")
@node_rewriter([add, sub])
def local_factor_common(fgraph, node):
    """a * b - a * c -> a * (b - c), a / d + b / d -> (a + b) / d: the sum or difference of
    the rest may then be stabilized.

    sigmoid(x) - sigmoid(x)^2 (the derivative of sigmoid written by hand) becomes
    sigmoid(x) * (1 - sigmoid(x)), then sigmoid(x) * sigmoid(-x); c * e^x - c * e^-x becomes
    c * (e^x - e^-x), then 2 c sinh(x).
    """
    out = node.outputs[0]
    if len(node.inputs) != 2 or not _is_float_node(node):
        return None
    left, right = (_term_factors(fgraph, t) for t in node.inputs)
    common = _take_common(left.num, right.num)
    constant_only = all(isinstance(c, Constant) for c in common)
    if common and constant_only and not (left.num and right.num):
        # 1 is a factor of everything: c * a - c * b only, not 1 + 1
        left.num, right.num, common = left.num + common, right.num + common, []
    below = _take_common(left.den, right.den)  # a / d + b / (d e) -> (a + b / e) / d
    if not common and not below:
        return None

    rests = [build_quotient(f.num, f.den, None, out, f.negations % 2 == 1) for f in (left, right)]
    new = build_quotient([*common, _combine(node.op, *rests)], below, None, out)
    shapes = left.shapes + right.shapes
    return _finish(node, new, [*node.inputs, *common, *below, *shapes])


def _combine(op, left: Variable, right: Variable) -> Variable:
    """``op(left, right)``, with a negated term as a subtraction (a - b, not a + -b)."""
    if op == add:
        for first, second_term in ((left, right), (right, left)):
            if second_term.owner is not None and second_term.owner.op == neg:
                return sub(first, second_term.owner.inputs[0])
    return op(left, right)


def _is_float_node(node) -> bool:
    dtype = node.outputs[0].type.dtype
    return dtype.startswith("float") and all(i.type.dtype == dtype for i in node.inputs)
