"""``In`` and ``Out``: how a compiled function takes its inputs and returns its outputs."""

from __future__ import annotations

from typing import Any

from arignote.graph.basic import Constant, Variable
from arignote.graph.shared import SharedVariable


class In:
    """An input of a compiled function, with options.

    ``name`` allows passing it by keyword (defaults to the variable's name); ``value`` is a
    default used when the argument is omitted; ``update`` is an expression whose value replaces
    the stored value after each call (the input then carries state); ``mutable`` allows the
    function to overwrite the argument in place; ``borrow`` lets the function keep a reference
    to it; ``strict`` requires exactly the input's type; ``allow_downcast`` accepts lossy
    conversions.
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
        borrow: bool = False,
        shared: bool = False,
    ) -> None:
        if not isinstance(variable, Variable):
            raise TypeError(f"In() takes a Variable, got {type(variable).__name__} ({variable!r})")
        if isinstance(variable, Constant):
            raise TypeError(
                f"Constant {variable} cannot be a function input: constants carry their value "
                "(use a variable, or leave the constant out of the inputs)"
            )
        self.variable = variable
        self.name = variable.name if name is None and autoname else name
        self.value = value
        self.update = update
        self.mutable = bool(mutable) if mutable is not None else False
        if self.mutable and borrow is False:
            borrow = True
        self.borrow = borrow
        self.strict = strict
        self.allow_downcast = allow_downcast
        self.implicit = isinstance(variable, SharedVariable) if implicit is None else implicit
        self.shared = shared
        if update is not None and not variable.type.is_super(getattr(update, "type", None)):
            raise TypeError(
                f"Update of input {variable} has type {getattr(update, 'type', None)}, "
                f"expected {variable.type}"
            )

    def __repr__(self) -> str:
        return f"In({self.variable})"


class Out:
    """An output of a compiled function; ``borrow=True`` may return the function's own buffer
    (valid until the next call) instead of a fresh array."""

    def __init__(self, variable: Variable, borrow: bool = False) -> None:
        if not isinstance(variable, Variable):
            raise TypeError(f"Out() takes a Variable, got {type(variable).__name__}")
        self.variable = variable
        self.borrow = borrow

    def __repr__(self) -> str:
        return f"Out({self.variable})"
