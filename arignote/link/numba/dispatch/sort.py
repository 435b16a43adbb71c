"""Native kernels of sorting and searching: ``Sort``, ``Argsort``, ``SearchSorted``, ``Unique``.

Sorting works on one 1-d slice along the axis at a time. ``Argsort`` always sorts stably
(mergesort): the stable kinds give exactly ``perform``'s permutation, and for "quicksort" and
"heapsort" NumPy promises no particular order of ties, so the stable one is as valid (equal
to ``perform``'s wherever values are distinct). NaNs sort last, as in NumPy.
"""

from __future__ import annotations

from collections.abc import Callable

from arignote.graph.basic import Apply
from arignote.link.numba.dispatch.basic import NotNative, compile_source, numba_funcify
from arignote.link.numba.dispatch.scalar import UNSUPPORTED_DTYPES
from arignote.tensor.sort import Argsort, SearchSorted, Sort, Unique


def _real(node: Apply, x) -> None:
    dtype = x.type.dtype
    if dtype in UNSUPPORTED_DTYPES or dtype.startswith("complex"):
        raise NotNative(type(node.op).__name__, f"dtype {dtype}: NumPy's order is not written")


def _slices(ndim: int, axis: int, body: str) -> list[str]:
    """Loops over every dimension but ``axis``; ``body`` uses ``line`` (the index of a 1-d
    slice along the axis)."""
    lines, indent = [], "    "
    for d in range(ndim):
        if d != axis:
            lines.append(f"{indent}for j{d} in range(x.shape[{d}]):")
            indent += "    "
    line = "".join(":, " if d == axis else f"j{d}, " for d in range(ndim))
    return lines + [indent + body.format(line=line)]


@numba_funcify.register(Sort)
@numba_funcify.register(Argsort)
def _sort(op, node: Apply) -> Callable:
    x = node.inputs[0]
    _real(node, x)
    if isinstance(op, Sort):
        out, body = "np.empty(x.shape, dtype=x.dtype)", "out[{line}] = np.sort(x[{line}])"
    else:
        body = "out[{line}] = np.argsort(x[{line}], kind='mergesort')"
        out = "np.empty(x.shape, dtype=np.int64)"
    lines = ["def kernel(x):", f"    out = {out}"]
    lines += _slices(x.type.ndim, op.axis, body) + ["    return out"]
    return compile_source("\n".join(lines) + "\n", "kernel", {})


@numba_funcify.register(SearchSorted)
def _searchsorted(op: SearchSorted, node: Apply) -> Callable:
    a, v = node.inputs[:2]
    _real(node, a)
    _real(node, v)
    if a.type.dtype != v.type.dtype:
        raise NotNative("SearchSorted", "mixed dtypes: NumPy compares in their common type")
    args = "a, v, sorter" if len(node.inputs) == 3 else "a, v"
    lines = [f"def kernel({args}):"]
    if len(node.inputs) == 3:
        lines += [
            "    if sorter.shape[0] != a.shape[0]:",
            "        raise ValueError('sorter.size must equal a.size')",
            "    for k in range(sorter.shape[0]):",
            "        if sorter[k] < 0 or sorter[k] >= a.shape[0]:",
            "            raise ValueError('Sorter index out of range.')",
            "    a = a[sorter]",
        ]
    lines += [
        "    out = np.empty(v.shape, dtype=np.int64)",
        "    for index in np.ndindex(v.shape):",
        f"        out[index] = np.searchsorted(a, v[index], side='{op.side}')",
        "    return out",
    ]
    return compile_source("\n".join(lines) + "\n", "kernel", {})


_UNIQUE = """
def kernel(x):
    flat = np.empty(x.size, dtype=x.dtype)
    k = 0
    for index in np.ndindex(x.shape):
        flat[k] = x[index]
        k += 1
    order = np.argsort(flat, kind='mergesort')
    group = np.empty(flat.size, dtype=np.int64)
    starts = np.empty(flat.size, dtype=np.int64)
    n = 0
    for p in range(flat.size):
        value = flat[order[p]]
        if p > 0:
            before = flat[order[p - 1]]
            same = value == before or (EQUAL_NAN and value != value and before != before)
        if p == 0 or not same:
            starts[n] = p
            n += 1
        group[p] = n - 1
    values = np.empty(n, dtype=x.dtype)
    first = np.empty(n, dtype=np.int64)
    counts = np.zeros(n, dtype=np.int64)
    inverse = np.empty(flat.size, dtype=np.int64)
    for g in range(n):
        values[g] = flat[order[starts[g]]]
        first[g] = order[starts[g]]
    for p in range(flat.size):
        counts[group[p]] += 1
        inverse[order[p]] = group[p]
    return OUTPUTS
"""


@numba_funcify.register(Unique)
def _unique(op: Unique, node: Apply) -> Callable:
    x = node.inputs[0]
    _real(node, x)
    if op.axis is not None:
        raise NotNative(
            "Unique", "unique slices along an axis (lexicographic order) are not written"
        )
    outputs = ["values"]
    outputs += ["first"] if op.return_index else []
    outputs += ["inverse.reshape(x.shape)"] if op.return_inverse else []
    outputs += ["counts"] if op.return_counts else []
    source = _UNIQUE.replace("EQUAL_NAN", str(op.equal_nan))
    source = source.replace("OUTPUTS", ", ".join(outputs))  # one output: the array itself
    return compile_source(source.lstrip("\n"), "kernel", {})
