"""Native kernels of ``tensor/math.py`` ops: ``LogSumExp`` in two passes.

Pass one finds the maximum over the reduced axes (NaN propagates, as in ``np.max``); a
non-finite maximum shifts by 0 instead (as ``perform`` does); pass two accumulates
``exp(x - top)``; the result is ``log(total) + top`` (an empty or all ``-inf`` slice gives
``-inf``).
"""

from __future__ import annotations

from collections.abc import Callable

from arignote.graph.basic import Apply
from arignote.link.numba.dispatch.basic import compile_source, numba_funcify
from arignote.link.numba.dispatch.scalar import cast
from arignote.tensor.math import LogSumExp


def _loops(ndim: int, body: list[str]) -> list[str]:
    lines, indent = [], "    "
    for d in range(ndim):
        lines.append(f"{indent}for j{d} in range(x.shape[{d}]):")
        indent += "    "
    return lines + [indent + line for line in body]


@numba_funcify.register(LogSumExp)
def _logsumexp(op: LogSumExp, node: Apply) -> Callable:
    ndim = node.inputs[0].type.ndim
    dtype = node.outputs[0].type.dtype
    kept = [d for d in range(ndim) if d not in op.axis]
    shape = "(" + "".join(f"x.shape[{d}], " for d in kept) + ")"
    out = "".join(f"j{d}, " for d in kept) or "()"
    element = f"{cast(dtype)}(x[{''.join(f'j{d}, ' for d in range(ndim))}])"
    lines = [
        "def kernel(x):",
        f"    top = np.empty({shape}, dtype=np.{dtype})",
        "    top[...] = -np.inf",
        f"    total = np.zeros({shape}, dtype=np.{dtype})",
    ]
    lines += _loops(ndim, [f"top[{out}] = np.maximum(top[{out}], {element})"])
    lines += ["    flat = top.reshape(-1)", "    for k in range(flat.size):"]
    lines += ["        if not np.isfinite(flat[k]):", "            flat[k] = 0"]
    lines += _loops(ndim, [f"total[{out}] += np.exp({element} - top[{out}])"])
    # 0-d arithmetic gives a number in numba: write the result into an array of its own
    lines.append(f"    out = np.empty({shape}, dtype=np.{dtype})")
    lines += ["    out[...] = np.log(total) + top", "    return out"]
    return compile_source("\n".join(lines) + "\n", "kernel", {})
