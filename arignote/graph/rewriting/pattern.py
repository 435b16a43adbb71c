"""Declarative rewrites: patterns written as nested tuples, matched against graphs.

A pattern is a nested tuple ``(op, *sub_patterns)``, a :class:`PatternVar` (binds any
variable; the same name must bind the same variable everywhere in a pattern), a Python number
(matches a variable whose value is that constant everywhere), or a constrained sub-pattern
``{"pattern": p, "constraint": predicate}``. A replacement uses the same vocabulary: tuples are
applications of ops, pattern variables stand for what they bound, numbers are passed to the op
as they are, and a callable receives the bindings as keyword arguments::

    x, y = pattern_vars("x y")
    CANONICALIZE_NEGATIONS = [
        ((neg, (neg, x)), x),  # --x -> x
    ]
    register_patterns("canonicalize", CANONICALIZE_NEGATIONS)  # in graph.rewriting.db

This module is generic: what "a constant equal to 1" means, whether an op is commutative, how
to give a replacement the type of the variable it replaces, and how ops are named, are hooks
(:func:`functools.singledispatch` functions below) that the tensor layer registers.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from functools import singledispatch
from typing import Any

import numpy as np

from arignote.graph.basic import Apply, Constant, Variable
from arignote.graph.op import Op
from arignote.graph.rewriting.rewriter import NodeRewriter, copy_stack_trace

__all__ = [
    "PatternMatcher",
    "PatternNodeRewriter",
    "PatternVar",
    "pattern_vars",
    "register_patterns",
    "strings_as_vars",
]


class PatternVar:
    """A named hole in a pattern; ``constraint(var)`` (if given) must hold for what it binds."""

    __slots__ = ("constraint", "name")

    def __init__(self, name: str, constraint: Callable[[Variable], bool] | None = None) -> None:
        self.name = name
        self.constraint = constraint

    def __repr__(self) -> str:
        return self.name


def pattern_vars(names: str) -> tuple[PatternVar, ...]:
    """Pattern variables named by the words of ``names``: ``x, y = pattern_vars("x y")``."""
    return tuple(PatternVar(n) for n in names.replace(",", " ").split())


def strings_as_vars(pattern: Any, named: dict[str, PatternVar]) -> Any:
    """``pattern`` with every string replaced by the pattern variable of that name.

    Aesara and PyTensor write pattern variables as plain strings (``(log, (exp, "x"))``);
    this accepts that spelling beside :class:`PatternVar`. ``named`` maps names to the
    variables already made, so that a repeated name is one variable.
    """
    if isinstance(pattern, str):
        return named.setdefault(pattern, PatternVar(pattern))
    if isinstance(pattern, tuple):
        return tuple(strings_as_vars(p, named) for p in pattern)
    if isinstance(pattern, dict) and "pattern" in pattern:
        return {**pattern, "pattern": strings_as_vars(pattern["pattern"], named)}
    return pattern


# -- hooks the domain layers register ---------------------------------------------------------


class NotAConstant(Exception):
    """Raised by :func:`constant_value` hooks for variables whose value is not known."""


@singledispatch
def constant_value(type_: Any, var: Variable) -> Any:
    """The value of ``var`` if it is known when the graph is built (dispatched on its type).

    The generic rule knows only :class:`Constant`; the tensor layer sees through broadcasts.
    """
    if isinstance(var, Constant):
        return var.data
    raise NotAConstant(var)


@singledispatch
def may_be_constant(type_: Any, var: Variable) -> bool:
    """A cheap test that ``var`` might have a known value (dispatched on its type); patterns
    with literals use it to skip nodes before trying :func:`constant_value`."""
    return isinstance(var, Constant)


@singledispatch
def is_commutative(op: Any) -> bool:
    """Whether ``op(a, b, ...)`` is unchanged by permuting its inputs (dispatched on the op)."""
    return bool(getattr(op, "commutative", False))


@singledispatch
def fit_replacement(type_: Any, new: Variable, old: Variable, node: Apply, allow_cast: bool):
    """``new`` made usable in place of ``old`` (the output of ``node``), or None if it cannot be.

    ``new`` may also be a plain value (a replacement that is a literal). Dispatched on ``old``'s
    type. The generic rule accepts a variable whose type is a subtype of ``old``'s, or a value
    ``old``'s type can hold; the tensor layer also casts (with ``allow_cast``) and broadcasts.
    """
    if not isinstance(new, Variable):
        try:
            return old.type.filter_variable(new, allow_convert=True)
        except (TypeError, ValueError):
            return None
    if old.type.is_super(new.type):
        return new
    return None


@singledispatch
def op_label(op: Any) -> str:
    """How an op is written in the generated names of rules (``neg`` rather than ``Elemwise``)."""
    return op.__name__ if isinstance(op, type) else str(op)


# -- matching ----------------------------------------------------------------------------------


def _constant_equals(var: Variable, literal: Any) -> bool:
    if not may_be_constant(var.type, var):
        return False
    try:
        value = constant_value(var.type, var)
    except NotAConstant:
        return False
    if isinstance(value, np.ndarray):
        if value.size == 0:
            return False
        with np.errstate(all="ignore"):
            return bool(np.all(value == literal))
    with np.errstate(all="ignore"):
        return bool(value == literal)


def _op_matches(pattern_op: Any, op: Any) -> bool:
    if isinstance(pattern_op, type):
        return isinstance(op, pattern_op)
    # ops cache their hash: comparing it first makes most mismatches cheap
    return op is pattern_op or (hash(op) == hash(pattern_op) and op == pattern_op)


def _match(pattern: Any, var: Variable, bindings: dict) -> dict | None:
    """``bindings`` extended so that ``pattern`` matches ``var``, or None."""
    if isinstance(pattern, PatternVar):
        bound = bindings.get(pattern.name)
        if bound is not None:
            return bindings if _same(bound, var) else None
        if pattern.constraint is not None and not pattern.constraint(var):
            return None
        return {**bindings, pattern.name: var}
    if isinstance(pattern, dict):
        found = _match(pattern["pattern"], var, bindings)
        if found is None or not pattern["constraint"](var):
            return None
        return found
    if isinstance(pattern, tuple):
        return _match_application(pattern, var, bindings)
    return bindings if _constant_equals(var, pattern) else None


def _same(a: Variable, b: Variable) -> bool:
    return a is b or (isinstance(a, Constant) and a.equals(b))


def _match_application(pattern: tuple, var: Variable, bindings: dict) -> dict | None:
    node = var.owner
    if node is None or len(node.outputs) != 1 or not _op_matches(pattern[0], node.op):
        return None
    subs = pattern[1:]
    if len(subs) != len(node.inputs):
        return None
    orders: Iterable = [node.inputs]
    if len(subs) > 1 and is_commutative(node.op):
        # Small arities only: permutations grow factorially.
        orders = itertools.permutations(node.inputs) if len(subs) <= 4 else orders
    for inputs in orders:
        found: dict | None = bindings
        for sub, inp in zip(subs, inputs):
            found = _match(sub, inp, found)
            if found is None:
                break
        if found is not None:
            return found
    return None


def match(pattern: Any, var: Variable) -> dict | None:
    """The bindings under which ``pattern`` matches ``var`` (None if it does not)."""
    return _match(pattern, var, {})


# -- building replacements ---------------------------------------------------------------------


def build(template: Any, bindings: dict) -> Any:
    """The graph described by replacement ``template`` with ``bindings`` substituted."""
    if isinstance(template, PatternVar):
        return bindings[template.name]
    if isinstance(template, tuple):
        op, *args = template
        return op(*[build(a, bindings) for a in args])
    if callable(template) and not isinstance(template, (Op, type)):
        return template(**bindings)
    return template


# -- naming ----------------------------------------------------------------------------------


def describe(pattern: Any) -> str:
    """A readable text for a pattern: ``neg(neg(x))``, ``log(add(1, x))``."""
    if isinstance(pattern, PatternVar):
        return pattern.name
    if isinstance(pattern, dict):
        constraint = pattern["constraint"]
        return f"{describe(pattern['pattern'])}:{getattr(constraint, '__name__', 'constraint')}"
    if isinstance(pattern, tuple):
        return f"{op_label(pattern[0])}({', '.join(describe(p) for p in pattern[1:])})"
    if callable(pattern):
        return getattr(pattern, "__name__", "fn")
    return repr(pattern)


def _is_literal(sub: Any) -> bool:
    return not isinstance(sub, (PatternVar, dict, tuple)) and not callable(sub)


def _child_ops(pattern: tuple) -> list:
    """Ops that must produce some direct input of a match (for early rejection)."""
    ops = []
    for sub in pattern[1:]:
        if isinstance(sub, dict):
            sub = sub["pattern"]
        if isinstance(sub, tuple):
            ops.append(sub[0])
    return ops


# -- rewriters ---------------------------------------------------------------------------------


class PatternNodeRewriter(NodeRewriter):
    """Replaces what matches ``in_pattern`` by ``out_pattern`` (see the module docstring).

    ``constraint(**bindings)`` may veto a match. With ``allow_cast`` a replacement of another
    dtype is cast to the replaced variable's dtype; without it, such a match is skipped. With
    ``same_dtype`` the rule fires only when every bound variable has the dtype of the variable
    it replaces: an identity of real numbers (``x + -y == x - y``) also holds in a fixed-width
    integer ring, but not once a narrower operand wraps around first (``-y`` for a uint8 ``y``
    added to a float), nor where the replacement computes in another precision than the
    original did (``log1p`` of a bool is float16, ``log(1 + b)`` float64).
    """

    def __init__(
        self,
        in_pattern: tuple,
        out_pattern: Any,
        name: str | None = None,
        allow_cast: bool = True,
        constraint: Callable[..., bool] | None = None,
        same_dtype: bool = False,
    ) -> None:
        if not isinstance(in_pattern, tuple) or not in_pattern:
            raise TypeError(f"A pattern must be a tuple (op, *sub_patterns), got {in_pattern!r}")
        named: dict[str, PatternVar] = {}
        in_pattern = strings_as_vars(in_pattern, named)
        out_pattern = strings_as_vars(out_pattern, named)
        root = in_pattern[0]
        if not (isinstance(root, Op) or (isinstance(root, type) and issubclass(root, Op))):
            raise TypeError(f"A pattern must start with an Op or Op class, got {root!r}")
        self.in_pattern = in_pattern
        self.out_pattern = out_pattern
        self.allow_cast = allow_cast
        self.constraint = constraint
        self.same_dtype = same_dtype
        self.name = name or f"{describe(in_pattern)} -> {describe(out_pattern)}"
        self._child_ops = _child_ops(in_pattern)
        self._arity = len(in_pattern) - 1
        self._literals = sum(map(_is_literal, in_pattern[1:]))

    def tracks(self) -> list:
        return [self.in_pattern[0]]

    def _early_reject(self, node: Apply) -> bool:
        if self._literals and sum(may_be_constant(i.type, i) for i in node.inputs) < self._literals:
            return True
        if not self._child_ops:
            return False
        present = [i.owner.op for i in node.inputs if i.owner is not None]
        if len(present) < len(self._child_ops):
            return True  # (add, (exp, x), (exp, y)) needs two computed inputs
        return not all(any(_op_matches(op, p) for p in present) for op in self._child_ops)

    def transform(self, fgraph: Any, node: Apply) -> list | None:
        if len(node.inputs) != self._arity or len(node.outputs) != 1 or self._early_reject(node):
            return None
        old = node.outputs[0]
        bindings = match(self.in_pattern, old)
        if bindings is None:
            return None
        if self.same_dtype and not _one_dtype(old, bindings.values()):
            return None
        if self.constraint is not None and not self.constraint(**bindings):
            return None
        new = build(self.out_pattern, bindings)
        if new is old:
            return None
        fitted = fit_replacement(old.type, new, old, node, self.allow_cast)
        if fitted is None:
            return None
        copy_stack_trace(old, fitted)
        return [fitted]

    def __repr__(self) -> str:
        return f"PatternNodeRewriter({self.name})"


def _one_dtype(old: Variable, bound: Iterable[Variable]) -> bool:
    """Whether every variable of ``bound`` has the dtype of ``old`` (types without a dtype
    are not compared)."""
    dtype = getattr(old.type, "dtype", None)
    return all(getattr(v.type, "dtype", dtype) == dtype for v in bound)


class PatternMatcher(NodeRewriter):
    """Many pattern rules as one node rewriter, indexed by the op at the root of each pattern.

    Walkers apply its rules one by one (:meth:`leaves`), so traces name the rule that fired.
    """

    def __init__(self, rules: Sequence[PatternNodeRewriter], name: str | None = None) -> None:
        self.rules = list(rules)
        self.name = name
        self._by_instance: dict = {}
        self._by_class: list = []
        for rule in self.rules:
            root = rule.in_pattern[0]
            if isinstance(root, type):
                self._by_class.append(rule)
            else:
                self._by_instance.setdefault(root, []).append(rule)

    def tracks(self) -> list:
        return [rule.in_pattern[0] for rule in self.rules]

    def leaves(self) -> list[NodeRewriter]:
        return list(self.rules)

    def candidates(self, op: Op) -> list[PatternNodeRewriter]:
        """The rules whose root matches ``op``, in table order."""
        found = list(self._by_instance.get(op, ()))
        found += [r for r in self._by_class if isinstance(op, r.in_pattern[0])]
        return found

    def transform(self, fgraph: Any, node: Apply) -> list | None:
        for rule in self.candidates(node.op):
            result = rule.transform(fgraph, node)
            if result is not None:
                return result
        return None


def rule_from_entry(
    entry: Any, prefix: str, allow_cast: bool, same_dtype: bool
) -> PatternNodeRewriter:
    if isinstance(entry, PatternNodeRewriter):
        return entry
    if not isinstance(entry, tuple) or len(entry) not in (2, 3):
        raise TypeError(
            f"A pattern table entry is (pattern, replacement[, options]), got {entry!r}"
        )
    in_pattern, out_pattern = entry[0], entry[1]
    options = dict(entry[2]) if len(entry) == 3 else {}
    options.setdefault("allow_cast", allow_cast)
    options.setdefault("same_dtype", same_dtype)
    name = options.pop("name", None) or f"{prefix}:{describe(in_pattern)}"
    return PatternNodeRewriter(in_pattern, out_pattern, name=name, **options)


# ``register_patterns`` belongs to the rewrite database (``graph.rewriting.db``), which imports
# this module; the database hands it over here so that the older import path keeps working.
pattern_registrar: list[Callable[..., PatternMatcher]] = []


def register_patterns(*args: Any, **kwargs: Any) -> PatternMatcher:
    """:func:`arignote.graph.rewriting.db.register_patterns` (imported from here by older code)."""
    if not pattern_registrar:
        raise RuntimeError("import arignote.graph.rewriting (the rewrite database) first")
    return pattern_registrar[0](*args, **kwargs)
