"""Source generation for loops over the batch dimensions of stacks of core blocks.

The batch dimensions broadcast as in the ops' ``perform``: only where the graph knows an
input has length 1 (no broadcasting decided at run time); other lengths must agree.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from arignote.graph.basic import Apply, Variable


def broadcast_lines(
    inputs: Sequence[Variable],
    names: Sequence[str],
    batch: int,
    mismatch: Callable[[int, int], str],
) -> tuple[list[str], list[list[str]], list[str]]:
    """``(lines, picks, sizes)`` for the leading ``batch`` dimensions of ``inputs`` (values
    named ``names``): ``lines`` define ``s<d>``, the broadcast length of batch dimension ``d``,
    raising ``mismatch(d, k)`` (the source of an exception) when input ``k`` disagrees;
    ``picks[k][d]`` is ``"i<d>"``, or ``"0"`` where input ``k`` is known to broadcast;
    ``sizes`` is ``["s0, ", "s1, ", ...]``.
    """
    lines: list[str] = []
    picks: list[list[str]] = [[] for _ in names]
    sizes = []
    for d in range(batch):
        free = [k for k, x in enumerate(inputs) if x.type.shape[d] != 1]
        # the first input not known to broadcast gives the length, the others must agree
        lines.append(f"    s{d} = {names[free[0]]}.shape[{d}]" if free else f"    s{d} = 1")
        for k in free[1:]:
            lines += [f"    if {names[k]}.shape[{d}] != s{d}:", f"        raise {mismatch(d, k)}"]
        for k, pick in enumerate(picks):
            pick.append(f"i{d}" if k in free else "0")
        sizes.append(f"s{d}, ")
    return lines, picks, sizes


def batch_lines(node: Apply, names: tuple[str, str] = ("a", "b")) -> tuple[list, list, list]:
    """``(lines, at, sizes)`` for the first two inputs of ``node`` (stacks of matrices):
    ``lines`` define ``s<d>``, the length of batch dimension ``d`` (raising ``ValueError`` on a
    mismatch), ``at[k]`` indexes one matrix of input ``k`` inside loops over ``i<d>``,
    ``sizes`` is ``"s<d>, "``.
    """
    inputs = node.inputs[:2]
    message = f"ValueError('{node.op}: the batch dimensions do not match')"
    lines, picks, sizes = broadcast_lines(
        inputs, names, inputs[0].type.ndim - 2, lambda d, k: message
    )
    subs = [f"{n}[{', '.join(p)}]" if p else n for n, p in zip(names, picks)]
    return lines, subs, sizes


def loop_header(batch: int) -> tuple[list[str], str, str]:
    """``(lines, indent, target)``: nested loops over ``i0, i1, ...`` and the subscript of one
    output matrix (``[:, :]`` without batch dimensions)."""
    lines, indent = [], "    "
    for d in range(batch):
        lines.append(f"{indent}for i{d} in range(s{d}):")
        indent += "    "
    target = f"[{', '.join(f'i{d}' for d in range(batch))}]" if batch else "[:, :]"
    return lines, indent, target
