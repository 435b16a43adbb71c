"""Rewrites for the elementwise ops of ``arignote.tensor.math``: algebra, stability, speed.

Identities are pattern tables, one rule per line with the math as a comment; rewrites that
need logic (flattening variadic chains, combining constants, casts) are node rewriters.
Phases: "canonicalize" brings equivalent graphs to one form, "stabilize" replaces expressions
that overflow or lose precision, "specialize" picks the cheapest form of what remains.
"""

from __future__ import annotations

import numpy as np

from arignote import scalar as ps
from arignote.graph.basic import Constant, Variable
from arignote.graph.rewriting.basic import copy_stack_trace, node_rewriter
from arignote.graph.rewriting.db import register_patterns, register_rewrite
from arignote.graph.rewriting.pattern import pattern_vars
from arignote.scalar.basic import discrete_dtypes
from arignote.tensor.basic import constant
from arignote.tensor.elemwise import Elemwise
from arignote.tensor.math import (
    abs,
    add,
    cast,
    exp,
    expm1,
    ge,
    log,
    log1mexp,
    log1p,
    mul,
    neg,
    pow,
    reciprocal,
    sigmoid,
    softplus,
    sqr,
    sqrt,
    sub,
    switch,
    true_div,
)
from arignote.tensor.rewriting.basic import (
    broadcast_like,
    keep_shape_checks,
    pad_to_ndim,
    scalar_constant,
    single_client,
)

x, y = pattern_vars("x y")


def _is_discrete(x: Variable, **_) -> bool:
    return x.type.dtype in discrete_dtypes


def _is_float(var: Variable) -> bool:
    return var.type.dtype.startswith(("float", "complex"))


def _is_real(x: Variable, **_) -> bool:
    """Not complex: ``log(exp(x)) == x`` only up to multiples of 2*pi*i, ``sqrt(x^2)`` is
    ``+-x`` rather than ``|x|``, and ``x >= 0`` orders complex numbers lexicographically."""
    return not x.type.dtype.startswith("complex")


def _is_real_float(x: Variable, **_) -> bool:
    """A real floating-point ``x`` (sigmoid, softplus and log1mexp are real functions)."""
    return x.type.dtype.startswith("float")


def _not_unsigned(x: Variable, **_) -> bool:
    """Not an unsigned integer, whose negation wraps around (``|-x| == |x|`` fails)."""
    return not x.type.dtype.startswith("uint")


# -- canonicalization ----------------------------------------------------------------------------

# Identities that also clean up after the other phases (stabilize/specialize create --x, x*1...).
CANONICALIZE_CLEANUP = [
    ((neg, (neg, x)), x),  # --x -> x
    ((mul, x, 1), x),  # x * 1 -> x
    ((add, x, 0), x),  # x + 0 -> x
    ((sub, x, 0), x),  # x - 0 -> x
    ((true_div, x, 1), x),  # x / 1 -> x
]
register_patterns(("canonicalize", "stabilize", "specialize", "algebra"), CANONICALIZE_CLEANUP)

CANONICALIZE_ALGEBRA = [
    ((sub, 0, x), (neg, x)),  # 0 - x -> -x
    ((mul, x, -1), (neg, x)),  # x * -1 -> -x
    ((true_div, x, -1), (neg, x)),  # x / -1 -> -x
    ((add, x, (neg, y)), (sub, x, y)),  # x + -y -> x - y  (add is matched commutatively)
    ((sub, x, (neg, y)), (add, x, y)),  # x - -y -> x + y
    ((neg, (sub, x, y)), (sub, y, x)),  # -(x - y) -> y - x
    ((mul, (neg, x), (neg, y)), (mul, x, y)),  # -x * -y -> x * y
    ((true_div, (neg, x), (neg, y)), (true_div, x, y)),  # -x / -y -> x / y
    ((sub, (add, x, y), y), x),  # (x + y) - y -> x
    ((sub, x, x), 0, {"constraint": _is_discrete}),  # x - x -> 0 for integers
    ((pow, x, 1), x),  # x ** 1 -> x
    ((pow, x, 0), 1),  # x ** 0 -> 1  (also for x = 0 and x = nan, as in NumPy)
    ((log, (exp, x)), x, {"constraint": _is_real}),  # log(exp(x)) -> x
    ((exp, (log, x)), (switch, (ge, x, 0), x, np.nan), {"constraint": _is_real}),  # x if x >= 0
    ((mul, x, x), (sqr, x)),  # x * x -> x^2
    ((sqrt, (sqr, x)), (abs, x), {"constraint": _is_real}),  # sqrt(x^2) -> |x|
    ((sqr, (neg, x)), (sqr, x)),  # (-x)^2 -> x^2
    ((abs, (neg, x)), (abs, x), {"constraint": _not_unsigned}),  # |-x| -> |x|
    ((abs, (abs, x)), (abs, x)),  # ||x|| -> |x|
]
# same_dtype: these identities hold for reals and in a fixed-width integer ring, not when an
# operand of another dtype wraps around or computes in another precision first.
register_patterns(("canonicalize", "algebra"), CANONICALIZE_ALGEBRA, same_dtype=True)

# Wrong where x is 0, inf or nan (nan before, a number after): only on request.
CANONICALIZE_UNSAFE = [
    ((true_div, x, x), 1),  # x / x -> 1
    ((sub, x, x), 0),  # x - x -> 0  (nan and inf give nan before)
]
register_patterns(("canonicalize", "unsafe"), CANONICALIZE_UNSAFE)


def _creation_rank(var: Variable) -> int:
    """An order on variables that is stable while rewriting (creation order)."""
    return var.creation_index


def _sort_key(var: Variable) -> tuple:
    # Constants first, so that ``x * 2`` and ``2 * x`` become the same node, printed as the
    # documents write it (the derivative of ``x ** 2`` is ``2.0 * x``).
    return (not isinstance(var, Constant), _creation_rank(var))


def _same_dtype_chain_link(node) -> bool:
    """Whether ``node``'s inputs all have its output dtype (so its fold order does not matter)."""
    dtype = node.outputs[0].type.dtype
    return all(i.type.dtype == dtype for i in node.inputs)


def _absorbed_by_parent(fgraph, node) -> bool:
    """Whether ``node`` is an inner link of a chain that its single user will flatten."""
    (client, _), *others = fgraph.clients.get(node.outputs[0], [("output", 0)])
    return (
        not others
        and client != "output"
        and client.op == node.op
        and (_same_dtype_chain_link(client))
    )


def _flattened_terms(fgraph, node) -> list[Variable]:
    """Inputs of an add/mul chain rooted at ``node``, through single-use inner links, in order."""
    terms: list[Variable] = []
    stack = list(reversed(node.inputs))
    while stack:
        inp = stack.pop()
        inner = inp.owner
        if (
            inner is not None
            and inner.op == node.op
            and _same_dtype_chain_link(inner)
            and single_client(fgraph, inp)
        ):
            stack.extend(reversed(inner.inputs))
        else:
            terms.append(inp)
    return terms


def _combine_constants(op: Elemwise, terms: list[Variable], dtype: str) -> list[Variable]:
    """The terms with their constants folded into one, dropped if it is the identity.

    (A dropped constant that gave the result its shape is restored by the caller's broadcast.)
    """
    constants = [t for t in terms if isinstance(t, Constant)]
    others = [t for t in terms if not isinstance(t, Constant)]
    if not constants or not others:
        return terms
    value = constants[0].data
    for c in constants[1:]:
        value = op.scalar_op.elementwise(value, c.data)
    value = np.asarray(value)
    if np.all(value == op.scalar_op.identity):
        return others
    if len(constants) == 1:
        return terms
    return others + [constant(value.astype(dtype), ndim=terms[0].type.ndim)]


@register_rewrite("canonicalize", "algebra")
@node_rewriter([add, mul])
def local_add_mul_canonical(fgraph, node):
    """add(add(a, b), c) -> add(a, b, c), constants combined, terms sorted (same for mul)."""
    out = node.outputs[0]
    if not _same_dtype_chain_link(node):
        return None  # mixed dtypes: the order of the fold decides intermediate dtypes
    if _absorbed_by_parent(fgraph, node):
        return None  # flattening the whole chain once, from its root, costs O(length)
    terms = _combine_constants(node.op, _flattened_terms(fgraph, node), out.type.dtype)
    terms = sorted(terms, key=_sort_key)
    if terms == node.inputs:
        return None
    new = terms[0] if len(terms) == 1 else node.op(*terms)
    new = broadcast_like(new, out, node.inputs)
    if new is None:
        return None
    copy_stack_trace(out, new)
    return [new]


def _cast_op_dtype(node) -> str | None:
    op = node.op if node is not None else None
    if isinstance(op, Elemwise) and isinstance(op.scalar_op, ps.Cast):
        return op.scalar_op.o_type.dtype
    return None


@register_rewrite("canonicalize", "stabilize", "specialize", "casts")
@node_rewriter([Elemwise])
def local_useless_cast(fgraph, node):
    """cast(x, dtype) -> x when x already has that dtype."""
    target = _cast_op_dtype(node)
    if target is None or node.inputs[0].type.dtype != target:
        return None
    return [node.inputs[0]]


@register_rewrite("canonicalize", "casts")
@node_rewriter([Elemwise])
def local_float_function_of_cast(fgraph, node):
    """f(n) -> f(cast(n, float)) for a float function f of an integer or boolean n.

    The function computes in its output dtype anyway (NumPy casts the integers first), so the
    cast changes nothing; made explicit, it lets the float rules match: ``log(1 - sigmoid(n))``
    of an int64 ``n`` then becomes ``-softplus(n)`` like its float spelling.
    """
    if not isinstance(node.op.scalar_op, ps.FloatUnaryOp) or node.op.inplace_pattern:
        return None
    (inp,), (out,) = node.inputs, node.outputs
    if inp.type.dtype not in discrete_dtypes or not out.type.dtype.startswith("float"):
        return None
    new = node.op(cast(inp, out.type.dtype))
    if new.type != out.type:
        return None
    copy_stack_trace(out, new)
    return [new]


@register_rewrite("canonicalize", "casts")
@node_rewriter([Elemwise])
def local_cast_cast(fgraph, node):
    """cast(cast(x, t1), t2) -> cast(x, t2) when the cast to t1 loses nothing."""
    outer = _cast_op_dtype(node)
    inner_node = node.inputs[0].owner
    middle = _cast_op_dtype(inner_node)
    if outer is None or middle is None:
        return None
    source = inner_node.inputs[0]
    if not np.can_cast(source.type.dtype, middle, "safe"):
        return None
    new = cast(source, outer)
    copy_stack_trace(node.outputs[0], new)
    return [new]


@register_rewrite("canonicalize", "algebra")
@node_rewriter([switch])
def local_switch_known_condition(fgraph, node):
    """switch(c, a, b) -> a (b) where c is known true (false) everywhere; switch(c, a, a) -> a.

    The inputs dropped keep their run-time shape check (``second``): switch(c, a, a) with c of
    run-time length 1 against a's 4 raises without the rewrite, and must with it.
    """
    cond, a, b = node.inputs
    out = node.outputs[0]
    if a is b:
        chosen, dropped = a, [cond]
    else:
        value = scalar_constant(cond)
        if value is None:
            return None
        chosen, dropped = (a, [cond, b]) if value else (b, [cond, a])
    new = broadcast_like(cast(chosen, out.type.dtype), out, node.inputs)
    if new is None:
        return None
    new = keep_shape_checks(new, [pad_to_ndim(d, out.type.ndim) for d in dropped])
    copy_stack_trace(out, new)
    return [new]


# -- stabilization -------------------------------------------------------------------------------

REAL = {"constraint": _is_real_float}

STABILIZE_LOGS_AND_EXPS = [
    ((log, (add, 1, x)), (log1p, x)),  # log(1 + x) -> log1p(x)
    ((log, (sub, 1, x)), (log1p, (neg, x))),  # log(1 - x) -> log1p(-x)
    ((sub, (exp, x), 1), (expm1, x)),  # exp(x) - 1 -> expm1(x)
    ((add, (exp, x), -1), (expm1, x)),  # exp(x) + -1 -> expm1(x)
    ((log1p, (exp, x)), (softplus, x), REAL),  # log(1 + exp(x)) -> softplus(x)
    ((log1p, (expm1, x)), x, REAL),  # log(1 + (exp(x) - 1)) -> x
    ((log, (sigmoid, x)), (neg, (softplus, (neg, x))), REAL),  # log(sigmoid(x)) -> -softplus(-x)
    ((sub, 1, (sigmoid, x)), (sigmoid, (neg, x)), REAL),  # 1 - sigmoid(x) -> sigmoid(-x)
    ((log1p, (neg, (sigmoid, x))), (neg, (softplus, x)), REAL),  # log(1-sigmoid(x)) -> -sp(x)
    ((log1p, (neg, (exp, x))), (log1mexp, x), REAL),  # log(1 - exp(x)) -> log1mexp(x)
    ((log, (neg, (expm1, x))), (log1mexp, x), REAL),  # log(-(exp(x) - 1)) -> log1mexp(x)
]
# same_dtype: integers and bools compute these in another precision (log1p of a bool is
# float16, log(1 + b) float64) and may wrap around when negated; floats are what needs them.
register_patterns("stabilize", STABILIZE_LOGS_AND_EXPS, same_dtype=True)


# -- specialization ------------------------------------------------------------------------------


def _float_result(**bindings) -> bool:
    return all(_is_float(v) for v in bindings.values())


SPECIALIZE_POWERS = [
    ((pow, x, 2), (sqr, x)),  # x ** 2 -> x^2
    ((pow, x, 0.5), (sqrt, x)),  # x ** 0.5 -> sqrt(x)
    ((pow, x, -1), (reciprocal, x), {"constraint": _float_result}),  # x ** -1 -> 1 / x
    ((true_div, 1, x), (reciprocal, x), {"constraint": _float_result}),  # 1 / x -> reciprocal
    ((pow, x, -2), (reciprocal, (sqr, x)), {"constraint": _float_result}),  # x**-2 -> 1/x^2
    ((pow, x, -0.5), (reciprocal, (sqrt, x)), {"constraint": _float_result}),  # 1 / sqrt(x)
]
register_patterns("specialize", SPECIALIZE_POWERS, same_dtype=True)  # int8 ** 0.5 is float64

# NOTE: after "specialize", whose BLAS rewrites look for scaled products (2 * dot(a, b)).
# Off by default ("experimental"): fused elementwise loops make the two equally fast, and the
# documents show the derivative of x ** 2 compiled as ``2.0 * x``.
UNCANONICALIZE_CHEAPER = [
    ((mul, x, 2), (add, x, x)),  # x * 2 -> x + x  (an add is never slower than a multiply)
]
# same_dtype: a bool doubled is 2, a bool added to itself True; int8 * 2.0 is a float
register_patterns(("uncanonicalize", "experimental"), UNCANONICALIZE_CHEAPER, same_dtype=True)


def _power_by_squaring(base: Variable, exponent: int) -> Variable:
    """base ** exponent (exponent >= 2) with O(log exponent) multiplications."""
    result = None
    square = base
    while exponent:
        if exponent & 1:
            result = square if result is None else mul(result, square)
        exponent >>= 1
        if exponent:
            square = sqr(square)
    return result


@register_rewrite("specialize", "algebra")
@node_rewriter([pow])
def local_pow_integer_exponent(fgraph, node):
    """x ** n -> products of repeated squares of x, for a constant integer 3 <= n <= 64."""
    base, exponent = node.inputs
    value = _uniform_constant(exponent)
    if value is None or not float(value).is_integer() or not 3 <= value <= 64:
        return None
    if exponent.type.ndim and any(s != 1 for s in exponent.type.shape):
        return None  # a non-scalar exponent broadcasts the result
    out = node.outputs[0]
    new = _power_by_squaring(cast(base, out.type.dtype), int(value))
    if new.type.dtype != out.type.dtype:
        return None
    new = broadcast_like(new, out, node.inputs)
    if new is None:
        return None
    copy_stack_trace(out, new)
    return [new]


def _uniform_constant(var: Variable):
    if not isinstance(var, Constant):
        return None
    flat = np.asarray(var.data).reshape(-1)
    if flat.size == 0 or not np.all(flat == flat[0]) or flat.dtype.kind not in "iuf":
        return None
    return flat[0]


__all__: list[str] = []
