"""Disk cache of native code, shared by processes, bounded, and safe against crashes.

A converted graph is written as one Python module (the source of the graph function and of
every function it calls, ``numba.njit(cache=True)``, see :mod:`.cache_text`) with its
constants beside it in a ``.npz`` file, under a name that is the SHA-256 of the module text,
the constants' bytes, and the versions of arignote, numba, llvmlite and NumPy and the CPU
name. Numba then caches the machine code of each function next to the module (its
``__pycache__``), so another process compiling the same graph loads it instead of compiling.

Location: ``config.cache_dir`` when set, else ``$ARIGNOTE_CACHE_DIR``, else platformdirs'
user cache directory (``.../arignote/numba`` in each case).

Safety. Writers take a per-entry file lock (released by the system if the writer dies) and
publish each file with an atomic rename (constants first, module last), after writing it to
a hidden temporary name: a process killed at any moment leaves at most a temporary file or
constants without a module, never a file that reads as an entry. A reader checks an entry
against the text and constants it expects (a truncated or garbled module or ``.npz`` is
discarded and written again), and a damaged numba cache file counts as a miss (deleted, the
function compiled again). A cache directory that cannot be written (read-only, disk full),
whether for the entry or for numba's files, means compiling without caching, with one
warning per process.

Lifetime: a loaded entry (its module, jitted functions and numba's compiled versions) is
owned by the functions calling it, through a :class:`Lease` that their runners hold; when
the last one goes, the module leaves ``sys.modules`` and is emptied, which frees it (numba's
own finalizers would otherwise keep it for the life of the process). The
:data:`KEPT_ENTRIES` most recently used entries stay loaded beyond that, because numba never
releases machine code: loading an entry again would cost the process memory for good.

Size: every load records the entry's last use (the mtime of its ``.used`` marker: the
module's own mtime is part of numba's cache key); after each new entry, the least recently
used entries are evicted until the total is within ``config.cache_size_mb``.
``python -m arignote.cache info`` and ``clear`` show and empty the cache.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import io
import os
import platform
import sys
import threading
import time
import types
import uuid
import warnings
import weakref
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import llvmlite
import llvmlite.binding
import numpy as np
from filelock import FileLock

import numba
from arignote.config import config
from arignote.link.hot_index import cache_root, forget_all
from arignote.link.numba.cache_text import GraphModule, graph_module

_PREFIX = "arignote_"
#: Part of every entry's key: raised when entries written before cannot be loaded safely
#: (2: numba function ids random, see :mod:`.unique_ids`; older entries hold counter ids.
#: 3: no shared kernel entering object mode is linked in, see ``cache_text.GraphModule``).
_FORMAT = 3
#: Temporary files older than this (seconds) are leftovers of killed writers.
_STALE_SECONDS = 3600.0


class CacheWarning(UserWarning):
    """The disk cache cannot be used (read-only or full directory): compiling without it."""


def cache_dir() -> Path:
    """Where native code is cached (see the module docstring)."""
    return cache_root()


def entry_key(text: str, constants: dict[str, Any]) -> str:
    digest = hashlib.sha256(text.encode())
    versions = (numba.__version__, llvmlite.__version__, np.__version__, _arignote_version())
    versions += (_FORMAT,)
    digest.update(repr((versions, platform.machine(), _cpu_name())).encode())
    for name, value in constants.items():
        array = np.asarray(value)
        digest.update(f"{name}:{array.dtype.str}:{array.shape}".encode())
        digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()[:40]


# -- loading ------------------------------------------------------------------------------------


def load_function(jitted: Any) -> tuple[Callable, Lease] | None:
    """The cached version of the ``compile_source`` function ``jitted`` (its module written
    first if missing) and the :class:`Lease` whatever calls it must hold; None when it cannot
    be cached (:func:`.cache_text.graph_module`) or, after one warning per process, when the
    cache directory cannot be used."""
    module = graph_module(jitted)
    if module is None:
        return None
    key = entry_key(module.text, module.constants)
    directory = cache_dir()
    if module.injected:
        # Numba keeps one environment (the globals object mode reads) per compiled function
        # and process: a second load of this entry would read the first load's objects. A
        # module with injected objects is therefore loaded once per process; later graphs of
        # the same text compile in memory, with their own objects.
        if key in _INJECTED_KEYS:
            return None
        _INJECTED_KEYS.add(key)
    try:
        loaded = _load_or_write(directory, key, module)
    except OSError as err:
        _warn_once(directory, err)
        return None
    if not module.injected:  # loaded once per process anyway (see above)
        _keep(_module_name(key), loaded[1])
    return loaded


#: Keys of entries with injected objects loaded by this process.
_INJECTED_KEYS: set[str] = set()


class Lease:
    """The hold of compiled functions on one entry loaded from the disk cache.

    Numba's jitted functions of a module are immortal: numba's finalizer of each one (kept
    in the process-wide ``weakref.finalize`` registry) holds its compiled versions, whose
    environment holds the module's globals, which hold the jitted functions; and numba
    finds the module by name in ``sys.modules``. The lease owns the module instead.
    Whatever calls the entry's graph function holds the lease (a function's runner does,
    through its boundary); when the last holder goes, the lease takes the module out of
    ``sys.modules`` and empties its namespace, which frees the jitted functions (numba then
    drops their compiled versions and machine code handles) and the injected objects.
    """

    __slots__ = ("__weakref__", "module")

    def __init__(self, module: types.ModuleType) -> None:
        self.module = module
        # not at exit: a compilation finishing then (a tiered background one) may still use it
        weakref.finalize(self, _unload, module).atexit = False


def _unload(module: types.ModuleType) -> None:
    if sys.modules.get(module.__name__) is module:
        del sys.modules[module.__name__]
    vars(module).clear()


#: Each loaded entry's lease, by module name, while some function holds it: a graph
#: compiled again meanwhile shares the loaded code.
_LOADED: weakref.WeakValueDictionary[str, Lease] = weakref.WeakValueDictionary()

#: How many of the most recently used entries stay loaded after their last function is gone
#: (0: an entry goes with its last function). Numba never frees machine code (LLVM's
#: process-wide engine keeps it), so loading an entry again costs the process about 20 KiB
#: for good, and some 25 ms: a loop that builds, calls and drops the same function reuses
#: the entry instead. Entries with injected objects are not kept (they load once anyway).
KEPT_ENTRIES = 16
_KEPT: OrderedDict[str, Lease] = OrderedDict()
_KEPT_LOCK = threading.Lock()


def _keep(name: str, lease: Lease) -> None:
    """Record a use of a loaded entry: it joins (or moves to the end of) the kept ones."""
    with _KEPT_LOCK:
        _KEPT[name] = lease
        _KEPT.move_to_end(name)
        while len(_KEPT) > max(KEPT_ENTRIES, 0):
            _KEPT.popitem(last=False)  # its lease goes with its last function


def _load_or_write(directory: Path, key: str, module: GraphModule) -> tuple[Callable, Lease]:
    path = directory / f"{_PREFIX}{key}.py"
    name = _module_name(key)
    lease = _LOADED.get(name)
    if lease is not None and lease.module.__file__ == str(path):
        return getattr(lease.module, module.entry), lease  # loaded from this very entry
    directory.mkdir(parents=True, exist_ok=True)
    for attempt in range(2):
        if not _holds(path, module.text):
            _write(path, module.text, module.constants)
        try:
            lease = _import(path, name, module)
        except Exception:  # a damaged entry: discard it and write it again once
            if attempt:
                raise
            _discard(directory, key)
            continue
        _touch(path)
        return getattr(lease.module, module.entry), lease
    raise AssertionError("unreachable")


def _holds(path: Path, text: str) -> bool:
    """Whether ``path`` holds exactly ``text`` (a missing, truncated or garbled file does not)."""
    try:
        return path.read_bytes() == text.encode()
    except FileNotFoundError:
        return False


def _import(path: Path, name: str, graph: GraphModule) -> Lease:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    vars(module).update(graph.injected)
    # numba finds a cached function's module by name whenever it loads or compiles one of
    # its machine codes (object-mode parts even during a call): importable while leased
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
        _check_constants(module, graph.constants)
    except BaseException:
        del sys.modules[name]
        raise
    _share(module, graph.shared)
    for dispatcher in _own_dispatchers(module):
        _guard_numba_cache(dispatcher)
    lease = _LOADED[name] = Lease(module)
    return lease


def _share(module: Any, shared: dict[str, Any]) -> None:
    """Make the module's functions call the process's shared kernels (same source, same
    globals: see ``dispatch.basic.compile_source``) instead of the module's own copies, so
    that numba does not compile again, for each new graph, a kernel it already compiled in
    this process. Numba reads a function's globals when it compiles it; the graph's machine
    code, once in numba's cache, holds the kernels' code and loads without them."""
    vars(module).update(shared)


def _check_constants(module: Any, constants: dict[str, Any]) -> None:
    for name, value in constants.items():
        stored, expected = np.asarray(getattr(module, name)), np.asarray(value)
        if stored.dtype != expected.dtype or not np.array_equal(stored, expected, equal_nan=True):
            raise ValueError(f"cache entry {module.__name__}: constant {name} differs")


def _own_dispatchers(module: types.ModuleType) -> list[Any]:
    """The jitted functions defined by ``module`` (not those it imports)."""
    namespace = vars(module)
    return [
        value
        for value in namespace.values()
        if getattr(getattr(value, "py_func", None), "__globals__", None) is namespace
    ]


def _guard_numba_cache(dispatcher: Any) -> None:
    """Make a damaged numba cache file (index or code) a miss rather than an error, and a
    failed write of one (disk full, directory made read-only) a warning."""
    cache = dispatcher._cache
    index = getattr(getattr(cache, "_cache_file", None), "_index_path", None)
    if index is not None:
        cache.load_overload = _safe_load(Path(index), weakref.WeakMethod(cache.load_overload))
        cache.save_overload = _safe_save(Path(index), weakref.WeakMethod(cache.save_overload))


def _safe_load(index: Path, load: weakref.WeakMethod) -> Callable:
    # the cache object is held weakly: no reference cycle through it, so that the jitted
    # function goes as soon as its lease empties the module
    def load_overload(sig: Any, target_context: Any) -> Any:
        try:
            return load()(sig, target_context)
        except Exception:  # truncated or garbled: drop the files, compile (and save) again
            _drop_numba_files(index)
            return None

    return load_overload


def _safe_save(index: Path, save: weakref.WeakMethod) -> Callable:
    # numba writes each file to a temporary name and renames it, the index first: a failed
    # or killed write leaves an index naming a missing file, which numba reads as a miss
    def save_overload(sig: Any, data: Any) -> None:
        try:
            save()(sig, data)
        except OSError as err:  # the function runs; its machine code is just not cached
            _warn_once(index.parent.parent, err)

    return save_overload


def _drop_numba_files(index: Path) -> None:
    for stale in [index, *index.parent.glob(index.name[: -len(".nbi")] + ".*.nbc")]:
        stale.unlink(missing_ok=True)


def _module_name(key: str) -> str:
    return f"arignote_numba_{key}"


# -- writing ------------------------------------------------------------------------------------


def _fault(point: str) -> None:
    """Called at each step of writing an entry (tests kill the process at one of them)."""


def _write_bytes(file: Any, data: bytes) -> None:
    file.write(data)  # the seam tests use to simulate a full disk


def _write(path: Path, text: str, constants: dict[str, Any]) -> None:
    with FileLock(str(path) + ".lock"):
        _fault("locked")
        if _holds(path, text):
            return  # another process wrote it meanwhile
        buffer = io.BytesIO()
        np.savez(buffer, **{k: np.asarray(v) for k, v in constants.items()})
        _atomic(path.with_suffix(".npz"), buffer.getvalue())
        _fault("between-files")
        _atomic(path, text.encode())
        _fault("written")
        _touch(path)
    evict(path.parent, keep=path.stem)


def _atomic(path: Path, data: bytes) -> None:
    temporary = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        with open(temporary, "wb") as f:
            _write_bytes(f, data[: len(data) // 2])
            f.flush()
            _fault("mid-write")
            _write_bytes(f, data[len(data) // 2 :])
            f.flush()
            os.fsync(f.fileno())
        _fault("before-rename")
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _touch(path: Path) -> None:
    """Record a use of the entry (its ``.used`` marker's mtime)."""
    marker = path.with_suffix(".used")
    try:
        os.utime(marker)
    except FileNotFoundError:
        marker.touch()


def _discard(directory: Path, key: str) -> None:
    with FileLock(str(directory / f"{_PREFIX}{key}.py") + ".lock"):
        for stale in _entry_files(directory, key):
            stale.unlink(missing_ok=True)


_WARNED: set[str] = set()


def _warn_once(directory: Path, err: OSError) -> None:
    if str(directory) in _WARNED:
        return
    _WARNED.add(str(directory))
    warnings.warn(
        f"arignote: the native code cache {directory} cannot be used ({err}); compiling "
        "without caching",
        CacheWarning,
        stacklevel=4,
    )


# -- size, eviction, info and clear -------------------------------------------------------------


@dataclass
class Entry:
    """One cached graph: its key, files, total size and last use (seconds since the epoch)."""

    key: str
    files: list[Path] = field(default_factory=list)
    size: int = 0
    last_used: float = 0.0


def entries(directory: Path | None = None) -> list[Entry]:
    """The entries of the cache, least recently used first."""
    directory = cache_dir() if directory is None else directory
    found: dict[str, Entry] = {}
    compiled = _numba_files(directory)  # one listing: a glob per entry made this quadratic
    for module in directory.glob(f"{_PREFIX}*.py"):
        key = module.stem[len(_PREFIX) :]
        entry = found[key] = Entry(key, _own_files(directory, key) + compiled.get(module.stem, []))
        entry.size = sum(_size(f) for f in entry.files)
        entry.last_used = max(_mtime(module.with_suffix(".used")), _mtime(module))
    return sorted(found.values(), key=lambda e: e.last_used)


def evict(directory: Path, keep: str = "", bound: int | None = None) -> list[str]:
    """Remove the least recently used entries until the cache holds at most ``bound`` bytes
    (default ``config.cache_size_mb``), never the entry named ``keep``; the evicted keys."""
    bound = config.cache_size_mb * 2**20 if bound is None else bound
    evicted = []
    with FileLock(str(directory / "evict.lock")):
        _remove_stale_temporaries(directory)
        if _total_size(directory) <= bound:  # the usual case: one pass, no entry listing
            return evicted
        listed = entries(directory)
        total = sum(e.size for e in listed)
        for entry in listed:
            if total <= bound:
                break
            if f"{_PREFIX}{entry.key}" == keep:
                continue
            _discard(directory, entry.key)
            total -= entry.size
            evicted.append(entry.key)
    return evicted


def info(directory: Path | None = None) -> dict[str, Any]:
    """Location, entry count, total size and bound of the cache."""
    directory = cache_dir() if directory is None else directory
    listed = entries(directory) if directory.exists() else []
    return {
        "directory": str(directory),
        "entries": len(listed),
        "bytes": sum(e.size for e in listed),
        "bound_bytes": config.cache_size_mb * 2**20,
        "last_used": max((e.last_used for e in listed), default=None),
    }


def clear(directory: Path | None = None) -> int:
    """Remove every entry (and leftover temporary files); the number of entries removed."""
    directory = cache_dir() if directory is None else directory
    if not directory.exists():
        return 0
    with FileLock(str(directory / "evict.lock")):
        listed = entries(directory)
        for entry in listed:
            _discard(directory, entry.key)
        _remove_stale_temporaries(directory, age=0.0)
    if directory == cache_root():
        forget_all()  # which graphs went native: their code is gone
    return len(listed)


def _entry_files(directory: Path, key: str) -> list[Path]:
    base = f"{_PREFIX}{key}"
    return _own_files(directory, key) + sorted((directory / "__pycache__").glob(f"{base}.*"))


def _total_size(directory: Path) -> int:
    """Bytes of every file of the cache's entries (and of any leftover of theirs: at least
    the total of :func:`entries`), from one pass over the directory and numba's files."""
    total = 0
    for folder in (directory, directory / "__pycache__"):
        try:
            with os.scandir(folder) as listing:
                total += sum(_file_size(e) for e in listing if e.name.startswith(_PREFIX))
        except FileNotFoundError:
            continue
    return total


def _file_size(entry: os.DirEntry) -> int:
    try:
        return entry.stat().st_size if entry.is_file() else 0
    except FileNotFoundError:  # evicted by another process meanwhile
        return 0


def _own_files(directory: Path, key: str) -> list[Path]:
    return [directory / f"{_PREFIX}{key}{suffix}" for suffix in (".py", ".npz", ".used")]


def _numba_files(directory: Path) -> dict[str, list[Path]]:
    """Numba's cache files of every entry, by module name (``arignote_<key>``, no dot in it:
    numba names them ``<module>.<function>-<line>.<python>.nbi`` and ``.nbc``), sorted."""
    grouped: dict[str, list[Path]] = {}
    try:
        names = sorted(os.listdir(directory / "__pycache__"))
    except FileNotFoundError:
        return grouped
    for name in names:
        module, dot, _ = name.partition(".")
        if dot and module.startswith(_PREFIX):
            grouped.setdefault(module, []).append(directory / "__pycache__" / name)
    return grouped


def _remove_stale_temporaries(directory: Path, age: float = _STALE_SECONDS) -> None:
    now = time.time()
    for temporary in directory.glob(f".{_PREFIX}*.tmp"):
        if now - _mtime(temporary) >= age:
            temporary.unlink(missing_ok=True)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except FileNotFoundError:
        return 0.0


def _cpu_name() -> str:
    return numba.core.config.CPU_NAME or llvmlite.binding.get_host_cpu_name()


def _arignote_version() -> str:
    # arignote/__init__.py sits above this layer: read the version from the installed metadata
    try:
        return importlib.metadata.version("arignote")
    except importlib.metadata.PackageNotFoundError:
        return "source"
