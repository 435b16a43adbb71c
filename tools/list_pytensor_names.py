"""List the public names of PyTensor's user-facing modules (the data of the name-coverage test).

Run with an installed pytensor::

    python tools/list_pytensor_names.py [tests/data/pytensor_names.json]

A module's public names are its ``__all__`` (when it has one) together with the names without a
leading underscore that the module's own source binds (``def``, ``class``, assignments; not
imports) to a pytensor object (a class, function or instance of a pytensor class). A package
(``pytensor``, ``pytensor.tensor``...) also counts what it re-exports from pytensor and its
submodules, since that is how users reach them (``pt.exp``, ``pt.linalg``).
"""

import ast
import importlib
import inspect
import json
import sys
import types
import warnings

MODULES = [
    "pytensor",
    "pytensor.tensor",
    "pytensor.tensor.math",
    "pytensor.tensor.basic",
    "pytensor.tensor.elemwise",
    "pytensor.tensor.shape",
    "pytensor.tensor.subtensor",
    "pytensor.tensor.extra_ops",
    "pytensor.tensor.sort",
    "pytensor.tensor.special",
    "pytensor.tensor.linalg",
    "pytensor.tensor.nlinalg",
    "pytensor.tensor.slinalg",
    "pytensor.tensor.random",
    "pytensor.tensor.random.utils",
    "pytensor.tensor.random.basic",
    "pytensor.tensor.type",
    "pytensor.tensor.variable",
    "pytensor.tensor.sharedvar",
    "pytensor.tensor.blockwise",
    "pytensor.tensor.einsum",
    "pytensor.tensor.optimize",
    "pytensor.graph",
    "pytensor.graph.basic",
    "pytensor.graph.op",
    "pytensor.graph.fg",
    "pytensor.graph.type",
    "pytensor.graph.replace",
    "pytensor.graph.traversal",
    "pytensor.graph.features",
    "pytensor.graph.utils",
    "pytensor.graph.rewriting.basic",
    "pytensor.graph.rewriting.db",
    "pytensor.gradient",
    "pytensor.compile",
    "pytensor.compile.function",
    "pytensor.compile.io",
    "pytensor.compile.mode",
    "pytensor.compile.ops",
    "pytensor.compile.sharedvalue",
    "pytensor.compile.builders",
    "pytensor.compile.debugmode",
    "pytensor.compile.nanguardmode",
    "pytensor.compile.profiling",
    "pytensor.printing",
    "pytensor.scan",
    "pytensor.ifelse",
    "pytensor.raise_op",
    "pytensor.updates",
    # where PyTensor 3 keeps what Aesara had in compile.function / debugmode / profiling
    "pytensor.compile.maker",
    "pytensor.compile.executor",
    "pytensor.compile.debug.debugmode",
    "pytensor.compile.debug.nanguardmode",
    "pytensor.compile.debug.profiling",
]

# Aesara-era module paths that PyTensor 3 moved: the names are read at the new place and
# required at the old path too, since Aesara code imports them from there.
MOVED = {
    "pytensor.compile.function": "pytensor.compile.maker",
    "pytensor.compile.debugmode": "pytensor.compile.debug.debugmode",
    "pytensor.compile.nanguardmode": "pytensor.compile.debug.nanguardmode",
    "pytensor.compile.profiling": "pytensor.compile.debug.profiling",
}


def _is_package(module: types.ModuleType) -> bool:
    return hasattr(module, "__path__")


def _owner(obj) -> str:
    """The module an object comes from: its own ``__module__`` or its type's."""
    if isinstance(obj, (type, types.FunctionType, types.BuiltinFunctionType)):
        return getattr(obj, "__module__", None) or ""
    return getattr(type(obj), "__module__", None) or ""


def _bound_names(body) -> set[str]:
    """Names a module's top-level statements bind (imports excluded), through if/try blocks."""
    names = set()
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(stmt.name)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        elif isinstance(stmt, (ast.If, ast.Try)):
            names |= _bound_names(stmt.body)
            names |= _bound_names(getattr(stmt, "orelse", []))
    return names


def _defined_here(module: types.ModuleType) -> set[str]:
    """The names the module's own source defines (not those it imports)."""
    return _bound_names(ast.parse(inspect.getsource(module)).body)


def _counts(module: types.ModuleType, name: str, obj, defined: set[str]) -> bool:
    modname = module.__name__
    if isinstance(obj, types.ModuleType):
        # a submodule reached as an attribute of its own package (pt.linalg)
        return _is_package(module) and obj.__name__ == f"{modname}.{name}"
    if not _owner(obj).startswith("pytensor"):
        return False
    # a package counts what it re-exports; a plain module only what it defines itself
    return _is_package(module) or name in defined


def public_names(modname: str) -> list[str]:
    """The sorted public names of one module (see the module docstring for the rule)."""
    module = importlib.import_module(MOVED.get(modname, modname))
    names = set(getattr(module, "__all__", ()))
    defined = _defined_here(module)
    for name in dir(module):
        if name.startswith("_") or name in names:
            continue
        try:
            obj = getattr(module, name)
        except AttributeError:  # a lazy alias that no longer resolves
            continue
        if _counts(module, name, obj, defined):
            names.add(name)
    return sorted(names)


def _exists(modname: str) -> bool:
    try:
        importlib.import_module(MOVED.get(modname, modname))
    except ModuleNotFoundError:
        return False
    return True


def main(path: str) -> None:
    warnings.simplefilter("ignore")
    import pytensor

    data = {
        "pytensor_version": pytensor.__version__,
        "modules": {m: public_names(m) for m in MODULES if _exists(m)},
        "not_in_pytensor": [m for m in MODULES if not _exists(m)],
        "moved": MOVED,
    }
    with open(path, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
    total = sum(len(v) for v in data["modules"].values())
    print(f"{total} names in {len(MODULES)} modules written to {path}")  # noqa: T201


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tests/data/pytensor_names.json")
