"""Native ``OpFromGraph`` (``arignote/compile/builders.py``): its inner graph, inlined.

The inner graph is rewritten and compiled like an outer graph (:mod:`.inner`) and called from
the node's kernel; numba compiles the two together, so the call costs nothing at run time.
Outputs that may alias an input are copied, as the Python VM's inner function copies them.
An inner node without a native kernel runs its ``perform`` in object mode (reported under its
own key of the fallback registry); the rest stays native. An ``OpFromGraph(inline=True)`` never
gets here: the rewrite ``inline_ofg_expansion`` (canonicalize) replaces it by its graph.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from arignote.graph.basic import Apply
from arignote.link.numba.dispatch.basic import BY_NAME, compile_source, with_inner_fallbacks
from arignote.link.numba.dispatch.inner import aliasing_outputs, graph_function, rewrite_inner
from arignote.tensor.type import TensorType


def _op_from_graph(op: Any, node: Apply) -> Callable:
    fgraph = rewrite_inner(op.inner_inputs, op.inner_outputs)
    inner, fallbacks = graph_function(fgraph)
    risky = aliasing_outputs(fgraph)
    args = ", ".join(f"i{k}" for k in range(len(node.inputs)))
    outs = [f"r{k}" for k in range(len(node.outputs))]
    results = [
        _delivered(out, var, k in risky) for k, (out, var) in enumerate(zip(outs, fgraph.outputs))
    ]
    listed = results[0] if len(results) == 1 else ", ".join(results)
    source = (
        f"def kernel({args}):\n"
        f"    {''.join(o + ', ' for o in outs)}= inner({args})\n"
        f"    return {listed}\n"
    )
    kernel = compile_source(source, "kernel", {"inner": inner})
    return with_inner_fallbacks(kernel, "inner graph", fallbacks)


def _delivered(name: str, var: Any, risky: bool) -> str:
    # the inner graph returns 0-d tensors as numbers: kernels exchange 0-d arrays
    if isinstance(var.type, TensorType) and var.type.ndim == 0:
        return f"np.asarray({name})"
    # a generator passed through is handed over as is (the VM's inner function does too)
    return f"{name}.copy()" if risky and isinstance(var.type, TensorType) else name


BY_NAME["arignote.compile.builders.OpFromGraph"] = _op_from_graph
