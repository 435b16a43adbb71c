"""Native kernels of ``tensor/math.py`` ops: ``LogSumExp`` in two passes.

Pass one finds the maximum over the reduced axes; a non-finite maximum shifts by 0 instead
(as ``perform`` does); pass two accumulates ``exp(x - top)``; the result is
``log(total) + top`` (an empty or all ``-inf`` slice gives ``-inf``). A NaN need not be
found by pass one: ``exp(nan - top)`` makes the total, hence the result, NaN.

When the reduced axes are the last ones (``axis=-1`` of a C-ordered array, the common case),
each slice is reduced on its own while it is in cache: the maximum with eight independent
running maxima (instruction-level parallelism), the sum of exponentials with
:func:`.vmath.exp` and a reorderable addition, so that LLVM vectorises it. Other axes keep
arrays of maxima and totals, updated in one pass over the input each.
"""

from __future__ import annotations

from collections.abc import Callable

from arignote.graph.basic import Apply
from arignote.link.numba.dispatch import vmath
from arignote.link.numba.dispatch.basic import compile_source, numba_funcify
from arignote.link.numba.dispatch.scalar import cast
from arignote.tensor.math import LogSumExp

#: Running maxima of the slice kernel.
_LANES = 8


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
    if op.axis and kept == list(range(len(kept))):
        source = _slices_source(ndim, len(kept), dtype)
    else:
        source = _arrays_source(ndim, kept, dtype, op.axis)
    return compile_source(source, "kernel", {"vmath": vmath})


def _arrays_source(ndim: int, kept: list[int], dtype: str, axis: tuple) -> str:
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
    lines += _loops(ndim, [f"total[{out}] += vmath.exp({element} - top[{out}])"])
    # 0-d arithmetic gives a number in numba: write the result into an array of its own
    lines.append(f"    out = np.empty({shape}, dtype=np.{dtype})")
    lines += ["    out[...] = np.log(total) + top", "    return out"]
    return "\n".join(lines) + "\n"


def _slices_source(ndim: int, nkept: int, dtype: str) -> str:
    """The kernel reducing the last ``ndim - nkept`` axes slice by slice (module docstring)."""
    shape = "(" + "".join(f"x.shape[{d}], " for d in range(nkept)) + ")"
    lines = ["def kernel(x):", f"    out = np.empty({shape}, dtype=np.{dtype})"]
    indent = "    "
    for d in range(nkept):
        lines.append(f"{indent}for j{d} in range(x.shape[{d}]):")
        indent += "    "
    body = _slice_maximum(ndim, nkept, dtype)
    body.append("shift = top if np.abs(top) < np.inf else 0.0")  # as perform: inf/nan -> 0
    body.append("total = 0.0")
    body += _nest(range(nkept, ndim), [f"v = {_element(ndim, dtype)}", _SUM])
    out = "".join(f"j{d}, " for d in range(nkept)) or "()"
    body.append(f"out[{out}] = {cast(dtype)}(vmath.log(total) + shift)")
    lines += [indent + line for line in body]
    lines.append("    return out")
    return "\n".join(lines) + "\n"


_SUM = "total = vmath.add_reordered(total, vmath.exp(v - shift))"


def _element(ndim: int, dtype: str, last: str | None = None) -> str:
    index = "".join(f"j{d}, " for d in range(ndim - 1)) + (last or f"j{ndim - 1}")
    return f"np.float64(x[{index}])"


def _nest(dims, body: list[str]) -> list[str]:
    lines, indent = [], ""
    for d in dims:
        lines.append(f"{indent}for j{d} in range(x.shape[{d}]):")
        indent += "    "
    return lines + [indent + line for line in body]


def _slice_maximum(ndim: int, nkept: int, dtype: str) -> list[str]:
    """Lines setting ``top`` to the maximum of the slice (NaNs skipped: see the docstring)."""
    last = ndim - 1
    lanes = [f"m{u}" for u in range(_LANES)]
    lines = [" = ".join(lanes) + " = -np.inf"]
    inner = [f"j{last} = 0", f"while j{last} + {_LANES} <= x.shape[{last}]:"]
    for u, m in enumerate(lanes):
        inner.append(f"    v = {_element(ndim, dtype, f'j{last} + {u}')}")
        inner.append(f"    {m} = v if v > {m} else {m}")
    inner.append(f"    j{last} += {_LANES}")
    inner.append(f"for j{last} in range(j{last}, x.shape[{last}]):")
    inner.append(f"    v = {_element(ndim, dtype)}")
    inner.append("    m0 = v if v > m0 else m0")
    lines += _nest(range(nkept, last), inner)
    lines.append("top = m0")
    lines += [f"top = {m} if {m} > top else top" for m in lanes[1:]]
    return lines
