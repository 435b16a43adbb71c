"""Types and helpers that Ops use in their ``grad`` methods to say "no gradient here".

They live in the graph layer, below every op family, because they are types: an Op's ``grad``
returns a :class:`DisconnectedType` variable for an input the outputs do not depend on, and a
:class:`~arignote.graph.null_type.NullType` variable (via :func:`grad_undefined` or
:func:`grad_not_implemented`) where the derivative does not exist or was not written.
"""

from __future__ import annotations

from typing import Any

from arignote.graph.basic import Variable
from arignote.graph.null_type import NullType
from arignote.graph.type import Type


class DisconnectedType(Type):
    """The type of a gradient for which the cost does not depend on the variable at all."""

    __props__ = ()

    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        raise AssertionError(
            "A DisconnectedType variable was asked for a value: it has none. A gradient graph "
            "that contains one should have been simplified by grad()."
        )

    def filter_variable(self, other: Any, allow_convert: bool = True) -> Any:
        raise AssertionError("No variable may be converted to a DisconnectedType")

    def may_share_memory(self, a: Any, b: Any) -> bool:
        return False

    def __str__(self) -> str:
        return "DisconnectedType"


disconnected_type = DisconnectedType()


def disconnected() -> Variable:
    """A new variable meaning "the cost does not depend on this input"."""
    return disconnected_type()


def is_disconnected(var: Any) -> bool:
    return isinstance(getattr(var, "type", None), DisconnectedType)


def is_null(var: Any) -> bool:
    return isinstance(getattr(var, "type", None), NullType)


class GradientError(Exception):
    """A symbolic gradient did not match its finite-difference estimate (see ``verify_grad``).

    ``arg`` is the argument (position in ``pt``) and ``err_pos`` the index (a tuple of ints)
    of the worst element (the one that exceeds its tolerances the most), ``shape`` that
    argument's shape, ``val1`` the numeric and ``val2`` the symbolic gradient there, with their
    absolute and relative errors ``abs_err``/``rel_err`` and the tolerances. ``max_abs_err`` and
    ``max_rel_err`` are the largest errors over every element of every argument (they can lie
    elsewhere than the worst element).
    """

    def __init__(
        self,
        arg: int,
        err_pos: tuple[int, ...],
        shape: tuple[int, ...],
        val1: float,
        val2: float,
        abs_err: float,
        rel_err: float,
        abs_tol: float,
        rel_tol: float,
        max_abs_err: float | None = None,
        max_rel_err: float | None = None,
    ) -> None:
        super().__init__(arg, err_pos, shape, val1, val2, abs_err, rel_err, abs_tol, rel_tol)
        self.arg = arg
        self.err_pos = err_pos
        self.shape = shape
        self.val1 = val1
        self.val2 = val2
        self.abs_err = abs_err
        self.rel_err = rel_err
        self.abs_tol = abs_tol
        self.rel_tol = rel_tol
        self.max_abs_err = abs_err if max_abs_err is None else max_abs_err
        self.max_rel_err = rel_err if max_rel_err is None else max_rel_err

    def __str__(self) -> str:
        return (
            "The symbolic gradient does not match finite differences: worst at position "
            f"{self.err_pos} of argument {self.arg} (shape {self.shape}): numeric = {self.val1!r}, "
            f"symbolic = {self.val2!r}, abs. error = {self.abs_err:.6g} (tolerance "
            f"{self.abs_tol:g}), rel. error = {self.rel_err:.6g} (tolerance {self.rel_tol:g}); "
            f"over all elements: max abs. error = {self.max_abs_err:.6g}, max rel. error = "
            f"{self.max_rel_err:.6g}"
        )


class NullTypeGradError(TypeError):
    """A requested gradient is undefined or not implemented somewhere along the path."""


class DisconnectedInputError(ValueError):
    """The cost does not depend on a variable its gradient was asked for."""


def grad_undefined(op: Any, x_pos: int, x: Any, comment: str = "") -> Variable:
    """The gradient of ``op`` with respect to its input ``x_pos`` (``x``) is undefined.

    Returns a NullType variable whose message names the op, the input position and ``comment``;
    asking :func:`~arignote.gradient.grad` to go through it raises :class:`NullTypeGradError`.
    """
    return NullType(
        f"The gradient of {op} with respect to its input {x_pos} ({x}) is mathematically "
        f"undefined. {comment}".rstrip()
    )()


def grad_not_implemented(op: Any, x_pos: int, x: Any, comment: str = "") -> Variable:
    """The gradient of ``op`` with respect to its input ``x_pos`` (``x``) was not written."""
    return NullType(
        f"The gradient of {op} with respect to its input {x_pos} ({x}) is not implemented. "
        f"{comment}".rstrip()
    )()
