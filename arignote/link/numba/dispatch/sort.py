"""Native kernels of sorting and searching: ``Sort``, ``Argsort``, ``SearchSorted``, ``Unique``.

Sorting works on one 1-d slice along the axis at a time. ``Argsort`` always sorts stably
(mergesort): the stable kinds give exactly ``perform``'s permutation, and for "quicksort" and
"heapsort" NumPy promises no particular order of ties, so the stable one is as valid (equal
to ``perform``'s wherever values are distinct). NaNs sort last, as in NumPy.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import numba
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
        return _unique_axis(op, node)
    outputs = ["values"]
    outputs += ["first"] if op.return_index else []
    outputs += ["inverse.reshape(x.shape)"] if op.return_inverse else []
    outputs += ["counts"] if op.return_counts else []
    source = _UNIQUE.replace("EQUAL_NAN", str(op.equal_nan))
    source = source.replace("OUTPUTS", ", ".join(outputs))  # one output: the array itself
    return compile_source(source.lstrip("\n"), "kernel", {})


@numba.njit(cache=False)
def _row_less(rows, i, j):
    """NumPy's order of structured elements: field by field, NaNs after numbers."""
    for c in range(rows.shape[1]):
        a, b = rows[i, c], rows[j, c]
        if a < b or (b != b and a == a):
            return True
        if b < a or (a != a and b == b):
            return False
    return False


@numba.njit(cache=False)
def _row_argsort(rows):
    """A stable (merge) sort of the row indices in ``_row_less`` order."""
    order = np.arange(rows.shape[0])
    scratch = np.empty_like(order)
    width = 1
    while width < order.size:
        for lo in range(0, order.size, 2 * width):
            mid, hi = min(lo + width, order.size), min(lo + 2 * width, order.size)
            i, j, k = lo, mid, lo
            while i < mid and j < hi:
                if _row_less(rows, order[j], order[i]):  # ties keep the left one first
                    scratch[k] = order[j]
                    j += 1
                else:
                    scratch[k] = order[i]
                    i += 1
                k += 1
            scratch[k : k + mid - i] = order[i:mid]
            k += mid - i
            scratch[k : k + hi - j] = order[j:hi]
        order, scratch = scratch, order
        width *= 2
    return order


@numba.njit(cache=False)
def unique_rows(rows):
    """``np.unique`` of the rows of a matrix: NumPy compares them as structured elements, so
    equal means equal in every field (NaN rows are all distinct, -0.0 equals 0.0).
    Returns the unique rows, first indices, inverse and counts."""
    n = rows.shape[0]
    order = _row_argsort(rows)
    group = np.empty(n, dtype=np.int64)
    starts = np.empty(n, dtype=np.int64)
    count = 0
    for p in range(n):
        same = p > 0
        if same:
            for c in range(rows.shape[1]):
                if rows[order[p], c] != rows[order[p - 1], c]:
                    same = False
                    break
        if not same:
            starts[count] = p
            count += 1
        group[p] = count - 1
    values = np.empty((count, rows.shape[1]), dtype=rows.dtype)
    first = np.empty(count, dtype=np.int64)
    counts = np.zeros(count, dtype=np.int64)
    inverse = np.empty(n, dtype=np.int64)
    for g in range(count):
        values[g] = rows[order[starts[g]]]
        first[g] = order[starts[g]]
    for p in range(n):
        counts[group[p]] += 1
        inverse[order[p]] = group[p]
    return values, first, inverse, counts


def _unique_axis(op: Unique, node: Apply) -> Callable:
    """Slices along ``axis`` moved first and flattened to rows, as NumPy does."""
    ndim = node.inputs[0].type.ndim
    front = (op.axis, *(d for d in range(ndim) if d != op.axis))
    back = tuple(front.index(d) for d in range(ndim))  # the inverse permutation
    rest = "".join(f"x.shape[{d}], " for d in front[1:])
    outputs = ["result"]
    outputs += ["first"] if op.return_index else []
    outputs += ["inverse"] if op.return_inverse else []
    outputs += ["counts"] if op.return_counts else []
    source = (
        "def kernel(x):\n"
        f"    moved = np.ascontiguousarray(np.transpose(x, {front}))\n"
        f"    rows = moved.reshape((x.shape[{op.axis}], -1))\n"
        "    values, first, inverse, counts = unique_rows(rows)\n"
        f"    shaped = values.reshape((values.shape[0], {rest}))\n"
        f"    result = np.ascontiguousarray(np.transpose(shaped, {back}))\n"
        f"    return {', '.join(outputs)}\n"
    )
    return compile_source(source, "kernel", {"unique_rows": unique_rows})
