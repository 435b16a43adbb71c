"""``NullType``: the type of a gradient that is undefined or not implemented."""

from __future__ import annotations

from typing import Any

from arignote.graph.type import Type


class NullType(Type):
    """A type with no values, marking something that cannot be computed, and saying why.

    Gradients that are mathematically undefined or not implemented are variables of this type
    (see :func:`~arignote.graph.grad_types.grad_undefined`); compiling such a variable is an error.
    """

    __props__ = ("why_null",)

    def __init__(self, why_null: str = "(no explanation given)") -> None:
        self.why_null = why_null

    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        raise ValueError(f"No values may be assigned to a NullType: {self.why_null}")

    def filter_variable(self, other: Any, allow_convert: bool = True) -> Any:
        raise ValueError(f"No variable may be converted to a NullType: {self.why_null}")

    def may_share_memory(self, a: Any, b: Any) -> bool:
        return False

    def values_eq(self, a: Any, b: Any) -> bool:
        raise ValueError("NullType has no values to compare")

    def __str__(self) -> str:
        return "NullType"


null_type = NullType()
