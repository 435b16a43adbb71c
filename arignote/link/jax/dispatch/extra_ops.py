"""JAX versions of the extra ops and of sorting (``tensor/extra_ops.py``,
``tensor/extra_op_classes.py``, ``tensor/sort.py``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import jax.numpy as jnp
from arignote.graph.basic import Apply
from arignote.link.jax.dispatch.basic import (
    jax_funcify,
    output_dtypes,
    register_unsupported,
    static_ints,
)
from arignote.tensor.extra_op_classes import Bartlett, FillDiagonal, FillDiagonalOffset
from arignote.tensor.extra_ops import AllocDiag, CumOp, ExtractDiag, Flip, Repeat, SegmentSum
from arignote.tensor.sort import Argsort, SearchSorted, Sort, Unique, UniqueCount

_DATA_DEPENDENT = "its output shape depends on the input values, which XLA cannot compile"
register_unsupported(Unique, _DATA_DEPENDENT)
register_unsupported(UniqueCount, _DATA_DEPENDENT)


@jax_funcify.register(CumOp)
def jax_funcify_CumOp(op: CumOp, node: Apply, **kwargs: Any) -> Callable:
    accumulate = jnp.cumsum if op.mode == "add" else jnp.cumprod
    (dtype,) = output_dtypes(node)
    axis = op.axis

    def cumulative(x):
        return accumulate(x, axis=axis, dtype=dtype)

    return cumulative


@jax_funcify.register(Flip)
def jax_funcify_Flip(op: Flip, node: Apply | None = None, **kwargs: Any) -> Callable:
    axis = op.axis

    def flip(x):
        return jnp.flip(x, axis)

    return flip


@jax_funcify.register(Repeat)
def jax_funcify_Repeat(op: Repeat, node: Apply, **kwargs: Any) -> Callable:
    axis = op.axis

    def repeat(x, repeats):
        # the output length is the sum of the counts: they must be static
        counts = np.asarray(static_ints(repeats, node, "repeat counts"))
        return jnp.repeat(x, counts, axis=axis)

    return repeat


@jax_funcify.register(SegmentSum)
def jax_funcify_SegmentSum(op: SegmentSum, node: Apply, **kwargs: Any) -> Callable:
    axis = op.axis

    def segment_sum(x, sizes):
        lengths = np.atleast_1d(static_ints(sizes, node, "group sizes"))
        segment_ids = np.repeat(np.arange(len(lengths)), lengths)
        moved = jnp.moveaxis(x, axis, 0)
        summed = jnp.zeros((len(lengths), *moved.shape[1:]), x.dtype).at[segment_ids].add(moved)
        return jnp.moveaxis(summed, 0, axis)

    return segment_sum


@jax_funcify.register(ExtractDiag)
def jax_funcify_ExtractDiag(op: ExtractDiag, node=None, **kwargs: Any) -> Callable:
    offset, axis1, axis2 = op.offset, op.axis1, op.axis2

    def extract_diag(x):
        return jnp.diagonal(x, offset, axis1, axis2)

    return extract_diag


def _check_diagonal_fits(op: AllocDiag, length: int, rows: int, cols: int) -> None:
    """``perform``'s ``ValueError`` for a diagonal of the wrong length: the lengths are static
    while JAX traces, so it is raised there (``.at[].set`` would drop or pad entries)."""
    expected = max(
        min(rows, cols - op.offset) if op.offset >= 0 else min(rows + op.offset, cols), 0
    )
    if length != expected:
        raise ValueError(
            f"{op}: a diagonal of length {length} does not fit diagonal {op.offset} of a "
            f"{rows} x {cols} matrix"
        )


@jax_funcify.register(AllocDiag)
def jax_funcify_AllocDiag(op: AllocDiag, node: Apply, **kwargs: Any) -> Callable:
    offset, axis1, axis2 = op.offset, op.axis1, op.axis2

    def alloc_diag(diagonal, rows, cols):
        n_rows, n_cols = static_ints(rows, node, "rows"), static_ints(cols, node, "columns")
        _check_diagonal_fits(op, jnp.shape(diagonal)[-1], n_rows, n_cols)
        batch = list(jnp.shape(diagonal)[:-1])
        plane = jnp.zeros((*batch, n_rows, n_cols), diagonal.dtype)
        i = np.arange(jnp.shape(diagonal)[-1])
        plane = plane.at[..., i + max(-offset, 0), i + max(offset, 0)].set(diagonal)
        # the last two axes go to axis1 and axis2
        return jnp.moveaxis(plane, (-2, -1), (axis1, axis2))

    return alloc_diag


@jax_funcify.register(Sort)
def jax_funcify_Sort(op: Sort, node: Apply | None = None, **kwargs: Any) -> Callable:
    axis, stable = op.axis, op.kind in ("stable", "mergesort")

    def sort(x):
        return jnp.sort(x, axis=axis, stable=stable)

    return sort


@jax_funcify.register(Argsort)
def jax_funcify_Argsort(op: Argsort, node: Apply | None = None, **kwargs: Any) -> Callable:
    axis = op.axis

    def argsort(x):
        # always stable: NumPy's unstable kinds may order ties either way
        return jnp.argsort(x, axis=axis, stable=True).astype("int64")

    return argsort


@jax_funcify.register(SearchSorted)
def jax_funcify_SearchSorted(op: SearchSorted, node=None, **kwargs: Any) -> Callable:
    side = op.side

    def searchsorted(a, v, *sorter):
        if sorter:
            a = jnp.asarray(a)[sorter[0]]
        return jnp.searchsorted(a, v, side=side).astype("int64")

    return searchsorted


# -- PyTensor's op instances bartlett_, fill_diagonal_, fill_diagonal_offset_ ------------------


@jax_funcify.register(Bartlett)
def jax_funcify_Bartlett(op: Bartlett, node: Apply, **kwargs: Any) -> Callable:
    def bartlett(m):
        # the window's length is its shape: it must be known when tracing
        return jnp.bartlett(static_ints(m, node, "number of points")).astype("float64")

    return bartlett


@jax_funcify.register(FillDiagonal)
def jax_funcify_FillDiagonal(op: FillDiagonal, node: Apply, **kwargs: Any) -> Callable:
    def fill_diagonal(a, val):
        index = jnp.arange(min(a.shape))
        return a.at[(index,) * a.ndim].set(val)

    return fill_diagonal


@jax_funcify.register(FillDiagonalOffset)
def jax_funcify_FillDiagonalOffset(op: FillDiagonalOffset, node=None, **kwargs: Any) -> Callable:
    def fill_diagonal_offset(a, val, offset):
        # the offset may be traced: select the entries whose column - row is the offset
        rows, cols = jnp.arange(a.shape[0])[:, None], jnp.arange(a.shape[1])[None, :]
        return jnp.where(cols - rows == offset, val.astype(a.dtype), a)

    return fill_diagonal_offset
