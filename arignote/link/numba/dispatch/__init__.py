"""Native kernels per op family (mirroring ``arignote/tensor/``), and the dispatcher."""

from arignote.link.numba.dispatch import (
    alloc,
    blas,
    builders,
    elemwise,
    extra_ops,
    inner,
    math,
    products,
    raise_op,
    reduction,
    scan,
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
    "builders",
    "compile_source",
    "elemwise",
    "extra_ops",
    "inner",
    "kernel_for",
    "math",
    "numba_funcify",
    "numba_type",
    "products",
    "raise_op",
    "reduction",
    "scan",
    "shape",
    "subtensor",
]
