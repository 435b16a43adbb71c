"""Native kernels of basic indexing: ``Subtensor`` (a view) and ``IncSubtensor`` (a copy of
``x`` with ``x[index]`` set or incremented; in-place rewrites are off for this backend)."""

from __future__ import annotations

from collections.abc import Callable

from arignote.graph.basic import Apply
from arignote.link.numba.dispatch.basic import compile_source, numba_funcify
from arignote.tensor.index_spec import INT, SliceSpec
from arignote.tensor.subtensor import IncSubtensor, Subtensor


def index_expression(idx_list, first: int) -> str:
    """The index tuple in native code; index values are inputs ``i{first}``, ... (0-d)."""
    position = first
    parts = []
    for entry in idx_list:
        if isinstance(entry, SliceSpec):
            bounds = []
            for given in entry:
                bounds.append(f"i{position}[()]" if given else "None")
                position += given
            parts.append(f"slice({', '.join(bounds)})")
        elif entry == INT:
            parts.append(f"i{position}[()]")
            position += 1
        else:  # a new axis
            parts.append("None")
    return "(" + "".join(p + ", " for p in parts) + ")"


def bounds_checks(idx_list, first: int) -> str:
    """Lines raising IndexError for an integer index outside its axis of ``i0``, as NumPy does:
    numba does not check bounds, and would read (or write) outside the array."""
    position, axis, lines = first, 0, []
    for entry in idx_list:
        if isinstance(entry, SliceSpec):
            position += sum(entry)
            axis += 1
        elif entry == INT:
            lines.append(
                f"    if not -i0.shape[{axis}] <= i{position}[()] < i0.shape[{axis}]:\n"
                f"        raise IndexError('index out of bounds for axis {axis}')\n"
            )
            position += 1
            axis += 1
    return "".join(lines)


def _arguments(node: Apply) -> str:
    return ", ".join(f"i{k}" for k in range(len(node.inputs)))


@numba_funcify.register(Subtensor)
def _subtensor(op: Subtensor, node: Apply) -> Callable:
    index = index_expression(op.idx_list, 1)
    if node.outputs[0].type.ndim == 0:  # an element: a fresh 0-d array holding it
        body = (
            f"    out = np.empty((), dtype=np.{node.outputs[0].type.dtype})\n"
            f"    out[()] = i0[{index}]\n"
            "    return out\n"
        )
    else:
        body = f"    return i0[{index}]\n"
    checks = bounds_checks(op.idx_list, 1)
    return compile_source(f"def kernel({_arguments(node)}):\n{checks}{body}", "kernel", {})


@numba_funcify.register(IncSubtensor)
def _incsubtensor(op: IncSubtensor, node: Apply) -> Callable:
    index = index_expression(op.idx_list, 2)
    update = "=" if op.set_instead_of_inc else "+="
    value = "i1[()]" if node.inputs[1].type.ndim == 0 else "i1"
    source = (
        f"def kernel({_arguments(node)}):\n"
        f"{bounds_checks(op.idx_list, 2)}"
        "    out = i0.copy()\n"
        f"    out[{index}] {update} {value}\n"
        "    return out\n"
    )
    return compile_source(source, "kernel", {})
