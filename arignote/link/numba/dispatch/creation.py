"""Native kernels of creation ops (``Eye``, ``ARange``, ``Linspace``) and of ``Split``.

``ARange`` reproduces NumPy's own fill: the first two values are ``start`` and ``start + step``
converted to the output dtype, later ones ``first + i * (second - first)`` computed in the
output dtype, and the length is ``ceil((stop - start) / step)`` in double precision.
``Linspace`` follows ``np.linspace`` step by step (in the dtype NumPy computes it in), for
scalar ``start`` and ``stop``.
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
    if start.type.ndim or stop.type.ndim or start.type.dtype in UNSUPPORTED_DTYPES:
        raise NotNative("Linspace", "array bounds (one line per element) are not written")
    # np.linspace computes in result_type(start, stop, float(num))
    work = cast(np.result_type(np.dtype(start.type.dtype), np.dtype(stop.type.dtype), 1.0))
    lines = [
        "def kernel(a, b, num):",
        "    n = np.int64(num[()])",
        "    if n < 0:",
        "        raise ValueError('Linspace: the number of samples must be non-negative')",
        f"    start, stop = {work}(a[()]), {work}(b[()])",
        f"    div = n - 1 if {op.endpoint} else n",
        "    delta = stop - start",
        f"    y = np.empty(n, dtype=np.{work.removeprefix('np.')})",
        f"    step = {work}(delta / div) if div > 0 else {work}(np.nan)",
        "    for i in range(n):",
        f"        t = {work}(i)",
        "        if div > 0 and step == 0:",
        f"            y[i] = {work}(t / div) * delta + start",
        "        elif div > 0:",
        "            y[i] = t * step + start",
        "        else:",
        "            y[i] = t * delta + start",
        f"    if {op.endpoint} and n > 1:",
        "        y[n - 1] = stop",
    ]
    if np.dtype(op.dtype).kind in "iu":
        lines.append("    y = np.floor(y)")
    lines += [f"    return y.astype(np.{op.dtype})"]
    return _kernel("\n".join(lines) + "\n")


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
