"""Symbolic differentiation: the public home of ``grad``, ``Lop``, ``Rop`` and friends.

The reverse and forward passes live in :mod:`arignote.autodiff`; the types an op's ``grad``
returns in :mod:`arignote.graph.grad_types`; the gradient-changing identity ops in
:mod:`arignote.tensor.gradient_ops`; ``verify_grad`` in :mod:`arignote.testing`. This module adds
``jacobian`` and ``hessian``, which loop over rows with :class:`arignote.scan.IndexMap`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import arignote.tensor as _tensor
from arignote.autodiff import GradientNotDefinedError, Lop, Rop, grad, subgraph_grad
from arignote.autodiff.grad import DISCONNECTED_INPUTS, as_list, check_choice, restructure
from arignote.graph.basic import Variable
from arignote.graph.grad_types import (
    DisconnectedInputError,
    DisconnectedType,
    GradientError,
    NullTypeGradError,
    disconnected_type,
    grad_not_implemented,
    grad_undefined,
)
from arignote.graph.null_type import NullType
from arignote.graph.replace import vectorize_graph
from arignote.scan.index_map import index_map
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.gradient_ops import (
    ConsiderConstant,
    DisconnectedGrad,
    GradClip,
    GradScale,
    UndefinedGrad,
    ZeroGrad,
    consider_constant,
    disconnected_grad,
    disconnected_grad_,
    grad_clip,
    grad_scale,
    undefined_grad,
    undefined_grad_,
    zero_grad,
    zero_grad_,
)
from arignote.tensor.reshape import flatten, reshape
from arignote.tensor.shape import shape_i, shape_tuple
from arignote.testing.gradcheck import numeric_grad, verify_grad


def _jacobian_rows_by_map(flat: Variable, wrt: list, grad_kwargs: dict) -> list:
    """The Jacobian of the vector ``flat``, one row per index of a run-time loop: row ``i``
    is the gradient of ``flat[i]``."""

    def row(i: Variable, flat_: Variable, *wrt_: Variable) -> list:
        return grad(flat_[i], list(wrt_), **grad_kwargs)

    return index_map(row, shape_i(flat, 0), non_sequences=[flat, *wrt])


def _jacobian_rows_vectorized(flat: Variable, wrt: list, grad_kwargs: dict) -> list:
    """The Jacobian of the vector ``flat`` with no loop: the vector-Jacobian product with a
    symbolic cotangent ``u``, vectorized over the rows of the identity (row ``i`` is the
    product with ``e_i``). All rows are computed as one batched graph."""
    u = flat.type()
    rows = Lop(flat, wrt, u, **grad_kwargs)
    n = shape_i(flat, 0)
    eye = _tensor.eye(n, dtype=u.type.dtype)
    batched = vectorize_graph(rows, {u: eye})
    return [
        r if r.type.ndim > w.type.ndim else _tensor.alloc(r, n, *shape_tuple(w))
        for r, w in zip(batched, wrt)
    ]


def jacobian(
    expression: Any,
    wrt: Variable | Sequence[Variable],
    consider_constant: Sequence[Variable] | None = None,
    disconnected_inputs: str = "raise",
    vectorize: bool = False,
) -> Any:
    """The Jacobian of ``expression`` with respect to ``wrt``.

    Parameters
    ----------
    expression
        A tensor of any number of dimensions, whose length may be known only at run time.
    wrt
        A variable or a list/tuple of variables; the result has the same structure.
    consider_constant
        Variables not to differentiate through (see :func:`grad`).
    disconnected_inputs
        "raise", "warn" or "ignore", for a ``wrt`` entry the expression does not depend on
        (its Jacobian is then zeros).
    vectorize
        How the rows are computed; both ways give the same values. With False, a run-time
        loop (:class:`arignote.scan.IndexMap`) evaluates row ``i`` as the gradient of element
        ``i`` of the flattened expression. With True, the vector-Jacobian product (``Lop``)
        with a symbolic cotangent is vectorized (:func:`arignote.graph.vectorize_graph`) over
        the rows of an identity matrix: one batched graph, no loop, the forward values
        computed once, whatever the length (known when the graph is built or only at run
        time).

    Returns
    -------
    For each ``wrt`` entry ``w``, a tensor of shape ``expression.shape + w.shape`` holding
    ``d expression[idx] / d w[jdx]`` at ``[idx + jdx]``.
    """
    check_choice("disconnected_inputs", disconnected_inputs, DISCONNECTED_INPUTS)
    expression = as_tensor_variable(expression)
    wrt_list, structure = as_list(wrt)
    grad_kwargs = {
        "consider_constant": consider_constant,
        "disconnected_inputs": disconnected_inputs,
    }
    if expression.type.ndim == 0:
        return restructure(list(grad(expression, wrt_list, **grad_kwargs)), structure)
    flat = flatten(expression, 1)
    if vectorize:
        rows = _jacobian_rows_vectorized(flat, wrt_list, grad_kwargs)
    else:
        rows = _jacobian_rows_by_map(flat, wrt_list, grad_kwargs)
    if expression.type.ndim == 1:  # the rows already have the shape of the result
        return restructure(list(rows), structure)
    out_shape = list(shape_tuple(expression))
    results = [
        reshape(r, out_shape + list(shape_tuple(w)), ndim=expression.type.ndim + w.type.ndim)
        for r, w in zip(rows, wrt_list)
    ]
    return restructure(results, structure)


def hessian(
    cost: Any,
    wrt: Variable | Sequence[Variable],
    consider_constant: Sequence[Variable] | None = None,
    disconnected_inputs: str = "raise",
    vectorize: bool = False,
) -> Any:
    """The Hessian of the scalar ``cost`` with respect to each ``wrt`` entry.

    For ``w`` of any shape the result has shape ``w.shape + w.shape``: the Jacobian of
    ``grad(cost, w)`` with respect to ``w`` (see :func:`jacobian` for ``vectorize``). A ``w``
    the cost does not depend on is handled per ``disconnected_inputs`` (zeros unless "raise");
    a gradient that does not depend on ``w`` (a cost linear in ``w``) gives zeros. The result
    follows the structure of ``wrt``.
    """
    cost = as_tensor_variable(cost)
    if cost.type.ndim != 0:
        # ValueError, as PyTensor's hessian (grad itself raises TypeError for a non-scalar cost)
        raise ValueError(f"hessian expects a scalar cost, got {cost} of type {cost.type}")
    wrt_list, structure = as_list(wrt)
    results = []
    for w in wrt_list:
        g = grad(
            cost, w, consider_constant=consider_constant, disconnected_inputs=disconnected_inputs
        )
        results.append(
            jacobian(
                g,
                w,
                consider_constant=consider_constant,
                disconnected_inputs="ignore",
                vectorize=vectorize,
            )
        )
    return restructure(results, structure)


def pullback(
    f: Variable | Sequence[Variable],
    wrt: Variable | Sequence[Variable],
    cotangents: Variable | Sequence[Variable],
    consider_constant: Sequence[Variable] | None = None,
    disconnected_inputs: str = "raise",
    return_disconnected: str = "zero",
) -> Any:
    """The vector-Jacobian product ``cotangents^T @ (d f / d wrt)`` (PyTensor 3's name of ``Lop``).

    Parameters
    ----------
    f
        The output(s) pulled back through.
    wrt
        The variable(s) to differentiate with respect to; the result has their structure.
    cotangents
        One cotangent per output of ``f``, shaped like it.
    consider_constant, disconnected_inputs, return_disconnected
        As in :func:`grad`.
    """
    return Lop(f, wrt, cotangents, consider_constant, disconnected_inputs, return_disconnected)


def pushforward(
    f: Variable | Sequence[Variable],
    wrt: Variable | Sequence[Variable],
    tangents: Variable | Sequence[Variable],
    disconnected_outputs: str = "raise",
    return_disconnected: str = "zero",
    use_op_pushforward: bool = False,
) -> Any:
    """The Jacobian-vector product ``(d f / d wrt) @ tangents`` (PyTensor 3's name of ``Rop``).

    By default (as in PyTensor 3) it is computed by two pullbacks, which needs only each op's
    ``L_op``; ``use_op_pushforward=True`` goes through each op's ``R_op``/``pushforward``
    instead. The other options are those of :func:`Rop`.
    """
    return Rop(
        f,
        wrt,
        tangents,
        disconnected_outputs=disconnected_outputs,
        return_disconnected=return_disconnected,
        use_op_rop_implementation=use_op_pushforward,
    )


def pushforward_through_pullback(
    outputs: Sequence[Variable],
    inputs: Sequence[Variable],
    tangents: Sequence[Variable],
    disconnected_outputs: str = "raise",
    return_disconnected: str = "zero",
) -> Any:
    """The Jacobian-vector product by the double-pullback trick: the pullback of a dummy
    cotangent ``u`` gives ``J^T u``, linear in ``u``; the pullback of ``<J^T u, v>`` with
    respect to ``u`` is ``J v``."""
    return pushforward(outputs, inputs, tangents, disconnected_outputs, return_disconnected)


def hessian_vector_product(cost: Any, wrt: Any, p: Any, **grad_kwargs: Any) -> Any:
    """The Hessian of the scalar ``cost`` times ``p``, without forming the Hessian.

    ``H p = d/dw <d cost/dw, p>``: two reverse passes. ``wrt`` and ``p`` are a variable or
    lists of the same length (``p`` entries shaped like the ``wrt`` ones); the result has
    ``wrt``'s structure. ``grad_kwargs`` go to both :func:`grad` calls.
    """
    wrt_list, structure = as_list(wrt)
    p_list, _ = as_list(p)
    if len(wrt_list) != len(p_list):
        raise ValueError(f"hessian_vector_product: {len(wrt_list)} wrt but {len(p_list)} p")
    grads = grad(cost, wrt_list, **grad_kwargs)
    products = [(g * as_tensor_variable(v)).sum() for g, v in zip(grads, p_list)]
    inner = products[0] if len(products) == 1 else _tensor.add(*products)
    return restructure(list(grad(inner, wrt_list, **grad_kwargs)), structure)


def as_list_or_tuple(use_list: bool, use_tuple: bool, outputs: Any) -> Any:
    """``outputs`` as a list (``use_list``) or tuple (``use_tuple``), wrapping a single object;
    unchanged when both are False."""
    if use_list and use_tuple:
        raise ValueError("as_list_or_tuple: use_list and use_tuple cannot both be True")
    if not (use_list or use_tuple):
        return outputs
    items = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
    return items if use_list else tuple(items)


# ``import arignote.tensor as pt; pt.grad(...)`` works as in PyTensor: the tensor package sits
# below this module and cannot import it, so the names are registered on it from here.
for _name, _value in (
    ("grad", grad),
    ("jacobian", jacobian),
    ("hessian", hessian),
    ("consider_constant", consider_constant),
):
    setattr(_tensor, _name, _value)

__all__ = [
    "ConsiderConstant",
    "DisconnectedGrad",
    "DisconnectedInputError",
    "DisconnectedType",
    "GradClip",
    "GradScale",
    "GradientError",
    "GradientNotDefinedError",
    "Lop",
    "NullType",
    "NullTypeGradError",
    "Rop",
    "UndefinedGrad",
    "ZeroGrad",
    "as_list_or_tuple",
    "consider_constant",
    "disconnected_grad",
    "disconnected_grad_",
    "disconnected_type",
    "grad",
    "grad_clip",
    "grad_not_implemented",
    "grad_scale",
    "grad_undefined",
    "hessian",
    "hessian_vector_product",
    "jacobian",
    "numeric_grad",
    "pullback",
    "pushforward",
    "pushforward_through_pullback",
    "subgraph_grad",
    "undefined_grad",
    "undefined_grad_",
    "verify_grad",
    "zero_grad",
    "zero_grad_",
]
