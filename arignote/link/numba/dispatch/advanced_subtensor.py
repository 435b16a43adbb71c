"""Native kernels of advanced indexing: ``AdvancedSubtensor1``/``AdvancedIncSubtensor1`` (one
integer vector on axis 0) and the common cases of ``AdvancedSubtensor``/``AdvancedIncSubtensor``.

Numba's fancy indexing checks no bounds, so every kernel checks them first and raises
``IndexError`` as NumPy does; negative indices count from the end. Increments accumulate
over repeated positions (``np.add.at``), a set keeps the last write, and ``ignore_duplicates``
reproduces NumPy's buffered ``+=`` (each write is ``x[i] + y``, the last one wins).

``AdvancedSubtensor`` takes numba's own fancy indexing for one 1-d integer or boolean array
among slices and new axes (NumPy and numba then place the result dimension alike), and
``AdvancedIncSubtensor`` the row loop for a lone 1-d integer vector (then it is
``AdvancedIncSubtensor1``). Any other index (several arrays, n-d arrays and masks, integers
mixed with arrays, an ellipsis) goes to the general loop of :mod:`.advanced_indexing_general`.
"""

from __future__ import annotations

from collections.abc import Callable

from arignote.graph.basic import Apply
from arignote.link.numba.dispatch.advanced_indexing_general import (
    general_inc_subtensor_kernel,
    general_subtensor_kernel,
    write_winners_kernel,
)
from arignote.link.numba.dispatch.basic import NotNative, compile_source, numba_funcify
from arignote.tensor.advanced_subtensor import (
    AdvancedIncSubtensor,
    AdvancedIncSubtensor1,
    AdvancedSubtensor,
    AdvancedSubtensor1,
    WriteWinners,
)
from arignote.tensor.index_spec import ARRAY, MASK, SliceSpec

_CHECK_BOUNDS = [
    "    for k in range(idx.shape[0]):",
    "        if idx[k] < -length or idx[k] >= length:",
    "            raise IndexError('index out of bounds for an axis of length ' + str(length))",
]


def _kernel(lines: list[str]) -> Callable:
    return compile_source("\n".join(lines) + "\n", "kernel", {})


@numba_funcify.register(AdvancedSubtensor1)
def _advanced_subtensor1(op: AdvancedSubtensor1, node: Apply) -> Callable:
    lines = ["def kernel(x, idx):", "    length = x.shape[0]", *_CHECK_BOUNDS]
    lines += ["    out = np.empty((idx.shape[0],) + x.shape[1:], dtype=x.dtype)"]
    lines += ["    for k in range(idx.shape[0]):", "        out[k] = x[idx[k]]", "    return out"]
    return _kernel(lines)


def _inc1_lines(op, node: Apply, x_name: str, y_name: str) -> list[str]:
    """Body of an increment/set of rows ``idx`` of ``x`` by ``y`` (after the bounds check)."""
    x, y = node.inputs[:2]
    if y.type.ndim == x.type.ndim:  # one row of y per index (or one row for all)
        row = "y[0]" if y.type.shape[0] == 1 else "y[k]"
    else:
        row = "y[()]" if y.type.ndim == 0 else "y"  # the same value for every index
    lines = []
    if y.type.ndim == x.type.ndim and y.type.shape[0] != 1:
        lines += [
            "    if y.shape[0] != idx.shape[0]:",
            f"        raise ValueError('{op}: the values do not match the number of indices')",
        ]
    if y.type.dtype != x.type.dtype:
        lines.append("    y = y.astype(x.dtype)")
    lines += ["    out = x.copy()", "    for k in range(idx.shape[0]):"]
    if op.set_instead_of_inc:
        lines.append(f"        out[idx[k]] = {row}")
    elif op.ignore_duplicates:
        lines.append(f"        out[idx[k]] = x[idx[k]] + {row}")
    else:
        lines.append(f"        out[idx[k]] += {row}")
    return [*lines, "    return out"]


@numba_funcify.register(AdvancedIncSubtensor1)
def _advanced_inc_subtensor1(op: AdvancedIncSubtensor1, node: Apply) -> Callable:
    lines = ["def kernel(x, y, idx):", "    length = x.shape[0]", *_CHECK_BOUNDS]
    return _kernel(lines + _inc1_lines(op, node, "x", "y"))


def _single_advanced(op, node: Apply, first: int) -> tuple[int, int, str]:
    """``(input position, dimension of x, entry)`` of the one advanced entry; NotNative for
    other indices."""
    position, dim, found = first, 0, []
    for entry in op.idx_list:
        if isinstance(entry, SliceSpec):
            position += sum(entry)
            dim += 1
        elif entry in (ARRAY, MASK):
            found.append((position, dim, entry))
            position += 1
            dim += 1
        elif entry is not None:
            raise NotNative(type(op).__name__, f"index entry {entry!r} with arrays is not native")
    if len(found) != 1 or node.inputs[found[0][0]].type.ndim != 1:
        raise NotNative(type(op).__name__, "only one 1-d index array (with slices) is native")
    return found[0]


def _subscript(op, first: int, array: str) -> str:
    position, parts = first, []
    for entry in op.idx_list:
        if isinstance(entry, SliceSpec):
            bounds = []
            for given in entry:
                bounds.append(f"i{position}[()]" if given else "None")
                position += given
            parts.append(f"slice({', '.join(bounds)})")
        elif entry in (ARRAY, MASK):
            parts.append(array)
            position += 1
        else:
            parts.append("None")
    return "(" + "".join(p + ", " for p in parts) + ")"


@numba_funcify.register(AdvancedSubtensor)
def _advanced_subtensor(op: AdvancedSubtensor, node: Apply) -> Callable:
    try:
        position, dim, entry = _single_advanced(op, node, 1)
    except NotNative:  # several arrays, n-d arrays, integers among arrays: the general loop
        return general_subtensor_kernel(op, node)
    args = ", ".join(f"i{k}" for k in range(len(node.inputs)))
    lines = [f"def kernel({args}):", f"    idx = i{position}", f"    length = i0.shape[{dim}]"]
    if entry == MASK:
        lines += [
            "    if idx.shape[0] != length:",
            "        raise IndexError('boolean index did not match the indexed dimension')",
        ]
    else:
        lines += _CHECK_BOUNDS
    lines.append(f"    return i0[{_subscript(op, 1, 'idx')}]")
    return _kernel(lines)


@numba_funcify.register(AdvancedIncSubtensor)
def _advanced_inc_subtensor(op: AdvancedIncSubtensor, node: Apply) -> Callable:
    if tuple(op.idx_list) != (ARRAY,) or node.inputs[2].type.ndim != 1:
        return general_inc_subtensor_kernel(op, node)
    lines = ["def kernel(x, y, idx):", "    length = x.shape[0]", *_CHECK_BOUNDS]
    return _kernel(lines + _inc1_lines(op, node, "x", "y"))


@numba_funcify.register(WriteWinners)
def _write_winners(op: WriteWinners, node: Apply) -> Callable:
    return write_winners_kernel(op, node)
