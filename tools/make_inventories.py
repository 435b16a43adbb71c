"""Write Sphinx inventories (objects.inv) for NumPy, SciPy, JAX and Python into docs/_inv/.

The documentation build must not need the network, so instead of downloading the projects'
inventories, this script lists the public names of the installed packages and writes them with
the URL layout that each project's site uses. Run it again after upgrading those packages:

    python tools/make_inventories.py
"""

from __future__ import annotations

import builtins
import importlib
import zlib
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "docs" / "_inv"

# (module, site path pattern) per project; {name} is the fully qualified name.
PROJECTS = {
    "numpy": [
        ("numpy", "reference/generated/{name}.html#{name}"),
        ("numpy.linalg", "reference/generated/{name}.html#{name}"),
        ("numpy.random", "reference/random/generated/{name}.html#{name}"),
        ("numpy.fft", "reference/generated/{name}.html#{name}"),
    ],
    "scipy": [
        (f"scipy.{sub}", "reference/generated/{name}.html#{name}")
        for sub in ("special", "linalg", "signal", "stats", "optimize", "sparse")
    ],
    "jax": [
        (mod, "_autosummary/{name}.html#{name}")
        for mod in ("jax", "jax.numpy", "jax.lax", "jax.random", "jax.scipy.special")
    ],
}


def project_entries(module_name: str, pattern: str) -> list[str]:
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        return []
    entries = []
    for attr in sorted(getattr(module, "__all__", None) or dir(module)):
        if attr.startswith("_"):
            continue
        value = getattr(module, attr, None)
        role = "py:class" if isinstance(value, type) else "py:function"
        if not callable(value):
            continue
        name = f"{module_name}.{attr}"
        entries.append(f"{name} {role} 1 {pattern.format(name=name)} -")
    return entries


def python_entries() -> list[str]:
    entries = []
    for name in sorted(dir(builtins)):
        value = getattr(builtins, name)
        if isinstance(value, type) and issubclass(value, BaseException):
            entries.append(f"{name} py:exception 1 library/exceptions.html#{name} -")
        elif isinstance(value, type):
            entries.append(f"{name} py:class 1 library/functions.html#{name} -")
        elif callable(value) and not name.startswith("_"):
            entries.append(f"{name} py:function 1 library/functions.html#{name} -")
    return entries


def write(project: str, version: str, entries: list[str]) -> None:
    header = (
        "# Sphinx inventory version 2\n"
        f"# Project: {project}\n# Version: {version}\n"
        "# The remainder of this file is compressed using zlib.\n"
    )
    body = zlib.compress(("\n".join(entries) + "\n").encode())
    (OUT / f"{project.lower()}.inv").write_bytes(header.encode() + body)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for project, modules in PROJECTS.items():
        entries = [e for module, pattern in modules for e in project_entries(module, pattern)]
        version = getattr(importlib.import_module(project), "__version__", "")
        write(project, version, entries)
    write("Python", "3", python_entries())


if __name__ == "__main__":
    main()
