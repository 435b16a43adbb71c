"""Native kernels of ``Dot`` and 2-d ``MatMul``: ``np.dot`` in numba calls BLAS (floats)."""

from __future__ import annotations

from collections.abc import Callable

from arignote.graph.basic import Apply
from arignote.link.numba.dispatch.basic import NotNative, compile_source, numba_funcify
from arignote.tensor.products import Dot, MatMul

#: dtypes numba's ``np.dot`` accepts (BLAS types).
BLAS_DTYPES = frozenset({"float32", "float64", "complex64", "complex128"})


def check_blas(node: Apply) -> None:
    """Refuse (object mode) dtypes BLAS does not take, or mixed dtypes."""
    dtypes = {i.type.dtype for i in node.inputs} | {node.outputs[0].type.dtype}
    if len(dtypes) != 1 or not dtypes <= BLAS_DTYPES:
        raise NotNative(type(node.op).__name__, f"dtypes {sorted(dtypes)} are not one BLAS type")


def dot_source(node: Apply, name: str) -> str:
    """``np.dot`` of inputs 0 and 1, with a 0-d result kept an array."""
    x, y = node.inputs
    if x.type.ndim == 0 or y.type.ndim == 0:
        raise NotNative(name, "products with 0-d operands are elementwise (not BLAS)")
    if node.outputs[0].type.ndim == 0:
        return (
            "def kernel(x, y):\n"
            f"    out = np.empty((), dtype=np.{node.outputs[0].type.dtype})\n"
            "    out[()] = np.dot(x, y)\n"
            "    return out\n"
        )
    return "def kernel(x, y):\n    return np.dot(x, y)\n"


@numba_funcify.register(Dot)
def _dot(op: Dot, node: Apply) -> Callable:
    check_blas(node)
    if max(i.type.ndim for i in node.inputs) > 2:
        raise NotNative("Dot", "numba's np.dot takes at most 2-d operands")
    return compile_source(dot_source(node, "Dot"), "kernel", {})


@numba_funcify.register(MatMul)
def _matmul(op: MatMul, node: Apply) -> Callable:
    check_blas(node)
    if any(i.type.ndim != 2 for i in node.inputs):
        raise NotNative("MatMul", "batched or vector matmul has no native kernel yet")
    return compile_source(dot_source(node, "MatMul"), "kernel", {})
