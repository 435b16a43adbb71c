"""Native kernels of extra ops: ``CumOp`` (cumulative sums and products)."""

from __future__ import annotations

from collections.abc import Callable

from arignote.graph.basic import Apply
from arignote.link.numba.dispatch.basic import compile_source, numba_funcify
from arignote.link.numba.dispatch.scalar import cast
from arignote.tensor.extra_ops import CumOp


@numba_funcify.register(CumOp)
def _cumop(op: CumOp, node: Apply) -> Callable:
    """One pass in C order: each element is the previous one along the axis (computed
    earlier in that order) combined with the input, in the output dtype, as NumPy
    accumulates (sequentially)."""
    dtype = node.outputs[0].type.dtype
    combine = "+" if op.mode == "add" else "*"
    ndim = 1 if op.axis is None else node.inputs[0].type.ndim
    axis = 0 if op.axis is None else op.axis
    lines = ["def kernel(x):"]
    if op.axis is None:
        lines.append("    x = np.ascontiguousarray(x).ravel()")
    lines.append(f"    out = np.empty(x.shape, dtype=np.{dtype})")
    indent = "    "
    for d in range(ndim):
        lines.append(f"{indent}for j{d} in range(x.shape[{d}]):")
        indent += "    "
    index = "".join(f"j{d}, " for d in range(ndim))
    before = "".join(f"j{d} - 1, " if d == axis else f"j{d}, " for d in range(ndim))
    value = f"{cast(dtype)}(x[{index}])"
    lines.append(f"{indent}if j{axis} == 0:")
    lines.append(f"{indent}    out[{index}] = {value}")
    lines.append(f"{indent}else:")
    lines.append(f"{indent}    out[{index}] = out[{before}] {combine} {value}")
    lines.append("    return out")
    return compile_source("\n".join(lines) + "\n", "kernel", {})
