"""The dispatcher of native kernels, the object-mode fallback and its registry.

``numba_funcify(op, node)`` returns a kernel for one Apply node: a function, compilable by
``numba.njit``, that takes the node's input values and returns its output value (a tuple when
the node has several outputs). Families register theirs with ``@numba_funcify.register``.

An op without a native kernel runs its ``perform`` through ``numba.objmode`` (a call back into
the interpreter from native code). Every such fallback must be listed in :data:`FALLBACKS` with
its reason (:mod:`arignote.link.numba.dispatch.fallbacks`); ``kernel_for(node)`` says why a
node is not native.
"""

from __future__ import annotations

import sys
import threading
import types
from collections import OrderedDict
from collections.abc import Callable, Hashable
from functools import singledispatch
from typing import Any

import numpy as np

import numba
from arignote.graph.basic import Apply
from arignote.graph.codegen import CodeBuilder
from arignote.graph.op import Op
from arignote.link.numba.dispatch.fallbacks import FALLBACKS as FALLBACKS  # the registry
from arignote.tensor.random.type import NoneTypeT, RandomGeneratorType
from arignote.tensor.type import TensorType

#: Kernel factories for op classes defined above this layer (``arignote.compile``), which this
#: package cannot import: looked up by the class's qualified name.
BY_NAME: dict[str, Callable[[Op, Apply], Callable]] = {}


class NotNative(Exception):
    """Raised by a kernel factory that cannot handle this particular node (a dtype, an
    unsupported scalar op...): the node then falls back to object mode.

    ``key`` is the name the fallback is registered under in :data:`FALLBACKS` (the op class,
    or the scalar op class for elementwise ops and reductions).
    """

    def __init__(self, key: str, reason: str) -> None:
        super().__init__(f"{key}: {reason}")
        self.key = key
        self.reason = reason


def _qualified(op: Op) -> str:
    cls = type(op)
    return f"{cls.__module__}.{cls.__qualname__}"


@singledispatch
def numba_funcify(op: Op, node: Apply) -> Callable:
    """The native kernel of ``node`` (see the module docstring); raises ``NotNative``."""
    factory = BY_NAME.get(_qualified(op))
    if factory is None:
        raise NotNative(type(op).__name__, "no native kernel")
    return factory(op, node)


class InnerObjectMode(NotNative):
    """Why a native loop or inner-graph kernel (``Scan``, ``OpFromGraph``...) still leaves
    native code: some nodes of its inner graph run ``perform`` in object mode (the loop and
    the other inner nodes are native).

    It is registered under the key of the first such inner node, whose own entry in
    :data:`FALLBACKS` gives the reason: the owner adds nothing of its own to the registry.
    """

    def __init__(self, owner: str, inner: dict[Apply, NotNative]) -> None:
        listed = "; ".join(f"{node} ({why.key}: {why.reason})" for node, why in inner.items())
        first = next(iter(inner.values()))
        super().__init__(first.key, f"native {owner}; inner nodes in object mode: {listed}")
        self.inner = inner


def with_inner_fallbacks(kernel: Callable, owner: str, inner: dict[Apply, NotNative]) -> Callable:
    """``kernel``, marked (for :func:`kernel_for`) as holding the object-mode ``inner`` nodes.

    Such a kernel is never shared between nodes (an object-mode kernel's ``perform`` belongs
    to its node, see :func:`compile_source`), so the mark is its node's alone.
    """
    if inner:
        kernel.arignote_inner_fallbacks = InnerObjectMode(owner, inner)
    return kernel


def kernel_for(node: Apply) -> tuple[Callable, NotNative | None]:
    """``(kernel, None)`` for a native node, ``(object-mode kernel, why)`` otherwise, and
    ``(native kernel, InnerObjectMode)`` for a loop or inner graph with object-mode nodes."""
    try:
        kernel = numba_funcify(node.op, node)
    except NotNative as why:
        return objmode_kernel(node), why
    return kernel, getattr(kernel, "arignote_inner_fallbacks", None)


# -- types ------------------------------------------------------------------------------------


def numba_type(var: Any) -> Any:
    """The numba type of the values of ``var`` (arrays of any layout for tensors)."""
    vtype = var.type
    if getattr(vtype, "dtype", None) == "float16":
        # numba types float16 but has no data model for it: compiling fails deep inside numba
        # ("NotImplementedError: float16"), so a graph holding float16 values runs on the VM.
        raise NotNative(type(vtype).__name__, "numba has no data model for float16 values")
    if isinstance(vtype, TensorType):
        return numba.types.Array(numba.from_dtype(np.dtype(vtype.dtype)), vtype.ndim, "A")
    if isinstance(vtype, RandomGeneratorType):
        return rng_numba_type()
    if isinstance(vtype, NoneTypeT):  # an omitted optional input (size=None)
        return numba.types.none
    dtype = getattr(vtype, "dtype", None)
    if dtype is not None:  # scalar types
        return numba.from_dtype(np.dtype(dtype))
    raise NotNative(type(vtype).__name__, f"values of type {vtype} cannot enter native code")


def rng_numba_type() -> Any:
    """The numba type of ``numpy.random.Generator`` values (numba takes them as arguments and
    draws from them natively, advancing the Python object's state)."""
    return numba.typeof(_A_GENERATOR)


_A_GENERATOR = np.random.default_rng(0)

_CONSTANT_RNG_SOURCE = """\
def get():
    with numba.objmode(value=generator):
        value = constant
    return value
"""


def constant_expression(value: Any, namespace: dict[str, Any]) -> str:
    """The expression for a constant in generated code, its value put in ``namespace``.

    Arrays and numbers become globals (numba freezes them into the machine code). A generator
    cannot be frozen: a getter hands the very object over from the interpreter, as the VM's
    storage does.
    """
    if isinstance(value, np.random.Generator):
        name = f"g{len(namespace)}"
        getter = {"generator": rng_numba_type(), "constant": value}
        namespace[name] = compile_source(_CONSTANT_RNG_SOURCE, "get", getter)
        return f"{name}()"
    name = f"c{len(namespace)}"
    namespace[name] = value
    return name


class SourceWriter:
    """The line helpers of a kernel's source writer: ``lines`` holds the source, ``name``
    (for the error messages of :meth:`_raise`) the op it computes."""

    lines: list[str]
    name: str

    def _line(self, text: str, depth: int = 1) -> None:
        self.lines.append("    " * depth + text)

    def _raise(self, condition: str, message: str, depth: int = 1) -> None:
        self._line(f"if {condition}:", depth)
        self._line(f"raise ValueError('{self.name}: {message}')", depth + 1)


def compile_source(source: str, name: str, namespace: dict[str, Any]) -> Callable:
    """``name`` defined by ``source``, compiled with ``numba.njit`` (lazily, at its first call).

    The source and the extra globals stay on the result (``arignote_source``,
    ``arignote_namespace``) so that the disk cache can write the whole graph as one module.
    The same source with the same globals gives the same jitted function again (see
    :func:`shared_kernel`), so numba compiles it once per process and argument types.
    """
    key = _sharing_key(source, name, namespace)
    if key is None:
        return _jit(source, name, namespace)
    with _SHARED_LOCK:
        found = _SHARED.get(key)
        if found is not None:
            _SHARED.move_to_end(key)
            return found
    jitted = _jit(source, name, namespace)
    jitted.arignote_shared = True
    with _SHARED_LOCK:
        jitted = _SHARED.setdefault(key, jitted)  # another thread may have made it meanwhile
        while len(_SHARED) > SHARED_KERNELS:
            _SHARED.popitem(last=False)
    return jitted


def _jit(source: str, name: str, namespace: dict[str, Any]) -> Callable:
    builder = CodeBuilder(f"<arignote.numba {name}>")  # the package's one code generator
    builder.namespace.update({"np": np, "numba": numba, **namespace})
    for line in source.splitlines():
        builder.line(line, indent=0)
    jitted = numba.njit(builder.build(name).function, cache=False)
    jitted.arignote_source = source
    jitted.arignote_namespace = namespace
    return jitted


#: How many jitted kernels :func:`compile_source` keeps for reuse (least recently used go).
#: A kernel's text depends only on its op, its parameters and its input types, so graphs
#: repeating an operation (the same fused elementwise loop, reduction or product) compile it
#: once: numba compiling each kernel is most of a graph's compile time.
SHARED_KERNELS = 2048
_SHARED: OrderedDict[tuple, Callable] = OrderedDict()
_SHARED_LOCK = threading.Lock()


def _sharing_key(source: str, name: str, namespace: dict[str, Any]) -> tuple | None:
    """The key of a kernel in the shared table, or None when one of its globals is not a
    lasting, value-like object (a node's ``perform``, a constant, a generator): such a
    kernel belongs to its node alone."""
    items = []
    for label, value in sorted(namespace.items()):
        if not _lasting(value):
            return None
        items.append((label, value))
    return (name, source, tuple(items))


def _lasting(value: Any) -> bool:
    """Whether ``value`` may be part of a key: a module, a numba type, a module-level
    function or jitted function, or a kernel that is itself shared."""
    if isinstance(value, types.ModuleType | numba.types.Type):
        return isinstance(value, Hashable)
    if getattr(value, "arignote_shared", False):
        return True
    module = sys.modules.get(getattr(value, "__module__", None) or "")
    return module is not None and getattr(module, getattr(value, "__name__", ""), None) is value


# -- object mode ------------------------------------------------------------------------------


def objmode_kernel(node: Apply) -> Callable:
    """A kernel running ``node.op.perform`` in object mode (types fixed by the node)."""
    perform = _python_perform(node)
    outs = ", ".join(f"o{k}" for k in range(len(node.outputs)))
    args = ", ".join(f"i{k}" for k in range(len(node.inputs)))
    types = {f"t{k}": numba_type(out) for k, out in enumerate(node.outputs)}
    annotations = ", ".join(f"o{k}=t{k}" for k in range(len(node.outputs)))
    source = (
        f"def kernel({args}):\n"
        f"    with numba.objmode({annotations}):\n"
        f"        {outs}{',' if len(node.outputs) == 1 else ''} = perform({args})\n"
        f"    return {outs}\n"
    )
    return compile_source(source, "kernel", {"perform": perform, **types})


def _python_perform(node: Apply) -> Callable:
    """``perform`` as a function of values returning a tuple of arrays of the node's dtypes."""
    makers = [_value_maker(out) for out in node.outputs]

    def perform(*values: Any) -> tuple:
        cells = [[None] for _ in node.outputs]
        node.op.perform(node, list(values), cells)
        return tuple(make(c[0]) for make, c in zip(makers, cells))

    return perform


def _value_maker(var: Any) -> Callable[[Any], Any]:
    """Converts a ``perform`` result to what native code expects for ``var``: an ndarray of
    its dtype for tensors (a view stays a view), a NumPy scalar for scalars."""
    if not hasattr(var.type, "dtype"):  # generators (and None) go back to native code as is
        return lambda value: value
    dtype = np.dtype(var.type.dtype)
    if isinstance(var.type, TensorType):
        return lambda value: np.asarray(value, dtype=dtype)
    return dtype.type
