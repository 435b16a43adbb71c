"""Reverse mode: ``grad`` and ``Lop``.

The pass is autograd's: a topological order of the nodes between the graph inputs (or the
``consider_constant`` cut) and the cost, a table of cotangent terms per variable summed on first
read, and one visit per node through its op's ``L_op(inputs, outputs, output_grads)``. The
special cases of the Op contract (disconnected outputs, undefined gradients, integer-valued
outputs) are the named helpers of :mod:`arignote.autodiff.node_grads`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from arignote.autodiff.connection import checked_connection_pattern, connected_descendants
from arignote.autodiff.node_grads import (
    GradientNotDefinedError,
    accumulate,
    cast_to,
    float_zeros_like,
    grad_dtype_of,
    node_input_grads,
    warn_caller,
)
from arignote.graph.basic import Apply, Variable
from arignote.graph.grad_types import (
    DisconnectedInputError,
    NullTypeGradError,
    disconnected,
    is_disconnected,
    is_null,
)
from arignote.graph.traversal import io_toposort
from arignote.scalar.basic import continuous_dtypes
from arignote.tensor.basic import as_tensor_variable

__all__ = ["GradientNotDefinedError", "Lop", "grad"]

DISCONNECTED_INPUTS = ("raise", "warn", "ignore")
RETURN_DISCONNECTED = ("zero", "none", "disconnected")
NULL_GRADIENTS = ("raise", "return")


# -- argument handling ----------------------------------------------------------------------


def as_list(x: Any) -> tuple[list, str]:
    """``x`` as a list, and how to give results back: "list", "tuple" or "single"."""
    if isinstance(x, list):
        return list(x), "list"
    if isinstance(x, tuple):
        return list(x), "tuple"
    return [x], "single"


def restructure(values: list, structure: str) -> Any:
    """The inverse of :func:`as_list`."""
    if structure == "list":
        return values
    if structure == "tuple":
        return tuple(values)
    return values[0]


def check_choice(name: str, value: Any, choices: Sequence[str]) -> str:
    if not isinstance(value, str) or value.lower() not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}; got {value!r}")
    return value.lower()


def check_variables(values: Iterable[Any], what: str) -> None:
    for v in values:
        if not isinstance(v, Variable):
            raise TypeError(f"{what} must contain Variables, got {type(v).__name__} ({v!r})")


def _consider_constant_set(consider_constant: Any) -> set[Variable]:
    if consider_constant is None:
        return set()
    if isinstance(consider_constant, Variable) or not isinstance(consider_constant, Iterable):
        raise TypeError(
            f"consider_constant must be a list of variables, got {type(consider_constant).__name__}"
        )
    values = list(consider_constant)
    check_variables(values, "consider_constant")
    return set(values)


def _as_cotangent(var: Variable, g: Any, what: str) -> Variable:
    """A user-given cotangent for ``var``, checked: a float tensor of ``var``'s ndim."""
    g = g if isinstance(g, Variable) else as_tensor_variable(g)
    if is_null(g) or is_disconnected(g):
        return g
    dtype = getattr(g.type, "dtype", None)
    if dtype not in continuous_dtypes:
        raise TypeError(
            f"{what} for {var} has type {g.type}: gradients must be floating-point (or NullType "
            "/ DisconnectedType), never integer-valued"
        )
    var_ndim, g_ndim = getattr(var.type, "ndim", None), getattr(g.type, "ndim", None)
    if var_ndim is not None and g_ndim is not None and var_ndim != g_ndim:
        raise ValueError(f"{what} for {var} ({var.type}) has {g_ndim} dimensions ({g.type})")
    return g


def _one_like(cost: Variable) -> Variable:
    """d cost / d cost = 1, as ``fill(cost, 1)``: the gradient graph then has the cost's
    inputs among its inputs, as in PyTensor, so ``function([x], grad(2 * x, x))`` is a
    function of ``x`` (a bare constant would make ``x`` an unused input). Rewrites fold the
    fill away when the gradient does not need the cost's value."""
    return cost.ones_like(dtype=grad_dtype_of(cost))


def _initial_cotangents(cost: Variable | None, known_grads: dict | None) -> dict:
    """The cotangents fixed before the pass: d cost/d cost = 1, and ``known_grads``."""
    known: dict[Variable, Variable] = {}
    if cost is not None:
        if not isinstance(cost, Variable):
            raise TypeError(f"cost must be a Variable, got {type(cost).__name__} ({cost!r})")
        if is_null(cost):
            raise ValueError(f"Cannot differentiate an undefined cost: {cost.type.why_null}")
        if getattr(cost.type, "ndim", 0) != 0:
            raise TypeError(f"cost must be a scalar (0-d), got {cost} of type {cost.type}")
        known[cost] = _one_like(cost)
    elif not known_grads:
        raise ValueError("grad needs a cost, or known_grads (or both)")
    for var, g in (known_grads or {}).items():
        check_variables([var], "known_grads keys")
        known[var] = _as_cotangent(var, g, "known_grads entry")
    return known


# -- the pass -------------------------------------------------------------------------------


class Cotangents:
    """Cotangent terms per variable; the terms of a variable are summed when first read.

    A variable read before it has any term has no gradient (it is disconnected from the cost).
    Known cotangents (the cost's seed, ``known_grads``) replace whatever terms arrive.
    """

    def __init__(self, known: dict[Variable, Variable]) -> None:
        self.known = known
        self.terms: dict[Variable, list[Variable]] = {}
        self.totals: dict[Variable, Variable | None] = {}

    def add(self, var: Variable, term: Variable) -> None:
        if var in self.totals:
            raise AssertionError(f"gradient term for {var} arrived after its total was read")
        self.terms.setdefault(var, []).append(term)

    def total(self, var: Variable) -> Variable | None:
        if var in self.known:
            g = self.known[var]
            return None if is_disconnected(g) else g
        if var not in self.totals:
            terms = self.terms.pop(var, None)
            self.totals[var] = accumulate(terms) if terms else None
        return self.totals[var]


def backward(order: list[Apply], cotangents: Cotangents, connected: set[Variable]) -> None:
    """Propagate cotangents from the outputs of ``order`` to its inputs, last node first.

    Only inputs in ``connected`` (those depending on some variable of interest) receive terms;
    a node none of whose inputs is wanted is not differentiated at all.
    """
    for node in reversed(order):
        out_grads = [cotangents.total(out) for out in node.outputs]
        if all(g is None for g in out_grads):
            continue
        pattern = checked_connection_pattern(node)
        live = [g is not None for g in out_grads]
        reaches_cost = [any(p and alive for p, alive in zip(row, live)) for row in pattern]
        wanted = [r and inp in connected for inp, r in zip(node.inputs, reaches_cost)]
        if not any(wanted):
            continue
        terms = node_input_grads(node, out_grads, pattern)
        for inp, term, want in zip(node.inputs, terms, wanted):
            if want and not is_disconnected(term):
                cotangents.add(inp, term)


def _disconnected_result(
    var: Variable, disconnected_inputs: str, return_disconnected: str
) -> Variable | None:
    message = (
        f"grad was asked for the gradient with respect to {var}, which is not part of the "
        "computational graph of the cost, or is used only through non-differentiable "
        "operations (pass disconnected_inputs='ignore' or 'warn' to accept this)"
    )
    if disconnected_inputs == "raise":
        raise DisconnectedInputError(message)
    if disconnected_inputs == "warn":
        warn_caller(message)
    if return_disconnected == "zero":
        return float_zeros_like(var)
    if return_disconnected == "none":
        return None
    return disconnected()


def _finish(var: Variable, total: Variable | None, options: tuple[str, str, str]):
    disconnected_inputs, return_disconnected, null_gradients = options
    if total is None:
        return _disconnected_result(var, disconnected_inputs, return_disconnected)
    if is_null(total):
        if null_gradients == "raise":
            raise NullTypeGradError(
                f"grad encountered an undefined gradient with respect to {var}: "
                f"{total.type.why_null}"
            )
        return total
    dtype = getattr(var.type, "dtype", None)
    if dtype in continuous_dtypes and total.type.dtype != dtype:
        total = cast_to(total, dtype)
    return total


def grad(
    cost: Variable | None,
    wrt: Variable | Sequence[Variable],
    consider_constant: Sequence[Variable] | None = None,
    disconnected_inputs: str = "raise",
    add_names: bool = True,
    known_grads: dict | None = None,
    return_disconnected: str = "zero",
    null_gradients: str = "raise",
) -> Any:
    """Symbolic gradient of the scalar ``cost`` with respect to ``wrt``.

    Parameters
    ----------
    cost
        A 0-d variable, or None when ``known_grads`` gives the starting gradients.
    wrt
        A variable or a list/tuple of variables anywhere in the graph (inputs or intermediate
        results). The result has the same structure: a variable, a list or a tuple.
    consider_constant
        Variables treated as constants: gradients flow into them but not through them to
        their ancestors.
    disconnected_inputs
        What to do when the cost does not depend on a ``wrt`` entry (it is not in the graph, or
        only reaches the cost through non-differentiable paths): "raise"
        (:class:`DisconnectedInputError`), "warn" or "ignore".
    add_names
        Name each gradient ``(dcost/dvar)`` when the cost and the variable have names.
    known_grads
        ``{variable: gradient}`` for gradients known beforehand; they replace whatever the
        cost would contribute to those variables and are propagated backwards from there.
    return_disconnected
        The gradient returned for a disconnected ``wrt`` entry: "zero" (zeros like it, in a
        float dtype), "none" (None) or "disconnected" (a DisconnectedType variable).
    null_gradients
        "raise" (:class:`NullTypeGradError`, whose message names the op, the input position
        and the reason) when a requested gradient is undefined or not implemented; "return" to
        get the NullType variable instead.

    Returns
    -------
    The gradient(s), never integer-typed; a float ``wrt`` gets a gradient of its own dtype.
    """
    options = (
        check_choice("disconnected_inputs", disconnected_inputs, DISCONNECTED_INPUTS),
        check_choice("return_disconnected", return_disconnected, RETURN_DISCONNECTED),
        check_choice("null_gradients", null_gradients, NULL_GRADIENTS),
    )
    wrt_list, structure = as_list(wrt)
    check_variables(wrt_list, "wrt")
    blocked = _consider_constant_set(consider_constant)
    known = _initial_cotangents(cost, known_grads)

    order = io_toposort(blocked, list(known))
    cotangents = Cotangents(known)
    backward(order, cotangents, connected_descendants(order, wrt_list))

    results = [_finish(var, cotangents.total(var), options) for var in wrt_list]
    if add_names and cost is not None and cost.name:
        given = set(known.values())
        for var, result in zip(wrt_list, results):
            if var.name and result is not None and result.owner is not None and result not in given:
                result.name = f"(d{cost.name}/d{var.name})"
    return restructure(results, structure)


def Lop(
    f: Variable | Sequence[Variable],
    wrt: Variable | Sequence[Variable],
    eval_points: Variable | Sequence[Variable],
    consider_constant: Sequence[Variable] | None = None,
    disconnected_inputs: str = "raise",
    return_disconnected: str = "zero",
) -> Any:
    """The L-operator: the vector-Jacobian product ``eval_points^T @ (d f / d wrt)``.

    ``f`` and ``eval_points`` are a variable or lists of the same length (one cotangent per
    output, shaped like it); the result follows the structure of ``wrt``. It is
    ``grad(None, wrt, known_grads=dict(zip(f, eval_points)))``; ``return_disconnected`` is
    as in :func:`grad`.
    """
    f_list, _ = as_list(f)
    points, _ = as_list(eval_points)
    if len(f_list) != len(points):
        raise ValueError(f"Lop: {len(f_list)} outputs but {len(points)} eval points")
    known: dict[Variable, Variable] = {}
    for out, point in zip(f_list, points):
        out = out if isinstance(out, Variable) else as_tensor_variable(out)
        point = _as_cotangent(out, point, "Lop eval point")
        known[out] = known[out] + point if out in known else point
    return grad(
        None,
        wrt,
        consider_constant=consider_constant,
        disconnected_inputs=disconnected_inputs,
        known_grads=known,
        return_disconnected=return_disconnected,
    )
