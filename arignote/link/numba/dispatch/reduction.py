"""Native kernels of reductions (``CAReduce``: sum, prod, max, min, all, any, ...).

One loop nest over the input accumulates into the output (a local scalar when every axis is
reduced), in the accumulator dtype, with the scalar op's expression; the result is converted
to the output dtype. Max and min of no elements raise, as ``perform`` does.

A reduction fed by an elementwise node used by nothing else (``reduction_fusion_candidates``)
is fused with it (:func:`fused_reductions`): the loop computes each element from the
elementwise node's inputs and accumulates it at once, so ``sum(exp(x))`` is one pass with no
temporary array. The element is computed with the fast functions of the elementwise loops
(except sin and cos, which may need a second pass), and a float sum over all axes adds with
``vmath.add_reordered``, so that LLVM vectorises the whole loop.

``Argmax``/``Argmin`` scan the reduced axes in C order (the flattened position ``perform``
returns): the first extreme wins, and the first NaN wins over everything, as in NumPy.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from arignote.graph.basic import Apply
from arignote.graph.fg import FunctionGraph
from arignote.link.numba.dispatch.basic import NotNative, compile_source, numba_funcify
from arignote.link.numba.dispatch.elemwise import (
    element_index,
    length_lines,
    namespace,
    scalar_body,
)
from arignote.link.numba.dispatch.scalar import (
    UNSUPPORTED_DTYPES,
    cast,
    scalar_expressions,
)
from arignote.scalar import arithmetic
from arignote.tensor.elemwise import CAReduce
from arignote.tensor.reduction import Argmax, Argmin
from arignote.tensor.rewriting.fusion import reduction_fusion_candidates


@numba_funcify.register(CAReduce)
def _careduce(op: CAReduce, node: Apply) -> Callable:
    return careduce_kernel(node, None)


def careduce_kernel(node: Apply, producer: Apply | None) -> Callable:
    """The kernel of reduction ``node``; with ``producer`` (the elementwise node computing its
    input) the kernel takes the producer's inputs and computes each element in the loop."""
    op, x = node.op, node.inputs[0]
    acc_dtype = op.acc_dtype or node.outputs[0].type.dtype
    if op.scalar_op.nout != 1:
        raise NotNative(type(op.scalar_op).__name__, "no loop to write for this reduction")
    start = _start_value(op.scalar_op, acc_dtype)
    step = scalar_expressions(op.scalar_op, ["s", "a"], [acc_dtype] * 2, [acc_dtype])[0]
    axes = tuple(range(x.type.ndim)) if op.axis is None else op.axis
    if len(axes) == x.type.ndim and _reorderable(op.scalar_op, acc_dtype):
        step = f"{cast(acc_dtype)}(vmath.add_reordered(s, a))"
    loads = _Loads(x.type.ndim, acc_dtype, producer)
    source = _source(node, axes, acc_dtype, start, step, _is_extreme(op.scalar_op), loads)
    return compile_source(source, "kernel", namespace([source]))


def _reorderable(scalar_op, acc_dtype: str) -> bool:
    """A float sum into one number, whose additions LLVM may reorder to vectorise the loop
    (partial sums per SIMD lane: an order as valid as NumPy's pairwise one)."""
    return type(scalar_op) is arithmetic.Add and acc_dtype in ("float32", "float64")


def fused_reductions(fgraph: FunctionGraph) -> dict[Apply, tuple[Callable, Apply]]:
    """``{reduction: (fused kernel, elementwise producer)}`` for every pair computed in one
    pass; the producer's result is never stored (the kernel takes the producer's inputs)."""
    fused = {}
    for reduction, producer in reduction_fusion_candidates(fgraph):
        if producer.outputs[0].type.ndim != reduction.inputs[0].type.ndim:
            continue
        try:
            fused[reduction] = (careduce_kernel(reduction, producer), producer)
        except NotNative:  # the reduction or the producer runs on its own
            continue
    return fused


class _Loads:
    """How the reduction loop gets its lengths and elements: from its input ``x``, or from
    the inputs ``i0, i1, ...`` of a fused elementwise producer."""

    def __init__(self, ndim: int, acc_dtype: str, producer: Apply | None) -> None:
        self.ndim, self.acc_dtype, self.producer = ndim, acc_dtype, producer

    def arguments(self) -> str:
        if self.producer is None:
            return "x"
        return ", ".join(f"i{k}" for k in range(len(self.producer.inputs)))

    def lengths(self) -> list[str]:
        """Lines defining ``n0, n1, ...``, the lengths of the reduced input."""
        if self.producer is None:
            return [f"    n{d} = x.shape[{d}]" for d in range(self.ndim)]
        return length_lines(self.producer, self.ndim)

    def element(self) -> list[str]:
        """Lines setting ``a`` to the input element at ``j0, j1, ...``, in the acc dtype."""
        if self.producer is None:
            index = "".join(f"j{d}, " for d in range(self.ndim)) or "()"  # 0-d: x[()]
            return [f"a = {cast(self.acc_dtype)}(x[{index}])"]
        inputs = self.producer.inputs
        lines = [f"a{k} = i{k}[{element_index(inp, self.ndim)}]" for k, inp in enumerate(inputs)]
        # the fast functions of the elementwise loops, unless one needs a second pass
        guards: list[str] = []
        body = scalar_body(self.producer.op.scalar_op, self.producer, guards)
        if guards:
            body = scalar_body(self.producer.op.scalar_op, self.producer)
        return lines + body + [f"a = {cast(self.acc_dtype)}(r0)"]


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


def _source(
    node: Apply, axes: tuple, acc_dtype: str, start: str, step: str, extreme: bool, loads: _Loads
) -> str:
    ndim = node.inputs[0].type.ndim
    kept = [d for d in range(ndim) if d not in axes]
    out_dtype = node.outputs[0].type.dtype
    lines = [f"def kernel({loads.arguments()}):"] + loads.lengths()
    if extreme:
        for d in axes:
            lines.append(f"    if n{d} == 0:")
            lines.append(
                f"        raise ValueError('cannot reduce dimension {d} of an empty array: "
                "the extreme of no elements is undefined')"
            )
    full = not kept
    out_shape = "(" + "".join(f"n{d}, " for d in kept) + ")"
    if full:
        lines.append(f"    s = {start}")
    else:
        lines.append(f"    acc = np.empty({out_shape}, dtype=np.{acc_dtype})")
        lines.append(f"    acc[...] = {start}")
    indent = "    "
    for d in range(ndim):
        lines.append(f"{indent}for j{d} in range(n{d}):")
        indent += "    "
    lines += [indent + line for line in loads.element()]
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


# -- positions of extremes ----------------------------------------------------------------------


@numba_funcify.register(Argmax)
@numba_funcify.register(Argmin)
def _argreduce(op, node: Apply) -> Callable:
    x = node.inputs[0]
    if x.type.dtype.startswith("complex") or x.type.dtype in UNSUPPORTED_DTYPES:
        raise NotNative(type(op).__name__, f"dtype {x.type.dtype}: NumPy's order is not written")
    axes = op._axes(x.type.ndim)
    return compile_source(_argreduce_source(op, x.type.ndim, axes), "kernel", {})


def _argreduce_source(op, ndim: int, axes: tuple) -> str:
    kept = [d for d in range(ndim) if d not in axes]
    compare = ">" if isinstance(op, Argmax) else "<"
    lines = ["def kernel(x):"]
    for d in axes:
        lines.append(f"    if x.shape[{d}] == 0:")
        lines.append(f"        raise ValueError('{op}: no extreme in an empty axis')")
    shape = "(" + "".join(f"x.shape[{d}], " for d in kept) + ")"
    lines.append(f"    out = np.empty({shape}, dtype=np.int64)")
    indent = "    "
    for d in kept:
        lines.append(f"{indent}for j{d} in range(x.shape[{d}]):")
        indent += "    "
    first = "".join("0, " if d in axes else f"j{d}, " for d in range(ndim))
    lines += [f"{indent}best = x[{first}]", f"{indent}pos = 0", f"{indent}count = 0"]
    inner = indent
    for d in axes:
        lines.append(f"{inner}for j{d} in range(x.shape[{d}]):")
        inner += "    "
    index = "".join(f"j{d}, " for d in range(ndim))
    # a NaN, once found, is never replaced; a NaN replaces any number (NaN != NaN)
    lines += [
        f"{inner}v = x[{index}]",
        f"{inner}if best == best and (v {compare} best or v != v):",
        f"{inner}    best = v",
        f"{inner}    pos = count",
        f"{inner}count += 1",
        f"{indent}out[{''.join(f'j{d}, ' for d in kept) or '()'}] = pos",
        "    return out",
    ]
    return "\n".join(lines) + "\n"
