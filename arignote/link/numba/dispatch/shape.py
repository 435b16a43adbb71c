"""Native kernels of shape ops: ``Shape``, ``Shape_i``, ``SpecifyShape``, ``Reshape``."""

from __future__ import annotations

from collections.abc import Callable

from arignote.graph.basic import Apply
from arignote.link.numba.dispatch.basic import compile_source, numba_funcify
from arignote.tensor.reshape import Reshape
from arignote.tensor.shape import Shape, Shape_i, SpecifyShape


def _kernel(source: str) -> Callable:
    return compile_source(source, "kernel", {})


@numba_funcify.register(Shape)
def _shape(op: Shape, node: Apply) -> Callable:
    ndim = node.inputs[0].type.ndim
    return _kernel(
        "def kernel(x):\n"
        f"    out = np.empty({ndim}, dtype=np.int64)\n"
        f"    for d in range({ndim}):\n"
        "        out[d] = x.shape[d]\n"
        "    return out\n"
    )


@numba_funcify.register(Shape_i)
def _shape_i(op: Shape_i, node: Apply) -> Callable:
    return _kernel(
        "def kernel(x):\n"
        "    out = np.empty((), dtype=np.int64)\n"
        f"    out[()] = x.shape[{op.i}]\n"
        "    return out\n"
    )


@numba_funcify.register(SpecifyShape)
def _specify_shape(op: SpecifyShape, node: Apply) -> Callable:
    args = ", ".join(f"i{k}" for k in range(len(node.inputs)))
    lines = [f"def kernel({args}):"]
    position = 1
    for d, declared in enumerate(op.specified):
        if declared:
            lines.append(f"    if i0.shape[{d}] != i{position}[()]:")
            lines.append(
                f"        raise AssertionError('SpecifyShape: dimension {d} has another length')"
            )
            position += 1
    lines.append("    return i0")
    return _kernel("\n".join(lines) + "\n")


@numba_funcify.register(Reshape)
def _reshape(op: Reshape, node: Apply) -> Callable:
    # numba reshapes contiguous arrays only: a non-contiguous input is copied first (NumPy
    # would copy it too, as its elements are not evenly spaced in the new shape in general)
    shape = "(" + "".join(f"shp[{d}], " for d in range(op.ndim)) + ")"
    return _kernel(
        "def kernel(x, shp):\n"
        f"    if shp.shape[0] != {op.ndim}:\n"
        f"        raise ValueError('Reshape to {op.ndim} dims got another number of lengths')\n"
        f"    return np.ascontiguousarray(x).reshape({shape})\n"
    )
