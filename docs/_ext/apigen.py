"""Write the API reference: one page per public module, one autosummary entry per public name.

The pages are generated at every build from the modules themselves (``__all__``, or the public
names of a facade without one), so a name added to the library appears in the reference without
anyone editing the docs. Each object is documented once, at the first (most public) path that
exports it; later modules that re-export it link to that page.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import types
from pathlib import Path

# The public modules, most public first (DESIGN.md's contract, in the order users meet them).
# A module that does not exist (an optional backend) is left out of the reference.
PUBLIC_MODULES = [
    "arignote",
    "arignote.tensor",
    "arignote.tensor.linalg",
    "arignote.tensor.special",
    "arignote.tensor.random",
    "arignote.tensor.nnet",
    "arignote.tensor.conv",
    "arignote.tensor.signal.pool",
    "arignote.tensor.type",
    "arignote.tensor.elemwise",
    "arignote.tensor.blockwise",
    "arignote.optimize",
    "arignote.gradient",
    "arignote.scan",
    "arignote.ifelse",
    "arignote.raise_op",
    "arignote.compile",
    "arignote.compile.io",
    "arignote.compile.mode",
    "arignote.compile.ops",
    "arignote.compile.builders",
    "arignote.compile.sharedvalue",
    "arignote.printing",
    "arignote.stability",
    "arignote.graph",
    "arignote.graph.basic",
    "arignote.graph.op",
    "arignote.graph.type",
    "arignote.graph.fg",
    "arignote.graph.null_type",
    "arignote.graph.replace",
    "arignote.graph.rewriting.basic",
    "arignote.graph.rewriting.db",
    "arignote.sandbox.rng_mrg",
    "arignote.testing",
    "arignote.scalar",
]


def public_names(module: types.ModuleType) -> list[str]:
    """``__all__``, or every public attribute that is not a module."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [
            name
            for name, value in vars(module).items()
            if not name.startswith("_")
            and not isinstance(value, types.ModuleType)
            and getattr(value, "__module__", "arignote").startswith("arignote")
        ]
    return sorted(set(names), key=str.lower)


def existing_modules() -> list[types.ModuleType]:
    found = []
    for name in PUBLIC_MODULES:
        try:
            spec = importlib.util.find_spec(name)
        except ModuleNotFoundError:
            spec = None
        if spec is not None:
            found.append(importlib.import_module(name))
    return found


def _documentable(value: object) -> bool:
    return callable(value) or inspect.isclass(value) or isinstance(value, types.ModuleType)


def module_page(module: types.ModuleType, documented: dict[int, str]) -> str:
    """reStructuredText of one module's page; records where each object is documented."""
    title = f"``{module.__name__}``"
    lines = [title, "=" * len(title), "", f".. automodule:: {module.__name__}", ""]
    own, elsewhere, data = [], [], []
    for name in public_names(module):
        value = getattr(module, name, None)
        if not _documentable(value) or isinstance(value, types.ModuleType):
            data.append(name)
        elif id(value) in documented:
            elsewhere.append((name, documented[id(value)]))
        else:
            documented[id(value)] = f"{module.__name__}.{name}"
            own.append(name)
    if own:
        lines += [".. currentmodule:: " + module.__name__, "", ".. autosummary::"]
        lines += ["   :toctree: generated", "", *[f"   {n}" for n in own], ""]
    if elsewhere:
        lines += ["Also available here", "-------------------", ""]
        lines += [f"- ``{n}``: see :obj:`{target}`" for n, target in elsewhere] + [""]
    if data:
        lines += ["Other names", "-----------", ""]
        lines += [f"- ``{module.__name__}.{n}``" for n in data] + [""]
    return "\n".join(lines)


def write_reference(app: object) -> None:
    out = Path(app.srcdir) / "api"  # type: ignore[attr-defined]
    out.mkdir(exist_ok=True)
    documented: dict[int, str] = {}
    modules = existing_modules()
    for module in modules:
        text = module_page(module, documented)
        path = out / f"{module.__name__}.rst"
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
    toc = ["API reference", "=============", "", ".. toctree::", "   :maxdepth: 1", ""]
    toc += [f"   {m.__name__}" for m in modules]
    index = out / "index.rst"
    text = "\n".join(toc) + "\n"
    if not index.exists() or index.read_text() != text:
        index.write_text(text)


def _on_config(app: object, config: object) -> None:
    write_reference(app)


def setup(app: object) -> dict:
    # At config-inited: before Sphinx lists the source files, which autosummary then reads to
    # find the pages it generates stubs for (a page written later would be missed).
    app.connect("config-inited", _on_config)  # type: ignore[attr-defined]
    return {"parallel_read_safe": True}
