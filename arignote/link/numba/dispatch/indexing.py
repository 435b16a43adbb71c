"""Native kernels of the indexing ops of ``tensor/indexing_ops.py``: ``Nonzero``, ``BinCount``,
``TakeAlongAxis`` and ``Choose``, with ``perform``'s checks and error classes."""

from __future__ import annotations

from collections.abc import Callable

from arignote.graph.basic import Apply
from arignote.link.numba.dispatch.basic import NotNative, compile_source, numba_funcify
from arignote.link.numba.dispatch.elemwise import element_index, length_lines
from arignote.link.numba.dispatch.scalar import UNSUPPORTED_DTYPES, cast
from arignote.tensor.indexing_ops import BinCount, Choose, Nonzero, TakeAlongAxis


def _kernel(lines: list[str]) -> Callable:
    return compile_source("\n".join(lines) + "\n", "kernel", {})


@numba_funcify.register(Nonzero)
def _nonzero(op: Nonzero, node: Apply) -> Callable:
    """Two passes in C order: count the non-zero elements, then write their coordinates."""
    ndim = node.inputs[0].type.ndim
    outs = [f"o{d}" for d in range(ndim)]
    lines = [
        "def kernel(x):",
        "    n = 0",
        "    for index in np.ndindex(x.shape):",
        "        if x[index] != 0:",
        "            n += 1",
    ]
    lines += [f"    {o} = np.empty(n, dtype=np.int64)" for o in outs]
    lines += ["    k = 0", "    for index in np.ndindex(x.shape):", "        if x[index] != 0:"]
    lines += [f"            {o}[k] = index[{d}]" for d, o in enumerate(outs)]
    lines += ["            k += 1", f"    return {', '.join(outs)}"]
    return _kernel(lines)


@numba_funcify.register(BinCount)
def _bincount(op: BinCount, node: Apply) -> Callable:
    weighted = len(node.inputs) == 2
    if weighted and node.inputs[1].type.dtype in UNSUPPORTED_DTYPES:
        raise NotNative("BinCount", f"weights of dtype {node.inputs[1].type.dtype}")
    lines = [
        f"def kernel(x{', w' if weighted else ''}):",
        f"    length = {op.minlength}",
        "    for k in range(x.shape[0]):",
        "        v = np.int64(x[k])",
        "        if v < 0:",
        "            raise ValueError(\"'list' argument must have no negative elements\")",
        "        length = max(length, v + 1)",
    ]
    if weighted:
        lines += [
            "    if w.shape[0] != x.shape[0]:",
            '        raise ValueError("The weights and list don\'t have the same length.")',
            "    out = np.zeros(length, dtype=np.float64)",
            "    for k in range(x.shape[0]):",
            "        out[np.int64(x[k])] += np.float64(w[k])",
        ]
    else:
        lines += [
            "    out = np.zeros(length, dtype=np.int64)",
            "    for k in range(x.shape[0]):",
            "        out[np.int64(x[k])] += 1",
        ]
    return _kernel(lines + ["    return out"])


@numba_funcify.register(TakeAlongAxis)
def _take_along_axis(op: TakeAlongAxis, node: Apply) -> Callable:
    """Dimensions other than the axis broadcast where either length is 1 (as NumPy's fancy
    indexing does); indices may be negative (counted from the end) and are checked."""
    ndim, axis = node.inputs[0].type.ndim, op.axis
    lines = ["def kernel(arr, idx):"]
    for d in range(ndim):
        if d == axis:
            lines.append(f"    n{d} = idx.shape[{d}]")
            continue
        lines += [
            f"    n{d} = arr.shape[{d}] if idx.shape[{d}] == 1 else idx.shape[{d}]",
            f"    if arr.shape[{d}] != 1 and arr.shape[{d}] != n{d}:",
            f"        raise ValueError('{op}: shapes do not broadcast along dimension {d}')",
        ]
    shape = "(" + "".join(f"n{d}, " for d in range(ndim)) + ")"
    lines += [f"    out = np.empty({shape}, dtype=arr.dtype)", f"    length = arr.shape[{axis}]"]
    indent = "    "
    for d in range(ndim):
        lines.append(f"{indent}for j{d} in range(n{d}):")
        indent += "    "

    def pick(name: str, d: int) -> str:
        return f"(0 if {name}.shape[{d}] == 1 else j{d})"

    at_idx = ", ".join(f"j{d}" if d == axis else pick("idx", d) for d in range(ndim))
    at_arr = ", ".join("k" if d == axis else pick("arr", d) for d in range(ndim))
    lines += [
        f"{indent}k = np.int64(idx[{at_idx},])",
        f"{indent}if k < -length or k >= length:",
        f"{indent}    raise IndexError('{op}: index out of bounds')",
        f"{indent}if k < 0:",
        f"{indent}    k += length",
        f"{indent}out[{', '.join(f'j{d}' for d in range(ndim))},] = arr[{at_arr},]",
        "    return out",
    ]
    return _kernel(lines)


_CHOICE_INDEX = {
    "raise": [
        "if k < 0 or k >= N:",
        "    raise ValueError('invalid entry in choice array')",
    ],
    "wrap": ["k = k % N"],
    "clip": ["k = min(max(k, 0), N - 1)"],
}


@numba_funcify.register(Choose)
def _choose(op: Choose, node: Apply) -> Callable:
    """An elementwise loop (only dimensions of static length 1 broadcast, as in perform):
    the index picks which choice the element comes from."""
    ndim, dtype = node.outputs[0].type.ndim, node.outputs[0].type.dtype
    if dtype in UNSUPPORTED_DTYPES:
        raise NotNative("Choose", f"dtype {dtype} is not computed natively")
    n = len(node.inputs) - 1
    lines = [f"def kernel({', '.join(f'i{k}' for k in range(n + 1))}):"]
    lines += length_lines(node, ndim)
    shape = "(" + "".join(f"n{d}, " for d in range(ndim)) + ")"
    lines.append(f"    out = np.empty({shape}, dtype=np.{dtype})")
    indent = "    "
    for d in range(ndim):
        lines.append(f"{indent}for j{d} in range(n{d}):")
        indent += "    "
    lines.append(f"{indent}k = np.int64(i0[{element_index(node.inputs[0], ndim)}])")
    lines += [indent + line.replace("N", str(n)) for line in _CHOICE_INDEX[op.mode]]
    target = "".join(f"j{d}, " for d in range(ndim)) or "()"
    for c in range(n):
        keyword = "if" if c == 0 else "elif" if c < n - 1 else "else"
        test = f" k == {c}" if keyword != "else" else ""
        lines.append(f"{indent}{keyword}{test}:")
        value = f"i{c + 1}[{element_index(node.inputs[c + 1], ndim)}]"
        lines.append(f"{indent}    out[{target}] = {cast(dtype)}({value})")
    return _kernel(lines + ["    return out"])
