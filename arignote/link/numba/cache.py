"""Disk cache of native code, shared by processes.

A converted graph whose kernels are all native is written as one Python module (the kernels'
and the graph function's source, ``numba.njit(cache=True)``) with its constants beside it in
a ``.npz`` file, under a name that is the SHA-256 of the module text, the constants' bytes,
and the versions of arignote, numba, llvmlite and NumPy and the CPU name. Numba then caches
the machine code of each function next to the module (its ``__pycache__``), so another
process compiling the same graph loads it instead of compiling.

Location: ``$ARIGNOTE_CACHE_DIR`` when set, else platformdirs' user cache directory
(``.../arignote/numba``). Writers take a per-entry file lock and publish each file with an
atomic rename (constants first, module last): a reader never sees a partial entry. An entry
that fails to load (a truncated or corrupt file) is deleted and written again.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import os
import platform
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import llvmlite
import llvmlite.binding
import numpy as np
import platformdirs
from filelock import FileLock

import numba

#: Globals a kernel may use and still be written to a module (imported there by name).
_MODULE_GLOBALS = {"math"}
_HEADER = "import math\n\nimport numpy as np\n\nimport numba\n\n"


def cache_dir() -> Path:
    """Where native code is cached (see the module docstring)."""
    configured = os.environ.get("ARIGNOTE_CACHE_DIR")
    if configured:
        return Path(configured) / "numba"
    return Path(platformdirs.user_cache_dir("arignote")) / "numba"


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


def load_graph(kernels: list, graph_source: str, constants: dict[str, Any]) -> Callable:
    """The jitted ``graph`` of the cached module for this code (written first if missing)."""
    text = module_text(kernels, graph_source, constants)
    key = entry_key(text, constants)
    directory = cache_dir()
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"arignote_{key}.py"
    for attempt in range(2):
        if not path.exists():
            _write(path, text, constants)
        try:
            return _import(path, key).graph
        except Exception:  # a damaged entry: discard it and write it again once
            if attempt:
                raise
            _discard(path)
    raise AssertionError("unreachable")


def _write(path: Path, text: str, constants: dict[str, Any]) -> None:
    with FileLock(str(path) + ".lock"):
        if path.exists():
            return  # another process wrote it meanwhile
        data = path.with_suffix(".npz")
        _atomic(data, lambda f: np.savez(f, **{k: np.asarray(v) for k, v in constants.items()}))
        _atomic(path, lambda f: f.write(text.encode()))


def _atomic(path: Path, write: Callable[[Any], None]) -> None:
    temporary = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    with open(temporary, "wb") as f:
        write(f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(temporary, path)


def _import(path: Path, key: str) -> Any:
    name = f"arignote_numba_{key}"
    loaded = sys.modules.get(name)
    if loaded is not None:
        return loaded
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    # numba's cached code finds its module by name when loaded: it must be importable
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _discard(path: Path) -> None:
    with FileLock(str(path) + ".lock"):
        for stale in (path, path.with_suffix(".npz")):
            stale.unlink(missing_ok=True)


def _cpu_name() -> str:
    return numba.core.config.CPU_NAME or llvmlite.binding.get_host_cpu_name()


def _arignote_version() -> str:
    # arignote/__init__.py sits above this layer: read the version from the installed metadata
    try:
        return importlib.metadata.version("arignote")
    except importlib.metadata.PackageNotFoundError:
        return "source"
