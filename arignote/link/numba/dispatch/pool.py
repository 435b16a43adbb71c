"""Native pooling kernels (``arignote/tensor/signal/pool.py``): direct loops over windows.

The pooled axes are the last ``nd``; the leading ones are flattened into one. Along an axis
of length ``n`` padded by ``p``, window ``o`` covers the padded positions ``o * s .. o * s + w``;
a position ``i`` holds ``x[i - p]`` inside the image, zero in the padding (``i < n + 2p``),
and nothing beyond (the end of a truncated window of ``ignore_border=False``), as in the
NumPy kernels. Averages divide by the number of positions inside the padded array
("average_inc_pad") or the image ("average_exc_pad"). Values are combined in the order of
``perform`` (window positions in row-major order), so sums round alike.
"""

from __future__ import annotations

from collections.abc import Callable

from arignote.graph.basic import Apply
from arignote.link.numba.dispatch.basic import compile_source, numba_funcify
from arignote.tensor.signal.pool import (
    AveragePoolGrad,
    DownsampleFactorMaxGradGrad,
    MaxPoolGrad,
    Pool,
    PoolBase,
)


def _joined(nd: int, name: str) -> str:
    return ", ".join(f"{name}{d}" for d in range(nd))


def _geometry(op: PoolBase, x: str, ndim: int) -> list[str]:
    """Lines setting ``L`` (the flattened leading length), the image lengths ``n{d}`` and
    ``xs``, the image as ``(L, *spatial)``."""
    nd, lead = op.ndim, ndim - op.ndim
    lines = ["    L = 1"] + [f"    L *= {x}.shape[{a}]" for a in range(lead)]
    lines += [f"    n{d} = {x}.shape[{lead + d}]" for d in range(nd)]
    return lines


def _flat(array: str, nd: int, lengths: str) -> str:
    return f"np.ascontiguousarray({array}).reshape((L, {_joined(nd, lengths)}))"


def _output_lengths(op: PoolBase) -> list[str]:
    """``m{d}``: the pooled lengths (``output_length`` of the NumPy kernels)."""
    lines = []
    for d, (w, s, p) in enumerate(zip(op.ws, op.stride, op.pad)):
        padded = f"(n{d} + {2 * p})"
        if op.ignore_border:
            lines.append(f"    m{d} = ({padded} - {w}) // {s} + 1")
        elif s >= w:
            lines.append(f"    m{d} = ({padded} - 1) // {s} + 1")
        else:
            lines.append(f"    m{d} = max(0, ({padded} - 1 - {w} + {s}) // {s}) + 1")
        lines.append(f"    m{d} = max(m{d}, 0)")
    return lines


def _windows(op: PoolBase, depth: int) -> tuple[list[str], str, str]:
    """Loops over ``l``, windows ``o{d}`` and their positions (image index ``i{d}``); the
    conditions that a position is in the image, and in the padded array."""
    nd, lines = op.ndim, []
    pad = "    " * depth
    lines.append(f"{pad}for l in range(L):")
    for d in range(nd):
        lines.append(f"{pad}{'    ' * (1 + d)}for o{d} in range(m{d}):")
    lines.append(f"{pad}{'    ' * (1 + nd)}START")
    for d, (w, s, p) in enumerate(zip(op.ws, op.stride, op.pad)):
        lines.append(f"{pad}{'    ' * (1 + nd + d)}for t{d} in range({w}):")
        lines.append(f"{pad}{'    ' * (2 + nd + d)}i{d} = o{d} * {s} + t{d} - {p}")
    inside = " and ".join(f"0 <= i{d} < n{d}" for d in range(nd))
    padded = " and ".join(f"i{d} < n{d} + {p}" for d, p in enumerate(op.pad))
    return lines, inside, padded


def _body_indent(op: PoolBase, depth: int) -> str:
    return "    " * (depth + 1 + 2 * op.ndim)


def _placed(lines: list[str], start: list[str]) -> list[str]:
    """The loop lines with ``START`` (the per-window prologue) replaced by ``start``."""
    result = []
    for line in lines:
        if line.strip() == "START":
            indent = line[: len(line) - len(line.lstrip())]
            result += [indent + s for s in start]
        else:
            result.append(line)
    return result


def _result(node: Apply, name: str, nd: int, lengths: str, x: str, ndim: int) -> str:
    lead = ", ".join(f"{x}.shape[{a}]" for a in range(ndim - nd))
    shape = f"({lead}{', ' if lead else ''}{_joined(nd, lengths)}, )"
    return f"    return {name}.reshape({shape})"


@numba_funcify.register(Pool)
def _pool(op: Pool, node: Apply) -> Callable:
    nd, ndim = op.ndim, node.inputs[0].type.ndim
    out_dtype = node.outputs[0].type.dtype
    in_dtype = node.inputs[0].type.dtype
    average = op.mode.startswith("average")
    acc = "float64" if average else in_dtype
    lines = ["def kernel(x):", *_geometry(op, "x", ndim), *_output_lengths(op)]
    lines += [
        f"    xs = {_flat('x', nd, 'n')}",
        f"    out = np.empty((L, {_joined(nd, 'm')}), np.{out_dtype})",
    ]
    loops, inside, padded = _windows(op, 1)
    start = ["first = True", f"acc = np.{acc}(0)", "count = 0"]
    lines += _placed(loops, start)
    body = _body_indent(op, 1)
    value = f"xs[l, {_joined(nd, 'i')}] if {inside} else np.{in_dtype}(0)"
    if op.mode == "max":
        lines += [
            # positions of the padding count as zeros, as in perform; NaN wins (np.maximum)
            f"{body}if {padded}:",
            f"{body}    v = np.{acc}({value})",
            f"{body}    if first:",
            f"{body}        acc = v",
            f"{body}        first = False",
            f"{body}    elif (v > acc or v != v) and acc == acc:",
            f"{body}        acc = v",
        ]
    else:
        counted = inside if op.mode == "average_exc_pad" else padded
        lines += [
            f"{body}if {padded}:",
            f"{body}    acc += np.{acc}({value})",
            f"{body}if {counted}:",
            f"{body}    count += 1",
        ]
    finish = "acc / count" if average else "acc"
    end = "    " * (2 + nd)
    lines.append(f"{end}out[l, {_joined(nd, 'o')}] = {finish}")
    lines.append(_result(node, "out", nd, "m", "x", ndim))
    return compile_source("\n".join(lines) + "\n", "kernel", {})


def _grad_common(op: PoolBase, node: Apply, args: str, pooled: str) -> list[str]:
    nd, ndim = op.ndim, node.inputs[0].type.ndim
    lines = [f"def kernel({args}):", *_geometry(op, "x", ndim)]
    lines += [f"    m{d} = {pooled}.shape[{ndim - nd + d}]" for d in range(nd)]
    return lines


@numba_funcify.register(MaxPoolGrad)
def _max_pool_grad(op: MaxPoolGrad, node: Apply) -> Callable:
    nd, ndim, dtype = op.ndim, node.inputs[0].type.ndim, node.outputs[0].type.dtype
    lines = _grad_common(op, node, "x, maxout, gz", "maxout")
    lines += [
        f"    xs = {_flat('x', nd, 'n')}",
        f"    ms = {_flat('maxout', nd, 'm')}",
        f"    gs = {_flat('gz', nd, 'm')}",
        f"    gx = np.zeros((L, {_joined(nd, 'n')}), np.{dtype})",
    ]
    loops, inside, _ = _windows(op, 1)
    lines += _placed(loops, [f"top = ms[l, {_joined(nd, 'o')}]", f"g = gs[l, {_joined(nd, 'o')}]"])
    body = _body_indent(op, 1)
    lines += [
        f"{body}if {inside}:",
        f"{body}    if xs[l, {_joined(nd, 'i')}] == top:",
        f"{body}        gx[l, {_joined(nd, 'i')}] += g",
        _result(node, "gx", nd, "n", "x", ndim),
    ]
    return compile_source("\n".join(lines) + "\n", "kernel", {})


@numba_funcify.register(DownsampleFactorMaxGradGrad)
def _max_pool_grad_grad(op: DownsampleFactorMaxGradGrad, node: Apply) -> Callable:
    nd, ndim, dtype = op.ndim, node.inputs[0].type.ndim, node.outputs[0].type.dtype
    lines = _grad_common(op, node, "x, maxout, ggx", "maxout")
    lines += [
        f"    xs = {_flat('x', nd, 'n')}",
        f"    ms = {_flat('maxout', nd, 'm')}",
        f"    gg = {_flat('ggx', nd, 'n')}",
        f"    ggz = np.empty((L, {_joined(nd, 'm')}), np.{dtype})",
    ]
    loops, inside, _ = _windows(op, 1)
    lines += _placed(loops, [f"top = ms[l, {_joined(nd, 'o')}]", f"acc = np.{dtype}(0)"])
    body = _body_indent(op, 1)
    lines += [
        f"{body}if {inside}:",
        f"{body}    if xs[l, {_joined(nd, 'i')}] == top:",
        f"{body}        acc += gg[l, {_joined(nd, 'i')}]",
        f"{'    ' * (2 + nd)}ggz[l, {_joined(nd, 'o')}] = acc",
        _result(node, "ggz", nd, "m", "maxout", ndim),
    ]
    return compile_source("\n".join(lines) + "\n", "kernel", {})


@numba_funcify.register(AveragePoolGrad)
def _average_pool_grad(op: AveragePoolGrad, node: Apply) -> Callable:
    nd, ndim, dtype = op.ndim, node.inputs[0].type.ndim, node.outputs[0].type.dtype
    average = op.mode != "sum"
    acc = "float64" if average else dtype
    lines = _grad_common(op, node, "x, gz", "gz")
    lines += [
        f"    gs = {_flat('gz', nd, 'm')}",
        f"    gx = np.zeros((L, {_joined(nd, 'n')}), np.{acc})",
    ]
    loops, inside, padded = _windows(op, 1)
    start = []
    if average:
        # the window's count first (the same loops), then its share to each position
        counted = inside if op.mode == "average_exc_pad" else padded
        start = ["count = 0"] + _count_lines(op, counted)
        start.append(f"g = np.float64(gs[l, {_joined(nd, 'o')}]) / count")
    else:
        start = [f"g = gs[l, {_joined(nd, 'o')}]"]
    lines += _placed(loops, start)
    body = _body_indent(op, 1)
    lines += [f"{body}if {inside}:", f"{body}    gx[l, {_joined(nd, 'i')}] += g"]
    lines.append(_result(node, f"gx.astype(np.{dtype})", nd, "n", "x", ndim))
    return compile_source("\n".join(lines) + "\n", "kernel", {})


def _count_lines(op: PoolBase, counted: str) -> list[str]:
    """Loops counting the positions of window ``o`` that satisfy ``counted``."""
    lines = []
    for d, (w, s, p) in enumerate(zip(op.ws, op.stride, op.pad)):
        lines.append(f"{'    ' * d}for t{d} in range({w}):")
        lines.append(f"{'    ' * (d + 1)}i{d} = o{d} * {s} + t{d} - {p}")
    lines.append(f"{'    ' * op.ndim}if {counted}:")
    lines.append(f"{'    ' * op.ndim}    count += 1")
    return lines
