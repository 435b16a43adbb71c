"""Small building blocks shared by the graph layer: props machinery, scratchpads, user frames."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from typing import Any

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class MethodNotDefined(NotImplementedError):
    """An optional method of the Op or Type contract was asked for but the class lacks it."""

    def __init__(self, method: str, cls: type, hint: str = "") -> None:
        message = f"{cls.__name__} does not define {method}()"
        super().__init__(f"{message}. {hint}" if hint else message)
        self.method = method
        self.cls = cls


class FrozenDict(Mapping):
    """An immutable, hashable mapping, used for dict-valued Op props such as ``inplace_pattern``.

    Written here instead of depending on ``frozendict``: the whole class is a dozen lines.
    """

    __slots__ = ("_data", "_hash")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._data = dict(*args, **kwargs)
        self._hash: int | None = None

    def __getitem__(self, key: Any) -> Any:
        return self._data[key]

    def __iter__(self) -> Iterator:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset(self._data.items()))
        return self._hash

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FrozenDict):
            return self._data == other._data
        return isinstance(other, Mapping) and self._data == dict(other)

    def __repr__(self) -> str:
        return f"FrozenDict({self._data!r})"

    def __reduce__(self):
        return (FrozenDict, (self._data,))


class Scratchpad:
    """A free-form attribute bag (``var.tag``) for information that does not affect semantics."""

    def __update__(self, other: Scratchpad) -> Scratchpad:
        self.__dict__.update(other.__dict__)
        return self

    def __str__(self) -> str:
        return "scratchpad" + str(self.__dict__)

    __repr__ = __str__


def user_frame() -> tuple[str, int, str] | None:
    """Return (file, line, function) of the innermost frame outside this package, or None.

    This is what error messages show as "created at": cheap enough (a frame walk, no source
    lookup) to record for every variable a user builds.
    """
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith(_PACKAGE_DIR):
            return (filename, frame.f_lineno, frame.f_code.co_name)
        frame = frame.f_back
    return None


def add_tag_trace(thing: Any) -> Any:
    """Record on ``thing.tag.trace`` where user code created it (see :func:`user_frame`)."""
    frame = user_frame()
    thing.tag.trace = [frame] if frame is not None else []
    return thing


def format_trace(trace: list | None) -> str:
    """Render a tag trace recorded by :func:`add_tag_trace` for an error message."""
    if not trace:
        return "(no record of where this variable was created)"
    filename, lineno, name = trace[0]
    return f'File "{filename}", line {lineno}, in {name}'


class HasProps:
    """Mixin deriving ``__eq__``, ``__hash__``, ``__str__`` and props accessors from ``__props__``.

    A class that sets ``__props__`` (a tuple of attribute names) in its own body gets equality by
    class and prop values, a hash that is computed once and then never changes, a
    ``Name{a=1, b=2}`` string, and ``_props()`` / ``_props_dict()``. Props are frozen once the
    hash has been taken, which makes the "hash never changes" promise of the Op contract hold.
    """

    __props__: tuple[str, ...]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "__props__" not in cls.__dict__:
            return
        props = cls.__dict__["__props__"]
        if not isinstance(props, tuple) or not all(isinstance(p, str) for p in props):
            raise TypeError(
                f"{cls.__name__}.__props__ must be a tuple of attribute names, got {props!r}"
            )
        cls.__eq__ = _props_eq  # type: ignore[method-assign]
        cls.__hash__ = _props_hash  # type: ignore[method-assign]
        inherited_str = cls.__str__
        if "__str__" not in cls.__dict__ and (
            inherited_str is object.__str__ or getattr(inherited_str, "_props_default", False)
        ):
            cls.__str__ = _props_str  # type: ignore[method-assign]

    def _props(self) -> tuple:
        return tuple(getattr(self, name) for name in self.__props__)

    def _props_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__props__}

    def __getstate__(self) -> dict[str, Any]:
        # The cached hash involves ``hash(type(self))``, which differs between processes.
        state = self.__dict__.copy()
        state.pop("_props_hash", None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    def __setattr__(self, name: str, value: Any) -> None:
        if "_props_hash" in self.__dict__ and name in getattr(type(self), "__props__", ()):
            raise AttributeError(
                f"{type(self).__name__}.{name} is a prop and this instance was already "
                "hashed: instances are immutable (create a new one instead)"
            )
        object.__setattr__(self, name, value)


def _props_eq(self: HasProps, other: object) -> bool:
    if self is other:
        return True
    return type(self) is type(other) and self._props() == other._props()  # type: ignore[attr-defined]


def _props_hash(self: HasProps) -> int:
    cached = self.__dict__.get("_props_hash")
    if cached is None:
        try:
            cached = hash((type(self), self._props()))
        except TypeError as err:
            raise TypeError(
                f"{type(self).__name__} props must be hashable, got {self._props_dict()!r}"
            ) from err
        self.__dict__["_props_hash"] = cached
    return cached


def _props_str(self: HasProps) -> str:
    name = type(self).__name__
    if not self.__props__:
        return name
    fields = ", ".join(f"{p}={_prop_repr(getattr(self, p))}" for p in self.__props__)
    return f"{name}{{{fields}}}"


_props_str._props_default = True  # type: ignore[attr-defined]


def _prop_repr(value: Any) -> str:
    if isinstance(value, tuple):
        return (
            "(" + ", ".join(_prop_repr(v) for v in value) + ("," if len(value) == 1 else "") + ")"
        )
    return str(value)
