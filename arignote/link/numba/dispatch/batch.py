"""Source generation for loops over the batch dimensions of two stacks of matrices.

The batch dimensions broadcast as in the ops' ``perform``: only where the graph knows one
side has length 1 (no broadcasting decided at run time); other lengths must agree.
"""

from __future__ import annotations

from arignote.graph.basic import Apply


def batch_lines(node: Apply, names: tuple[str, str] = ("a", "b")) -> tuple[list, list, list]:
    """``(lines, at, sizes)`` for the first two inputs of ``node``: ``lines`` define ``s<d>``,
    the length of batch dimension ``d`` (raising ``ValueError`` on a mismatch), ``at[k]``
    indexes one matrix of input ``k`` inside loops over ``i<d>``, ``sizes`` is ``"s<d>, "``.
    """
    first, second = node.inputs[:2]
    lines: list[str] = []
    at: tuple[list, list] = ([], [])
    sizes = []
    for d in range(first.type.ndim - 2):
        if first.type.shape[d] == 1:
            lines.append(f"    s{d} = {names[1]}.shape[{d}]")
            picks = ("0", f"i{d}")
        elif second.type.shape[d] == 1:
            lines.append(f"    s{d} = {names[0]}.shape[{d}]")
            picks = (f"i{d}", "0")
        else:
            lines += [
                f"    s{d} = {names[0]}.shape[{d}]",
                f"    if {names[1]}.shape[{d}] != s{d}:",
                f"        raise ValueError('{node.op}: the batch dimensions do not match')",
            ]
            picks = (f"i{d}", f"i{d}")
        at[0].append(picks[0])
        at[1].append(picks[1])
        sizes.append(f"s{d}, ")
    subs = [f"{n}[{', '.join(a)}]" if a else n for n, a in zip(names, at)]
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
