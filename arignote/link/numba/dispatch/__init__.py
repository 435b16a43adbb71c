"""Native kernels per op family (mirroring ``arignote/tensor/``), and the dispatcher."""

from arignote.link.numba.dispatch import (
    alloc,
    blas,
    elemwise,
    extra_ops,
    math,
    products,
    reduction,
    shape,
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

__all__ = [
    "BY_NAME",
    "FALLBACKS",
    "NotNative",
    "alloc",
    "blas",
    "compile_source",
    "elemwise",
    "extra_ops",
    "kernel_for",
    "math",
    "numba_funcify",
    "numba_type",
    "products",
    "reduction",
    "shape",
    "subtensor",
]
