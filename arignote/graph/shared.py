"""Shared variables: graph inputs whose value lives with the variable, across functions.

A :class:`SharedVariable` owns a :class:`Container` (a storage cell plus its type); every
compiled function using the variable reads and writes that same cell, so ``set_value`` is seen
by all of them and ``updates`` made by one are seen by the others.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from arignote.graph.basic import AtomicVariable
from arignote.graph.utils import add_tag_trace


class Container:
    """A one-element storage cell with a type; assigning ``.value`` filters the value."""

    def __init__(
        self,
        variable: Any,
        storage: list,
        readonly: bool = False,
        strict: bool = False,
        allow_downcast: bool | None = None,
        name: str | None = None,
    ) -> None:
        if not isinstance(storage, list) or len(storage) < 1:
            raise TypeError("A Container's storage must be a one-element list")
        self.type = variable.type if hasattr(variable, "type") else variable
        self.name = name if name is not None else getattr(variable, "name", None)
        self.storage = storage
        self.readonly = readonly
        self.strict = strict
        self.allow_downcast = allow_downcast

    @property
    def value(self) -> Any:
        return self.storage[0]

    @value.setter
    def value(self, value: Any) -> None:
        if self.readonly:
            raise ValueError(f"Cannot set the read-only container {self.name}")
        self.storage[0] = (
            None
            if value is None
            else self.type.filter(value, strict=self.strict, allow_downcast=self.allow_downcast)
        )

    def __deepcopy__(self, memo: dict) -> Container:
        return Container(
            self.type,
            [copy.deepcopy(self.storage[0], memo)],
            self.readonly,
            self.strict,
            self.allow_downcast,
            self.name,
        )

    def __str__(self) -> str:
        return f"<{self.storage[0]!r}>"

    __repr__ = __str__


class SharedVariable(AtomicVariable):
    """A graph input with a value of its own, shared by every function that uses it.

    ``get_value(borrow=False)`` returns a copy of the value (``borrow=True``: the internal value
    itself, which later calls may change); ``set_value(value, borrow=False)`` stores a copy (or
    the object itself with ``borrow=True``). ``default_update``, when set, is the update a
    compiled function applies to the variable unless told ``no_default_updates``.
    """

    def __init__(
        self,
        type: Any,
        value: Any,
        strict: bool = False,
        allow_downcast: bool | None = None,
        container: Container | None = None,
        name: str | None = None,
    ) -> None:
        super().__init__(type, None, None, name)
        if container is not None:
            self.container = container
        else:
            self.container = Container(
                self,
                [type.filter(value, strict=strict, allow_downcast=allow_downcast)],
                strict=strict,
                allow_downcast=allow_downcast,
                name=name,
            )

    def get_value(self, borrow: bool = False, return_internal_type: bool = False) -> Any:
        value = self.container.value
        return value if borrow else copy.deepcopy(value)

    def set_value(self, new_value: Any, borrow: bool = False) -> None:
        if not borrow:
            new_value = copy.deepcopy(new_value)
        try:
            self.container.value = new_value
        except (TypeError, ValueError) as err:
            raise type(err)(f"Cannot set the value of shared variable {self}: {err}") from err

    @property
    def value(self) -> Any:
        return self.get_value(borrow=True)

    def zero(self, borrow: bool = False) -> None:
        """Set the value to zeros of the same shape."""
        value = self.container.value
        self.set_value(value * 0, borrow=True) if borrow else self.set_value(value * 0)

    def clone(self, **kwargs: Any) -> SharedVariable:
        """A variable sharing this one's container (and so its value)."""
        cp = type(self)(
            self.type, None, container=self.container, name=kwargs.get("name", self.name)
        )
        cp.tag = copy.copy(self.tag)
        return cp

    def __str__(self) -> str:
        if self.name is not None:
            return self.name
        return f"<{type(self).__name__}({self.type})>"


_constructors: list[Callable] = []


def shared_constructor(fn: Callable) -> Callable:
    """Register ``fn(value, name, strict, allow_downcast, borrow, **kwargs)`` for ``shared``.

    Constructors are tried newest first; one that cannot handle a value raises ``TypeError``.
    """
    _constructors.append(fn)
    return fn


def shared(
    value: Any,
    name: str | None = None,
    strict: bool = False,
    allow_downcast: bool | None = None,
    borrow: bool = False,
    **kwargs: Any,
):
    """A shared variable holding ``value`` (a copy of it, unless ``borrow``).

    Arrays and numbers become tensor shared variables (dtype and number of dimensions fixed
    from the value; pass ``shape=`` to fix lengths too); NumPy generators become random-state
    shared variables. ``strict`` requires later values to have exactly the same type;
    ``allow_downcast`` accepts lossy conversions in ``set_value``.
    """
    if isinstance(value, AtomicVariable):
        raise TypeError(f"shared() takes a value, not a variable ({value})")
    errors = []
    for constructor in reversed(_constructors):
        try:
            var = constructor(
                value,
                name=name,
                strict=strict,
                allow_downcast=allow_downcast,
                borrow=borrow,
                **kwargs,
            )
        except TypeError as err:
            errors.append(f"{constructor.__name__}: {err}")
            continue
        return add_tag_trace(var)
    raise TypeError(f"No shared-variable constructor accepts {value!r}: " + "; ".join(errors))
