"""``NumbaLinker``: the rewritten graph becomes one function compiled by ``numba.njit``.

``fgraph_convert`` writes one Python function calling each node's kernel (see
:mod:`arignote.link.numba.dispatch`) in topological order, values in local variables and
constants as globals, and compiles it with ``numba.njit`` as a whole: a call of the compiled
function is one native call. Numba compiles it at the first call, for the argument types of
that call (later calls with the same types reuse the machine code).

Random generators enter native code as they are (numba draws from a ``numpy.random.Generator``
and advances the Python object's state; see :mod:`.dispatch.random`). A graph holding values
that cannot enter native code (float16 values, other Python objects) runs on the Python VM as
a whole (:data:`WHOLE_GRAPH_FALLBACKS` lists such types by name with the reason; none today),
and ``runner.fallbacks`` says which nodes did not run natively, and why.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from arignote.graph.basic import Apply, Constant, Variable
from arignote.graph.codegen import CodeBuilder
from arignote.graph.fg import FunctionGraph
from arignote.graph.op import HasInnerGraph
from arignote.graph.traversal import vars_between
from arignote.link.jit import JITLinker, JITRunner
from arignote.link.numba.cache import load_function
from arignote.link.numba.dispatch import (
    InnerObjectMode,
    NotNative,
    compile_source,
    constant_expression,
    fused_reductions,
    kernel_for,
    numba_type,
)
from arignote.link.numba.dispatch.inner import graph_function, is_lazy_graph
from arignote.link.numba.dispatch.random import drawing_form
from arignote.link.vm import VMLinker
from arignote.scalar.basic import ScalarOp
from arignote.tensor.type import TensorType

#: Value types that cannot enter native code: a graph with one as input or output runs on the
#: Python VM (by type name, with the reason).
WHOLE_GRAPH_FALLBACKS: dict[str, str] = {}


class NumbaLinker(JITLinker):
    """Compiles a whole graph with ``numba.njit`` (see the module docstring).

    In-place rewrites are left out: kernels write fresh outputs (numba reuses nothing across
    calls, and a native in-place kernel would have to honour every destroy_map).
    """

    required_rewrites: tuple[str, ...] = ("fusion",)
    incompatible_rewrites: tuple[str, ...] = ("inplace",)

    def fgraph_convert(self, fgraph: FunctionGraph, **kwargs: Any) -> Callable[..., tuple]:
        """``fn(*input_arrays) -> tuple_of_output_arrays``, jitted by numba."""
        converted = convert(fgraph)
        return _boundary(fgraph, converted[0], lease=converted.lease)

    def make_runner(self) -> JITRunner:
        fgraph = self._graph()
        reason = whole_graph_fallback(fgraph)
        if reason is not None:
            runner = VMLinker().accept(fgraph, self.no_recycling, self.profile).make_runner()
            runner.fallbacks = {None: reason}
            return runner
        converted = convert(fgraph)
        return native_runner(fgraph, *converted, str(self), lease=converted.lease)


def native_runner(
    fgraph: FunctionGraph, graph: Callable, fallbacks: dict, name: str, lease: Any = None
) -> JITRunner:
    """The runner of a converted graph; its ``run`` is the generated boundary itself.

    ``lease``: the :attr:`Converted.lease` of ``graph``, held by the runner (through both
    boundaries) so that a graph loaded from the disk cache lives exactly as long as it.
    """
    runner = JITRunner(fgraph, _boundary(fgraph, graph, lease=lease), name)
    runner.run = _boundary(fgraph, graph, packed=True, lease=lease)  # type: ignore[method-assign]
    runner.fallbacks = fallbacks
    # What a Function's entry point needs to call ``graph`` itself (one frame fewer): the
    # jitted function, per output the dtype of the 0-d array to make (None: an array, the
    # dtype's default type: ``np.array(number)`` infers it), and whether ``graph`` returns
    # its one output bare.
    zero_d = tuple(_zero_d_dtype(v) for v in fgraph.outputs)
    runner.native_call = (graph, zero_d, returns_bare(fgraph))
    return runner


def returns_bare(fgraph: FunctionGraph) -> bool:
    """Whether the graph function of ``fgraph`` returns its one output itself, not in a tuple
    (numba boxes a tuple around it in about as long as NumPy adds two 0-d arrays)."""
    return len(fgraph.outputs) == 1 and not is_lazy_graph(fgraph)


def _zero_d_dtype(var: Variable) -> np.dtype | str | None:
    """The dtype of the 0-d array made from ``var``'s number: "default" when
    ``np.array(number)`` infers it (float64, int64, bool, complex128: about 30% faster than
    passing it), None for an array."""
    if not _is_0d(var):
        return None
    dtype = np.dtype(var.type.dtype)
    return "default" if np.array(dtype.type(0).item()).dtype == dtype else dtype


def whole_graph_fallback(fgraph: FunctionGraph) -> str | None:
    """Why ``fgraph`` cannot run natively as a whole (None when it can): some value in it
    (an input, an output, a constant or an intermediate, also one of the inner graph of a loop
    or an ``OpFromGraph``, which native code holds too) cannot enter native code."""
    for var in _all_variables(fgraph.variables):
        reason = WHOLE_GRAPH_FALLBACKS.get(type(var.type).__name__)
        if reason is not None:
            return f"{var.type}: {reason}"
        try:
            numba_type(var)
        except NotNative as err:
            return str(err)
    return None


def _all_variables(variables: Iterable[Variable], seen: set | None = None) -> Iterator[Variable]:
    """``variables`` and those of the inner graphs of their owners, recursively (``seen``:
    the ids of the ops whose inner graphs were walked already)."""
    seen = set() if seen is None else seen
    for var in variables:
        yield var
        op = var.owner.op if var.owner is not None else None
        if not isinstance(op, HasInnerGraph) or isinstance(op, ScalarOp) or id(op) in seen:
            continue
        seen.add(id(op))
        inner = vars_between(op.inner_inputs, op.inner_outputs)
        yield from _all_variables([*op.inner_inputs, *inner], seen)


class Converted(tuple):
    """``(graph, fallbacks)``, what :func:`convert` returns, and ``lease``: the disk cache's
    :class:`~.cache.Lease` on the module ``graph`` was loaded from (None when compiled in
    memory). Whatever calls ``graph`` must hold the lease (pass it to :func:`native_runner`):
    once it is gone, the loaded module is emptied and its jitted functions freed."""

    lease: Any = None


def convert(fgraph: FunctionGraph) -> Converted:
    """The jitted graph function and the nodes running in object mode (with the reason)."""
    if is_lazy_graph(fgraph):  # IfElse: branches written as native ``if`` blocks
        jitted, fallbacks = graph_function(fgraph)
        return _cached(jitted, fallbacks)
    names: dict[Variable, str] = {var: f"i{k}" for k, var in enumerate(fgraph.inputs)}
    namespace: dict[str, Any] = {}
    fallbacks: dict[Apply, NotNative] = {}
    lines = [f"def graph({', '.join(names[v] for v in fgraph.inputs)}):"]
    fused = fused_reductions(fgraph)  # {reduction: (kernel, elementwise producer)}
    producers = {producer for _, producer in fused.values()}
    for node in fgraph.toposort():
        if node in producers:  # computed inside the reduction it feeds
            continue
        if node in fused:
            kernel, reason = fused[node][0], None
        else:
            kernel, reason = kernel_for(drawing_form(fgraph, node))
        if reason is not None:
            fallbacks[node] = reason
        position = len(lines) - 1  # kernel k<n> (n-th line), outputs v<n>_<j>
        namespace[f"k{position}"] = kernel
        inputs = fused[node][1].inputs if node in fused else node.inputs
        args = ", ".join(_name_of(v, names, namespace) for v in inputs)
        outs = [f"v{position}_{j}" for j in range(len(node.outputs))]
        names.update(zip(node.outputs, outs))
        target = outs[0] if len(outs) == 1 else ", ".join(outs)
        lines.append(f"    {target} = k{position}({args})")
    results = [_result(v, names, namespace) for v in fgraph.outputs]
    bare = len(results) == 1  # see returns_bare
    lines.append(
        f"    return {results[0]}" if bare else f"    return ({''.join(r + ', ' for r in results)})"
    )
    jitted = compile_source("\n".join(lines) + "\n", "graph", namespace)
    return _cached(jitted, fallbacks)


def _cached(jitted: Callable, fallbacks: dict) -> Converted:
    """The disk cache's copy of ``jitted`` with its lease; ``jitted`` itself when there is
    none (not cacheable, or no usable cache directory)."""
    loaded = load_function(jitted)
    converted = Converted((jitted if loaded is None else loaded[0], fallbacks))
    converted.lease = None if loaded is None else loaded[1]
    return converted


def _is_0d(var: Variable) -> bool:
    return isinstance(var.type, TensorType) and var.type.ndim == 0


def _result(var: Variable, names: dict, namespace: dict) -> str:
    # A 0-d output leaves native code as a number: numba boxes numbers about ten times faster
    # than arrays, and the boundary makes the 0-d array (of the exact dtype) in Python.
    name = _name_of(var, names, namespace)
    return f"{name}[()]" if _is_0d(var) else name


def _boundary(
    fgraph: FunctionGraph, graph: Callable, packed: bool = False, lease: Any = None
) -> Callable:
    """The Python function around the jitted one, turning numbers back into 0-d arrays.

    ``packed=False``: ``call(*inputs) -> tuple`` (the JIT linker's contract). ``packed=True``:
    ``run(inputs) -> list``, the runner's own ``run``, so that a call goes from the function's
    entry point to native code through a single Python frame. The boundary holds ``lease``
    (see :class:`Converted`).
    """
    code = CodeBuilder("<arignote numba boundary>")
    code.namespace.update(graph=graph, array=np.array, lease=lease)
    args = "".join(f"i{k}, " for k in range(len(fgraph.inputs)))
    if packed:
        code.line("def call(inputs):", 0)
        if args:
            code.line(f"{args}= inputs")
    else:
        code.line(f"def call({args}):", 0)
    outs = [f"r{k}" for k in range(len(fgraph.outputs))]
    targets = "r0 " if returns_bare(fgraph) else "".join(o + ", " for o in outs)
    code.line(f"{targets}= graph({args})" if outs else f"graph({args})")
    converted = []
    for out, var in zip(outs, fgraph.outputs):
        dtype = _zero_d_dtype(var)
        if isinstance(dtype, str):
            out = f"array({out})"
        elif dtype is not None:
            out = f"array({out}, {code.name('dtype', dtype)})"
        converted.append(out)
    opening, closing = ("[", "]") if packed else ("(", ")")
    code.line(f"return {opening}{''.join(c + ', ' for c in converted)}{closing}")
    return code.build("call").function


def _name_of(var: Variable, names: dict, namespace: dict) -> str:
    """The expression for ``var`` in the generated code (constants become globals)."""
    if isinstance(var, Constant):
        return constant_expression(var.data, namespace)
    return names[var]


def native_report(runner: Any) -> str:
    """One line per node of a compiled function's runner: native, or why not.

    ``native_report(f.runner)`` for ``f = function(..., mode="NUMBA")``.
    """
    fallbacks = getattr(runner, "fallbacks", {})
    if None in fallbacks:
        return f"whole graph on the Python VM: {fallbacks[None]}"
    lines = []
    for node in runner.fgraph.toposort():
        why = fallbacks.get(node)
        if why is None:
            lines.append(f"{node.op}: native")
        elif isinstance(why, InnerObjectMode):  # the loop or inner graph itself is native
            lines.append(f"{node.op}: {why.reason}")
        else:
            lines.append(f"{node.op}: object mode ({why})")
    return "\n".join(lines)
