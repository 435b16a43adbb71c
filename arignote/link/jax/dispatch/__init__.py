"""Per-op JAX conversions, one module per op family (mirroring ``arignote/tensor/``)."""

from arignote.link.jax.dispatch import (
    alloc,
    builders,
    checks,
    elemwise,
    extra_ops,
    ifelse,
    index_map,
    linalg,
    pending,
    products,
    raise_op,
    random,
    reduction,
    scalar,
    scan,
    shape,
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
