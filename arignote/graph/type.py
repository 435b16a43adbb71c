"""``Type``: the static description of the values a variable may hold."""

from __future__ import annotations

from typing import Any

from arignote.graph.basic import Constant, Variable
from arignote.graph.utils import HasProps, MethodNotDefined, add_tag_trace


class Type(HasProps):
    """The set of values a :class:`~arignote.graph.basic.Variable` may take, and how to check them.

    Subclasses define :meth:`filter` (validate or convert a value) and usually ``__props__``.
    Calling a type creates a new variable of that type: ``TensorType("float64", (None,))("x")``.
    """

    variable_type: type = Variable
    constant_type: type = Constant

    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        """Return ``data`` as a valid value of this type, or raise ``TypeError``/``ValueError``.

        With ``strict`` the value must already be exactly valid; otherwise it may be converted,
        and ``allow_downcast`` decides whether a conversion that may lose precision is accepted.
        """
        raise MethodNotDefined("filter", type(self))

    def filter_inplace(self, value: Any, storage: Any, strict: bool = False, allow_downcast=None):
        """Like :meth:`filter`, but may write into the existing ``storage`` value."""
        return self.filter(value, strict=strict, allow_downcast=allow_downcast)

    def is_valid_value(self, data: Any, strict: bool = True) -> bool:
        """Whether ``data`` passes :meth:`filter` (strictly by default)."""
        try:
            self.filter(data, strict=strict)
        except (TypeError, ValueError):
            return False
        return True

    def in_same_class(self, otype: Type) -> bool:
        """Whether ``otype`` describes exactly the same values (up to representation)."""
        return self == otype

    def is_super(self, otype: Type) -> bool | None:
        """Whether every value of ``otype`` is also a value of this type."""
        return self.in_same_class(otype)

    def convert_variable(self, var: Variable) -> Variable | None:
        """Return ``var`` converted to this type, or None when no conversion is possible.

        The base rule accepts a variable whose type is a subtype of this one unchanged.
        """
        if self.is_super(var.type):
            return var
        return None

    def filter_variable(self, other: Any, allow_convert: bool = True) -> Variable:
        """Return ``other`` as a variable of this type.

        Raw values become constants of this type; variables of another type are converted by
        :meth:`convert_variable` when ``allow_convert``; anything else raises ``TypeError``.
        """
        if not isinstance(other, Variable):
            other = self.make_constant(other)
        if other.type == self:
            return other
        if allow_convert:
            converted = self.convert_variable(other)
            if converted is not None:
                return converted
        raise TypeError(
            f"Cannot convert variable {other} of type {other.type} to type {self}"
            + (" (conversions were not allowed)" if not allow_convert else "")
        )

    def make_variable(self, name: str | None = None) -> Variable:
        """A new ownerless variable of this type."""
        return self.variable_type(self, None, None, name)

    def make_constant(self, value: Any, name: str | None = None) -> Constant:
        """A constant of this type holding ``filter(value)``."""
        return self.constant_type(type=self, data=value, name=name)

    def __call__(self, name: str | None = None) -> Variable:
        """A new ownerless variable of this type, tagged with where user code created it."""
        return add_tag_trace(self.make_variable(name))

    def values_eq(self, a: Any, b: Any) -> bool:
        """Whether two values of this type are equal."""
        return bool(a == b)

    def values_eq_approx(self, a: Any, b: Any) -> bool:
        """Whether two values are equal up to the tolerance natural for this type."""
        return self.values_eq(a, b)

    def may_share_memory(self, a: Any, b: Any) -> bool:
        """Whether two values of this type may share memory (conservative)."""
        return a is b

    def data_signature(self, data: Any) -> Any:
        """A hashable key that is equal for equal values (see ``Constant.signature``)."""
        return data

    def data_str(self, data: Any) -> str:
        """How a constant of this type shows its value when printed."""
        return str(data)

    def clone(self, **kwargs: Any) -> Type:
        """A type like this one with some props replaced."""
        props = self._props_dict() if hasattr(self, "__props__") else {}
        props.update(kwargs)
        return type(self)(**props)


class HasDataType:
    """A mixin for types with a ``dtype`` attribute (``TensorType``, ``ScalarType``...), for
    ``isinstance(var.type, HasDataType)`` tests as in PyTensor."""

    dtype: str


class HasShape:
    """A mixin for types with ``shape`` (static lengths, None where unknown) and ``ndim``
    attributes (``TensorType``), for ``isinstance(var.type, HasShape)`` tests as in PyTensor."""

    ndim: int
    shape: tuple[int | None, ...]
