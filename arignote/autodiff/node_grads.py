"""One node of the reverse pass: calling ``L_op`` and enforcing the gradient rules of the contract.

The Op contract says (see the "Gradient" section of the seed documents):

- gradients are Variables and never have an integer dtype;
- an output the cost does not depend on gets a ``DisconnectedType`` output gradient, and an input
  that only feeds such outputs gets a ``DisconnectedType`` gradient;
- an undefined or unimplemented gradient is a ``NullType`` variable; anything computed from it
  is undefined too;
- an integer-valued output is a step function of its inputs: an input that reaches the cost only
  through integer-valued outputs has a zero (or undefined, or disconnected) gradient.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

import numpy as np

from arignote.config import config
from arignote.graph.basic import Apply, Variable
from arignote.graph.grad_types import disconnected, is_disconnected, is_null
from arignote.graph.utils import MethodNotDefined
from arignote.scalar.arithmetic import add as scalar_add
from arignote.scalar.arithmetic import cast as scalar_cast
from arignote.scalar.basic import ScalarType, continuous_dtypes, discrete_dtypes
from arignote.tensor.basic import NotScalarConstantError, get_scalar_constant_value
from arignote.tensor.math import add, cast


def warn_caller(message: str) -> None:
    """``warnings.warn`` pointing at the first frame outside arignote (the user's call to
    ``grad``, ``Rop``, ``jacobian``...), however deep in the library the warning is raised."""
    frame, level = sys._getframe(1), 2  # level 1 is this function, 2 its caller
    while frame is not None and frame.f_globals.get("__name__", "").startswith("arignote."):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, stacklevel=level)


class GradientNotDefinedError(TypeError, NotImplementedError):
    """An op on the path to the cost defines neither ``grad`` nor ``L_op``.

    Also a ``NotImplementedError``: PyTensor raises that class for an op without a gradient
    (its default ``Op.grad``), and code written for it catches it."""


def grad_dtype_of(var: Variable) -> str:
    """The dtype of a gradient with respect to ``var``: its own if float, else floatX."""
    dtype = getattr(var.type, "dtype", None)
    return dtype if dtype in continuous_dtypes else config.floatX


def float_zeros_like(var: Variable) -> Variable | None:
    """Zeros shaped like ``var`` in its gradient dtype (None for types without zeros)."""
    if not hasattr(var, "zeros_like"):
        return None
    return var.zeros_like(dtype=grad_dtype_of(var))


def is_discrete(var: Variable) -> bool:
    return getattr(var.type, "dtype", None) in discrete_dtypes


def cast_to(var: Variable, dtype: str) -> Variable:
    """``var`` converted to ``dtype`` with the cast of its own kind (tensor or scalar)."""
    if isinstance(var.type, ScalarType):
        return scalar_cast(var, dtype)
    return cast(var, dtype)


def accumulate(terms: list[Variable]) -> Variable:
    """The sum of the gradient terms of one variable (undefined if one of them is).

    One n-ary addition per variable keeps the gradient graph linear in the size of the graph.
    """
    for term in terms:
        if is_null(term):
            return term
    if len(terms) == 1:
        return terms[0]
    if all(isinstance(t.type, ScalarType) for t in terms):
        return scalar_add(*terms)
    return add(*terms)


def _output_grad_for_l_op(out: Variable, g: Variable | None) -> Variable:
    """What ``L_op`` receives for ``out``: its cotangent in ``out``'s float dtype, or a
    DisconnectedType variable (also for an undefined cotangent, handled by the caller)."""
    if g is None or is_null(g):
        return disconnected()
    dtype = getattr(out.type, "dtype", None)
    if dtype in continuous_dtypes and getattr(g.type, "dtype", dtype) != dtype:
        return cast_to(g, dtype)
    return g


def call_l_op(node: Apply, output_grads: list[Variable]) -> list:
    """``node.op.L_op`` on the node, with a clear error when the op has no gradient at all."""
    try:
        input_grads = node.op.L_op(node.inputs, node.outputs, output_grads)
    except MethodNotDefined as err:
        if err.method not in ("grad", "L_op"):
            raise
        raise GradientNotDefinedError(
            f"{node.op} (in {node}) does not define grad or L_op, so no gradient can flow "
            "through it. Define one, or return grad_undefined / grad_not_implemented for the "
            "inputs whose gradient does not exist."
        ) from err
    if not isinstance(input_grads, (list, tuple)) or len(input_grads) != len(node.inputs):
        count = len(input_grads) if isinstance(input_grads, (list, tuple)) else input_grads
        raise ValueError(
            f"{node.op}.grad must return a list with one gradient per input "
            f"({len(node.inputs)}), got {count!r}"
        )
    return list(input_grads)


def check_term(node: Apply, position: int, term: Any) -> Variable:
    """Validate the gradient ``node.op`` returned for its input ``position``."""
    inp = node.inputs[position]
    if term is None:
        raise TypeError(
            f"{node.op}.grad returned None for input {position}: return a DisconnectedType "
            "variable, or a NullType one (grad_undefined / grad_not_implemented), instead"
        )
    if not isinstance(term, Variable):
        raise TypeError(
            f"{node.op}.grad returned {type(term).__name__} ({term!r}) for input {position}: "
            "gradients must be Variables"
        )
    if is_null(term) or is_disconnected(term):
        return term
    dtype = getattr(term.type, "dtype", None)
    if dtype in discrete_dtypes:
        raise TypeError(
            f"{node.op}.grad illegally returned an integer-valued variable for input {position} "
            f"(dtype {dtype}): gradients are real-valued"
        )
    in_ndim, term_ndim = getattr(inp.type, "ndim", None), getattr(term.type, "ndim", None)
    if in_ndim is not None and term_ndim is not None and in_ndim != term_ndim:
        raise ValueError(
            f"{node.op}.grad returned a gradient of {term_ndim} dimensions for input {position}, "
            f"which has {in_ndim} ({inp.type})"
        )
    return term


def check_disconnection(node: Apply, position: int, term: Variable, reaches_cost: bool) -> None:
    """A DisconnectedType gradient for an input the connection pattern says is connected."""
    if not reaches_cost or not is_disconnected(term):
        return
    message = f"{node.op}.grad returned DisconnectedType for input {position}"
    if hasattr(node.op, "connection_pattern"):
        raise TypeError(f"{message}, which its connection_pattern declares connected")
    warn_caller(f"{message}: the op may want a connection_pattern method saying so")


def _is_zero(term: Variable) -> str:
    """'yes', 'no' or 'maybe' (when the value is not known when the graph is built)."""
    try:
        value = get_scalar_constant_value(term)
    except NotScalarConstantError:
        return "maybe"
    return "yes" if np.all(value == 0) else "no"


def _zero_for_integer_outputs(node: Apply, position: int, term: Variable) -> Variable:
    """The gradient of an input reaching the cost only through integer-valued outputs: zero.

    Such outputs are step functions of the input (constant almost everywhere). An undefined or
    disconnected gradient stays as it is; a gradient known to be nonzero is a bug of the op.
    """
    if is_null(term) or is_disconnected(term):
        return term
    if _is_zero(term) == "no":
        raise ValueError(
            f"{node.op}.grad returned a nonzero gradient for input {position}, which reaches the "
            "cost only through integer-valued outputs: that gradient must be zero"
        )
    return float_zeros_like(node.inputs[position])


def node_input_grads(node: Apply, out_grads: list, pattern: list[list[bool]]) -> list[Variable]:
    """The gradient term of each input of ``node``, given its outputs' cotangents.

    ``out_grads[j]`` is None for an output the cost does not depend on, possibly a NullType
    variable. Inputs that reach the cost only through undefined cotangents get that undefined
    gradient without calling ``L_op``.
    """
    live = [g is not None for g in out_grads]
    undefined = [g if g is not None and is_null(g) else None for g in out_grads]
    reaches = [any(p and alive for p, alive in zip(row, live)) for row in pattern]
    undefined_of = [
        next((u for u, p in zip(undefined, row) if p and u is not None), None) for row in pattern
    ]
    only_undefined = [
        all(u is not None for u, p, alive in zip(undefined, row, live) if p and alive)
        for row in pattern
    ]
    if all(only or not r for only, r in zip(only_undefined, reaches)):
        return [undefined_of[i] if r else disconnected() for i, r in enumerate(reaches)]

    passed = [_output_grad_for_l_op(out, g) for out, g in zip(node.outputs, out_grads)]
    raw = call_l_op(node, passed)
    discrete_out = [is_discrete(out) for out in node.outputs]
    terms = []
    for position, term in enumerate(raw):
        term = check_term(node, position, term)
        check_disconnection(node, position, term, reaches[position])
        row = pattern[position]
        if reaches[position] and undefined_of[position] is not None:
            term = undefined_of[position]
        elif reaches[position] and all(
            d for d, p, alive in zip(discrete_out, row, live) if p and alive
        ):
            term = _zero_for_integer_outputs(node, position, term)
        terms.append(term)
    return terms
