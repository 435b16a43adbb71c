"""Native kernel of ``Einsum``: one loop nest per node, generated from the subscripts.

The outer loops run over the distinct output labels, the inner ones over the summed labels;
each step adds the product of the operands' elements (in the output dtype, as ``np.einsum``
casts) to one accumulator, written where the output labels say (a repeated output label
writes the diagonal of a zero array, as ``perform`` does). Booleans sum as NumPy's do: the
logical or of the logical ands. The lengths of a label must agree in every operand
(``ValueError`` otherwise, as in ``perform``). NumPy sums along its optimised contraction
path instead, so values agree to rounding.
"""

from __future__ import annotations

from collections.abc import Callable

from arignote.graph.basic import Apply
from arignote.link.numba.dispatch.basic import compile_source, numba_funcify
from arignote.tensor.products import Einsum


def _unique(letters: str) -> list[str]:
    return list(dict.fromkeys(letters))


def _size_lines(op: Einsum) -> list[str]:
    """``n_<letter>``: each label's length, read from its first operand and checked in the
    others."""
    lines, seen = [], set()
    for k, term in enumerate(op.input_terms):
        for axis, letter in enumerate(term):
            if letter not in seen:
                seen.add(letter)
                lines.append(f"    n_{letter} = x{k}.shape[{axis}]")
            else:
                lines += [
                    f"    if x{k}.shape[{axis}] != n_{letter}:",
                    f"        raise ValueError('{op}: label {letter} has two lengths')",
                ]
    return lines


def einsum_source(op: Einsum, dtype: str) -> str:
    """The loop nest computing ``op`` on operands ``x0, x1, ...`` (see the module docstring)."""
    args = [f"x{k}" for k in range(len(op.input_terms))]
    outer = _unique(op.output_term)
    summed = [c for c in _unique("".join(op.input_terms)) if c not in outer]
    shape = "".join(f"n_{c}, " for c in op.output_term)
    lines = [f"def kernel({', '.join(args)}):", *_size_lines(op)]
    lines.append(f"    out = np.zeros(({shape}), dtype=np.{'bool_' if dtype == 'bool' else dtype})")
    indent = "    "
    for letter in outer:
        lines.append(f"{indent}for l_{letter} in range(n_{letter}):")
        indent += "    "
    boolean = dtype == "bool"
    lines.append(f"{indent}acc = {'False' if boolean else f'np.{dtype}(0)'}")
    inner = indent
    for letter in summed:
        lines.append(f"{inner}for l_{letter} in range(n_{letter}):")
        inner += "    "
    elements = [
        f"{x}[{', '.join(f'l_{c}' for c in term)}{',' if len(term) == 1 else ''}]"
        if term
        else f"{x}[()]"
        for x, term in zip(args, op.input_terms)
    ]
    factors = elements if boolean else [f"np.{dtype}({e})" for e in elements]
    if boolean:
        lines.append(f"{inner}acc = acc or ({' and '.join(factors)})")
    else:
        lines.append(f"{inner}acc += {' * '.join(factors)}")
    at = ", ".join(f"l_{c}" for c in op.output_term)
    target = f"out[{at}{',' if len(op.output_term) == 1 else ''}]" if at else "out[()]"
    lines += [f"{indent}{target} = acc", "    return out"]
    return "\n".join(lines) + "\n"


@numba_funcify.register(Einsum)
def _einsum(op: Einsum, node: Apply) -> Callable:
    return compile_source(einsum_source(op, node.outputs[0].type.dtype), "kernel", {})
