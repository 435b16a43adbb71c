"""Which variables of a graph depend on which others, following each op's ``connection_pattern``.

``connection_pattern[i][j]`` says whether the *elements* of input ``i`` affect output ``j``: an
input that only sets an output's shape (``Shape``, the length argument of an ``Alloc``) is not
connected. Differentiation follows these true dependencies, not the raw graph edges.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from arignote.graph.basic import Apply, Variable
from arignote.graph.op import get_connection_pattern
from arignote.graph.traversal import io_toposort


def checked_connection_pattern(node: Apply) -> list[list[bool]]:
    """``node``'s connection pattern, validated to be one row per input, one column per output."""
    pattern = get_connection_pattern(node)
    rows_ok = isinstance(pattern, (list, tuple)) and len(pattern) == len(node.inputs)
    if not rows_ok or any(len(row) != len(node.outputs) for row in pattern):
        raise ValueError(
            f"{node.op}.connection_pattern returned {pattern!r}: expected {len(node.inputs)} rows "
            f"(inputs) of {len(node.outputs)} booleans (outputs)"
        )
    return [[bool(c) for c in row] for row in pattern]


def connected_descendants(order: Iterable[Apply], sources: Iterable[Variable]) -> set[Variable]:
    """The variables whose elements depend on some of ``sources`` (sources included).

    ``order`` is a topological order of the nodes to walk (typically ``io_toposort``).
    """
    connected = set(sources)
    for node in order:
        pattern = checked_connection_pattern(node)
        for inp, row in zip(node.inputs, pattern):
            if inp in connected:
                connected.update(out for out, linked in zip(node.outputs, row) if linked)
    return connected


def graph_connection_pattern(
    inputs: Sequence[Variable], outputs: Sequence[Variable]
) -> list[list[bool]]:
    """The connection pattern of a whole graph: ``[i][j]`` is whether ``outputs[j]`` depends on
    the elements of ``inputs[i]`` (the pattern an op wrapping this graph should declare)."""
    order = io_toposort(inputs, outputs)
    pattern = []
    for inp in inputs:
        reached = connected_descendants(order, [inp])
        pattern.append([out in reached for out in outputs])
    return pattern
