"""Per-op JAX conversions, one module per op family (mirroring ``arignote/tensor/``)."""

from arignote.link.jax.dispatch import (
    alloc,
    blockwise,
    builders,
    checks,
    conv,
    elemwise,
    extra_ops,
    fft,
    ifelse,
    index_map,
    linalg,
    linalg_more,
    mrg,
    pending,
    pool,
    products,
    raise_op,
    random,
    random_scipy,
    ravel,
    reduction,
    scalar,
    scan,
    shape,
    special,
    special_logs,
    special_shape,
    subtensor,
)
from arignote.link.jax.dispatch.basic import (
    UNSUPPORTED,
    DynamicShapeError,
    UnsupportedOpError,
    fgraph_to_jax,
    jax_funcify,
    unsupported_reason,
)

__all__ = [
    "UNSUPPORTED",
    "DynamicShapeError",
    "UnsupportedOpError",
    "fgraph_to_jax",
    "jax_funcify",
    "unsupported_reason",
]
