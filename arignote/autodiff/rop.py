"""Forward mode: ``Rop``, the Jacobian-vector product, node by node through ``R_op``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arignote.autodiff.connection import checked_connection_pattern
from arignote.autodiff.grad import (
    DISCONNECTED_INPUTS,
    RETURN_DISCONNECTED,
    Lop,
    as_list,
    check_choice,
    check_variables,
    grad,
    restructure,
)
from arignote.autodiff.node_grads import (
    GradientNotDefinedError,
    cast_to,
    float_zeros_like,
    grad_dtype_of,
    is_discrete,
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
from arignote.graph.replace import clone_replace
from arignote.graph.traversal import io_toposort
from arignote.scalar.basic import complex_dtypes, continuous_dtypes
from arignote.scalar.basic import conj as scalar_conj
from arignote.scalar.complex import real as scalar_real
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.math import conj as tensor_conj
from arignote.tensor.math import real as tensor_real
from arignote.tensor.type import TensorType


def _inner_product(terms: list[tuple[Variable, Variable]]) -> Variable | None:
    """``sum_k <a_k, b_k>`` over (a, b) pairs of equally shaped tensors (or scalars).

    The real inner product: complex numbers count as pairs of reals, ``<a, b> = Re(conj(a) b)``
    (gradients are ``dC/dRe + i dC/dIm``, so that is the product ``L_op`` is the adjoint for).
    """
    total = None
    for a, b in terms:
        is_tensor = isinstance(a.type, TensorType) or isinstance(b.type, TensorType)
        conj, real = (tensor_conj, tensor_real) if is_tensor else (scalar_conj, scalar_real)
        if a.type.dtype in complex_dtypes or b.type.dtype in complex_dtypes:
            term = real(conj(a) * b)
        else:
            term = a * b
        term = term.sum() if is_tensor else term
        total = term if total is None else total + term
    return total


def rop_through_lop(node: Apply, eval_points: list) -> list:
    """``J v`` for ``node`` from its ``L_op`` alone: the "double L-op" trick.

    ``L_op`` gives ``u -> J^T u``, which is linear in the cotangent ``u``. The gradient of
    ``<J^T u, v>`` with respect to ``u`` is therefore ``J v``, whatever ``u`` is; zeros shaped
    like the outputs are used. The result is None for an output whose JVP is identically zero,
    and undefined (NullType) for an output whose vector-Jacobian product is undefined.
    """
    node, eval_points, restore = _one_tangent_per_variable(node, eval_points)
    everything = list(range(len(node.outputs)))
    tangents = _double_lop(node, eval_points, everything)
    if len(everything) > 1 and any(t is not None and is_null(t) for t in tangents):
        # One output without a gradient (say an unimplemented one) must not make the tangents
        # of the others undefined: one output at a time then.
        tangents = [_double_lop(node, eval_points, [j])[0] for j in everything]
    return restore(tangents)


def _one_tangent_per_variable(node: Apply, eval_points: list) -> tuple:
    """``(node, eval_points, restore)`` where each input variable carries one tangent.

    The gradient with respect to a variable sums over the positions where the node uses it,
    so the trick pairs each variable once with its tangent. When a variable has different
    tangents at different positions (or a tangent at one and none at another), an equal node
    on fresh inputs stands in for ``node``, and ``restore`` maps its results back onto the
    original inputs and outputs.
    """
    first: dict[Variable, Variable | None] = {}
    conflict = False
    for inp, v in zip(node.inputs, eval_points):
        if first.setdefault(inp, v) is not v:  # None at one position and v at another too
            conflict = True
    if not conflict:
        return node, eval_points, list
    fresh = [inp if v is None else inp.type() for inp, v in zip(node.inputs, eval_points)]
    twin = node.op.make_node(*fresh)
    back = dict(zip(twin.outputs, node.outputs))
    back.update((f, inp) for f, inp in zip(fresh, node.inputs) if f is not inp)

    def restore(tangents: list) -> list:
        return [t if t is None or is_null(t) else clone_replace(t, replace=back) for t in tangents]

    return twin, eval_points, restore


def _double_lop(node: Apply, eval_points: list, seeded: list[int]) -> list:
    """The tangents of the outputs ``seeded`` of ``node`` (each input one tangent at most)."""
    tangent_of = {i: v for i, v in zip(node.inputs, eval_points) if v is not None}
    targets = list(tangent_of)
    outputs = [node.outputs[j] for j in seeded]
    seeds = [float_zeros_like(out) for out in outputs]
    if any(s is None for s in seeds):
        raise TypeError(f"Rop through {node.op}: its outputs have no zeros to seed an L_op with")
    try:
        vjps = grad(
            None,
            targets,
            known_grads=dict(zip(outputs, seeds)),
            consider_constant=node.inputs,
            disconnected_inputs="ignore",
            return_disconnected="none",
            null_gradients="return",
        )
    except GradientNotDefinedError as err:
        raise GradientNotDefinedError(
            f"{node.op} defines neither R_op nor grad: Rop cannot go through it"
        ) from err
    undefined = next((g for g in vjps if g is not None and is_null(g)), None)
    if undefined is not None:
        return [undefined] * len(outputs)
    pairs = [(g, tangent_of[i]) for i, g in zip(targets, vjps) if g is not None]
    inner = _inner_product(pairs)
    if inner is None:
        return [None] * len(outputs)
    blockers = list(node.inputs) + list(node.outputs)
    return grad(
        inner,
        seeds,
        consider_constant=blockers,
        disconnected_inputs="ignore",
        return_disconnected="none",
    )


def _call_r_op(node: Apply, eval_points: list) -> list:
    try:
        results = node.op.R_op(node.inputs, eval_points)
    except NotImplementedError:  # includes MethodNotDefined: the op has no R_op
        results = rop_through_lop(node, eval_points)
    if results is None:
        return [None] * len(node.outputs)
    if not isinstance(results, (list, tuple)) or len(results) != len(node.outputs):
        raise ValueError(
            f"{node.op}.R_op must return one result per output ({len(node.outputs)}), "
            f"got {results!r}"
        )
    return list(results)


def _checked_tangent(node: Apply, index: int, tangent: Any) -> Variable | None:
    """A result of ``R_op`` as the tangent of ``node.outputs[index]`` (None: no tangent)."""
    if tangent is None or is_disconnected(tangent) or is_null(tangent):
        return tangent if tangent is not None and is_null(tangent) else None
    out = node.outputs[index]
    if not isinstance(tangent, Variable):
        tangent = as_tensor_variable(tangent)
    if is_discrete(out):
        return None  # an integer-valued output does not move under small perturbations
    out_ndim = getattr(out.type, "ndim", None)
    if out_ndim is not None and getattr(tangent.type, "ndim", out_ndim) != out_ndim:
        raise ValueError(
            f"{node.op}.R_op returned a tangent of type {tangent.type} for output {index} "
            f"of type {out.type}"
        )
    dtype = getattr(out.type, "dtype", None)
    if dtype in continuous_dtypes and tangent.type.dtype != dtype:
        tangent = cast_to(tangent, dtype)
    return tangent


def _node_tangents(node: Apply, local: list) -> list:
    """The tangents of ``node``'s outputs from those of its inputs (``local``, None: none).

    An undefined (NullType) input tangent makes undefined the outputs whose elements that
    input affects (its ``connection_pattern`` row, as in ``grad``): ``shape(x)`` has no
    tangent whatever ``x``'s is. The op's ``R_op`` gives the others, without that input.
    """
    pattern = checked_connection_pattern(node)
    undefined: list = [None] * len(node.outputs)
    defined = list(local)
    for position, tangent in enumerate(local):
        if tangent is None or not is_null(tangent):
            continue
        defined[position] = None
        for k, connected in enumerate(pattern[position]):
            if connected and undefined[k] is None:
                undefined[k] = tangent
    if any(t is not None for t in defined):
        results = [_checked_tangent(node, k, t) for k, t in enumerate(_call_r_op(node, defined))]
    else:
        results = [None] * len(node.outputs)
    return [u if u is not None else t for u, t in zip(undefined, results)]


def _eval_point(var: Variable, point: Any) -> Variable:
    point = point if isinstance(point, Variable) else as_tensor_variable(point)
    var_ndim = getattr(var.type, "ndim", None)
    if var_ndim is not None and getattr(point.type, "ndim", var_ndim) != var_ndim:
        raise ValueError(
            f"Rop: the eval point {point} ({point.type}) does not match {var} ({var.type})"
        )
    dtype = getattr(var.type, "dtype", None)
    if dtype in continuous_dtypes and getattr(point.type, "dtype", dtype) != dtype:
        point = cast_to(point, dtype)
    return point


def _result(out: Variable, tangent: Any, disconnected_outputs: str, return_disconnected: str):
    if tangent is not None and is_null(tangent):
        raise NullTypeGradError(
            f"Rop: the derivative of {out} is undefined: {tangent.type.why_null}"
        )
    if tangent is not None:
        return tangent
    message = (
        f"Rop was asked for the derivative of {out}, which does not depend on the wrt "
        "variables or depends on them only through non-differentiable operations (pass "
        "disconnected_outputs='ignore' or 'warn' to accept this)"
    )
    if disconnected_outputs == "raise":
        raise DisconnectedInputError(message)
    if disconnected_outputs == "warn":
        warn_caller(message)
    if return_disconnected == "zero":
        return out.zeros_like(dtype=grad_dtype_of(out))
    if return_disconnected == "none":
        return None
    return disconnected()


def _rop_by_double_lop(f_list: list, wrt_list: list, points: list) -> list:
    """Whole-graph ``J v`` as the gradient of ``<Lop(f, wrt, u), v>`` with respect to ``u``."""
    seeds = [float_zeros_like(out) for out in f_list]
    # the wrt entries are independent (as in the forward pass): nothing flows through them
    # into other wrt entries they are computed from
    vjps = Lop(f_list, wrt_list, seeds, consider_constant=wrt_list, disconnected_inputs="ignore")
    inner = _inner_product(list(zip(vjps, points)))
    if inner is None:
        return [None] * len(f_list)
    tangents = grad(inner, seeds, disconnected_inputs="ignore", return_disconnected="none")
    return [None if is_discrete(out) else t for out, t in zip(f_list, tangents)]


def Rop(
    f: Variable | Sequence[Variable],
    wrt: Variable | Sequence[Variable],
    eval_points: Variable | Sequence[Variable],
    disconnected_outputs: str = "raise",
    return_disconnected: str = "zero",
    use_op_rop_implementation: bool = True,
) -> Any:
    """The R-operator: the Jacobian-vector product ``(d f / d wrt) @ eval_points`` (forward mode).

    Parameters
    ----------
    f
        The output(s) to differentiate; the result has the same structure (variable, list or
        tuple), each entry shaped like the corresponding output.
    wrt
        The variable(s) the derivative is taken with respect to (treated as independent).
    eval_points
        One tangent per ``wrt`` entry, shaped like it: the ``v`` of ``J v``.
    disconnected_outputs
        When an output does not depend on ``wrt`` (or only through non-differentiable ops):
        "raise" (:class:`DisconnectedInputError`), "warn" or "ignore".
    return_disconnected
        What such an output gets: "zero" (zeros like it), "none" or "disconnected".
    use_op_rop_implementation
        With True (the default) each op on the way contributes through its ``R_op``. An op
        whose ``R_op`` returns None for an output contributes nothing (the output is
        non-differentiable); an undefined (NullType) tangent raises
        :class:`NullTypeGradError` when an output needs it. **An op that does not define
        ``R_op`` is not an error**: its Jacobian-vector product is computed from its ``L_op``
        by the double-L-op trick (the gradient of ``<L_op(u), v>`` with respect to the
        cotangent ``u``, see :func:`rop_through_lop`), so every differentiable graph works.
        With False the whole graph is differentiated by that trick at once.
    """
    options = (
        check_choice("disconnected_outputs", disconnected_outputs, DISCONNECTED_INPUTS),
        check_choice("return_disconnected", return_disconnected, RETURN_DISCONNECTED),
    )
    f_list, structure = as_list(f)
    wrt_list, _ = as_list(wrt)
    points, _ = as_list(eval_points)
    f_list = [o if isinstance(o, Variable) else as_tensor_variable(o) for o in f_list]
    check_variables(wrt_list, "wrt")
    if len(wrt_list) != len(points):
        raise ValueError(f"Rop: {len(wrt_list)} wrt variables but {len(points)} eval points")
    points = [_eval_point(var, p) for var, p in zip(wrt_list, points)]
    if use_op_rop_implementation:
        tangents: dict[Variable, Any] = dict(zip(wrt_list, points))
        for node in io_toposort(wrt_list, f_list):
            local = [tangents.get(i) for i in node.inputs]
            if any(t is not None for t in local):
                tangents.update(zip(node.outputs, _node_tangents(node, local)))
        values = [tangents.get(out) for out in f_list]
    else:
        direct = dict(zip(wrt_list, points))
        values = _rop_by_double_lop(f_list, wrt_list, points)
        values = [direct.get(out, v) for out, v in zip(f_list, values)]
    results = [_result(out, v, *options) for out, v in zip(f_list, values)]
    return restructure(results, structure)
