"""JAX versions of the indexing ops (``tensor/subtensor.py``, ``advanced_subtensor.py``,
``indexing_ops.py``).

Reading an index is ``x[index]``; writing is ``x.at[index].set`` / ``.add``, which return a new
array. Slice bounds and boolean masks fix the result's shape, so JAX needs them static; integer
positions and integer index arrays may be computed at run time. JAX clamps out-of-range
positions where NumPy raises IndexError: a JAX function does not check its indices.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import jax.numpy as jnp
from arignote.graph.basic import Apply
from arignote.link.jax.dispatch.basic import (
    is_static,
    jax_funcify,
    output_dtypes,
    register_unsupported,
    static_ints,
)
from arignote.tensor.advanced_subtensor import (
    AdvancedIncSubtensor,
    AdvancedIncSubtensor1,
    AdvancedSubtensor,
    AdvancedSubtensor1,
    WriteWinners,
)
from arignote.tensor.index_spec import ARRAY, INT, MASK, SliceSpec, entry_groups
from arignote.tensor.indexing_ops import (
    AddAlongAxis,
    BinCount,
    BincountLength,
    Choose,
    Nonzero,
    TakeAlongAxis,
)
from arignote.tensor.subtensor import IncSubtensor, Subtensor

_DATA_DEPENDENT = "its output shape depends on the input values, which XLA cannot compile"
register_unsupported(Nonzero, _DATA_DEPENDENT)
register_unsupported(BincountLength, _DATA_DEPENDENT)


def jax_index(idx_list: tuple, values: list, node: Apply) -> tuple:
    """The JAX index for ``idx_list`` with the node's index ``values``."""
    index: list[Any] = []
    for entry, group in entry_groups(idx_list, values):
        if isinstance(entry, SliceSpec):
            bounds = [None if v is None else static_ints(v, node, "slice bounds") for v in group]
            index.append(slice(*bounds))
        elif entry == INT:
            (value,) = group
            index.append(int(value) if is_static(value) else value)
        elif entry == MASK:
            (mask,) = group
            if not is_static(mask):
                static_ints(mask, node, "boolean mask (it fixes the result's length)")
            index.append(np.asarray(mask))
        elif entry == ARRAY:
            index.append(group[0])
        else:  # None (new axis) and Ellipsis
            index.append(entry)
    return tuple(index)


def _writer(op: Any, node: Apply) -> Callable:
    """``write(x, index, y)`` for an inc/set op: set, accumulate, or add once (buffered +=)."""
    (dtype,) = output_dtypes(node)

    def write(x, index, y):
        y = jnp.asarray(y).astype(dtype)
        if op.set_instead_of_inc and _whole(x, index):
            # the whole of x, in order: no scatter (XLA's CPU simplifier aborts on a reverse of
            # such a scatter, which the gradient of a backwards scan builds)
            return jnp.broadcast_to(y, jnp.shape(x))
        if op.set_instead_of_inc:
            return _set(x, index, y)
        if getattr(op, "ignore_duplicates", False):
            return _set(x, index, x[index] + y)  # a repeated position gets one value
        return x.at[index].add(y)  # repeated positions accumulate, as np.add.at

    return write


def _set(x, index, y):
    """``x[index] = y`` where, as in NumPy, the last of several writes to one position wins.

    XLA's scatter leaves the order of colliding writes unspecified (GPUs really do differ), so
    with integer-array indices the winner of each position is chosen explicitly: number the
    writes in order, keep the largest number per position (a max-scatter, which commutes), and
    gather each position's value from the write carrying that number.
    """
    if not any(_integer_array(entry) for entry in _entries(index)):
        return x.at[index].set(y)
    target = x[index].shape
    count = int(np.prod(target, dtype=np.int64))
    if count == 0:  # no write (fill_diagonal_offset past the corner): nothing to gather from
        return jnp.asarray(x)
    ids = jnp.arange(count).reshape(target)
    winner = jnp.full(jnp.shape(x), -1, ids.dtype).at[index].max(ids)
    values = jnp.broadcast_to(y, target).reshape(-1)
    return jnp.where(winner >= 0, values[jnp.maximum(winner, 0)], x)


def _entries(index) -> tuple:
    return index if isinstance(index, tuple) else (index,)


def _integer_array(entry) -> bool:
    dtype = getattr(entry, "dtype", None)
    return dtype is not None and np.dtype(dtype).kind in "iu" and np.ndim(entry) > 0


def _whole(x: Any, index: tuple) -> bool:
    """Whether ``x[index]`` is all of ``x`` in order (unit-step slices covering each axis)."""
    if len(index) > jnp.ndim(x):
        return False
    for entry, length in zip(index, jnp.shape(x)):
        if not isinstance(entry, slice) or entry.step not in (None, 1):
            return False
        if not all(is_static(b) for b in (entry.start, entry.stop)):
            return False
        if entry.indices(length) != (0, length, 1):
            return False
    return True


@jax_funcify.register(Subtensor)
@jax_funcify.register(AdvancedSubtensor)
def jax_funcify_Subtensor(op: Any, node: Apply, **kwargs: Any) -> Callable:
    idx_list = op.idx_list

    def subtensor(x, *values):
        return jnp.asarray(x)[jax_index(idx_list, list(values), node)]

    return subtensor


@jax_funcify.register(IncSubtensor)
@jax_funcify.register(AdvancedIncSubtensor)
def jax_funcify_IncSubtensor(op: Any, node: Apply, **kwargs: Any) -> Callable:
    idx_list, write = op.idx_list, _writer(op, node)

    def inc_subtensor(x, y, *values):
        return write(jnp.asarray(x), jax_index(idx_list, list(values), node), y)

    return inc_subtensor


@jax_funcify.register(AdvancedSubtensor1)
def jax_funcify_AdvancedSubtensor1(op: Any, node: Apply | None = None, **kwargs) -> Callable:
    def advanced_subtensor1(x, ilist):
        return jnp.asarray(x)[ilist]

    return advanced_subtensor1


@jax_funcify.register(AdvancedIncSubtensor1)
def jax_funcify_AdvancedIncSubtensor1(op: Any, node: Apply, **kwargs: Any) -> Callable:
    write = _writer(op, node)

    def advanced_inc_subtensor1(x, y, ilist):
        return write(jnp.asarray(x), ilist, y)

    return advanced_inc_subtensor1


@jax_funcify.register(WriteWinners)
def jax_funcify_WriteWinners(op: WriteWinners, node: Apply, **kwargs: Any) -> Callable:
    idx_list = op.idx_list

    def write_winners(x, *values):
        # number the writes in order; the last write to a position wins (the largest number)
        index = jax_index(idx_list, list(values), node)
        target = jnp.zeros(jnp.shape(x), jnp.int8)[index].shape
        ids = jnp.arange(int(np.prod(target, dtype=np.int64))).reshape(target)
        slots = jnp.full(jnp.shape(x), -1, ids.dtype).at[index].max(ids)
        return slots[index] == ids

    return write_winners


def _along_axis(shape: tuple, indices: Any, axis: int) -> tuple:
    """The index ``take_along_axis`` reads: ``indices`` on ``axis``, aranges elsewhere."""
    index = []
    for d, length in enumerate(shape):
        if d == axis:
            index.append(indices)
        else:
            grid = [1] * len(shape)
            grid[d] = length
            index.append(jnp.arange(length).reshape(grid))
    return tuple(index)


@jax_funcify.register(TakeAlongAxis)
def jax_funcify_TakeAlongAxis(op: TakeAlongAxis, node=None, **kwargs: Any) -> Callable:
    axis = op.axis

    def take_along_axis(arr, indices):
        return jnp.take_along_axis(arr, indices, axis=axis)

    return take_along_axis


@jax_funcify.register(AddAlongAxis)
def jax_funcify_AddAlongAxis(op: AddAlongAxis, node: Apply, **kwargs: Any) -> Callable:
    axis = op.axis
    (dtype,) = output_dtypes(node)

    def add_along_axis(arr, indices, values):
        index = _along_axis(jnp.shape(arr), indices, axis)
        return jnp.asarray(arr).at[index].add(jnp.asarray(values).astype(dtype))

    return add_along_axis


@jax_funcify.register(BinCount)
def jax_funcify_BinCount(op: BinCount, node: Apply, **kwargs: Any) -> Callable:
    (dtype,) = output_dtypes(node)

    def bincount(x, *weights):
        if not is_static(x):
            # the number of bins is max(x) + 1: only a static x fixes it
            static_ints(x, node, "values (they fix the number of bins)")
        length = max(op.minlength, int(np.max(x)) + 1 if np.size(x) else 0)
        counts = jnp.bincount(x, weights[0] if weights else None, length=length)
        return counts.astype(dtype)

    return bincount


@jax_funcify.register(Choose)
def jax_funcify_Choose(op: Choose, node: Apply, **kwargs: Any) -> Callable:
    (dtype,) = output_dtypes(node)
    mode = op.mode

    def choose(a, *choices):
        return jnp.choose(a, choices, mode="clip" if mode == "raise" else mode).astype(dtype)

    return choose
