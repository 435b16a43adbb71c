"""Configuration: a frozen set of options, process-wide defaults and context-local changes.

Reading: ``arignote.config.floatX`` returns the option in force in the current context.

Changing for a block: ``with config.change_flags(floatX="float32"): ...`` changes options for
the ``with`` block only, and only in the current thread or asyncio task (the change lives in a
:mod:`contextvars` variable, so concurrent threads and tasks never see each other's blocks).

Changing the defaults: ``config.floatX = "float32"`` changes the process-wide default, seen by
every thread and task except inside a ``change_flags`` block that sets the same option.

Environment: ``ARIGNOTE_FLAGS="floatX=float32,mode=FAST_COMPILE"`` sets defaults. It is read
once, the first time any option is read (never at import time), and never again.

Options (see :class:`Options` for each one's meaning):

==========================  ==============  ======================================================
option                      default         meaning
==========================  ==============  ======================================================
``floatX``                  ``"float64"``   dtype of ``matrix()``, ``vector()``..., and of Python
                                            floats turned into constants
``mode``                    ``"Mode"``      mode of ``function()`` when none is given (a name
                                            known to ``get_mode``, or a ``Mode``); "Mode" is
                                            the mode made of ``linker`` and ``optimizer``
``linker``                  ``"auto"``      linker of ``"Mode"`` and of modes naming none
                                            ("auto": the VM, then native code when hot)
``optimizer``               ``"fast_run"``  rewrite pipeline of ``"Mode"`` and of modes naming
                                            none
``on_rewrite_error``        ``"warn"``      a rewrite that raises: "warn" (skip it), "raise",
                                            "ignore"
``check_integrity``         ``False``       check the FunctionGraph after every rewrite
``allow_gc``                ``True``        free intermediate values during a call
``trace_rewrites``          ``False``       record fired rewrites on ``f.maker.rewrite_trace``
``max_constant_fold_size``  ``10000``       largest folded constant built from small inputs
``compile_cache``           ``True``        reserved for a compiled-graph cache (none exists
                                            yet: the option has no effect today)
``profile``                 ``False``       profile every function (``function(profile=None)``)
``on_unused_input``         ``"raise"``     an unused function input: "raise", "warn", "ignore"
``tiered``                  ``True``        "auto" linker: swap in native code when hot
``cache_dir``               ``""``          disk cache of native code ("": ARIGNOTE_CACHE_DIR,
                                            else the user cache directory)
``cache_size_mb``           ``1024``        bound of that cache (least recently used evicted)
``exception_verbosity``     ``"low"``       "high": a node's error adds a print of its inputs
``optimizer_excluding``     ``""``          ":"-separated rewrites/tags the default mode
                                            excludes (also ``optimizer_including``,
                                            ``optimizer_requiring``)
``NanGuardMode__*``         ``True``        defaults of ``NanGuardMode``'s arguments:
                                            ``NanGuardMode__nan_is_error``,
                                            ``NanGuardMode__inf_is_error``,
                                            ``NanGuardMode__big_is_error``
``profiling__n_ops``        ``20``          rows of ``ProfileStats.summary``'s op and class
                                            tables (``profiling__n_apply``: node table)
==========================  ==============  ======================================================
"""

from __future__ import annotations

import dataclasses
import os
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, fields
from typing import Any

_CHOICES: dict[str, tuple[str, ...]] = {
    "floatX": ("float64", "float32", "float16"),
    "on_rewrite_error": ("warn", "raise", "ignore"),
    "on_unused_input": ("raise", "warn", "ignore"),
    "exception_verbosity": ("low", "high"),
}


@dataclass(frozen=True)
class Options:
    """The options of arignote. Instances are immutable; change them with ``change_flags``."""

    #: dtype of ``matrix()``, ``vector()``... and of Python floats turned into constants.
    floatX: str = "float64"
    #: default compilation mode of ``function()``: a name ("Mode", "FAST_RUN",
    #: "FAST_COMPILE", "DebugMode", "NanGuardMode", or one added with ``register_mode``) or a
    #: ``Mode``. "Mode" (the default, as in PyTensor) is ``Mode(linker, optimizer)`` built
    #: from the two options below, so that changing them changes what ``function()`` does.
    mode: Any = "Mode"
    #: linker of the "Mode" mode and of modes that do not name one ("auto": the Python VM,
    #: then Numba's native code once a function is hot, when numba is installed; "vm": the
    #: Python VM only, freeing intermediates early; "vm_nogc": keeps them between calls;
    #: "py": same as "vm_nogc").
    linker: str = "auto"
    #: rewrite pipeline of the "Mode" mode and of modes that do not name one ("fast_run",
    #: "fast_compile", "merge", "None").
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
    #: reserved for a cache of compiled graphs; no such cache exists yet, so it has no effect.
    compile_cache: bool = True
    #: profile every compiled function, as if ``function(..., profile=True)`` were passed.
    profile: bool = False
    #: what ``function()`` does with an input the outputs do not depend on, when its
    #: ``on_unused_input`` argument is None: "raise", "warn" or "ignore".
    on_unused_input: str = "raise"
    #: the "auto" linker compiles hot functions natively (False: they stay on the VM; set
    #: with ``ARIGNOTE_FLAGS=tiered=False``).
    tiered: bool = True
    #: directory of the disk cache of native code ("" : ``$ARIGNOTE_CACHE_DIR``, else the
    #: user cache directory).
    cache_dir: str = ""
    #: total size bound of that cache, in MiB (least recently used entries are evicted).
    cache_size_mb: int = 1024
    #: what an error raised by a node says (PyTensor's flag): "low" describes the node, its
    #: inputs' types and shapes; "high" adds a debug print of the node's inputs.
    exception_verbosity: str = "low"
    #: rewrites (or tags) the default mode leaves out, include and require, each a list
    #: separated by ":" (PyTensor's flags; applied by ``get_mode(None)``, so by ``function``
    #: when it is given no mode).
    optimizer_excluding: str = ""
    optimizer_including: str = ""
    optimizer_requiring: str = ""
    #: what ``NanGuardMode()`` checks when its arguments are None (PyTensor's flags).
    NanGuardMode__nan_is_error: bool = True
    NanGuardMode__inf_is_error: bool = True
    NanGuardMode__big_is_error: bool = True
    #: how many ops and nodes ``ProfileStats.summary`` lists by default (PyTensor's flags).
    profiling__n_ops: int = 20
    profiling__n_apply: int = 20

    def __post_init__(self) -> None:
        for name, choices in _CHOICES.items():
            value = getattr(self, name)
            if value not in choices:
                raise ValueError(f"config.{name} must be one of {choices}, got {value!r}")
        for name in ("linker", "optimizer"):
            if not isinstance(getattr(self, name), str):
                raise TypeError(f"config.{name} must be a string, got {getattr(self, name)!r}")

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Options:
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
            try:
                changes[key.strip()] = _parse(key.strip(), value.strip())
            except (AttributeError, ValueError) as err:
                raise ValueError(f"ARIGNOTE_FLAGS={text!r}: {err}") from err
        try:
            return dataclasses.replace(cls(), **changes)
        except (TypeError, ValueError) as err:
            raise ValueError(f"ARIGNOTE_FLAGS={text!r}: {err}") from err


_FIELD_TYPES = {f.name: f.type for f in fields(Options)}


class UnknownOptionError(AttributeError, KeyError):
    """A name that is no option. An AttributeError (``config.name``, ``hasattr``) and, as
    PyTensor's ``change_flags`` raises for unknown flags, a KeyError."""

    def __init__(self, name: str) -> None:
        super().__init__(f"Unknown config option {name!r}; known: {sorted(_FIELD_TYPES)}")


def _parse(name: str, value: Any) -> Any:
    """``value`` for option ``name``, converting text ("true", "3") to the option's type."""
    if name not in _FIELD_TYPES:
        raise UnknownOptionError(name)
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


class _Defaults:
    """The process-wide defaults: from the environment on first use, then from assignments.

    ``version`` grows with every change, so that context-local blocks resolved against older
    defaults know to resolve again.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.options: Options | None = None
        self.version = 0

    def get(self) -> Options:
        current = self.options
        if current is None:
            with self.lock:
                if self.options is None:
                    self.options = Options.from_env()
                current = self.options
        return current

    def change(self, changes: dict[str, Any]) -> None:
        with self.lock:
            base = self.options if self.options is not None else Options.from_env()
            self.options = dataclasses.replace(base, **changes)
            self.version += 1


_defaults = _Defaults()
# The changes made by the enclosing ``change_flags`` blocks of this context, with the options
# they resolved to and the version of the defaults they were resolved against.
_local: ContextVar[tuple[dict[str, Any], Options, int] | None] = ContextVar(
    "arignote_options", default=None
)


def options() -> Options:
    """The options in force in the current context."""
    local = _local.get()
    base = _defaults.get()
    if local is None:
        return base
    changes, resolved, version = local
    if version == _defaults.version:
        return resolved
    return dataclasses.replace(base, **changes)  # the defaults changed inside the block


class Config:
    """Attribute access to the current :class:`Options` (``config.floatX``)."""

    def __getattr__(self, name: str) -> Any:
        # Private names are never options: answering them without resolving the options keeps
        # introspection (hasattr, copy, getattr(obj, "_marker", None) over module globals at
        # import time) from reading ARIGNOTE_FLAGS.
        if name.startswith("_") or name not in _FIELD_TYPES:
            raise UnknownOptionError(name)
        return getattr(options(), name)

    def __setattr__(self, name: str, value: Any) -> None:
        """Change the process-wide default of option ``name`` (all threads see it)."""
        _defaults.change({name: _parse(name, value)})

    @contextmanager
    def change_flags(self, **changes: Any) -> Iterator[Options]:
        """Change options for the duration of a ``with`` block, in this thread or task only."""
        parsed = {name: _parse(name, value) for name, value in changes.items()}
        outer = _local.get()
        merged = {**(outer[0] if outer is not None else {}), **parsed}
        resolved = dataclasses.replace(_defaults.get(), **merged)
        token = _local.set((merged, resolved, _defaults.version))
        try:
            yield resolved
        finally:
            _local.reset(token)

    def __dir__(self) -> list[str]:
        return sorted(_FIELD_TYPES) + ["change_flags"]

    def __repr__(self) -> str:
        return f"config({options()})"


config = Config()
change_flags = config.change_flags
