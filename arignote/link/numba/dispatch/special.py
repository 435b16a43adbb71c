"""Native kernels of ``Softmax`` and ``LogSoftmax`` (``tensor/special.py``), in three passes.

As in ``perform``: pass one finds the maximum over the axes (NaN propagates, as in ``np.max``),
pass two writes ``x - top`` (log-softmax) or ``exp(x - top)`` (softmax) and accumulates the
exponentials per slice, pass three normalizes (divides by the total, or subtracts its log).
The per-slice arrays keep the reduced axes with length 1, so one index expression serves.
"""

from __future__ import annotations

from collections.abc import Callable

from arignote.graph.basic import Apply
from arignote.link.numba.dispatch.basic import NotNative, compile_source, numba_funcify
from arignote.link.numba.dispatch.scalar import UNSUPPORTED_DTYPES, cast
from arignote.tensor.special import LogSoftmax, Softmax

#: (element written in pass two, accumulated term, pass three) per op.
_PASSES = {
    Softmax: ("np.exp(v - top[k])", "out[i]", "out[i] = out[i] / total[k]"),
    LogSoftmax: ("v - top[k]", "np.exp(out[i])", "out[i] = out[i] - np.log(total[k])"),
}


def _loops(ndim: int, body: list[str]) -> list[str]:
    lines, indent = [], "    "
    for d in range(ndim):
        lines.append(f"{indent}for j{d} in range(x.shape[{d}]):")
        indent += "    "
    return lines + [indent + line for line in body]


@numba_funcify.register(Softmax)
@numba_funcify.register(LogSoftmax)
def _softmax(op, node: Apply) -> Callable:
    dtype = node.outputs[0].type.dtype
    if dtype in UNSUPPORTED_DTYPES or node.inputs[0].type.dtype in UNSUPPORTED_DTYPES:
        raise NotNative(type(op).__name__, f"dtype {dtype} is not computed natively")
    ndim = node.inputs[0].type.ndim
    write, term, normalize = _PASSES[type(op)]
    full = "".join(f"j{d}, " for d in range(ndim)) or "()"
    kept = "".join("0, " if d in op.axis else f"j{d}, " for d in range(ndim)) or "()"
    shape = "(" + "".join("1, " if d in op.axis else f"x.shape[{d}], " for d in range(ndim)) + ")"
    value = f"v = {cast(dtype)}(x[i])"
    lines = [
        "def kernel(x):",
        f"    out = np.empty(x.shape, dtype=np.{dtype})",
        "    if x.size == 0:",
        "        return out",
        f"    top = np.full({shape}, -np.inf, dtype=np.{dtype})",
        f"    total = np.zeros({shape}, dtype=np.{dtype})",
    ]
    prefix = [f"i = {full}", f"k = {kept}"]
    lines += _loops(ndim, [*prefix, value, "top[k] = np.maximum(top[k], v)"])
    lines += _loops(ndim, [*prefix, value, f"out[i] = {write}", f"total[k] += {term}"])
    lines += _loops(ndim, [*prefix, normalize])
    lines.append("    return out")
    return compile_source("\n".join(lines) + "\n", "kernel", {})
