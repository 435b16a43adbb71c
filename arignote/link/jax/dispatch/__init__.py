"""Per-op JAX conversions, one module per op family (mirroring ``arignote/tensor/``)."""

from arignote.link.jax.dispatch import (
    alloc,
    blockwise,
    conv,
    elemwise,
    extra_ops,
    index_map,
    linalg,
    linalg_more,
    mrg,
    pending,
    pool,
    products,
    random,
    random_scipy,
    ravel,
    reduction,
    scalar,
    shape,
    special,
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
