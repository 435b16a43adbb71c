"""JAX version of ``MRGUniform`` (``arignote/sandbox/rng_mrg.py``): Theano's MRG31k3p streams
drawing the same numbers as the Python VM.

The generator (L'Ecuyer and Touzin 2000) is two linear recurrences modulo ``m1 = 2^31 - 1``
and ``m2 = 2^31 - 21069`` whose multipliers are sums of powers of two. A product ``2^k x mod m``
of a 31-bit ``x`` is computed exactly in 32-bit unsigned arithmetic (so it does not need JAX's
64-bit mode) by splitting ``x`` at bit ``31 - k``: with ``x = hi 2^(31-k) + lo``,

    2^k x = lo 2^k + hi 2^31,   and   2^31 = 1 (mod m1),   2^31 = 21069 (mod m2),

so ``2^k x = lo 2^k + hi`` (mod m1) and ``lo 2^k + 21069 hi`` (mod m2): both terms stay below
``2^32``, and one conditional subtraction of ``m`` brings the sum back below ``m``.

The state (``n_streams`` x 6, int32) is the node's input and its next value the node's first
output; the shared variable's default update carries it between calls, on the device.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

import jax.numpy as jnp
from arignote.graph.basic import Apply
from arignote.link.jax.dispatch.basic import register_by_name, static_ints
from jax import lax

M1, M2 = 2147483647, 2147462579
# the float32 scale: the largest draw must round below 1 (Theano's constant)
_NORM32 = np.float32(4.6566126e-10)
_NORM64 = 1.0 / (M1 + 1)

_U32 = jnp.uint32


def _reduce_once(value: Any, m: int) -> Any:
    """``value mod m`` for ``0 <= value < 2 m`` (uint32)."""
    return jnp.where(value >= _U32(m), value - _U32(m), value)


def _times_power_of_two(x: Any, k: int, m: int) -> Any:
    """``2^k x mod m`` for ``0 <= x < m`` (see the module docstring)."""
    split = 31 - k
    lo, hi = x & _U32((1 << split) - 1), x >> _U32(split)
    wrapped = hi if m == M1 else hi * _U32(2**31 - M2)
    return _reduce_once((lo << _U32(k)) + wrapped, m)


def _add_mod(a: Any, b: Any, m: int) -> Any:
    return _reduce_once(a + b, m)  # both below m < 2^31: the sum fits in 32 bits


def _step(state: Any) -> tuple[Any, Any]:
    """One step of every stream (rows of a uint32 ``(n, 6)`` state): the next state and the
    combined integers in ``[1, m1]``."""
    x10, x11, x12, x20, x21, x22 = (state[:, i] for i in range(6))
    # x1[n] = 2^22 x1[n-2] + (2^7 + 1) x1[n-3]   (mod m1)
    y1 = _add_mod(
        _times_power_of_two(x11, 22, M1),
        _add_mod(_times_power_of_two(x12, 7, M1), x12, M1),
        M1,
    )
    # x2[n] = 2^15 x2[n-1] + (2^15 + 1) x2[n-3]   (mod m2)
    y2 = _add_mod(
        _times_power_of_two(x20, 15, M2),
        _add_mod(_times_power_of_two(x22, 15, M2), x22, M2),
        M2,
    )
    # (y1 - y2) mod m1 with y2 < m2 < m1: add m1 back when the difference is negative
    z = jnp.where(y1 >= y2, y1 - y2, y1 + _U32(M1) - y2)
    z = jnp.where(z == 0, _U32(M1), z)
    return jnp.stack([y1, x10, x11, y2, x20, x21], axis=1), z


def _draw(state: Any, n: int) -> tuple[Any, Any]:
    """``n`` combined integers, element ``i`` from stream ``i % n_streams`` (Theano's order),
    and the next state; a last partial round advances only the streams it uses."""
    n_streams = state.shape[0]
    rounds, rest = divmod(n, n_streams)
    values = []
    if rounds:
        state, block = lax.scan(lambda s, _: _step(s), state, None, length=rounds)
        values.append(block.reshape(-1))
    if rest:
        head, last = _step(state[:rest])
        state = state.at[:rest].set(head)
        values.append(last)
    flat = jnp.concatenate(values) if values else jnp.zeros((0,), _U32)
    return state, flat


@register_by_name("arignote.sandbox.rng_mrg.MRGUniform")
def jax_funcify_MRGUniform(op: Any, node: Apply, **kwargs: Any) -> Callable:
    dtype = op.dtype

    def mrg_uniform(state, *size):
        shape = tuple(static_ints(s, node, "draw size") for s in size)
        next_state, ints = _draw(jnp.asarray(state).astype(_U32), math.prod(shape))
        if dtype == "float32":
            values = ints.astype(jnp.float32) * _NORM32
        else:  # exact: an integer below 2^31 times a power of two
            values = ints.astype(dtype) * _NORM64
        return next_state.astype(jnp.int32), values.reshape(shape)

    return mrg_uniform
