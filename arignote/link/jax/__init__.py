"""The JAX backend: ``function(..., mode="JAX")`` compiles the rewritten graph with XLA.

Only this package imports JAX; ``import arignote`` does not. The mode named "JAX" imports it the
first time it is used (see ``arignote.compile.mode``).
"""

import jax as _jax
from arignote.link.jax.dispatch import (
    UNSUPPORTED,
    DynamicShapeError,
    UnsupportedOpError,
    jax_funcify,
    unsupported_reason,
)
from arignote.link.jax.linker import JAXLinker
from arignote.tensor.type import register_device_array_type

register_device_array_type(_jax.Array)

__all__ = [
    "UNSUPPORTED",
    "DynamicShapeError",
    "JAXLinker",
    "UnsupportedOpError",
    "jax_funcify",
    "unsupported_reason",
]
