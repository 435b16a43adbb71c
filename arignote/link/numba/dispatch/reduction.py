"""Native kernels of reductions (``CAReduce``: sum, prod, max, min, all, any, ...).

One loop nest over the input accumulates into the output (a local scalar when every axis is
reduced), in the accumulator dtype, with the scalar op's expression; the result is converted
to the output dtype. Max and min of no elements raise, as ``perform`` does.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from arignote.graph.basic import Apply
from arignote.link.numba.dispatch.basic import NotNative, compile_source, numba_funcify
from arignote.link.numba.dispatch.scalar import cast, scalar_expressions
from arignote.scalar import arithmetic
from arignote.tensor.elemwise import CAReduce


@numba_funcify.register(CAReduce)
def _careduce(op: CAReduce, node: Apply) -> Callable:
    x = node.inputs[0]
    acc_dtype = op.acc_dtype or node.outputs[0].type.dtype
    if op.scalar_op.nout != 1 or x.type.ndim == 0:
        raise NotNative(type(op.scalar_op).__name__, "no loop to write for this reduction")
    start = _start_value(op.scalar_op, acc_dtype)
    step = scalar_expressions(op.scalar_op, ["s", "a"], [acc_dtype] * 2, [acc_dtype])[0]
    axes = tuple(range(x.type.ndim)) if op.axis is None else op.axis
    source = _source(node, axes, acc_dtype, start, step, _is_extreme(op.scalar_op))
    return compile_source(source, "kernel", {})


def _is_extreme(scalar_op) -> bool:
    return isinstance(scalar_op, (arithmetic.Maximum, arithmetic.Minimum))


def _start_value(scalar_op, dtype: str) -> str:
    """The identity of the scalar op in ``dtype``, as an expression."""
    dt = np.dtype(dtype)
    if isinstance(scalar_op, (arithmetic.Maximum, arithmetic.Minimum)):
        low = isinstance(scalar_op, arithmetic.Maximum)
        if dt.kind == "f":
            return f"{cast(dtype)}({'-np.inf' if low else 'np.inf'})"
        if dt.kind == "b":
            return f"{not low}"
        info = np.iinfo(dt)
        return f"{cast(dtype)}({info.min if low else info.max})"
    if isinstance(scalar_op, arithmetic.AND):
        return f"{cast(dtype)}({'True' if dt.kind == 'b' else -1})"
    if isinstance(scalar_op, (arithmetic.OR, arithmetic.XOR)):
        return f"{cast(dtype)}(0)"
    if scalar_op.identity is None:
        raise NotNative(type(scalar_op).__name__, "a reduction without an identity element")
    return f"{cast(dtype)}({scalar_op.identity!r})"


def _source(node: Apply, axes: tuple, acc_dtype: str, start: str, step: str, extreme: bool) -> str:
    ndim = node.inputs[0].type.ndim
    kept = [d for d in range(ndim) if d not in axes]
    out_dtype = node.outputs[0].type.dtype
    lines = ["def kernel(x):"]
    if extreme:
        for d in axes:
            lines.append(f"    if x.shape[{d}] == 0:")
            lines.append(
                f"        raise ValueError('cannot reduce dimension {d} of an empty array: "
                "the extreme of no elements is undefined')"
            )
    full = not kept
    out_shape = "(" + "".join(f"x.shape[{d}], " for d in kept) + ")"
    if full:
        lines.append(f"    s = {start}")
    else:
        lines.append(f"    acc = np.empty({out_shape}, dtype=np.{acc_dtype})")
        lines.append(f"    acc[...] = {start}")
    indent = "    "
    for d in range(ndim):
        lines.append(f"{indent}for j{d} in range(x.shape[{d}]):")
        indent += "    "
    index = "".join(f"j{d}, " for d in range(ndim))
    lines.append(f"{indent}a = {cast(acc_dtype)}(x[{index}])")
    if full:
        lines.append(f"{indent}s = {step}")
        lines.append(f"    out = np.empty((), dtype=np.{out_dtype})")
        lines.append(f"    out[()] = {cast(out_dtype)}(s)")
        lines.append("    return out")
    else:
        out_index = "".join(f"j{d}, " for d in kept)
        lines.append(f"{indent}s = acc[{out_index}]")
        lines.append(f"{indent}acc[{out_index}] = {step}")
        lines.append(f"    return acc.astype(np.{out_dtype})")
    return "\n".join(lines) + "\n"
