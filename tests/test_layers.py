"""The package's layers import only downward, never inside functions, never numba/jax in core."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "arignote"

# Rank of each layer: a module may import modules of its own rank or lower.
RANKS = {
    "arignote.config": 0,
    "arignote.graph": 1,
    "arignote.scalar": 2,
    "arignote.tensor": 3,
    "arignote.autodiff": 4,
    "arignote.link": 5,
    "arignote.compile": 6,
}
TOP = 7  # arignote itself and its public facades (gradient, printing, testing, ...)


def rank_of(module: str) -> int:
    for prefix, rank in sorted(RANKS.items(), key=lambda item: -len(item[0])):
        if module == prefix or module.startswith(prefix + "."):
            return rank
    return TOP


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(tree: ast.AST, module: str):
    """(imported module, line, is inside a function) for every import of the package."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(module.split(".")[: -node.level] + ([base] if base else []))
            names = [_submodule_or_base(base, alias.name) for alias in node.names]
        else:
            continue
        for name in names:
            yield name, node.lineno, node


def _submodule_or_base(base: str, name: str) -> str:
    """``from a.b import c`` imports module a.b.c when it exists, else (attribute c of) a.b."""
    candidate = PACKAGE.parent.joinpath(*f"{base}.{name}".split("."))
    if candidate.with_suffix(".py").exists() or candidate.is_dir():
        return f"{base}.{name}"
    return base


def function_bodies(tree: ast.AST) -> set[int]:
    lines = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for inner in ast.walk(node):
                if isinstance(inner, (ast.Import, ast.ImportFrom)):
                    lines.add(inner.lineno)
    return lines


MODULES = sorted(PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_respect_layers(path):
    module = module_name(path)
    tree = ast.parse(path.read_text())
    local_lines = function_bodies(tree)
    own_rank = rank_of(module)
    for name, line, _ in imports_of(tree, module):
        if name.split(".")[0] in ("numba", "jax", "jaxlib"):
            assert ".link.numba" in module or ".link.jax" in module, (
                f"{module}:{line} imports {name}: only arignote.link.<backend> may"
            )
        if not name.startswith("arignote"):
            continue
        assert line not in local_lines, (
            f"{module}:{line} imports {name} inside a function: import at module level"
        )
        assert rank_of(name) <= own_rank, (
            f"{module} (layer rank {own_rank}) imports {name} (rank {rank_of(name)}): upward"
        )


def test_layer_check_detects_upward_import(tmp_path):
    """The check itself can fail: an upward import is reported."""
    assert rank_of("arignote.compile.function") > rank_of("arignote.graph.basic")
    tree = ast.parse("from arignote.compile import function\n")
    names = [n for n, _, _ in imports_of(tree, "arignote.graph.basic")]
    assert names == ["arignote.compile.function"]
    assert rank_of(names[0]) > rank_of("arignote.graph.basic")


def import_graph() -> dict[str, set[str]]:
    """``{module: modules of the package it imports at module level}`` (package ``__init__``
    re-exports excluded: a package importing its own submodules is how packages work)."""
    graph: dict[str, set[str]] = {}
    known = {module_name(path) for path in MODULES}
    for path in MODULES:
        module = module_name(path)
        if path.name == "__init__.py":
            continue
        tree = ast.parse(path.read_text())
        local_lines = function_bodies(tree)
        graph[module] = {
            name
            for name, line, _ in imports_of(tree, module)
            if name in known and line not in local_lines and name != module
        }
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles


def test_no_import_cycles_between_modules():
    assert import_cycles(import_graph()) == []


def test_cycle_check_detects_a_cycle():
    assert import_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
