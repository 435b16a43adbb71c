"""A compiled function's mode, saved as data: its name when it is a named mode, else its linker
and rewrite pipeline names (a mode built from objects, e.g. a linker instance, cannot be saved).
"""

from __future__ import annotations

from typing import Any

from arignote.compile import mode as mode_module
from arignote.compile.mode import Mode, get_mode
from arignote.serialize.errors import FormatError, SaveError


def _named(mode: Mode) -> str | None:
    for name, value in mode_module.predefined_modes.items():
        if value is mode:
            return name
    # the backends' modes are made on first use and kept in these lists
    for name, made in (("NUMBA", mode_module._NUMBA_MODE), ("JAX", mode_module._JAX_MODE)):
        if any(m is mode for m in made):
            return name
    return None


def mode_record(mode: Mode) -> dict:
    """The JSON form of ``mode``."""
    name = _named(mode)
    if name is not None:
        return {"name": name}
    linker, optimizer = mode.linker_spec, mode.optimizer_spec
    if type(mode) is not Mode or not isinstance(linker, str) or not isinstance(optimizer, str):
        raise SaveError(
            f"Cannot save the mode {mode!r}: only named modes and modes given by linker and "
            "pipeline names are data"
        )
    fields = {"include": mode.include, "exclude": mode.exclude, "require": mode.require}
    if not all(isinstance(t, str) for tags in fields.values() for t in tags):
        raise SaveError(f"Cannot save the mode {mode!r}: its tags are not all names")
    return {"linker": linker, "optimizer": optimizer, **{k: list(v) for k, v in fields.items()}}


def mode_from_record(record: Any) -> Mode:
    """The mode of a :func:`mode_record` (a named mode is looked up by name, as ``function``
    would; JAX and NUMBA need their backend installed)."""
    if not isinstance(record, dict):
        raise FormatError(f"A function's mode must be a JSON object, got {record!r}")
    if "name" in record:
        name = record["name"]
        if not isinstance(name, str) or name not in mode_module.predefined_modes:
            raise FormatError(f"The file names an unknown mode {name!r}")
        return get_mode(name)
    try:
        return Mode(
            linker=str(record["linker"]),
            optimizer=str(record["optimizer"]),
            include=tuple(map(str, record["include"])),
            exclude=tuple(map(str, record["exclude"])),
            require=tuple(map(str, record["require"])),
        )
    except (KeyError, TypeError, ValueError) as err:
        raise FormatError(f"The file's mode {record!r} is not valid: {err}") from err
