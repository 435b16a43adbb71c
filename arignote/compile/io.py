"""``In`` and ``Out``: how a compiled function takes its inputs and returns its outputs."""

from __future__ import annotations

from typing import Any

from arignote.graph.basic import Constant, Variable
from arignote.graph.shared import Container


class SymbolicInput:
    """An input of a compiled function, with options but no default value (PyTensor's base of
    :class:`In`, with its argument order: ``update`` comes third).

    The parameters are those of :class:`In` without ``value``, ``borrow`` and ``shared``.
    """

    def __init__(
        self,
        variable: Variable,
        name: str | None = None,
        update: Variable | None = None,
        mutable: bool | None = None,
        strict: bool = False,
        allow_downcast: bool | None = None,
        autoname: bool = True,
        implicit: bool = False,
    ) -> None:
        self._bind(variable, name, None, update, mutable, strict, allow_downcast, autoname)
        self.implicit = bool(implicit)

    def _bind(
        self, variable, name, value, update, mutable, strict, allow_downcast, autoname
    ) -> None:
        """Check and store the options shared by every input (see :class:`In`)."""
        if not isinstance(variable, Variable):
            raise TypeError(f"In() takes a Variable, got {type(variable).__name__} ({variable!r})")
        if isinstance(variable, Constant):
            raise TypeError(
                f"Constant {variable} cannot be a function input: constants carry their value "
                "(use a variable, or leave the constant out of the inputs)"
            )
        if name is not None and not isinstance(name, str):
            raise TypeError(f"In(name=...) must be a string, got {name!r}")
        self.variable = variable
        self.name = variable.name if name is None and autoname else name
        self.value = value
        self.update = update
        self.mutable = (update is not None) if mutable is None else bool(mutable)
        self.borrow = self.mutable
        self.strict = strict
        self.allow_downcast = allow_downcast
        self.shared = False
        if update is not None:
            if not isinstance(update, Variable):
                raise TypeError(f"In({variable}, update=...) must be a Variable, got {update!r}")
            if not variable.type.is_super(update.type):
                raise TypeError(
                    f"The update of input {variable} has type {update.type}, which is not "
                    f"compatible with the input's type {variable.type}"
                )

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.variable})"


class In(SymbolicInput):
    """An input of a compiled function, with options.

    Parameters
    ----------
    variable
        The graph variable the argument is bound to.
    name
        Keyword under which the argument may be passed (default: the variable's name).
    value
        Default used when the argument is omitted. With ``update`` it is instead the initial
        state, kept between calls.
    update
        An expression whose value replaces the stored value after each call: the input then
        carries state (``f["name"]`` reads it).
    mutable
        The function may overwrite the argument's memory in place (default: True only for
        inputs with an ``update``). Implies ``borrow``.
    borrow
        The function may keep a reference to the argument, and outputs may alias it.
    strict
        The argument must already have exactly the input's type (no conversion).
    allow_downcast
        Accept conversions that may lose precision (None: only Python floats to floatX).
    implicit
        The input is not an argument of the function (used for shared variables).
    """

    def __init__(
        self,
        variable: Variable,
        name: str | None = None,
        value: Any = None,
        update: Variable | None = None,
        mutable: bool | None = None,
        strict: bool = False,
        allow_downcast: bool | None = None,
        autoname: bool = True,
        implicit: bool | None = None,
        borrow: bool | None = None,
        shared: bool = False,
    ) -> None:
        self._bind(variable, name, value, update, mutable, strict, allow_downcast, autoname)
        self.borrow = self.mutable if borrow is None else bool(borrow)
        if self.mutable and not self.borrow:
            raise ValueError(
                f"In({variable}): mutable=True with borrow=False is contradictory: an input the "
                "function may overwrite is necessarily one it may alias"
            )
        self.implicit = isinstance(value, Container) if implicit is None else bool(implicit)
        self.shared = shared


class SymbolicOutput:
    """An output of a compiled function.

    ``borrow=True`` allows returning the function's own buffer (valid until the next call,
    which may overwrite it) instead of a fresh array.
    """

    def __init__(self, variable: Variable, borrow: bool = False) -> None:
        if not isinstance(variable, Variable):
            raise TypeError(f"Out() takes a Variable, got {type(variable).__name__}")
        self.variable = variable
        self.borrow = borrow

    def __repr__(self) -> str:
        return f"Out({self.variable})"


class Out(SymbolicOutput):
    """An output of a compiled function (PyTensor's name; see :class:`SymbolicOutput`)."""
