"""The JAX backend: ``function(..., mode="JAX")`` compiles the rewritten graph with XLA.

Only this package imports JAX; ``import arignote`` does not. The mode named "JAX" imports it the
first time it is used (``arignote.compile.mode``); :func:`arignote.compile.mode.jax_mode` builds
modes with options.

Usage
-----
``arignote.function(inputs, outputs, mode="JAX")`` rewrites the graph with the default pipeline
less in-place rewrites and elementwise fusion, converts every node with the per-op conversions
of :mod:`arignote.link.jax.dispatch` into one JAX function and ``jax.jit``-s it; XLA compiles it
once per input signature (shapes and dtypes), at the first call with that signature.

- Arguments may be NumPy arrays or JAX arrays; results are JAX arrays (``np.asarray`` copies one
  to the host). Shared variables keep their values on the device between calls, and updates
  replace them there; ``get_value()`` returns a NumPy copy.
- 64-bit dtypes: a graph holding one runs with ``jax_enable_x64`` switched on for its own calls
  only (thread-locally, like ``with jax.enable_x64(True)``); the rest of the program keeps JAX's
  default. ``jax_mode(x64=False)`` computes such graphs in 32 bits.
- Random variables draw with ``jax.random``: a shared generator variable holds a JAX key after
  the first call, and its default update advances it. The draws follow the same distributions as
  NumPy's but are different numbers. Theano's MRG streams (``arignote.sandbox.rng_mrg``) are
  plain integer arithmetic, computed as such: they draw the same numbers as the Python VM.
- Shapes: JAX compiles for static shapes. Lengths computed from input shapes and constants are
  static (they are evaluated while tracing). A length computed from input *values* (a symbolic
  ``reshape`` target, ``arange`` bounds, a boolean mask, ``repeat`` counts...) raises
  :class:`DynamicShapeError` naming the node and how to make it static.
- Ops without a conversion are listed in :data:`UNSUPPORTED` with the reason; compiling a graph
  holding one raises :class:`UnsupportedOpError` naming the op and the node. There is no
  fallback to Python.
- JAX clamps out-of-range indices where NumPy raises, and does not check runtime broadcasting.

Devices
-------
``jax_mode(platform="gpu")`` (or "cpu", "tpu") runs on the first device of that platform.
``jax_mode(shard_batch=("x", "y"))`` splits the named explicit inputs along their first (batch)
axis over all local devices of the platform with ``jax.sharding`` (a 1-d mesh named "batch")
and replicates every other input and shared variable; XLA partitions the computation and adds
the reductions (data parallelism). The batch length must be a multiple of the device count.

Multi-host runs are JAX's runtime: call ``jax.distributed.initialize()`` in every process before
compiling; ``jax.devices()`` then lists every host's devices, and a ``shard_batch`` mode shards
over the devices of the mesh JAX builds from them (each process passing its own part of the
batch as a global array, ``jax.make_array_from_process_local_data``). Nothing here is specific
to one host, but it is tested only on one host with several (forced) CPU devices.
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
