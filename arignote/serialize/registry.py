"""The classes (and the few functions) a saved file may name, by registered name.

Loading looks every class name of a file up here and never imports or evaluates anything the
file says, so only classes that some code registered can be built. The classes of arignote
itself (ops, scalar ops, types, variables, modes, and the data classes their states hold) are
found by walking the subclasses of their bases among the modules already imported and keeping
those defined in arignote; they are named ``module.QualifiedName``. A user's op registers
with :func:`register_op_class` (its types and variable classes, if they are its own, too).
"""

from __future__ import annotations

import builtins
from typing import Any

from arignote.compile.mode import Mode
from arignote.graph.basic import Variable
from arignote.graph.op import Op
from arignote.graph.type import Type
from arignote.graph.utils import FrozenDict, HasProps
from arignote.printing.print_op import print_attributes
from arignote.scan.op import ScanInfo
from arignote.serialize.errors import UnregisteredClassError

#: Classes registered by users (and the fixed extras below), by name.
_REGISTERED: dict[str, type] = {}
#: Functions a file may name: defaults of arignote ops' props (``Print.global_fn``).
FUNCTIONS: dict[str, Any] = {"arignote.printing.print_op.print_attributes": print_attributes}
#: Plain data classes held by op states, rebuilt from their fields.
DATA_CLASSES = (ScanInfo,)
_BASES = (Op, Type, Variable, HasProps, Mode)


def class_name(cls: type) -> str:
    """The name a class is saved under: its registered name, else ``module.QualifiedName``."""
    for name, registered in _REGISTERED.items():
        if registered is cls:
            return name
    return f"{cls.__module__}.{cls.__qualname__}"


def register_op_class(cls: type, name: str | None = None) -> str:
    """Allow :func:`arignote.load` to rebuild instances of ``cls`` (an Op, a Type, ...).

    Parameters
    ----------
    cls
        The class; its instances are saved as their ``__getstate__()`` and rebuilt with
        ``cls.__new__`` and ``__setstate__`` (the class's own code, never the file's).
    name
        The name files give it (default ``module.QualifiedName``). Choose a stable name if
        the class may move between modules.

    Returns
    -------
    str
        The registered name.
    """
    if not isinstance(cls, type):
        raise TypeError(f"register_op_class takes a class, got {cls!r}")
    name = name or f"{cls.__module__}.{cls.__qualname__}"
    previous = _REGISTERED.get(name)
    if previous is not None and previous is not cls:
        raise ValueError(f"{name!r} is already registered for {previous!r}")
    _REGISTERED[name] = cls
    return name


def _subclasses(base: type) -> list[type]:
    found, stack = [], [base]
    while stack:
        cls = stack.pop()
        found.append(cls)
        stack.extend(cls.__subclasses__())
    return found


def builtin_classes() -> dict[str, type]:
    """arignote's own classes, by name (recomputed: modules imported later add theirs)."""
    table = {}
    for base in _BASES:
        for cls in _subclasses(base):
            if cls.__module__.split(".")[0] == "arignote" and "<locals>" not in cls.__qualname__:
                table[f"{cls.__module__}.{cls.__qualname__}"] = cls
    for cls in (FrozenDict, *DATA_CLASSES, *named_tuples()):
        table[f"{cls.__module__}.{cls.__qualname__}"] = cls
    return table


def named_tuples() -> list[type]:
    """arignote's named tuple classes (index descriptions such as ``SliceSpec``)."""
    return [
        cls
        for cls in tuple.__subclasses__()
        if hasattr(cls, "_fields") and cls.__module__.split(".")[0] == "arignote"
    ]


def known_classes() -> dict[str, type]:
    """Every class a file may name now: arignote's and the registered ones."""
    return {**builtin_classes(), **_REGISTERED}


def lookup_class(name: str, table: dict[str, type]) -> type:
    """The class registered as ``name`` in ``table`` (:func:`known_classes`);
    :class:`UnregisteredClassError` if there is none."""
    cls = table.get(name)
    if cls is None:
        raise UnregisteredClassError(
            f"The file names the class {name!r}, which is not registered: loading builds only "
            "registered classes. If you trust the file and define this class, call "
            f"arignote.register_op_class(YourClass, name={name!r}) first."
        )
    return cls


def exception_class(name: str, table: dict[str, type]) -> type:
    """A builtin exception class by name (``Assert``'s ``exc_type``), or a registered class."""
    candidate = getattr(builtins, name.removeprefix("builtins."), None)
    if isinstance(candidate, type) and issubclass(candidate, BaseException):
        return candidate
    return lookup_class(name, table)


def lookup_function(name: str) -> Any:
    if name not in FUNCTIONS:
        raise UnregisteredClassError(f"The file names the function {name!r}, which is not allowed")
    return FUNCTIONS[name]
