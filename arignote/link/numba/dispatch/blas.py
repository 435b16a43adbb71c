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

_SCALED_PRODUCT = """
def kernel(z, alpha, x, y, beta):
    a = alpha[()]
    b = beta[()]
    product = np.dot(x, y)
    if product.shape != z.shape:
        raise ValueError("{name}: shapes do not match")
    out = np.empty(z.shape, dtype=z.dtype)
    out[...] = b * z + a * product
    return out
"""

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
    return compile_source(_SCALED_PRODUCT.format(name=type(op).__name__), "kernel", {})


@numba_funcify.register(Ger)
def _ger(op: Ger, node: Apply) -> Callable:
    _blas_dtypes(node)
    return compile_source(_GER, "kernel", {})
