"""Native kernels of ``Gemm``, ``Gemv`` and ``Ger`` (out of place: in-place rewrites are off).

As in ``perform``, the result is NumPy's ``beta * z + alpha * dot(x, y)``: a zero coefficient
times a non-finite value gives NaN, as there (BLAS itself would skip the term).
"""

from __future__ import annotations

from collections.abc import Callable

from arignote.graph.basic import Apply
from arignote.link.numba.dispatch.basic import compile_source, numba_funcify
from arignote.link.numba.dispatch.products import check_blas
from arignote.tensor.blas import Gemm, Gemv, Ger

#: The product goes straight into the result (``np.dot``'s ``out``), scaled there in one
#: loop: no temporary for the product nor for the scaled sum (this runs at every step of a
#: scan's loop, e.g. an RNN's ``W h + U x``).
_SCALED_PRODUCT = """
def kernel(z, alpha, x, y, beta):
    a = alpha[()]
    b = beta[()]
    if {product_shape} != z.shape:
        raise ValueError("{name}: shapes do not match")
    out = np.empty(z.shape, dtype=z.dtype)
    np.dot(x, y, out)
{loop}
    return out
"""

_SCALE_LOOPS = {
    1: """    for i in range(out.shape[0]):
        out[i] = b * z[i] + a * out[i]""",
    2: """    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            out[i, j] = b * z[i, j] + a * out[i, j]""",
}
_PRODUCT_SHAPES = {1: "(x.shape[0],)", 2: "(x.shape[0], y.shape[1])"}


_GER = """
def kernel(a, alpha, x, y):
    if a.shape != (x.shape[0], y.shape[0]):
        raise ValueError("Ger: shapes do not match")
    out = a.copy()
    s = alpha[()]
    for i in range(x.shape[0]):
        for j in range(y.shape[0]):
            out[i, j] += s * (x[i] * y[j])
    return out
"""


def _blas_dtypes(node: Apply) -> None:
    # check_blas reads inputs 0 and 1 only through their dtypes: every input counts here
    check_blas(node)


@numba_funcify.register(Gemm)
@numba_funcify.register(Gemv)
def _gemm(op, node: Apply) -> Callable:
    _blas_dtypes(node)
    ndim = node.outputs[0].type.ndim
    source = _SCALED_PRODUCT.format(
        name=type(op).__name__, product_shape=_PRODUCT_SHAPES[ndim], loop=_SCALE_LOOPS[ndim]
    )
    return compile_source(source, "kernel", {})


@numba_funcify.register(Ger)
def _ger(op: Ger, node: Apply) -> Callable:
    _blas_dtypes(node)
    return compile_source(_GER, "kernel", {})
