"""Small PyTensor 3 helpers built from existing ops: ``concat_with_broadcast``,
``batched_tensordot``, ``permute_row_elements`` and ``slice_at_axis``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arignote.graph.basic import Variable
from arignote.tensor.alloc import broadcast_shape, broadcast_to
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.indexing_ops import take_along_axis
from arignote.tensor.join import concatenate
from arignote.tensor.products import einsum
from arignote.tensor.shape import shape_i
from arignote.tensor.sort import argsort

_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def concat_with_broadcast(tensor_list: Sequence[Any], axis: int = 0) -> Variable:
    """Concatenate along ``axis`` after broadcasting the tensors' other dimensions together.

    Parameters
    ----------
    tensor_list
        Tensors of one number of dimensions; along ``axis`` their lengths may differ, along
        the others they must broadcast.
    axis
        The dimension joined.
    """
    tensors = [as_tensor_variable(t) for t in tensor_list]
    ndim = tensors[0].type.ndim
    if any(t.type.ndim != ndim for t in tensors):
        raise TypeError(f"concat_with_broadcast needs tensors of one rank, got {tensors}")
    axis %= ndim
    # the common shape of every dimension but ``axis`` (which is set to 1 for the broadcast)
    others = broadcast_shape(*[t.take([0], axis=axis) for t in tensors])
    fitted = []
    for t in tensors:
        target = [*others[:axis], shape_i(t, axis), *others[axis + 1 :]]
        fitted.append(broadcast_to(t, target))
    return concatenate(fitted, axis=axis)


def _normalize_axes(x: Variable, y: Variable, axes: Any) -> tuple[list[int], list[int]]:
    if isinstance(axes, int):
        return list(range(x.type.ndim - axes, x.type.ndim)), list(range(1, axes + 1))
    x_axes, y_axes = ([a] if isinstance(a, int) else list(a) for a in axes)
    if len(x_axes) != len(y_axes):
        raise ValueError(f"batched_tensordot: axes {axes!r} pair unequal numbers of dimensions")
    x_axes = [a % x.type.ndim for a in x_axes]
    y_axes = [a % y.type.ndim for a in y_axes]
    if 0 in x_axes or 0 in y_axes:
        raise ValueError("batched_tensordot: the first (batch) dimension cannot be summed")
    return x_axes, y_axes


def batched_tensordot(x: Any, y: Any, axes: Any = 2) -> Variable:
    """``tensordot`` of ``x[i]`` and ``y[i]`` for every ``i`` of the first (batch) dimension.

    Parameters
    ----------
    x, y
        Tensors with the same first length.
    axes
        An int ``n``: the last ``n`` dimensions of ``x`` with dimensions ``1..n`` of ``y``;
        or a pair of lists of dimensions (never 0) summed against each other.
    """
    x, y = as_tensor_variable(x), as_tensor_variable(y)
    x_axes, y_axes = _normalize_axes(x, y, axes)
    letters = iter(_LETTERS[1:])
    x_sub = ["a"] + [next(letters) for _ in range(1, x.type.ndim)]
    y_sub = ["a"] + [None] * (y.type.ndim - 1)
    for xa, ya in zip(x_axes, y_axes, strict=True):
        y_sub[ya] = x_sub[xa]
    y_sub = [s if s is not None else next(letters) for s in y_sub]
    out = [s for i, s in enumerate(x_sub) if i not in x_axes]
    out += [s for i, s in enumerate(y_sub) if i not in y_axes and i != 0]
    return einsum(f"{''.join(x_sub)},{''.join(y_sub)}->{''.join(out)}", x, y)


def permute_row_elements(x: Any, y: Any, inverse: bool = False) -> Variable:
    """Permute the last dimension of ``x`` by the permutations in ``y`` (broadcasting).

    ``out[..., i] = x[..., y[..., i]]``; with ``inverse``, ``out[..., y[..., i]] = x[..., i]``.
    """
    x, y = as_tensor_variable(x), as_tensor_variable(y)
    if not y.type.dtype.startswith(("int", "uint")):
        raise TypeError(f"permute_row_elements needs integer permutations, got {y.type}")
    order = argsort(y, axis=-1) if inverse else y
    x_b, order_b = broadcast_arrays_but_last(x, order)
    return take_along_axis(x_b, order_b, axis=-1)


def broadcast_arrays_but_last(x: Variable, y: Variable) -> tuple[Variable, Variable]:
    """``x`` and ``y`` broadcast against each other in every dimension but the last."""
    ndim = max(x.type.ndim, y.type.ndim)
    x, y = _lead_ones(x, ndim), _lead_ones(y, ndim)
    batch = broadcast_shape(x[..., :1], y[..., :1])[:-1]
    return (
        broadcast_to(x, [*batch, shape_i(x, ndim - 1)]),
        broadcast_to(y, [*batch, shape_i(y, ndim - 1)]),
    )


def _lead_ones(x: Variable, ndim: int) -> Variable:
    """``x`` with length-1 dimensions in front up to ``ndim`` dimensions."""
    missing = ndim - x.type.ndim
    return x.dimshuffle(*(["x"] * missing), *range(x.type.ndim)) if missing else x


def slice_at_axis(sl: slice, axis: int) -> tuple:
    """The index tuple applying ``sl`` to dimension ``axis`` only: ``(:, ..., sl, ...)``."""
    return (slice(None),) * axis + (sl, Ellipsis)


__all__ = ["batched_tensordot", "concat_with_broadcast", "permute_row_elements", "slice_at_axis"]
