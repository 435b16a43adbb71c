"""Disk cache of native code, shared by processes, bounded, and safe against crashes.

A converted graph whose kernels are all native is written as one Python module (the kernels'
and the graph function's source, ``numba.njit(cache=True)``) with its constants beside it in
a ``.npz`` file, under a name that is the SHA-256 of the module text, the constants' bytes,
and the versions of arignote, numba, llvmlite and NumPy and the CPU name. Numba then caches
the machine code of each function next to the module (its ``__pycache__``), so another
process compiling the same graph loads it instead of compiling.

Location: ``config.cache_dir`` when set, else ``$ARIGNOTE_CACHE_DIR``, else platformdirs'
user cache directory (``.../arignote/numba`` in each case).

Safety. Writers take a per-entry file lock (released by the system if the writer dies) and
publish each file with an atomic rename (constants first, module last), after writing it to
a hidden temporary name: a process killed at any moment leaves at most a temporary file or
constants without a module, never a file that reads as an entry. A reader checks an entry
against the text and constants it expects (a truncated or garbled module or ``.npz`` is
discarded and written again), and a damaged numba cache file counts as a miss (deleted, the
function compiled again). A cache directory that cannot be written (read-only, disk full)
means compiling without caching, with one warning per process.

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
import time
import uuid
import warnings
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
from arignote.link.numba.dispatch import vmath

#: Globals a kernel may use and still be written to a module (imported there by name).
_MODULE_GLOBALS = {"math", "vmath"}
# vmath's digest is part of the text (hence of the key): its functions are compiled into the
# cached machine code, which must not outlive a change of them
_HEADER = (
    "import math\n\nimport numpy as np\n\nimport numba\n"
    f"from arignote.link.numba.dispatch import vmath  # {vmath.DIGEST}\n\n"
)
_PREFIX = "arignote_"
#: Temporary files older than this (seconds) are leftovers of killed writers.
_STALE_SECONDS = 3600.0


class CacheWarning(UserWarning):
    """The disk cache cannot be used (read-only or full directory): compiling without it."""


def cache_dir() -> Path:
    """Where native code is cached (see the module docstring)."""
    return cache_root()


def cacheable(kernels: list) -> bool:
    """Whether every kernel can be written to a module (native, plain globals only)."""
    return all(
        hasattr(k, "arignote_source") and set(k.arignote_namespace) <= _MODULE_GLOBALS
        for k in kernels
    )


def module_text(kernels: list, graph_source: str, constants: dict[str, Any]) -> str:
    """The module defining ``k0, k1, ...``, the constants and ``graph``."""
    parts = [_HEADER, '_data = np.load(__file__[:-3] + ".npz")\n']
    for name, value in constants.items():
        scalar = "[()]" if not isinstance(value, np.ndarray) else ""
        parts.append(f'{name} = _data["{name}"]{scalar}\n')
    for position, kernel in enumerate(kernels):
        source = kernel.arignote_source.replace("def kernel(", f"def k{position}(", 1)
        parts.append(f"\n\n@numba.njit(cache=True)\n{source}")
    parts.append(f"\n\n@numba.njit(cache=True)\n{graph_source}")
    return "".join(parts)


def entry_key(text: str, constants: dict[str, Any]) -> str:
    digest = hashlib.sha256(text.encode())
    versions = (numba.__version__, llvmlite.__version__, np.__version__, _arignote_version())
    digest.update(repr((versions, platform.machine(), _cpu_name())).encode())
    for name, value in constants.items():
        array = np.asarray(value)
        digest.update(f"{name}:{array.dtype.str}:{array.shape}".encode())
        digest.update(np.ascontiguousarray(array).tobytes())
    return digest.hexdigest()[:40]


# -- loading ------------------------------------------------------------------------------------


def load_graph(kernels: list, graph_source: str, constants: dict[str, Any]) -> Callable | None:
    """The jitted ``graph`` of the cached module for this code (written first if missing);
    None (after one warning per process) when the cache directory cannot be used."""
    text = module_text(kernels, graph_source, constants)
    key = entry_key(text, constants)
    directory = cache_dir()
    try:
        return _load_or_write(directory, key, text, constants)
    except OSError as err:
        _warn_once(directory, err)
        return None


def _load_or_write(directory: Path, key: str, text: str, constants: dict) -> Callable:
    path = directory / f"{_PREFIX}{key}.py"
    loaded = sys.modules.get(_module_name(key))
    if loaded is not None and loaded.__file__ == str(path):
        return loaded.graph  # loaded from this very entry earlier in this process
    directory.mkdir(parents=True, exist_ok=True)
    for attempt in range(2):
        if not _holds(path, text):
            _write(path, text, constants)
        try:
            module = _import(path, key, constants)
        except Exception:  # a damaged entry: discard it and write it again once
            if attempt:
                raise
            _discard(directory, key)
            continue
        _touch(path)
        return module.graph
    raise AssertionError("unreachable")


def _holds(path: Path, text: str) -> bool:
    """Whether ``path`` holds exactly ``text`` (a missing, truncated or garbled file does not)."""
    try:
        return path.read_bytes() == text.encode()
    except FileNotFoundError:
        return False


def _import(path: Path, key: str, constants: dict[str, Any]) -> Any:
    name = _module_name(key)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    # numba's cached code finds its module by name when loaded: it must be importable
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
        _check_constants(module, constants)
        _guard_numba_caches(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _check_constants(module: Any, constants: dict[str, Any]) -> None:
    for name, value in constants.items():
        stored, expected = np.asarray(getattr(module, name)), np.asarray(value)
        if stored.dtype != expected.dtype or not np.array_equal(stored, expected, equal_nan=True):
            raise ValueError(f"cache entry {module.__name__}: constant {name} differs")


def _guard_numba_caches(module: Any) -> None:
    """Make a damaged numba cache file (index or code) a miss rather than an error."""
    for value in vars(module).values():
        cache = getattr(value, "_cache", None)
        if cache is not None and hasattr(cache, "load_overload"):
            cache.load_overload = _safe_load(cache, cache.load_overload)


def _safe_load(cache: Any, load: Callable) -> Callable:
    def load_overload(sig: Any, target_context: Any) -> Any:
        try:
            return load(sig, target_context)
        except Exception:  # truncated or garbled: drop the files, compile (and save) again
            _drop_numba_files(cache)
            return None

    return load_overload


def _drop_numba_files(cache: Any) -> None:
    index = Path(cache._cache_file._index_path)
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
    for module in directory.glob(f"{_PREFIX}*.py"):
        key = module.stem[len(_PREFIX) :]
        entry = found[key] = Entry(key, _entry_files(directory, key))
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
    own = [directory / f"{base}{suffix}" for suffix in (".py", ".npz", ".used")]
    return own + sorted((directory / "__pycache__").glob(f"{base}.*"))


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
