"""Native kernels per op family (mirroring ``arignote/tensor/``), and the dispatcher."""

from arignote.link.numba.dispatch import (
    advanced_subtensor,
    alloc,
    blas,
    creation,
    elemwise,
    extra_ops,
    indexing,
    math,
    products,
    reduction,
    shape,
    sort,
    special,
    subtensor,
)
from arignote.link.numba.dispatch.basic import (
    BY_NAME,
    FALLBACKS,
    NotNative,
    compile_source,
    kernel_for,
    numba_funcify,
    numba_type,
)
from arignote.link.numba.dispatch.reduction import fused_reductions

__all__ = [
    "BY_NAME",
    "FALLBACKS",
    "NotNative",
    "advanced_subtensor",
    "alloc",
    "blas",
    "compile_source",
    "creation",
    "elemwise",
    "extra_ops",
    "fused_reductions",
    "indexing",
    "kernel_for",
    "math",
    "numba_funcify",
    "numba_type",
    "products",
    "reduction",
    "shape",
    "sort",
    "special",
    "subtensor",
]
