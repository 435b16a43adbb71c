"""Reverse mode: ``grad`` and ``Lop``.

The pass is autograd's: a topological order of the nodes between the variables of interest and
the cost, a dict of cotangent terms per variable, and one accumulation helper. Each node
contributes through its op's ``L_op(inputs, outputs, output_grads)``. The special cases of the
Op contract (disconnected outputs, undefined gradients, integer inputs) are named helpers below.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

from arignote.config import config
from arignote.graph.basic import Apply, Variable
from arignote.graph.grad_types import (
    DisconnectedInputError,
    NullTypeGradError,
    disconnected,
    is_disconnected,
    is_null,
)
from arignote.graph.op import get_connection_pattern
from arignote.graph.traversal import io_toposort
from arignote.graph.utils import MethodNotDefined
from arignote.scalar.basic import continuous_dtypes, discrete_dtypes
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.math import add, cast


class GradientNotDefinedError(TypeError):
    """An op on the path to the cost does not define its gradient."""


def _as_list(x: Any) -> tuple[list, bool]:
    if isinstance(x, (list, tuple)):
        return list(x), True
    return [x], False


def _check_variables(values: Sequence[Any], what: str) -> None:
    for v in values:
        if not isinstance(v, Variable):
            raise TypeError(f"{what} must contain Variables, got {type(v).__name__} ({v!r})")


def _grad_dtype(var: Variable) -> str:
    dtype = getattr(var.type, "dtype", None)
    return dtype if dtype in continuous_dtypes else config.floatX


def _cost_seed(cost: Variable) -> Variable:
    """d cost / d cost = 1 (in a float dtype, even for an integer-valued cost)."""
    return cost.ones_like(dtype=_grad_dtype(cost))


def _connected_variables(
    order: list[Apply], wrt: list[Variable], blocked: set[Variable]
) -> set[Variable]:
    """Variables whose value depends on some ``wrt`` (through connected op inputs)."""
    connected = {w for w in wrt if w not in blocked}
    for node in order:
        pattern = get_connection_pattern(node)
        for inp, row in zip(node.inputs, pattern):
            if inp not in connected:
                continue
            for out, linked in zip(node.outputs, row):
                if linked and out not in blocked:
                    connected.add(out)
    return connected


def accumulate(terms: list[Variable]) -> Variable:
    """Sum of cotangent contributions; undefined (NullType) if any contribution is."""
    for term in terms:
        if is_null(term):
            return term
    if len(terms) == 1:
        return terms[0]
    return add(*terms)


def _output_grads(node: Apply, cotangents: dict) -> list[Variable]:
    """Each output's accumulated cotangent, cast to its float dtype, or a disconnected marker."""
    grads = []
    for out in node.outputs:
        terms = cotangents.get(out)
        if not terms:
            grads.append(disconnected())
            continue
        total = accumulate(terms)
        cotangents[out] = [total]
        out_dtype = getattr(out.type, "dtype", None)
        if not is_null(total) and out_dtype in continuous_dtypes and total.type.dtype != out_dtype:
            total = cast(total, out_dtype)
        grads.append(total)
    return grads


def _call_l_op(node: Apply, output_grads: list[Variable]) -> list:
    try:
        input_grads = node.op.L_op(node.inputs, node.outputs, output_grads)
    except MethodNotDefined as err:
        raise GradientNotDefinedError(
            f"The op {node.op} (in {node}) does not define grad/L_op, so the gradient through it "
            f"cannot be computed: {err}"
        ) from err
    if input_grads is None or len(input_grads) != len(node.inputs):
        count = "None" if input_grads is None else len(input_grads)
        raise ValueError(
            f"{node.op}.grad returned {count} gradient terms for {len(node.inputs)} inputs"
        )
    return list(input_grads)


def _check_term(node: Apply, position: int, term: Any) -> Variable:
    if term is None:
        raise TypeError(
            f"{node.op}.grad returned None for input {position}; return a DisconnectedType or "
            "NullType variable (grad_undefined / grad_not_implemented) instead"
        )
    if not isinstance(term, Variable):
        term = as_tensor_variable(term)
    if is_null(term) or is_disconnected(term):
        return term
    dtype = getattr(term.type, "dtype", None)
    if dtype in discrete_dtypes:
        raise TypeError(
            f"{node.op}.grad illegally returned an integer-valued variable for input {position} "
            f"(dtype {dtype}): gradients are real-valued"
        )
    return term


def _check_connection(node: Apply, position: int, term: Variable, expected: bool) -> None:
    if not is_disconnected(term) or not expected:
        return
    if hasattr(node.op, "connection_pattern"):
        raise TypeError(
            f"{node.op}.grad returned DisconnectedType for input {position}, which its "
            "connection_pattern declares connected"
        )
    warnings.warn(
        f"{node.op}.grad returned DisconnectedType for input {position}; the op may want a "
        "connection_pattern method",
        stacklevel=4,
    )


def _backward(order: list[Apply], cotangents: dict, connected: set[Variable]) -> None:
    """Propagate cotangents from outputs to inputs through ``order`` reversed."""
    for node in reversed(order):
        if not any(cotangents.get(out) for out in node.outputs):
            continue
        pattern = get_connection_pattern(node)
        outputs_used = [bool(cotangents.get(out)) for out in node.outputs]
        wanted = [
            inp in connected and any(p and u for p, u in zip(row, outputs_used))
            for inp, row in zip(node.inputs, pattern)
        ]
        if not any(wanted):
            continue
        input_grads = _call_l_op(node, _output_grads(node, cotangents))
        for position, (inp, term, want) in enumerate(zip(node.inputs, input_grads, wanted)):
            term = _check_term(node, position, term)
            _check_connection(node, position, term, want)
            if want and not is_disconnected(term):
                cotangents.setdefault(inp, []).append(term)


def _finish(
    var: Variable,
    terms: list | None,
    disconnected_inputs: str,
    return_disconnected: str,
    null_gradients: str,
) -> Variable | None:
    if not terms:
        return _disconnected_result(var, disconnected_inputs, return_disconnected)
    total = accumulate(terms)
    if is_null(total):
        if null_gradients == "raise":
            raise NullTypeGradError(
                f"The gradient with respect to {var} is undefined or not implemented: "
                f"{total.type.why_null}"
            )
        return total
    dtype = getattr(var.type, "dtype", None)
    if dtype in continuous_dtypes and total.type.dtype != dtype:
        total = cast(total, dtype)
    return total


def _disconnected_result(
    var: Variable, disconnected_inputs: str, return_disconnected: str
) -> Variable | None:
    message = (
        f"The cost does not depend on {var}: it is not part of the graph of the cost, or it is "
        "used only through non-differentiable operations (pass disconnected_inputs='ignore' or "
        "'warn' to accept this)"
    )
    if disconnected_inputs == "raise":
        raise DisconnectedInputError(message)
    if disconnected_inputs == "warn":
        warnings.warn(message, stacklevel=3)
    elif disconnected_inputs != "ignore":
        raise ValueError(
            f"disconnected_inputs must be 'raise', 'warn' or 'ignore', got {disconnected_inputs!r}"
        )
    if return_disconnected == "zero":
        return var.zeros_like(dtype=_grad_dtype(var)) if hasattr(var, "zeros_like") else None
    if return_disconnected == "none":
        return None
    if return_disconnected == "disconnected":
        return disconnected()
    raise ValueError(
        f"return_disconnected must be 'zero', 'none' or 'disconnected', got {return_disconnected!r}"
    )


def grad(
    cost: Variable | None,
    wrt: Variable | Sequence[Variable],
    consider_constant: Sequence[Variable] | None = None,
    disconnected_inputs: str = "raise",
    add_names: bool = True,
    known_grads: dict | None = None,
    return_disconnected: str = "zero",
    null_gradients: str = "raise",
) -> Variable | list[Variable]:
    """Symbolic gradient of the scalar ``cost`` with respect to ``wrt``.

    ``wrt`` is a variable or a list of variables anywhere in the graph (inputs or intermediate);
    the result has the same structure. ``known_grads`` maps variables to gradients already known
    (the cost may then be None). ``consider_constant`` variables are treated as constants.
    ``disconnected_inputs`` ("raise", "warn", "ignore") decides what happens when the cost does
    not depend on a ``wrt`` entry, whose gradient is then zeros, None or a DisconnectedType
    variable per ``return_disconnected`` ("zero", "none", "disconnected"). An undefined or
    unimplemented gradient on the way raises :class:`NullTypeGradError` unless
    ``null_gradients="return"``.
    """
    wrt_list, as_list = _as_list(wrt)
    _check_variables(wrt_list, "wrt")
    cotangents: dict[Variable, list] = {}
    outputs: list[Variable] = []
    if cost is not None:
        if not isinstance(cost, Variable):
            raise TypeError(f"cost must be a Variable, got {type(cost).__name__}")
        if getattr(cost.type, "ndim", 0) != 0:
            raise TypeError(f"cost must be a scalar (0-d), got {cost.type}")
        cotangents[cost] = [_cost_seed(cost)]
        outputs.append(cost)
    elif not known_grads:
        raise ValueError("grad needs a cost, or known_grads")
    for var, g in (known_grads or {}).items():
        _check_variables([var], "known_grads keys")
        g = g if isinstance(g, Variable) else as_tensor_variable(g)
        cotangents.setdefault(var, []).append(g)
        outputs.append(var)

    blocked = set(consider_constant or ())
    order = io_toposort(wrt_list + list(blocked), outputs)
    connected = _connected_variables(order, wrt_list, blocked)
    _backward(order, cotangents, connected)

    results = []
    for var in wrt_list:
        result = _finish(
            var, cotangents.get(var), disconnected_inputs, return_disconnected, null_gradients
        )
        if add_names and result is not None and cost is not None and cost.name and var.name:
            result.name = f"(d{cost.name}/d{var.name})"
        results.append(result)
    return results if as_list else results[0]


def Lop(
    f: Variable | Sequence[Variable],
    wrt: Variable | Sequence[Variable],
    eval_points: Variable | Sequence[Variable],
    consider_constant: Sequence[Variable] | None = None,
    disconnected_inputs: str = "raise",
) -> Variable | list[Variable]:
    """Vector-Jacobian product ``eval_points^T . d f / d wrt`` (reverse mode).

    ``f`` and ``eval_points`` are a variable or lists of the same length; the result follows the
    structure of ``wrt``.
    """
    f_list, _ = _as_list(f)
    points, _ = _as_list(eval_points)
    if len(f_list) != len(points):
        raise ValueError(f"Lop: {len(f_list)} outputs but {len(points)} eval points")
    known = {}
    for out, point in zip(f_list, points):
        point = point if isinstance(point, Variable) else as_tensor_variable(point)
        if getattr(point.type, "ndim", None) != getattr(out.type, "ndim", None):
            raise ValueError(
                f"Lop: eval point {point} has type {point.type}, expected like {out.type}"
            )
        known[out] = point
    return grad(
        None,
        wrt,
        consider_constant=consider_constant,
        disconnected_inputs=disconnected_inputs,
        known_grads=known,
    )
