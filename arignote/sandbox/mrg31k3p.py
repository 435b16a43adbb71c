"""The MRG31k3p generator of L'Ecuyer and Touzin (2000), vectorized over streams in NumPy.

Two multiple recursive generators, combined:

    x1[n] = (2^22 x1[n-2] + (2^7 + 1) x1[n-3])  mod m1,   m1 = 2^31 - 1
    x2[n] = (2^15 x2[n-1] + (2^15 + 1) x2[n-3]) mod m2,   m2 = 2147462579
    u[n]  = ((x1[n] - x2[n]) mod m1) / (m1 + 1), with m1 in place of 0

A stream state is the six integers ``(x1[n-1], x1[n-2], x1[n-3], x2[n-1], x2[n-2], x2[n-3])``,
stored as int32 as Theano did. Streams are spaced ``2^72`` steps apart, and each new draw
starts ``2^134`` steps after the previous one, by multiplying states with the transition
matrices raised to those powers (computed here by repeated squaring, modulo m).
"""

from __future__ import annotations

import numpy as np

M1 = 2147483647
M2 = 2147462579
A12, A13 = 1 << 22, (1 << 7) + 1
A21, A23 = 1 << 15, (1 << 15) + 1
NORM64 = 1.0 / (M1 + 1)
# float32: the largest value must round below 1 (Theano's constant for the same purpose)
NORM32 = np.float32(4.6566126e-10)

# Transition matrices acting on (x[n-1], x[n-2], x[n-3]).
TRANSITION1 = ((0, A12, A13), (1, 0, 0), (0, 1, 0))
TRANSITION2 = ((A21, 0, A23), (1, 0, 0), (0, 1, 0))


def _matmul_mod(a, b, m):
    return tuple(
        tuple(sum(a[i][k] * b[k][j] for k in range(3)) % m for j in range(3)) for i in range(3)
    )


def _power_of_two(mat, exponent: int, m: int):
    """``mat ** (2 ** exponent) mod m`` by ``exponent`` squarings (Python integers)."""
    for _ in range(exponent):
        mat = _matmul_mod(mat, mat, m)
    return mat


def _jump(exponent: int):
    return _power_of_two(TRANSITION1, exponent, M1), _power_of_two(TRANSITION2, exponent, M2)


JUMP_STREAM = _jump(72)  # between the streams of one draw
JUMP_DRAW = _jump(134)  # between draws of one MRG_RandomStreams


def _matvec_mod(mat, vectors: np.ndarray, m: int) -> np.ndarray:
    """``mat @ v mod m`` for each row ``v`` of ``vectors`` (int64: each product < 2^62)."""
    out = np.zeros_like(vectors)
    for i in range(3):
        for j in range(3):
            out[:, i] = (out[:, i] + (mat[i][j] * vectors[:, j]) % m) % m
    return out


def _apply(jump, states: np.ndarray) -> np.ndarray:
    first = _matvec_mod(jump[0], states[:, :3], M1)
    second = _matvec_mod(jump[1], states[:, 3:], M2)
    return np.concatenate([first, second], axis=1)


def jump_draw(state: np.ndarray) -> np.ndarray:
    """One stream state moved ``2^134`` steps ahead (the start of the next draw)."""
    return _apply(JUMP_DRAW, np.asarray(state, dtype=np.int64).reshape(1, 6))[0]


def stream_states(state: np.ndarray, n_streams: int) -> np.ndarray:
    """``n_streams`` states, stream ``i`` being ``state`` moved ``i 2^72`` steps ahead.

    Filled by doubling: the block of streams ``[k, 2k)`` is the block ``[0, k)`` moved ``k``
    jumps ahead, so only ``log2(n)`` vectorized products are needed.
    """
    states = np.asarray(state, dtype=np.int64).reshape(1, 6)
    jump = JUMP_STREAM
    while len(states) < n_streams:
        states = np.concatenate([states, _apply(jump, states)])
        jump = (_matmul_mod(jump[0], jump[0], M1), _matmul_mod(jump[1], jump[1], M2))
    return states[:n_streams].astype(np.int32)


def _step(states: np.ndarray) -> np.ndarray:
    """Advance int64 states one step in place; return the combined integers in [1, m1]."""
    y1 = (A12 * states[:, 1] + A13 * states[:, 2]) % M1
    states[:, 1:3] = states[:, 0:2].copy()
    states[:, 0] = y1
    y2 = (A21 * states[:, 3] + A23 * states[:, 5]) % M2
    states[:, 4:6] = states[:, 3:5].copy()
    states[:, 3] = y2
    z = (y1 - y2) % M1
    return np.where(z == 0, M1, z)


def uniform(state: np.ndarray, n: int, dtype: str) -> tuple[np.ndarray, np.ndarray]:
    """``n`` uniform values in (0, 1) and the streams' next state.

    Element ``i`` comes from stream ``i % n_streams`` at its step ``i // n_streams``, as in
    Theano; streams that a step does not need are not advanced.
    """
    states = np.asarray(state, dtype=np.int64).copy()
    n_streams = len(states)
    values = np.empty(n, dtype=np.int64)
    for start in range(0, n, n_streams):
        active = min(n_streams, n - start)
        block = states[:active]
        values[start : start + active] = _step(block)
        states[:active] = block
    if dtype == "float32":
        out = values.astype(np.float32) * NORM32
    else:
        out = (values * NORM64).astype(dtype)
    return states.astype(np.int32), out
