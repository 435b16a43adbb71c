"""Native kernels of ``Dot`` and ``MatMul``: ``np.dot`` in numba calls BLAS (floats); stacks
of matrices (``MatMul`` of ndim > 2, vectors being padded to matrices by ``matmul()``) loop
over their broadcast batch dimensions."""

from __future__ import annotations

from collections.abc import Callable

import numba
from arignote.graph.basic import Apply
from arignote.link.numba.dispatch.basic import NotNative, compile_source, numba_funcify
from arignote.link.numba.dispatch.batch import batch_lines, loop_header
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
    if max(i.type.ndim for i in node.inputs) > 2:
        raise NotNative("Dot", "numba's np.dot takes at most 2-d operands")
    try:
        check_blas(node)
    except NotNative:
        if node.outputs[0].type.dtype == "bool" or min(i.type.ndim for i in node.inputs) == 0:
            raise
        return compile_source(_dot_loops_source(node), "kernel", {"product": _loops})
    return compile_source(dot_source(node, "Dot"), "kernel", {})


def _dot_loops_source(node: Apply) -> str:
    """``np.dot`` of integer or mixed operands (1-d or 2-d) as a matrix product by loops."""
    x, y = node.inputs
    dtype = node.outputs[0].type.dtype
    # vectors become one-row (x) or one-column (y) matrices
    xm = "xc.reshape((1, xc.shape[0]))" if x.type.ndim == 1 else "xc"
    ym = "yc.reshape((yc.shape[0], 1))" if y.type.ndim == 1 else "yc"
    result = {
        (2, 2): "out",
        (1, 2): "out.reshape((ym.shape[1],))",
        (2, 1): "out.reshape((xm.shape[0],))",
        (1, 1): "out.reshape(())",
    }[(x.type.ndim, y.type.ndim)]
    return (
        "def kernel(x, y):\n"
        "    xc, yc = np.ascontiguousarray(x), np.ascontiguousarray(y)\n"
        f"    xm, ym = {xm}, {ym}\n"
        "    if xm.shape[1] != ym.shape[0]:\n"
        "        raise ValueError('Dot: the operands are not aligned')\n"
        f"    out = np.empty((xm.shape[0], ym.shape[1]), dtype=np.{dtype})\n"
        "    product(xm, ym, out)\n"
        f"    return {result}\n"
    )


@numba_funcify.register(MatMul)
def _matmul(op: MatMul, node: Apply) -> Callable:
    dtype = node.outputs[0].type.dtype
    if dtype == "bool":  # NumPy's boolean product: the logical or of the ands
        return compile_source(_batched_matmul_source(node, "p"), "kernel", {"product": _any_and})
    dtypes = {i.type.dtype for i in node.inputs} | {dtype}
    if dtypes == {dtype} and dtype in BLAS_DTYPES:
        if node.inputs[0].type.ndim == 2:
            return compile_source(dot_source(node, "MatMul"), "kernel", {})
        return compile_source(_batched_matmul_source(node, "np.dot"), "kernel", {})
    # integers or mixed dtypes: np.matmul casts both operands to the result's dtype first
    return compile_source(_batched_matmul_source(node, "product"), "kernel", {"product": _loops})


@numba.njit(cache=False)
def _loops(x, y, out):
    """``x @ y`` into ``out`` by loops (exact integer arithmetic, wrapping as NumPy's)."""
    for i in range(x.shape[0]):
        for j in range(y.shape[1]):
            acc = out.dtype.type(0)
            for k in range(x.shape[1]):
                acc += out.dtype.type(x[i, k]) * out.dtype.type(y[k, j])
            out[i, j] = acc


@numba.njit(cache=False)
def _any_and(x, y, out):
    """The boolean ``x @ y`` into ``out``: whether some ``x[i, k] and y[k, j]``."""
    for i in range(x.shape[0]):
        for j in range(y.shape[1]):
            hit = False
            for k in range(x.shape[1]):
                if x[i, k] and y[k, j]:
                    hit = True
                    break
            out[i, j] = hit


def _batched_matmul_source(node: Apply, product: str) -> str:
    """One product per matrix of the broadcast stacks (``np.matmul``'s values): BLAS
    (``np.dot``) or loops (``product(x, y, out)``)."""
    batch = node.inputs[0].type.ndim - 2
    defs, (x_sub, y_sub), sizes = batch_lines(node, ("x", "y"))
    loops, indent, target = loop_header(batch)
    lines = [
        "def kernel(x, y):",
        "    if x.shape[-1] != y.shape[-2]:",
        "        raise ValueError('MatMul: the matrices are not aligned')",
        *defs,
        f"    out = np.empty(({''.join(sizes)}x.shape[-2], y.shape[-1]), "
        f"dtype=np.{node.outputs[0].type.dtype})",
        *loops,
        # contiguous copies of the matrices: BLAS takes no other layout
        f"{indent}xm = np.ascontiguousarray({x_sub})",
        f"{indent}ym = np.ascontiguousarray({y_sub})",
        f"{indent}out{target} = np.dot(xm, ym)"
        if product == "np.dot"
        else f"{indent}product(xm, ym, out{target})",
        "    return out",
    ]
    return "\n".join(lines) + "\n"
