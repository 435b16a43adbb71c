"""Shared variables: graph inputs whose value lives with the variable, across functions.

A :class:`SharedVariable` owns a :class:`Container` (a storage cell plus its type); every
compiled function using the variable reads and writes that same cell, so ``set_value`` is seen
by all of them and ``updates`` made by one are seen by the others.

Memory contract (the documented PyTensor semantics):

- ``get_value()`` returns a copy; ``get_value(borrow=True)`` may return the stored object
  itself, which later calls (updates, in-place computations) may change.
- ``set_value(v)`` stores a copy of ``v`` (or a converted value that shares no memory with
  it); ``set_value(v, borrow=True)`` stores ``v`` itself when it already has the right type,
  so later changes to ``v`` by the caller are seen by the functions.
- The type is fixed when the variable is created: a value of another dtype (that cannot be
  converted safely), number of dimensions, or incompatible static shape is refused.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from arignote.graph import basic as _basic
from arignote.graph.basic import AtomicVariable, Variable
from arignote.graph.type import Type
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

    # ``data`` is the name PyTensor code uses for the stored value.
    data = value

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


def describe_value(value: Any) -> str:
    """A short description of a runtime value for error messages (type, dtype, shape)."""
    shape = getattr(value, "shape", None)
    dtype = getattr(value, "dtype", None)
    if shape is not None and dtype is not None:
        return f"{type(value).__name__} of dtype {dtype} and shape {tuple(shape)}"
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(value).__name__} {text}"


class SharedVariable(AtomicVariable):
    """A graph input with a value of its own, shared by every function that uses it.

    ``get_value(borrow=False)`` returns a copy of the value (``borrow=True``: the stored
    object itself, which later calls may change); ``set_value(value, borrow=False)`` stores a
    copy (``borrow=True``: the object itself when no conversion is needed).
    ``default_update``, when set, is the update a compiled function applies to the variable
    unless it is compiled with ``no_default_updates``.
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
        self._default_update: Variable | None = None
        if container is not None:
            self.container = container
            return
        try:
            stored = type.filter(value, strict=strict, allow_downcast=allow_downcast)
        except (TypeError, ValueError) as err:
            what = (
                f"Cannot create shared variable {name}"
                if name
                else "Cannot create a shared variable"
            )
            raise _value_error(err, what, type, value) from err
        self.container = Container(
            self,
            [stored],
            strict=strict,
            allow_downcast=allow_downcast,
            name=name,
        )

    def get_value(self, borrow: bool = False, return_internal_type: bool = False) -> Any:
        """The stored value: a copy, or with ``borrow=True`` the stored object itself.

        ``return_internal_type`` is accepted for compatibility: values are stored as the
        type's own Python objects (ndarrays for tensors), so it changes nothing.
        """
        value = self.container.storage[0]
        if borrow:
            return value
        return _copy_value(value)

    def set_value(self, new_value: Any, borrow: bool = False) -> None:
        """Store ``new_value`` (a copy of it unless ``borrow``), checked against the type.

        Every function using this variable sees the new value. A value of an incompatible
        dtype, number of dimensions or static shape raises ``TypeError``/``ValueError``
        naming the variable, its type and the value received.
        """
        container = self.container
        if container.readonly:
            raise ValueError(f"Cannot set the value of read-only shared variable {self}")
        try:
            stored = self.type.filter(
                new_value, strict=container.strict, allow_downcast=container.allow_downcast
            )
        except (TypeError, ValueError) as err:
            raise _value_error(
                err, f"Cannot set the value of shared variable {self}", self.type, new_value
            ) from err
        if not borrow and (stored is new_value or self.type.may_share_memory(stored, new_value)):
            stored = _copy_value(stored)
        container.storage[0] = stored

    @property
    def value(self) -> Any:
        return self.get_value(borrow=True)

    @property
    def default_update(self) -> Variable | None:
        """The update applied by compiled functions unless ``no_default_updates`` (or None)."""
        return self._default_update

    @default_update.setter
    def default_update(self, update: Any) -> None:
        if update is None:
            self._default_update = None
            return
        try:
            self._default_update = self.type.filter_variable(update, allow_convert=True)
        except TypeError as err:
            raise TypeError(
                f"default_update of shared variable {self} (type {self.type}) must have a "
                f"compatible type, got {update} of type {getattr(update, 'type', None)}: {err}"
            ) from err

    def zero(self, borrow: bool = False) -> None:
        """Set the value to zeros of the same shape."""
        self.set_value(self.container.value * 0, borrow=True)

    def clone(self, **kwargs: Any) -> SharedVariable:
        """A variable sharing this one's container (and so its value)."""
        cp = type(self)(
            self.type, None, container=self.container, name=kwargs.get("name", self.name)
        )
        cp.tag = copy.copy(self.tag)
        cp._default_update = self._default_update
        return cp

    def __str__(self) -> str:
        if self.name is not None:
            return self.name
        return f"<{type(self).__name__}({self.type})>"


def _copy_value(value: Any) -> Any:
    copier = getattr(value, "copy", None)
    if copier is not None and hasattr(value, "__array__"):
        return copier()
    return copy.deepcopy(value)


def _value_error(err: Exception, what: str, type_: Any, value: Any) -> Exception:
    """``err`` re-typed with a message naming the variable, its type and the value given."""
    # Types phrase their downcast hint for function arguments; a shared variable's switch is
    # the ``allow_downcast`` of ``shared()``.
    reason = str(err).replace(
        "allow_input_downcast=True to function()", "allow_downcast=True to shared()"
    )
    return type(err)(
        f"{what}: it holds values of type {type_}, got {describe_value(value)}. {reason}"
    )


class ObjectType(Type):
    """Python objects of one class (``python_type``): the type of non-array shared values.

    Shared variables of any other kind of value (lists, NumPy generators until a more
    specific type is registered, user objects) get this type, so their class stays fixed.
    """

    __props__ = ("python_type",)

    def __init__(self, python_type: type) -> None:
        if not isinstance(python_type, type):
            raise TypeError(f"ObjectType expects a class, got {python_type!r}")
        self.python_type = python_type

    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        if not isinstance(data, self.python_type):
            raise TypeError(
                f"{self} expects an instance of {self.python_type.__name__}, got "
                f"{type(data).__name__}"
            )
        return data

    def may_share_memory(self, a: Any, b: Any) -> bool:
        return a is b

    def values_eq(self, a: Any, b: Any) -> bool:
        return bool(a == b) if not hasattr(a, "__array__") else a is b

    def __str__(self) -> str:
        return f"ObjectType({self.python_type.__name__})"

    __repr__ = __str__


_constructors: list[Callable] = []


def shared_constructor(fn: Callable) -> Callable:
    """Register ``fn(value, name, strict, allow_downcast, borrow, **kwargs)`` for ``shared``.

    Constructors are tried newest first; one that cannot handle a value raises ``TypeError``.
    """
    _constructors.append(fn)
    return fn


@shared_constructor
def object_constructor(
    value: Any,
    name: str | None = None,
    strict: bool = False,
    allow_downcast: bool | None = None,
    borrow: bool = False,
):
    """The fallback: a shared variable of :class:`ObjectType` for any Python object."""
    if value is None:
        raise TypeError("a shared variable cannot start as None")
    stored = value if borrow else copy.deepcopy(value)
    return SharedVariable(ObjectType(type(value)), stored, strict, allow_downcast, name=name)


def shared(
    value: Any,
    name: str | None = None,
    strict: bool = False,
    allow_downcast: bool | None = None,
    borrow: bool = False,
    **kwargs: Any,
):
    """A shared variable holding ``value`` (a copy of it, unless ``borrow``).

    Parameters
    ----------
    value
        The initial value. Arrays and Python or NumPy numbers become tensor shared variables
        (dtype and number of dimensions fixed from the value: ``shared(1.5)`` is a float64
        scalar, ``shared(3)`` an int64 one); other objects (NumPy generators, lists...) keep
        their class as type.
    name
        Name used when printing graphs and in error messages.
    strict
        Later values must have exactly the type (no conversion at all).
    allow_downcast
        Accept conversions that may lose precision in ``set_value``.
    borrow
        Keep ``value`` itself instead of a copy (later changes by the caller are seen).
    **kwargs
        Constructor-specific options, e.g. ``shape=(None, 3)`` to fix lengths of a tensor.
    """
    if isinstance(value, Variable):
        raise TypeError(f"shared() takes a value, not a symbolic variable ({value})")
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


_basic._shared_variable_class = SharedVariable  # explicit_graph_inputs leaves them out
