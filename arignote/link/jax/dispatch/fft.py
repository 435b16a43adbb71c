"""JAX versions of ``RFFTOp`` and ``IRFFTOp`` (``tensor/fft.py``): ``jnp.fft`` over every axis
but the first, the spectrum's real and imaginary parts on a last axis of length 2.

The signal lengths ``s`` must be known while tracing (they are, when computed from the input's
shape, as ``rfft`` and ``irfft`` do); both transforms are unnormalized, as the ops are.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import jax.numpy as jnp
from arignote.graph.basic import Apply
from arignote.link.jax.dispatch.basic import jax_funcify, static_ints
from arignote.tensor.fft import IRFFTOp, RFFTOp


def _lengths(s: Any, node: Apply) -> tuple[int, ...]:
    lengths = static_ints(s, node, "signal lengths")
    return (lengths,) if isinstance(lengths, int) else lengths


@jax_funcify.register(RFFTOp)
def jax_funcify_RFFTOp(op: RFFTOp, node: Apply, **kwargs: Any) -> Callable:
    dtype = node.outputs[0].type.dtype

    def rfft(a, s):
        lengths = _lengths(s, node)
        spectrum = jnp.fft.rfftn(a, s=lengths, axes=tuple(range(1, a.ndim)))
        return jnp.stack([spectrum.real, spectrum.imag], axis=-1).astype(dtype)

    return rfft


@jax_funcify.register(IRFFTOp)
def jax_funcify_IRFFTOp(op: IRFFTOp, node: Apply, **kwargs: Any) -> Callable:
    dtype = node.outputs[0].type.dtype

    def irfft(a, s):
        lengths = _lengths(s, node)
        spectrum = a[..., 0] + 1j * a[..., 1]
        signal = jnp.fft.irfftn(spectrum, s=lengths, axes=tuple(range(1, spectrum.ndim)))
        # the op is unnormalized: irfftn divides by the signal size, so multiply it back
        return (signal * float(np.prod(lengths))).astype(dtype)

    return irfft
