"""Native kernels of creation ops (``Eye``, ``ARange``, ``Linspace``) and of ``Split``.

``ARange`` reproduces NumPy's own fill: the first two values are ``start`` and ``start + step``
converted to the output dtype, later ones ``first + i * (second - first)`` computed in the
output dtype, and the length is ``ceil((stop - start) / step)`` in double precision.
``Linspace`` follows ``np.linspace`` step by step (in the dtype NumPy computes it in); array
``start`` and ``stop`` give one line of samples per element of their broadcast shape, along
``axis`` (NumPy divides every line by the number of intervals first when any step is 0).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from arignote.graph.basic import Apply
from arignote.link.numba.dispatch.basic import NotNative, compile_source, numba_funcify
from arignote.link.numba.dispatch.scalar import UNSUPPORTED_DTYPES, cast
from arignote.tensor.alloc import ARange, Eye, Linspace
from arignote.tensor.join import Split


def _kernel(source: str) -> Callable:
    return compile_source(source, "kernel", {})


def _native_dtype(op, dtype: str) -> None:
    if dtype in UNSUPPORTED_DTYPES or dtype == "bool" or dtype.startswith("complex"):
        raise NotNative(type(op).__name__, f"dtype {dtype} is not filled natively")


@numba_funcify.register(Eye)
def _eye(op: Eye, node: Apply) -> Callable:
    _native_dtype(op, op.dtype)
    return _kernel(
        "def kernel(n, m, k):\n"
        "    rows, cols, offset = np.int64(n[()]), np.int64(m[()]), np.int64(k[()])\n"
        "    if rows < 0 or cols < 0:\n"
        "        raise ValueError('Eye: negative dimensions are not allowed')\n"
        f"    out = np.zeros((rows, cols), dtype=np.{op.dtype})\n"
        "    for i in range(max(0, -offset), rows):\n"
        "        if i + offset >= cols:\n"
        "            break\n"
        "        out[i, i + offset] = 1\n"
        "    return out\n"
    )


def _arange_length(node: Apply) -> str:
    if all(i.type.dtype.startswith(("int", "uint")) for i in node.inputs):
        span = "np.float64(stop - start)"  # exact integer difference, as Python ints give
    else:
        span = "(np.float64(stop) - np.float64(start))"
    return f"int(max(0.0, np.ceil({span} / np.float64(step))))"


@numba_funcify.register(ARange)
def _arange(op: ARange, node: Apply) -> Callable:
    _native_dtype(op, op.dtype)
    if any(i.type.dtype in UNSUPPORTED_DTYPES or i.type.dtype == "bool" for i in node.inputs):
        raise NotNative("ARange", "bounds of this dtype are not read natively")
    to = cast(op.dtype)
    return _kernel(
        "def kernel(a, b, c):\n"
        "    start, stop, step = a[()], b[()], c[()]\n"
        "    if step == 0:\n"
        "        raise ValueError('ARange: step must not be zero')\n"
        f"    n = {_arange_length(node)}\n"
        f"    out = np.empty(n, dtype=np.{op.dtype})\n"
        "    if n == 0:\n"
        "        return out\n"
        f"    first = {to}(start)\n"
        "    out[0] = first\n"
        "    if n == 1:\n"
        "        return out\n"
        f"    delta = {to}(start + step) - first\n"
        f"    out[1] = {to}(start + step)\n"
        "    for i in range(2, n):\n"
        f"        out[i] = first + {to}(i) * delta\n"
        "    return out\n"
    )


@numba_funcify.register(Linspace)
def _linspace(op: Linspace, node: Apply) -> Callable:
    start, stop, _ = node.inputs
    _native_dtype(op, op.dtype)
    if start.type.dtype in UNSUPPORTED_DTYPES or stop.type.dtype in UNSUPPORTED_DTYPES:
        raise NotNative("Linspace", f"bounds of dtype {start.type.dtype}/{stop.type.dtype}")
    # np.linspace computes in result_type(start, stop, float(num))
    work = cast(np.result_type(np.dtype(start.type.dtype), np.dtype(stop.type.dtype), 1.0))
    lines = [
        "def kernel(a, b, num):",
        "    n = np.int64(num[()])",
        "    if n < 0:",
        "        raise ValueError('Linspace: the number of samples must be non-negative')",
        *_bounds_lines(op, node, work),
        f"    div = n - 1 if {op.endpoint} else n",
        "    delta = stop - start",
        f"    y = np.empty((n, start.shape[0]), dtype=np.{work.removeprefix('np.')})",
        "    any_zero = False",
        "    for j in range(start.shape[0]):",
        "        if div > 0 and delta[j] / div == 0:",
        "            any_zero = True",
        "    for j in range(start.shape[0]):",
        f"        step = {work}(delta[j] / div) if div > 0 else {work}(np.nan)",
        "        for i in range(n):",
        f"            t = {work}(i)",
        "            if div > 0 and any_zero:",
        f"                y[i, j] = {work}(t / div) * delta[j] + start[j]",
        "            elif div > 0:",
        "                y[i, j] = t * step + start[j]",
        "            else:",
        "                y[i, j] = t * delta[j] + start[j]",
        f"        if {op.endpoint} and n > 1:",
        "            y[n - 1, j] = stop[j]",
    ]
    if np.dtype(op.dtype).kind in "iu":
        lines.append("    y = np.floor(y)")
    lines += _placement_lines(op, node)
    return _kernel("\n".join(lines) + "\n")


def _bounds_lines(op: Linspace, node: Apply, work: str) -> list[str]:
    """``start``, ``stop``: the broadcast bounds, flattened, in the working dtype (``shape``
    their broadcast shape); a length-1 dimension broadcasts only where the graph knows it."""
    ndim = node.outputs[0].type.ndim - 1
    statics = [(1,) * (ndim - v.type.ndim) + v.type.shape for v in node.inputs[:2]]
    lines = [
        f"    aa = np.ascontiguousarray(a).reshape({_padded_shape('a', node.inputs[0], ndim)})"
    ]
    lines.append(
        f"    bb = np.ascontiguousarray(b).reshape({_padded_shape('b', node.inputs[1], ndim)})"
    )
    dims = []
    for d in range(ndim):
        if statics[0][d] == 1:
            lines.append(f"    d{d} = bb.shape[{d}]")
        elif statics[1][d] == 1:
            lines.append(f"    d{d} = aa.shape[{d}]")
        else:
            lines += [
                f"    d{d} = aa.shape[{d}]",
                f"    if bb.shape[{d}] != d{d}:",
                f"        raise ValueError('{op}: start and stop do not have the same shape')",
            ]
        dims.append(f"d{d}, ")
    shape = f"({''.join(dims)})"
    return lines + [
        f"    shape = {shape}",
        f"    start = np.broadcast_to(aa, shape).flatten().astype(np.{work[3:]})",
        f"    stop = np.broadcast_to(bb, shape).flatten().astype(np.{work[3:]})",
    ]


def _padded_shape(name: str, var, ndim: int) -> str:
    pad = "".join("1, " for _ in range(ndim - var.type.ndim))
    return f"({pad}{''.join(f'{name}.shape[{d}], ' for d in range(var.type.ndim))})"


def _placement_lines(op: Linspace, node: Apply) -> list[str]:
    """The samples (n, elements) as the output: the line axis moved to ``op.axis``."""
    ndim = node.outputs[0].type.ndim
    lines = ["    full = y.reshape((n,) + shape)"]
    if op.axis != 0:
        order = list(range(1, ndim))
        order.insert(op.axis, 0)
        lines.append(f"    full = np.transpose(full, {tuple(order)})")
    return lines + [f"    return np.ascontiguousarray(full).astype(np.{op.dtype})"]


@numba_funcify.register(Split)
def _split(op: Split, node: Apply) -> Callable:
    sizes = [f"s{k}" for k in range(op.n_splits)]
    lead = "".join(":, " for _ in range(op.axis))
    lines = [f"def kernel(x, {', '.join(sizes)}):"]
    total = " + ".join(f"np.int64({s}[()])" for s in sizes)
    negative = " or ".join(f"{s}[()] < 0" for s in sizes)
    lines += [
        f"    if {negative} or {total} != x.shape[{op.axis}]:",
        f"        raise ValueError('{op}: the lengths do not split axis {op.axis}')",
        "    at = 0",
    ]
    pieces = []
    for k, s in enumerate(sizes):
        lines += [f"    p{k} = x[{lead}at:at + {s}[()]]", f"    at += {s}[()]"]
        pieces.append(f"p{k}")
    lines.append(f"    return {', '.join(pieces)}")  # one output: the array itself
    return _kernel("\n".join(lines) + "\n")
