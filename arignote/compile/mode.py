"""``Mode``: how a function is compiled — a linker and a rewrite pipeline, as one value."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from arignote.compile.pipeline import make_pipeline
from arignote.config import config
from arignote.graph.rewriting.basic import GraphRewriter
from arignote.link.basic import LINKERS, Linker, linker_named
from arignote.link.basic import register_linker as register_linker  # re-exported
from arignote.link.tiered import TieredLinker
from arignote.link.vm import VMLinker  # noqa: F401  (registers the built-in linkers)

# The mode (and profile) of the function whose graph is being linked now. Inner-graph ops
# (IndexMap, Scan, IfElse, OpFromGraph) read them in ``make_thunk`` so that their inner graph
# is compiled once per outer compiled function, by the outer function's mode (DebugMode,
# NanGuardMode and profiling then reach inner graphs). Context variables, so concurrent
# compilations never see each other's.
_linking_mode: ContextVar[Any] = ContextVar("arignote_linking_mode", default=None)
_linking_profile: ContextVar[Any] = ContextVar("arignote_linking_profile", default=None)


def linking_mode() -> Any:
    """The ``Mode`` of the function being linked in this context, or None outside linking."""
    return _linking_mode.get()


def linking_profile() -> Any:
    """The ``ProfileStats`` of the function being linked in this context (None: unprofiled)."""
    return _linking_profile.get()


@contextmanager
def linking_with(mode: Any, profile: Any = None) -> Iterator[None]:
    """Make ``mode`` and ``profile`` the answers of :func:`linking_mode` and
    :func:`linking_profile` for the duration of the block."""
    mode_token = _linking_mode.set(mode)
    profile_token = _linking_profile.set(profile)
    try:
        yield
    finally:
        _linking_profile.reset(profile_token)
        _linking_mode.reset(mode_token)


class Mode:
    """A compilation mode: ``Mode(linker="vm", optimizer="fast_run")``.

    ``optimizer`` is a pipeline name ("fast_run", "fast_compile", "merge", None) or a
    GraphRewriter; ``including``/``excluding``/``requiring`` return modes with the rewrite
    selection changed by name or tag (e.g. ``mode.excluding("fusion")``).
    """

    def __init__(
        self,
        linker: str | Linker | None = None,
        optimizer: Any = "default",
        include: tuple = (),
        exclude: tuple = (),
        require: tuple = (),
    ) -> None:
        self.linker_spec = config.linker if linker is None else linker
        if optimizer == "default":
            optimizer = config.optimizer
        if optimizer is None:
            optimizer = "none"
        self.optimizer_spec = optimizer
        self.include = tuple(include)
        self.exclude = tuple(exclude)
        self.require = tuple(require)
        if isinstance(self.linker_spec, str) and self.linker_spec not in LINKERS:
            raise ValueError(f"Unknown linker {self.linker_spec!r}; known: {sorted(LINKERS)}")
        if not isinstance(optimizer, (str, GraphRewriter)):
            raise TypeError(
                f"optimizer must be a pipeline name or a GraphRewriter, got {optimizer!r}"
            )

    @property
    def linker(self) -> Linker:
        """A fresh linker for one compilation."""
        if isinstance(self.linker_spec, Linker):
            return self.linker_spec.clone()
        return linker_named(self.linker_spec)

    @property
    def optimizer(self) -> GraphRewriter:
        """The rewriter applied to the graph before linking.

        The pipeline follows the linker's declaration: the rewrites it requires are included,
        those it cannot take (``incompatible_rewrites``, e.g. in-place for JAX) excluded.
        """
        if isinstance(self.optimizer_spec, GraphRewriter):
            return self.optimizer_spec
        linker = self.linker
        include = self.include + tuple(linker.required_rewrites)
        exclude = self.exclude + tuple(linker.incompatible_rewrites)
        return make_pipeline(self.optimizer_spec, include, exclude, self.require)

    def fgraph_features(self) -> list:
        """Features attached to a function's graph before rewriting (none by default).

        Modes that watch the rewriting (DebugMode records every replacement) add theirs here.
        """
        return []

    def _derive(self, **changes: Any) -> Mode:
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.__dict__.update(changes)
        return new

    def including(self, *tags: str) -> Mode:
        """This mode with the rewrites (or phases) named or tagged ``tags`` added."""
        return self._derive(include=self.include + tags)

    def excluding(self, *tags: str) -> Mode:
        """This mode without the rewrites (or phases) named or tagged ``tags``."""
        return self._derive(exclude=self.exclude + tags)

    def requiring(self, *tags: str) -> Mode:
        """This mode keeping only rewrites that carry every tag in ``tags``."""
        return self._derive(require=self.require + tags)

    def clone(self, link_kwargs: dict | None = None, optimizer: Any = "", **kwargs: Any) -> Mode:
        """This mode with another ``optimizer`` and/or linker options.

        ``link_kwargs`` may hold ``allow_gc`` (the only option linkers share); anything else
        is refused rather than silently ignored.
        """
        link_kwargs = dict(link_kwargs or {})
        unknown = sorted(set(link_kwargs) - {"allow_gc"}) + sorted(kwargs)
        if unknown:
            raise TypeError(f"Mode.clone: unsupported options {unknown}")
        changes: dict[str, Any] = {}
        if optimizer != "":
            changes["optimizer_spec"] = optimizer
        if "allow_gc" in link_kwargs:
            changes["linker_spec"] = self.linker.clone(allow_gc=link_kwargs["allow_gc"])
        return self._derive(**changes)

    def __str__(self) -> str:
        return (
            f"Mode(linker={self.linker_spec}, optimizer={self.optimizer_spec}"
            + (f", include={self.include}" if self.include else "")
            + (f", exclude={self.exclude}" if self.exclude else "")
            + ")"
        )

    __repr__ = __str__


# "auto": the Python VM first, Numba's native code once a function is hot, when numba can be
# imported (arignote.link.tiered); "vm": the Python VM only.
register_linker("auto", lambda: TieredLinker(allow_gc=None))
register_linker("auto_nogc", lambda: TieredLinker(allow_gc=False))

FAST_COMPILE = Mode("vm", "fast_compile")
FAST_RUN = Mode("auto", "fast_run")
#: The Python VM only, with the ``fast_run`` rewrites (the mode named "VM").
VM = Mode("vm", "fast_run")

_CONFIGURED: dict[tuple, Mode] = {}


def configured_mode() -> Mode:
    """The mode named "Mode" (``config.mode``'s default): ``config.linker`` and
    ``config.optimizer`` as they are now (one Mode object per combination)."""
    key = (config.linker, config.optimizer)
    mode = _CONFIGURED.get(key)
    if mode is None:
        mode = _CONFIGURED[key] = Mode(*key)
    return mode


#: Modes by name; DebugMode and NanGuardMode register themselves here. A callable entry is
#: called for each lookup (a mode class, or a factory like ``configured_mode``).
predefined_modes: dict[str, Any] = {
    "FAST_COMPILE": FAST_COMPILE,
    "FAST_RUN": FAST_RUN,
    "VM": VM,
    "Mode": configured_mode,
}


def _jax_linker(**options: Any) -> Linker:
    # The JAX backend is imported the first time it is asked for, never by ``import arignote``
    # (only arignote.link.jax may import jax); importlib keeps the import at this call site
    # without an import statement inside a function.
    try:
        backend = importlib.import_module("arignote.link.jax")
    except ModuleNotFoundError as err:
        if err.name not in ("jax", "jaxlib"):
            raise
        raise ImportError(
            'The JAX mode needs jax: pip install "arignote[jax]" (or jax itself)'
        ) from err
    return backend.JAXLinker(**options)


def jax_mode(optimizer: Any = "fast_run", **linker_options: Any) -> Mode:
    """A Mode compiling with JAX: ``jax_mode(platform="gpu")``, ``jax_mode(shard_batch=("x",))``.

    The pipeline leaves out the rewrites the JAX linker cannot take (its
    ``incompatible_rewrites``: in-place operations and elementwise fusion). ``linker_options``
    are those of :class:`arignote.link.jax.JAXLinker` (``platform``, ``shard_batch``, ``x64``,
    ``matmul_precision``).
    """
    linker = _jax_linker(**linker_options)
    return Mode(linker, optimizer, exclude=tuple(linker.incompatible_rewrites))


_JAX_MODE: list[Mode] = []


def _default_jax_mode() -> Mode:
    if not _JAX_MODE:
        _JAX_MODE.append(jax_mode())
    return _JAX_MODE[0]


register_linker("jax", _jax_linker)
predefined_modes["JAX"] = _default_jax_mode


def register_mode(name: str, mode: Any) -> None:
    """Make ``get_mode(name)`` (and ``function(..., mode=name)``) return ``mode``."""
    predefined_modes[name] = mode


def get_mode(mode: str | Mode | None) -> Mode:
    """The Mode for ``mode``: a Mode passes through; names are looked up; None is config.mode,
    changed by the flags ``optimizer_excluding``, ``optimizer_including`` and
    ``optimizer_requiring`` (":"-separated lists), as in PyTensor."""
    if mode is None:
        return _with_optimizer_flags(get_mode(config.mode))
    if isinstance(mode, Mode):
        return mode
    if isinstance(mode, str):
        found = predefined_modes.get(mode)
        if found is None:
            raise ValueError(f"Unknown mode {mode!r}; known: {sorted(predefined_modes)}")
        return found() if callable(found) and not isinstance(found, Mode) else found
    raise TypeError(f"mode must be a Mode or a mode name, got {mode!r}")


def _with_optimizer_flags(mode: Mode) -> Mode:
    for flag, method in (
        (config.optimizer_excluding, "excluding"),
        (config.optimizer_including, "including"),
        (config.optimizer_requiring, "requiring"),
    ):
        if flag:
            mode = getattr(mode, method)(*flag.split(":"))
    return mode


def get_default_mode() -> Mode:
    """The mode ``function()`` uses when given none: ``get_mode(config.mode)``."""
    return get_mode(None)


# -- the Numba backend (imported on first use, never by ``import arignote``) -------------------


def _numba_linker(**options: Any) -> Linker:
    # only arignote.link.numba may import numba; importlib keeps this import at the call site
    return importlib.import_module("arignote.link.numba").NumbaLinker(**options)


_NUMBA_MODE: list[Mode] = []


def numba_mode() -> Mode:
    """The mode named "NUMBA": the whole graph compiled by numba (``fast_run`` rewrites)."""
    if not _NUMBA_MODE:
        _NUMBA_MODE.append(Mode("numba", "fast_run"))
    return _NUMBA_MODE[0]


#: The mode named "TIERED": the default's tiering, but compiling natively (in the background)
#: from the first call on (see :mod:`arignote.link.tiered`).
TIERED = Mode(TieredLinker(hot_calls=1), "fast_run")

register_linker("numba", _numba_linker)
register_linker("numba_tiered", lambda: TieredLinker(hot_calls=1))
predefined_modes["NUMBA"] = numba_mode
predefined_modes["TIERED"] = TIERED


def __getattr__(name: str) -> Mode:
    # PyTensor's ``compile.mode.JAX`` / ``NUMBA`` are Mode objects; here they are made on first
    # access (building them imports the backend, which ``import arignote`` must not do).
    if name in ("JAX", "NUMBA"):
        return get_mode(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
