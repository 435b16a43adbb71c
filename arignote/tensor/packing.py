"""Reshaping helpers of PyTensor 3: ``join_dims``, ``split_dims``, ``pack`` and ``unpack``.

All four are graphs of ``reshape``, ``concatenate`` and ``split``: their shapes, gradients and
backends come from those ops. ``pack`` ravels the middle axes of several tensors (those not
kept at the front or the back) and concatenates them; ``unpack`` with the same ``keep_axes``
and the returned shapes inverts it, the usual way to put several parameters in one vector.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import reduce
from operator import mul
from typing import Any

import numpy as np

from arignote.graph.basic import Variable
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.join import concatenate, join, split
from arignote.tensor.reduction import prod
from arignote.tensor.reshape import reshape
from arignote.tensor.shape import shape, shape_i


def _axis(axis: int, ndim: int, what: str) -> int:
    if not -ndim <= axis < max(ndim, 1):
        raise np.exceptions.AxisError(f"{what}: axis {axis} is out of bounds for {ndim} dimensions")
    return axis % max(ndim, 1)


def _lengths(x: Variable, axes: range) -> list:
    """The lengths of ``x`` along ``axes``: Python ints where static (they keep the static
    shape of a reshape), symbolic otherwise."""
    return [shape_i(x, d) if x.type.shape[d] is None else x.type.shape[d] for d in axes]


def _product(lengths: list) -> Any:
    if all(isinstance(n, int) for n in lengths):
        return int(np.prod(lengths, dtype=np.int64))
    # a product of scalars (not Prod over a joined vector), which shape inference folds away
    return reduce(mul, lengths[1:], lengths[0]) if lengths else 1


def join_dims(x: Any, start_axis: int = 0, n_axes: int | None = None) -> Variable:
    """Merge ``n_axes`` consecutive dimensions of ``x`` from ``start_axis`` into one.

    Parameters
    ----------
    x
        A tensor.
    start_axis
        The first dimension merged.
    n_axes
        How many dimensions are merged (default: all from ``start_axis``); 0 inserts a new
        dimension of length 1 there.
    """
    x = as_tensor_variable(x)
    ndim = x.type.ndim
    start = start_axis % (ndim + 1) if start_axis < 0 else start_axis
    if start > ndim:
        raise np.exceptions.AxisError(
            f"join_dims: start_axis {start_axis} is out of bounds for {x.type}"
        )
    n = ndim - start if n_axes is None else n_axes
    if n < 0 or start + n > ndim:
        raise ValueError(f"join_dims: cannot join {n_axes} axes from {start_axis} of {x.type}")
    merged = _product(_lengths(x, range(start, start + n)))
    new = [*_lengths(x, range(start)), merged, *_lengths(x, range(start + n, ndim))]
    return reshape(x, new, ndim=ndim - n + 1)


def split_dims(x: Any, shape: Any, axis: int = 0) -> Variable:
    """Split dimension ``axis`` of ``x`` into several with lengths ``shape`` (one may be -1).

    Parameters
    ----------
    x
        A tensor.
    shape
        An int or a sequence of lengths whose product is the length of that dimension.
    axis
        The dimension split.
    """
    x = as_tensor_variable(x)
    axis = _axis(axis, x.type.ndim, "split_dims")
    lengths = [shape] if not isinstance(shape, Sequence) else list(shape)
    if isinstance(shape, Variable) and shape.type.ndim == 1:
        lengths = [shape[i] for i in range(_static_length(shape))]
    ndim = x.type.ndim
    new = [*_lengths(x, range(axis)), *lengths, *_lengths(x, range(axis + 1, ndim))]
    return reshape(x, new, ndim=ndim - 1 + len(lengths))


def _static_length(v: Variable) -> int:
    (n,) = v.type.shape
    if n is None:
        raise ValueError(f"split_dims: the new shape {v} needs a static length")
    return n


def _kept(keep_axes: Any, min_ndim: int) -> tuple[int, int]:
    """(how many leading, how many trailing) axes ``keep_axes`` keeps, by PyTensor's rules."""
    if keep_axes is None:
        return 0, 0
    axes = [keep_axes] if isinstance(keep_axes, int) else list(keep_axes)
    front = sorted(a for a in axes if a >= 0)
    back = sorted(a for a in axes if a < 0)
    if front != list(range(len(front))) or back != list(range(-len(back), 0)):
        raise ValueError(
            "pack: kept axes must be 0, 1, ... at the front and/or ..., -2, -1 at the back, "
            f"got {keep_axes!r}"
        )
    if len(front) + len(back) > min_ndim:
        raise ValueError(f"pack: keep_axes {keep_axes!r} keeps more axes than an input has")
    return len(front), len(back)


def pack(*tensors: Any, keep_axes: Any = None) -> tuple[Variable, list[Variable]]:
    """Ravel the axes of each tensor not in ``keep_axes`` and concatenate the results.

    Parameters
    ----------
    *tensors
        Tensors with equal lengths along the kept axes.
    keep_axes
        None (ravel everything), or an int or a sequence of kept axes: leading ones
        (0, 1, ...) and/or trailing ones (..., -2, -1), so 0 or -1 must be among them.

    Returns
    -------
    packed : Variable
        The concatenation along the raveled axis.
    packed_shapes : list of Variable
        For each tensor, the shape (a vector) of the axes that were raveled.
    """
    tensors = [as_tensor_variable(t) for t in tensors]
    if not tensors:
        raise ValueError("pack needs at least one tensor")
    front, back = _kept(keep_axes, min(t.type.ndim for t in tensors))
    pieces, shapes = [], []
    for t in tensors:
        middle_end = t.type.ndim - back
        shapes.append(shape(t)[front:middle_end])
        pieces.append(join_dims(t, front, middle_end - front))
    return concatenate(pieces, axis=front), shapes


def unpack(packed_input: Any, packed_shapes: Sequence[Any], keep_axes: Any = None) -> list:
    """Invert :func:`pack`: split along the raveled axis and restore each tensor's shape.

    Parameters
    ----------
    packed_input
        The packed tensor.
    packed_shapes
        The shapes of the raveled axes of each tensor (as :func:`pack` returns them).
    keep_axes
        The same ``keep_axes`` given to :func:`pack`.
    """
    packed = as_tensor_variable(packed_input)
    front, _ = _kept(keep_axes, packed.type.ndim - 1)
    shapes = [as_tensor_variable(s) for s in packed_shapes]
    sizes = join(0, *[prod(s, keepdims=True).astype("int64") for s in shapes])
    parts = split(packed, sizes, len(shapes), axis=front) if len(shapes) > 1 else [packed]
    return [split_dims(part, s, axis=front) for part, s in zip(parts, shapes, strict=True)]


__all__ = ["join_dims", "pack", "split_dims", "unpack"]
