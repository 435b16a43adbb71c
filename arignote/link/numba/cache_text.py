"""The module text a jitted graph is cached as: every function it calls, written out.

``graph_module(jitted)`` walks the globals of a function made by ``compile_source`` (its
``arignote_namespace``) and of every such function they hold, depth first, and writes one
module: each reached function once, as ``@numba.njit(cache=True)`` under a module-level name
(``graph`` for the graph, ``f<n>`` for the others), its source with each global renamed to
the module-level name of its value. The values become:

* other ``compile_source`` functions (kernels, a loop's inner graph, object-mode kernels,
  generator getters): functions of the module, written the same way;
* ``math``, ``np``, ``numba`` and :mod:`.vmath`: the module's imports;
* arrays and NumPy numbers: constants, stored beside the module (``.npz``);
* numbers, strings, NumPy scalar types: literals;
* module-level functions of an importable module (numba helpers such as the Hurwitz zeta
  function, Python functions called in object mode, exception classes): imported by name,
  with a digest of their module's source in the text (a changed helper is a new entry);
* numba types (object-mode result types) and Python objects that native code only reaches
  through ``numba.objmode`` (a ``perform`` closure, a constant generator): *injected*, put in
  the module's namespace before it runs. Machine code never embeds them (object mode looks
  globals up when it runs), so the text names them with only their type's ``repr``: the
  cached code is the same whatever object a process injects.

Anything else (a ctypes function pointer, whose address is valid in one process only) makes
the graph uncacheable: :func:`graph_module` returns None.
"""

from __future__ import annotations

import ctypes
import hashlib
import inspect
import io
import math
import sys
import tokenize
import types
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import numba
from arignote.link.numba.dispatch import vmath

_HEADER = (
    "import math\n\nimport numpy as np\n\nimport numba\n"
    f"from arignote.link.numba.dispatch import vmath  # {vmath.DIGEST}\n"
)
_MODULES = {id(math): "math", id(np): "np", id(numba): "numba", id(vmath): "vmath"}
_LITERALS = (bool, int, float, str)


class NotCacheable(Exception):
    """A global of the graph cannot be written to a module (see the module docstring)."""


@dataclass
class GraphModule:
    """The text of a cached module, its constants (``.npz``) and its injected objects."""

    text: str
    constants: dict[str, Any] = field(default_factory=dict)
    injected: dict[str, Any] = field(default_factory=dict)
    #: The module-level name of the jitted graph itself.
    entry: str = "graph"
    #: The kernels the process shares (``dispatch.basic.compile_source``), by module-level
    #: name: the loaded module calls them instead of its own copies (see ``cache._share``).
    #: Not those entering object mode or calling one: linked into the cached graph, such a
    #: ``<dynamic>`` function's code needs its Environment, which numba caches only for
    #: module functions; another process loading the graph would find it unset.
    shared: dict[str, Any] = field(default_factory=dict)


def graph_module(jitted: Any) -> GraphModule | None:
    """The module for the ``compile_source`` function ``jitted`` (None: not cacheable)."""
    writer = _Writer()
    try:
        writer.function(jitted)
    except NotCacheable:
        return None
    text = _HEADER + "".join(writer.imports) + writer.constants_loader() + "".join(writer.parts)
    return GraphModule(text, writer.constants, writer.injected, shared=writer.shared)


class _Writer:
    def __init__(self) -> None:
        self.names: dict[int, str] = {}  # id(value) -> module-level name
        self.keep: list[Any] = []  # the values named (their ids stay theirs)
        self.imports: list[str] = []
        self.parts: list[str] = []
        self.constants: dict[str, Any] = {}
        self.injected: dict[str, Any] = {}
        self.shared: dict[str, Any] = {}
        self.object_mode: set[str] = set()  # functions entering object mode, or calling one

    def _new_name(self, value: Any, prefix: str) -> str:
        # "_m_": no kernel's local variable has it (an object-mode kernel of three outputs
        # assigned its locals o0, o1, o2 and called the global renamed o2)
        name = f"_m_{prefix}{len(self.names)}" if prefix != "graph" else prefix
        self.names[id(value)] = name
        self.keep.append(value)
        return name

    def function(self, jitted: Any) -> str:
        """The module-level name of a ``compile_source`` function (written once)."""
        if id(jitted) in self.names:
            return self.names[id(jitted)]
        name = self._new_name(jitted, "f") if self.names else self._new_name(jitted, "graph")
        renames = {key: self.value(value) for key, value in jitted.arignote_namespace.items()}
        source = _renamed(jitted.arignote_source, renames)
        defined = jitted.py_func.__name__
        source = source.replace(f"def {defined}(", f"def {name}(", 1)
        self.parts.append(f"\n\n@numba.njit(cache=True)\n{source}")
        if "objmode" in jitted.arignote_source or self.object_mode.intersection(renames.values()):
            self.object_mode.add(name)
        elif name != "graph" and getattr(jitted, "arignote_shared", False):
            self.shared[name] = jitted
        return name

    def value(self, value: Any) -> str:
        """The module-level expression of one global (see the module docstring)."""
        if id(value) in _MODULES:
            return _MODULES[id(value)]
        if id(value) in self.names:
            return self.names[id(value)]
        if hasattr(value, "arignote_source"):
            return self.function(value)
        if isinstance(value, np.ndarray | np.generic):
            name = self._new_name(value, "c")
            self.constants[name] = value
            return name
        if isinstance(value, _LITERALS) or value is None:
            return repr(value)
        if isinstance(value, type) and issubclass(value, np.generic):
            if getattr(np, value.__name__, None) is not value:
                raise NotCacheable(f"NumPy type {value}")
            return f"np.{value.__name__}"
        return self._imported(value) or self._injected(value)

    def _imported(self, value: Any) -> str | None:
        """An import of a module-level function or class (None: not importable)."""
        target = getattr(value, "py_func", value)  # a numba dispatcher: its Python function
        module_name = getattr(target, "__module__", None)
        qualname = getattr(target, "__qualname__", "")
        module = sys.modules.get(module_name or "")
        if module is None or "." in qualname or getattr(module, qualname, None) is not value:
            return None
        if _calls_ctypes(value):
            raise NotCacheable(f"{qualname} calls a ctypes function (an address of this process)")
        name = self._new_name(value, "h")
        self.imports.append(
            f"from {module_name} import {qualname} as {name}  # {_module_digest(module)}\n"
        )
        return name

    def _injected(self, value: Any) -> str:
        # nopython code cannot call a Python function: only object mode reaches one
        objects_only = (numba.types.Type, np.random.Generator, types.FunctionType)
        reachable_in_object_mode_only = isinstance(value, objects_only)
        if not reachable_in_object_mode_only:
            raise NotCacheable(f"{type(value).__name__} global")
        name = self._new_name(value, "o")
        self.injected[name] = value
        described = repr(value) if isinstance(value, numba.types.Type) else type(value).__name__
        self.imports.append(f"# {name}: injected {described}\n")
        return name

    def constants_loader(self) -> str:
        if not self.constants:
            return ""
        loads = "".join(
            f'    {name} = _data["{name}"]{"" if isinstance(v, np.ndarray) else "[()]"}\n'
            for name, v in self.constants.items()
        )
        # read in a ``with``: an open NpzFile holds a file descriptor for as long as the module
        # lives, one per cached graph (a process compiling thousands of graphs ran out)
        return '\nwith np.load(__file__[:-3] + ".npz") as _data:\n' + loads


def _renamed(source: str, renames: dict[str, str]) -> str:
    """``source`` with each name (not an attribute, not a keyword argument) renamed."""
    lines = source.splitlines(keepends=True)
    edits = []
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    depth = 0  # of brackets: ``name=`` inside them is a keyword argument
    for k, token in enumerate(tokens):
        if token.type == tokenize.OP and token.string in "([{":
            depth += 1
        elif token.type == tokenize.OP and token.string in ")]}":
            depth -= 1
        if token.type != tokenize.NAME or token.string not in renames:
            continue
        after_dot = k > 0 and tokens[k - 1].string == "."
        keyword = depth > 0 and k + 1 < len(tokens) and tokens[k + 1].string == "="
        if not after_dot and not keyword:
            edits.append((token.start, token.end, renames[token.string]))
    for (row, start), (_, end), new in reversed(edits):
        line = lines[row - 1]
        lines[row - 1] = line[:start] + new + line[end:]
    return "".join(lines)


def _calls_ctypes(value: Any, seen: set | None = None) -> bool:
    """Whether a numba dispatcher (or one it calls) calls a ctypes function pointer."""
    function = getattr(value, "py_func", None)
    if function is None:
        return False
    seen = set() if seen is None else seen
    if id(function) in seen:
        return False
    seen.add(id(function))
    for name in function.__code__.co_names:
        used = function.__globals__.get(name)
        if isinstance(used, ctypes._CFuncPtr) or _calls_ctypes(used, seen):
            return True
    return False


_DIGESTS: dict[str, str] = {}


def _module_digest(module: Any) -> str:
    """A digest of a module's source (its file's bytes; its name if it has no file)."""
    name = module.__name__
    if name not in _DIGESTS:
        try:
            data = inspect.getsource(module).encode()
        except (OSError, TypeError):
            data = name.encode()
        _DIGESTS[name] = hashlib.sha256(data).hexdigest()[:16]
    return _DIGESTS[name]
