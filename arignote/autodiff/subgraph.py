"""``subgraph_grad``: gradients of one part of a graph at a time."""

from __future__ import annotations

from typing import Any

from arignote.autodiff.grad import check_variables, grad
from arignote.graph.basic import Variable


def subgraph_grad(
    wrt: list[Variable],
    end: list[Variable],
    start: dict | None = None,
    cost: Variable | None = None,
    details: bool = False,
) -> tuple:
    """Gradients with respect to ``wrt`` and ``end``, flowing back no further than ``end``.

    The gradients start from ``cost`` (a scalar), from ``start`` (``{variable: gradient}``,
    gradients known from an earlier step), or from both (they are added). The ``end``
    variables are treated as constants (their ancestors receive nothing); their own
    gradients are returned so that the next step can use them as its ``start``, which is how
    a graph is differentiated one piece at a time (layer by layer, or around a
    non-differentiable step whose gradient is given by hand). Disconnected inputs are ignored
    (their gradient is zero).

    Parameters
    ----------
    wrt
        List of variables to differentiate with respect to.
    end
        List of variables where the gradient stops.
    start
        Known gradients (used as ``known_grads``).
    cost
        An additional scalar cost. If the gradient of ``cost`` with respect to a ``start``
        variable is already part of ``start``, it is counted twice.
    details
        Also return the gradients coming from ``start`` and from ``cost`` separately (each a
        list over ``wrt``, or None when that source was not given).

    Returns
    -------
    ``(wrt_grads, end_grads)``, or ``(wrt_grads, end_grads, start_grads, cost_grads)`` with
    ``details``.
    """
    if cost is None and start is None:
        raise ValueError("subgraph_grad needs a cost, a start, or both")
    if not isinstance(wrt, list) or not isinstance(end, list):
        raise TypeError("subgraph_grad: wrt and end must be lists of variables")
    check_variables(wrt + end, "wrt and end")
    if start is not None and not isinstance(start, dict):
        raise TypeError(f"subgraph_grad: start must be a dict, got {type(start).__name__}")

    params = list(dict.fromkeys(wrt + end))
    common: dict[str, Any] = {"consider_constant": end, "disconnected_inputs": "ignore"}
    start_grads = grad(None, params, known_grads=start, **common) if start is not None else None
    cost_grads = grad(cost, params, **common) if cost is not None else None
    if start_grads is None:
        totals = cost_grads
    elif cost_grads is None:
        totals = start_grads
    else:
        totals = [a + b for a, b in zip(start_grads, cost_grads)]

    by_param = dict(zip(params, totals))
    wrt_grads = [by_param[v] for v in wrt]
    end_grads = [by_param[v] for v in end]
    if not details:
        return wrt_grads, end_grads
    return (
        wrt_grads,
        end_grads,
        _restricted(start_grads, params, wrt),
        _restricted(cost_grads, params, wrt),
    )


def _restricted(grads: list | None, params: list, wrt: list) -> list | None:
    if grads is None:
        return None
    by_param = dict(zip(params, grads))
    return [by_param[v] for v in wrt]
