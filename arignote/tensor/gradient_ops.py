"""Ops that compute the identity but change how gradients flow through it.

``zero_grad`` (the gradient through it is zero), ``disconnected_grad`` (no gradient at all: the
input is disconnected), ``undefined_grad`` (asking for a gradient through it is an error),
``grad_clip`` and ``grad_scale`` (the gradient is clipped or scaled), and ``consider_constant``
(an older spelling of ``zero_grad``). Their forward value is their input, as a view; compiled
graphs drop them (``tensor/rewriting/gradient_ops.py``).
"""

from __future__ import annotations

from typing import Any

from arignote.graph.basic import Apply, Variable
from arignote.graph.grad_types import disconnected, grad_undefined
from arignote.graph.op import Op
from arignote.scalar.basic import grad_dtype
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.math import maximum, minimum


class GradientViewOp(Op):
    """Base of the ops of this module: the identity, as a view of the input."""

    __props__ = ()
    view_map = {0: [0]}

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0]

    def infer_shape(self, fgraph, node, input_shapes):
        return input_shapes


class ZeroGrad(GradientViewOp):
    """The identity whose gradient is zero (its input is connected, its derivative is 0)."""

    __props__ = ()

    def grad(self, inputs, output_grads):
        (x,) = inputs
        return [x.zeros_like(dtype=grad_dtype(x))]

    def R_op(self, inputs, eval_points):
        (ev,) = eval_points
        return [None if ev is None else ev.zeros_like()]


class ConsiderConstant(ZeroGrad):
    """``consider_constant(x)``: the older name of :class:`ZeroGrad`'s behaviour."""

    __props__ = ()


class DisconnectedGrad(GradientViewOp):
    """The identity through which no gradient flows: its input is disconnected."""

    __props__ = ()

    def connection_pattern(self, node):
        return [[False]]

    def grad(self, inputs, output_grads):
        return [disconnected()]

    def R_op(self, inputs, eval_points):
        return [None]


class UndefinedGrad(GradientViewOp):
    """The identity whose gradient is undefined: differentiating through it is an error."""

    __props__ = ()

    def grad(self, inputs, output_grads):
        return [grad_undefined(self, 0, inputs[0], "undefined_grad was applied to it.")]

    def R_op(self, inputs, eval_points):
        (ev,) = eval_points
        return [None if ev is None else grad_undefined(self, 0, inputs[0], "undefined_grad.")]


class GradClip(GradientViewOp):
    """The identity whose backward pass clips the gradient to ``[lower, upper]``."""

    __props__ = ("lower", "upper")

    def __init__(self, lower: float, upper: float) -> None:
        lower, upper = float(lower), float(upper)
        if not upper >= lower:
            raise ValueError(f"grad_clip needs lower <= upper, got [{lower}, {upper}]")
        self.lower = lower
        self.upper = upper

    def grad(self, inputs, output_grads):
        (gz,) = output_grads
        return [maximum(minimum(gz, self.upper), self.lower)]

    def R_op(self, inputs, eval_points):
        return list(eval_points)  # the forward function is the identity


class GradScale(GradientViewOp):
    """The identity whose backward pass multiplies the gradient by ``multiplier``."""

    __props__ = ("multiplier",)

    def __init__(self, multiplier: Any) -> None:
        if not isinstance(multiplier, Variable):
            multiplier = float(multiplier)
        self.multiplier = multiplier

    def grad(self, inputs, output_grads):
        (gz,) = output_grads
        return [gz * self.multiplier]

    def R_op(self, inputs, eval_points):
        return list(eval_points)  # the forward function is the identity


zero_grad_ = ZeroGrad()
disconnected_grad_ = DisconnectedGrad()
undefined_grad_ = UndefinedGrad()
consider_constant_ = ConsiderConstant()


def zero_grad(x: Any) -> Variable:
    """``x``, with a zero gradient.

    The value is unchanged; a gradient through this expression is zero (it still counts as
    connected, so ``grad`` does not report a disconnected input). Forward mode (``Rop``) also
    sees a zero derivative.
    """
    return zero_grad_(x)


def disconnected_grad(x: Any) -> Variable:
    """``x``, with no gradient flowing through it.

    The value is unchanged; ``grad`` treats everything it is computed from as disconnected
    (like ``zero_grad``, but the gradient graph does not even go through it, and asking for
    the gradient of an input reached only this way is a disconnected-input error).
    """
    return disconnected_grad_(x)


def undefined_grad(x: Any) -> Variable:
    """``x``, whose gradient is undefined: differentiating through it raises an error."""
    return undefined_grad_(x)


def consider_constant(x: Any) -> Variable:
    """``x``, considered constant when differentiating (its gradient is zero).

    The same as :func:`zero_grad`, kept for code written against older APIs; prefer
    ``zero_grad`` or ``disconnected_grad``.
    """
    return consider_constant_(x)


def grad_clip(x: Any, lower_bound: float, upper_bound: float) -> Variable:
    """``x``, whose gradient is clipped elementwise to ``[lower_bound, upper_bound]``.

    The forward value is ``x`` itself; only the backward pass changes:
    ``grad(grad_clip(x, -1, 1) ** 2, x)`` at ``x = 2`` is 1, not 4.
    """
    return GradClip(lower_bound, upper_bound)(x)


def grad_scale(x: Any, multiplier: Any) -> Variable:
    """``x``, whose gradient is multiplied by ``multiplier`` (-1 reverses it).

    The forward value is ``x`` itself: ``grad(grad_scale(sin(x), -1), x)`` is ``-cos(x)``.
    """
    return GradScale(multiplier)(x)


__all__ = [
    "ConsiderConstant",
    "DisconnectedGrad",
    "GradClip",
    "GradScale",
    "UndefinedGrad",
    "ZeroGrad",
    "consider_constant",
    "disconnected_grad",
    "grad_clip",
    "grad_scale",
    "undefined_grad",
    "zero_grad",
]
