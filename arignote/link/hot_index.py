"""Which graphs went native in an earlier process: known without importing numba.

Tiered execution (:mod:`arignote.link.tiered`) waits for a function to be hot before it
compiles it natively, because compiling costs seconds. When the disk cache already holds the
function's native code, loading it costs a fraction of that, and waiting for the threshold
only wastes VM time: a sampler started again runs its first 2,000 calls on the VM for
nothing. The native code's own cache key needs the generated source, hence numba; this index
answers the cheaper question "did this graph go native here before?" from a hash of the
graph the VM runs (its ops and their properties, types, constants and wiring) and the
versions that native code depends on, read from the installed metadata.

An entry is an empty file named by that hash under ``<cache>/numba/hot/``, written after a
successful tiered compilation. It is only a hint: a wrong answer costs time, never a wrong
result (the native code is still found by its own key, compiled if missing, and checked
against the VM before it is swapped in).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
from pathlib import Path

import numpy as np
import platformdirs

from arignote.config import config
from arignote.graph.basic import Constant, Variable
from arignote.graph.fg import FunctionGraph

_VERSIONS: list[str] = []
#: The packages whose versions change the native code of a graph.
_PACKAGES = ("arignote", "numba", "llvmlite", "numpy")


def cache_root() -> Path:
    """The native-code cache directory: ``config.cache_dir``, else ``$ARIGNOTE_CACHE_DIR``,
    else platformdirs' user cache directory; ``numba/`` below each."""
    configured = config.cache_dir or os.environ.get("ARIGNOTE_CACHE_DIR")
    if configured:
        return Path(configured) / "numba"
    return Path(platformdirs.user_cache_dir("arignote")) / "numba"


def graph_hash(fgraph: FunctionGraph) -> str:
    """A hex digest equal for equal graphs (same ops, properties, types, constants, wiring)
    under the same package versions; cheap (no numba, one pass over the nodes)."""
    digest = hashlib.sha256(_versions().encode())
    names: dict[Variable, str] = {v: f"i{k}" for k, v in enumerate(fgraph.inputs)}
    digest.update(repr([v.type for v in fgraph.inputs]).encode())
    for position, node in enumerate(fgraph.toposort()):
        args = [_ref(v, names, digest) for v in node.inputs]
        digest.update(f"{_describe(node.op)}({','.join(args)})\n".encode())
        for j, out in enumerate(node.outputs):
            names[out] = f"n{position}_{j}"
            digest.update(repr(out.type).encode())
    digest.update(repr([_ref(v, names, digest) for v in fgraph.outputs]).encode())
    return digest.hexdigest()[:40]


def _describe(op: object) -> str:
    """The op's class and properties, recursively (a fused Composite's graph included)."""
    kind = f"{type(op).__module__}.{type(op).__qualname__}"
    props = getattr(op, "__props__", None)
    if props is None:
        return f"{kind}:{op!r}"
    return f"{kind}[{','.join(f'{name}={_value(getattr(op, name))}' for name in props)}]"


def _value(value: object) -> str:
    return _describe(value) if hasattr(value, "__props__") else repr(value)


def _ref(var: Variable, names: dict[Variable, str], digest: object) -> str:
    if var in names:
        return names[var]
    if not isinstance(var, Constant):  # not reachable for a closed graph; hash it by type
        return repr(var.type)
    data = np.asarray(var.data)
    digest.update(f"{var.type!r}:{data.dtype.str}:{data.shape}".encode())
    digest.update(np.ascontiguousarray(data).tobytes() if data.dtype.kind != "O" else b"O")
    names[var] = f"c{len(names)}"
    return names[var]


def _versions() -> str:
    if not _VERSIONS:
        _VERSIONS.append(repr([_version(name) for name in _PACKAGES]))
    return _VERSIONS[0]


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "source"


def _marker(key: str) -> Path:
    return cache_root() / "hot" / key


def went_native(key: str) -> bool:
    """Whether the graph of hash ``key`` went native in an earlier process (or this one);
    False for the empty key (a graph that could not be hashed)."""
    try:
        return bool(key) and _marker(key).exists()
    except OSError:  # an unreadable cache directory: no hint
        return False


def record_native(key: str) -> None:
    """Record that the graph of hash ``key`` went native (silently skipped when the cache
    directory cannot be written: the hint is an optimisation)."""
    marker = _marker(key)
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
    except OSError:
        pass


def forget_all() -> int:
    """Remove every record (``python -m arignote.cache clear``); how many there were."""
    directory = cache_root() / "hot"
    removed = 0
    for marker in directory.glob("*") if directory.exists() else []:
        marker.unlink(missing_ok=True)
        removed += 1
    return removed


__all__ = ["cache_root", "forget_all", "graph_hash", "record_native", "went_native"]
