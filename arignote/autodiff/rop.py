"""Forward mode: ``Rop``, the Jacobian-vector product, node by node through ``R_op``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arignote.autodiff.grad import _as_list, _check_variables, _grad_dtype, grad
from arignote.graph.basic import Apply, Variable
from arignote.graph.grad_types import is_disconnected, is_null
from arignote.graph.traversal import io_toposort
from arignote.graph.utils import MethodNotDefined
from arignote.tensor.basic import as_tensor_variable


def _rop_through_lop(node: Apply, eval_points: list) -> list:
    """``J v`` for ``node`` from its ``L_op`` alone (the "double L-op" trick).

    With ``u`` standing for an output cotangent, ``L_op`` gives ``J^T u``, linear in ``u``;
    the gradient of ``<J^T u, v>`` with respect to ``u`` is ``J v``, whatever the value of ``u``
    (zeros are used).
    """
    seeds = [out.zeros_like(dtype=_grad_dtype(out)) for out in node.outputs]
    vjps = node.op.L_op(node.inputs, node.outputs, seeds)
    inner = None
    for vjp, point in zip(vjps, eval_points):
        if point is None or is_disconnected(vjp) or is_null(vjp):
            continue
        term = (vjp * point).sum()
        inner = term if inner is None else inner + term
    if inner is None:
        return [None] * len(node.outputs)
    results = grad(inner, seeds, disconnected_inputs="ignore", return_disconnected="none")
    return list(results)


def _node_rop(node: Apply, eval_points: list) -> list:
    try:
        results = node.op.R_op(node.inputs, eval_points)
    except MethodNotDefined:
        results = _rop_through_lop(node, eval_points)
    if results is None:
        return [None] * len(node.outputs)
    if len(results) != len(node.outputs):
        raise ValueError(
            f"{node.op}.R_op returned {len(results)} results for {len(node.outputs)} outputs"
        )
    return list(results)


def Rop(
    f: Variable | Sequence[Variable],
    wrt: Variable | Sequence[Variable],
    eval_points: Variable | Sequence[Variable],
    disconnected_outputs: str = "raise",
    return_disconnected: str = "zero",
) -> Variable | list[Variable]:
    """Jacobian-vector product ``d f / d wrt . eval_points`` (forward mode).

    Each op on the way contributes through its ``R_op``; an op that does not define ``R_op``
    is differentiated through its ``L_op`` instead (the double-L-op trick, see
    :func:`_rop_through_lop`), so any differentiable graph works. An ``R_op`` returning None
    for an output means no contribution. The result follows the structure of ``f``; an output
    that does not depend on ``wrt`` gets zeros (``return_disconnected="zero"``) or None
    (``"none"``), after ``disconnected_outputs`` ("raise", "warn", "ignore") was applied.
    """
    f_list, f_is_list = _as_list(f)
    wrt_list, _ = _as_list(wrt)
    points, _ = _as_list(eval_points)
    _check_variables(f_list, "f")
    _check_variables(wrt_list, "wrt")
    if len(wrt_list) != len(points):
        raise ValueError(f"Rop: {len(wrt_list)} wrt variables but {len(points)} eval points")
    tangents: dict[Variable, Any] = {}
    for var, point in zip(wrt_list, points):
        point = point if isinstance(point, Variable) else as_tensor_variable(point)
        if getattr(point.type, "ndim", None) != getattr(var.type, "ndim", None):
            raise ValueError(
                f"Rop: eval point {point} has type {point.type}, expected like {var.type}"
            )
        tangents[var] = point
    for node in io_toposort(wrt_list, f_list):
        local = [tangents.get(i) for i in node.inputs]
        if all(p is None for p in local):
            continue
        for out, value in zip(node.outputs, _node_rop(node, local)):
            if value is not None and not is_disconnected(value):
                tangents[out] = value
    results = [
        _result(out, tangents.get(out), disconnected_outputs, return_disconnected) for out in f_list
    ]
    return results if f_is_list else results[0]


def _result(out: Variable, value: Any, disconnected_outputs: str, return_disconnected: str):
    if value is not None:
        return value
    if disconnected_outputs == "raise":
        raise ValueError(
            f"Rop: {out} does not depend on the wrt variables (pass "
            "disconnected_outputs='ignore' to accept this)"
        )
    return out.zeros_like(dtype=_grad_dtype(out)) if return_disconnected == "zero" else None
