"""Configuration: a frozen set of options with a context-local current value.

``arignote.config.floatX`` reads the current option; ``with config.change_flags(floatX="float32"):``
changes options for a block (per thread and per asyncio task, through :mod:`contextvars`);
assigning ``config.floatX = "float32"`` changes them for the rest of the current context.
Options can also come from the environment variable ``ARIGNOTE_FLAGS``
(``"floatX=float32,mode=FAST_COMPILE"``), which is read once, the first time an option is read,
never at import time.

Options (each documented on :class:`Options`): ``floatX``, ``mode``, ``linker``, ``optimizer``,
``on_rewrite_error``, ``check_integrity``, ``allow_gc``, ``trace_rewrites``,
``max_constant_fold_size``, ``compile_cache``.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, fields
from typing import Any

_CHOICES: dict[str, tuple[str, ...]] = {
    "floatX": ("float64", "float32", "float16"),
    "mode": ("FAST_RUN", "FAST_COMPILE", "DebugMode", "NanGuardMode", "DEBUG_MODE"),
    "linker": ("vm", "py", "vm_nogc"),
    "optimizer": ("fast_run", "fast_compile", "merge", "None", "o1", "unsafe"),
    "on_rewrite_error": ("warn", "raise", "ignore"),
}


@dataclass(frozen=True)
class Options:
    """The options of arignote. Instances are immutable; change them with ``change_flags``."""

    #: dtype of ``matrix()``, ``vector()``... and of Python floats turned into constants.
    floatX: str = "float64"
    #: default compilation mode of ``function()`` ("FAST_RUN", "FAST_COMPILE", "DebugMode", ...).
    mode: str = "FAST_RUN"
    #: default linker for modes that do not name one ("vm": the Python VM, freeing
    #: intermediates early; "vm_nogc": keeps them between calls; "py": no VM loop tricks).
    linker: str = "vm"
    #: default rewrite pipeline for modes that do not name one.
    optimizer: str = "fast_run"
    #: what a rewrite that raises does: "warn" (and skip it), "raise", or "ignore".
    on_rewrite_error: str = "warn"
    #: run ``FunctionGraph.check_integrity`` after every rewrite (slow; for tests).
    check_integrity: bool = False
    #: free intermediate values during a call, as soon as no later node needs them.
    allow_gc: bool = True
    #: record which rewrites fired on which nodes (``f.maker.rewrite_trace``).
    trace_rewrites: bool = False
    #: constant folding skips results with more elements than this when their inputs are
    #: much smaller (folding ``zeros((10**4, 10**4))`` would bloat the graph).
    max_constant_fold_size: int = 10_000
    #: whether compiled graphs may be cached between calls to ``function``.
    compile_cache: bool = True

    def __post_init__(self) -> None:
        for name, choices in _CHOICES.items():
            value = getattr(self, name)
            if value not in choices:
                raise ValueError(f"config.{name} must be one of {choices}, got {value!r}")

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> Options:
        """Options with the overrides of ``ARIGNOTE_FLAGS`` applied."""
        environ = os.environ if environ is None else environ
        text = environ.get("ARIGNOTE_FLAGS", "").strip()
        if not text:
            return cls()
        changes: dict[str, Any] = {}
        for item in text.split(","):
            if not item.strip():
                continue
            key, sep, value = item.partition("=")
            if not sep:
                raise ValueError(f"ARIGNOTE_FLAGS entries look like name=value, got {item!r}")
            changes[key.strip()] = _parse(key.strip(), value.strip())
        return dataclasses.replace(cls(), **changes)


_FIELD_TYPES = {f.name: f.type for f in fields(Options)}


def _parse(name: str, value: Any) -> Any:
    if name not in _FIELD_TYPES:
        raise AttributeError(f"Unknown config option {name!r}; known: {sorted(_FIELD_TYPES)}")
    kind = _FIELD_TYPES[name]
    if not isinstance(value, str):
        return value
    if kind == "bool":
        if value.lower() in ("1", "true", "yes", "on"):
            return True
        if value.lower() in ("0", "false", "no", "off"):
            return False
        raise ValueError(f"config.{name} expects a boolean, got {value!r}")
    if kind == "int":
        return int(value)
    return value


_current: ContextVar[Options | None] = ContextVar("arignote_options", default=None)
_from_env: list[Options] = []  # filled once, on first read


def options() -> Options:
    """The options in force in the current context."""
    current = _current.get()
    if current is None:
        if not _from_env:
            _from_env.append(Options.from_env())
        current = _from_env[0]
    return current


class Config:
    """Attribute access to the current :class:`Options` (``config.floatX``)."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            return getattr(options(), name)
        except AttributeError:
            raise AttributeError(
                f"Unknown config option {name!r}; known: {sorted(_FIELD_TYPES)}"
            ) from None

    def __setattr__(self, name: str, value: Any) -> None:
        _current.set(dataclasses.replace(options(), **{name: _parse(name, value)}))

    @contextmanager
    def change_flags(self, **changes: Any) -> Iterator[Options]:
        """Change options for the duration of a ``with`` block (context-local)."""
        parsed = {name: _parse(name, value) for name, value in changes.items()}
        token = _current.set(dataclasses.replace(options(), **parsed))
        try:
            yield options()
        finally:
            _current.reset(token)

    def __dir__(self) -> list[str]:
        return sorted(_FIELD_TYPES) + ["change_flags"]

    def __repr__(self) -> str:
        return f"config({options()})"


config = Config()
change_flags = config.change_flags
