"""Native kernels of extra ops: ``CumOp`` (cumulative sums and products), ``Flip`` (a view),
``Repeat``, ``SegmentSum``, ``ExtractDiag`` and ``AllocDiag``; PyTensor's op classes
``Bartlett``, ``FillDiagonal`` and ``FillDiagonalOffset``."""

from __future__ import annotations

from collections.abc import Callable

from arignote.graph.basic import Apply
from arignote.link.numba.dispatch.basic import compile_source, numba_funcify
from arignote.link.numba.dispatch.scalar import cast
from arignote.tensor.extra_op_classes import Bartlett, FillDiagonal, FillDiagonalOffset
from arignote.tensor.extra_ops import AllocDiag, CumOp, ExtractDiag, Flip, Repeat, SegmentSum


@numba_funcify.register(CumOp)
def _cumop(op: CumOp, node: Apply) -> Callable:
    """One pass in C order: each element is the previous one along the axis (computed
    earlier in that order) combined with the input, in the output dtype, as NumPy
    accumulates (sequentially)."""
    dtype = node.outputs[0].type.dtype
    combine = "+" if op.mode == "add" else "*"
    ndim = 1 if op.axis is None else node.inputs[0].type.ndim
    axis = 0 if op.axis is None else op.axis
    lines = ["def kernel(x):"]
    if op.axis is None:
        lines.append("    x = np.ascontiguousarray(x).ravel()")
    lines.append(f"    out = np.empty(x.shape, dtype=np.{dtype})")
    indent = "    "
    for d in range(ndim):
        lines.append(f"{indent}for j{d} in range(x.shape[{d}]):")
        indent += "    "
    index = "".join(f"j{d}, " for d in range(ndim))
    before = "".join(f"j{d} - 1, " if d == axis else f"j{d}, " for d in range(ndim))
    value = f"{cast(dtype)}(x[{index}])"
    lines.append(f"{indent}if j{axis} == 0:")
    lines.append(f"{indent}    out[{index}] = {value}")
    lines.append(f"{indent}else:")
    lines.append(f"{indent}    out[{index}] = out[{before}] {combine} {value}")
    lines.append("    return out")
    return compile_source("\n".join(lines) + "\n", "kernel", {})


# -- reordering, repeating and summing along an axis --------------------------------------------


def _at(ndim: int, axis: int, index: str) -> str:
    """An index tuple taking everything except ``index`` along ``axis``."""
    return "(" + "".join(f"{index}, " if d == axis else "slice(None), " for d in range(ndim)) + ")"


@numba_funcify.register(Flip)
def _flip(op: Flip, node: Apply) -> Callable:
    ndim = node.inputs[0].type.ndim
    index = "".join("::-1, " if d in op.axis else ":, " for d in range(ndim))
    return compile_source(f"def kernel(x):\n    return x[{index}]\n", "kernel", {})


@numba_funcify.register(Repeat)
def _repeat(op: Repeat, node: Apply) -> Callable:
    """Output position ``k`` along the axis takes input position ``source[k]``."""
    ndim, axis = node.inputs[0].type.ndim, op.axis
    counts = "np.full(n, r[()], dtype=np.int64)" if node.inputs[1].type.ndim == 0 else "r"
    lines = [
        "def kernel(x, r):",
        f"    n = x.shape[{axis}]",
        f"    counts = {counts}",
        "    if counts.shape[0] != n:",
        f"        raise ValueError('{op}: as many repeat counts as elements are needed')",
        "    total = 0",
        "    for i in range(n):",
        "        if counts[i] < 0:",
        f"            raise ValueError('{op}: negative repeat counts')",
        "        total += counts[i]",
        "    shape = " + _with_length(ndim, axis, "total"),
        "    out = np.empty(shape, dtype=x.dtype)",
        "    k = 0",
        "    for i in range(n):",
        "        for _ in range(counts[i]):",
        f"            out[{_at(ndim, axis, 'k')}] = x[{_at(ndim, axis, 'i')}]",
        "            k += 1",
        "    return out",
    ]
    return compile_source("\n".join(lines) + "\n", "kernel", {})


def _with_length(ndim: int, axis: int, length: str) -> str:
    return (
        "(" + "".join(f"{length}, " if d == axis else f"x.shape[{d}], " for d in range(ndim)) + ")"
    )


@numba_funcify.register(SegmentSum)
def _segment_sum(op: SegmentSum, node: Apply) -> Callable:
    """Group ``g`` sums input positions ``start_g .. start_g + sizes[g]`` along the axis, in
    order (as ``np.add.reduceat``); empty groups are 0."""
    ndim, axis = node.inputs[0].type.ndim, op.axis
    lines = [
        "def kernel(x, sizes):",
        "    total = 0",
        "    for g in range(sizes.shape[0]):",
        "        if sizes[g] < 0:",
        "            total = -1",
        "            break",
        "        total += sizes[g]",
        f"    if total != x.shape[{axis}]:",
        f"        raise ValueError('{op}: the group sizes do not split the axis')",
        "    out = np.zeros(" + _with_length(ndim, axis, "sizes.shape[0]") + ", dtype=x.dtype)",
        "    k = 0",
        "    for g in range(sizes.shape[0]):",
        "        for _ in range(sizes[g]):",
        f"            out[{_at(ndim, axis, 'g')}] += x[{_at(ndim, axis, 'k')}]",
        "            k += 1",
        "    return out",
    ]
    return compile_source("\n".join(lines) + "\n", "kernel", {})


# -- diagonals ------------------------------------------------------------------------------------


def _diagonal_loops(op, ndim: int, plane: str, length: str) -> tuple[list[str], str, str]:
    """Loops over the batch dimensions (``b0, b1, ...``, of ``plane``, the array holding the
    matrices) and the diagonal position ``i``; the index into the matrices and the diagonal."""
    row, col = max(-op.offset, 0), max(op.offset, 0)
    batch = [d for d in range(ndim) if d not in (op.axis1, op.axis2)]
    lines, indent = [], "    "
    for b, d in enumerate(batch):
        lines.append(f"{indent}for b{b} in range({plane}.shape[{d}]):")
        indent += "    "
    lines.append(f"{indent}for i in range({length}):")
    names = iter(f"b{b}" for b in range(len(batch)))
    matrix = []
    for d in range(ndim):
        if d == op.axis1:
            matrix.append(f"i + {row}")
        elif d == op.axis2:
            matrix.append(f"i + {col}")
        else:
            matrix.append(next(names))
    diagonal = "".join(f"b{b}, " for b in range(len(batch))) + "i"
    return lines, ", ".join(matrix), diagonal


def _diagonal_length(op, rows: str, cols: str) -> str:
    if op.offset >= 0:
        return f"max(0, min({rows}, {cols} - {op.offset}))"
    return f"max(0, min({rows} + {op.offset}, {cols}))"


@numba_funcify.register(ExtractDiag)
def _extract_diag(op: ExtractDiag, node: Apply) -> Callable:
    ndim = node.inputs[0].type.ndim
    length = _diagonal_length(op, f"x.shape[{op.axis1}]", f"x.shape[{op.axis2}]")
    batch = [d for d in range(ndim) if d not in (op.axis1, op.axis2)]
    shape = "(" + "".join(f"x.shape[{d}], " for d in batch) + "length, )"
    loops, matrix, diagonal = _diagonal_loops(op, ndim, "x", "length")
    indent = "    " * (len(batch) + 2)
    lines = ["def kernel(x):", f"    length = {length}", f"    out = np.empty({shape}, x.dtype)"]
    lines += loops + [f"{indent}out[{diagonal}] = x[{matrix}]", "    return out"]
    return compile_source("\n".join(lines) + "\n", "kernel", {})


@numba_funcify.register(AllocDiag)
def _alloc_diag(op: AllocDiag, node: Apply) -> Callable:
    ndim = node.outputs[0].type.ndim
    batch = iter(f"v.shape[{b}], " for b in range(ndim - 2))
    shape = (
        "("
        + "".join(
            "rows, " if d == op.axis1 else "cols, " if d == op.axis2 else next(batch)
            for d in range(ndim)
        )
        + ")"
    )
    loops, matrix, diagonal = _diagonal_loops(op, ndim, "out", "length")
    indent = "    " * (ndim - 2 + 2)
    lines = [
        "def kernel(v, r, c):",
        "    rows, cols = np.int64(r[()]), np.int64(c[()])",
        f"    length = {_diagonal_length(op, 'rows', 'cols')}",
        f"    if v.shape[{ndim - 2}] != length:",
        f"        raise ValueError('{op}: the diagonal does not fit the matrix')",
        f"    out = np.zeros({shape}, dtype=v.dtype)",
    ]
    lines += loops + [f"{indent}out[{matrix}] = v[{diagonal}]", "    return out"]
    return compile_source("\n".join(lines) + "\n", "kernel", {})


@numba_funcify.register(Bartlett)
def _bartlett(op: Bartlett, node: Apply) -> Callable:
    return compile_source("def kernel(m):\n    return np.bartlett(np.int64(m[()]))\n", "kernel", {})


@numba_funcify.register(FillDiagonal)
def _fill_diagonal(op: FillDiagonal, node: Apply) -> Callable:
    ndim = node.inputs[0].type.ndim
    length = "min(" + ", ".join(f"a.shape[{d}]" for d in range(ndim)) + ")"
    lines = [
        "def kernel(a, v):",
        "    out = a.copy()",
        f"    for i in range({length}):",
        f"        out[{', '.join(['i'] * ndim)}] = v[()]",
        "    return out",
    ]
    return compile_source("\n".join(lines) + "\n", "kernel", {})


@numba_funcify.register(FillDiagonalOffset)
def _fill_diagonal_offset(op: FillDiagonalOffset, node: Apply) -> Callable:
    lines = [
        "def kernel(a, v, k):",
        "    out = a.copy()",
        "    offset = np.int64(k[()])",
        "    row, col = max(-offset, 0), max(offset, 0)",
        "    for i in range(max(min(a.shape[0] - row, a.shape[1] - col), 0)):",
        "        out[row + i, col + i] = v[()]",
        "    return out",
    ]
    return compile_source("\n".join(lines) + "\n", "kernel", {})
