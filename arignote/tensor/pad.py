"""``pad``: NumPy's ``np.pad`` (modes constant, edge and reflect) as a composition of
``Split``, ``Flip``, ``Alloc`` and ``Join``, so that shapes and gradients come from those ops."""

from __future__ import annotations

import builtins
from typing import Any

from arignote.graph.basic import Variable
from arignote.tensor.alloc import alloc, as_size, is_sequence, static_int
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.extra_ops import flip, tile
from arignote.tensor.join import join, split
from arignote.tensor.math import cast, int_div, maximum, mod
from arignote.tensor.shape import shape_i, shape_tuple

PAD_MODES = ("constant", "edge", "reflect")


def _is_leaf(value: Any) -> bool:
    return not is_sequence(value)


def _as_pairs(spec: Any, ndim: int, name: str) -> list[tuple[Any, Any]]:
    """``spec`` broadcast to one ``(before, after)`` pair per dimension, as ``np.pad`` does
    (a scalar, ``(n,)``, ``(before, after)``, ``((before, after),)`` or one pair per axis)."""
    if _is_leaf(spec):
        return [(spec, spec)] * ndim
    entries = list(spec)
    if builtins.all(_is_leaf(e) for e in entries):
        if len(entries) in (1, 2):
            return [(entries[0], entries[-1])] * ndim
        raise ValueError(f"pad: {name} {spec!r} cannot be broadcast to {ndim} (before, after)")
    rows = [[e] if _is_leaf(e) else list(e) for e in entries]
    if len(rows) == 1:
        rows = rows * ndim
    if len(rows) != ndim or builtins.any(len(r) not in (1, 2) for r in rows):
        raise ValueError(f"pad: {name} {spec!r} cannot be broadcast to {ndim} (before, after)")
    return [(r[0], r[-1]) for r in rows]


def _width(value: Any) -> Variable:
    return as_size(value, "pad")  # an integer scalar, checked non-negative when constant


def _constant_side(x: Variable, axis: int, width: Variable, value: Any) -> Variable:
    lengths = list(shape_tuple(x))
    lengths[axis] = width
    return alloc(cast(as_tensor_variable(value), x.type.dtype), *lengths)


def _edge_sides(x: Variable, axis: int, before: Variable, after: Variable) -> tuple:
    length = shape_i(x, axis)
    first = split(x, [1, length - 1], axis=axis)[0]
    last = split(x, [length - 1, 1], axis=axis)[1]
    return _stretch(first, axis, before), _stretch(last, axis, after)


def _stretch(piece: Variable, axis: int, width: Variable) -> Variable:
    """A length-1 ``piece`` repeated ``width`` times along ``axis``."""
    lengths = list(shape_tuple(piece))
    lengths[axis] = width
    return alloc(piece, *lengths)


def _reflect_sides(x: Variable, axis: int, before: Variable, after: Variable) -> tuple:
    """x[before:0:-1] and x[-2:-after-2:-1] along ``axis``: mirror images about the ends,
    without repeating the edge elements."""
    length = shape_i(x, axis)
    left = split(x, [1, before, length - 1 - before], axis=axis)[1]
    right = split(x, [length - 1 - after, after, 1], axis=axis)[1]
    return flip(left, axis), flip(right, axis)


def _fits_one_reflection(x: Variable, axis: int, before: Any, after: Any) -> bool:
    """Whether both widths are statically at most ``x.shape[axis] - 1``."""
    length = x.type.shape[axis]
    widths = [static_int(before), static_int(after)]
    return length is not None and None not in widths and builtins.max(widths) <= length - 1


def _reflect_periodic(x: Variable, axis: int, before: Variable, after: Variable) -> Variable:
    """Reflect padding of any width: NumPy's result is the periodic extension of
    ``y = [x_0, ..., x_{n-1}, x_{n-2}, ..., x_1]`` (period ``P = 2n - 2``; 1 when n == 1), read
    from position ``-before``. Built by tiling ``y`` and cutting out that window."""
    length = shape_i(x, axis)
    inner = maximum(length - 2, 0)
    middle = split(x, [1, inner, length - 1 - inner], axis=axis)[1]  # x_1 .. x_{n-2}
    period = join(axis, x, flip(middle, axis))
    size = maximum(length + inner, 1)
    start = mod(-before, size)  # window[i] = y[(i - before) mod P]
    total = before + length + after
    copies = int_div(start + total + size - 1, size)
    reps = [1] * x.type.ndim
    reps[axis] = copies
    tiled = tile(period, reps)
    return split(tiled, [start, total, copies * size - start - total], axis=axis)[1]


def _pad_axis(x: Variable, axis: int, before: Any, after: Any, mode: str, values: tuple):
    if mode == "constant":
        sides = [_constant_side(x, axis, _width(w), v) for w, v in zip((before, after), values)]
    elif mode == "edge":
        sides = list(_edge_sides(x, axis, _width(before), _width(after)))
    elif x.type.shape[axis] == 1:
        # reflecting a single element repeats it, as NumPy does
        sides = list(_edge_sides(x, axis, _width(before), _width(after)))
    elif _fits_one_reflection(x, axis, before, after):
        sides = list(_reflect_sides(x, axis, _width(before), _width(after)))
    else:
        return _reflect_periodic(x, axis, _width(before), _width(after))
    return _join_present(axis, [sides[0], x, sides[1]], [before, None, after])


def _join_present(axis: int, pieces: list, widths: list) -> Variable:
    """Join the pieces whose width is not statically 0."""
    kept = [p for p, w in zip(pieces, widths) if w is None or static_int(w) != 0]
    return join(axis, *kept)


def pad(
    x: Any,
    pad_width: Any,
    mode: str = "constant",
    constant_values: Any = 0,
    reflect_type: str = "even",
) -> Variable:
    """``x`` padded along each dimension, like ``np.pad``.

    Parameters
    ----------
    x
        The tensor to pad.
    pad_width
        How many elements to add before and after each dimension: an int, ``(before, after)``,
        or one such pair per dimension (ints or integer scalars).
    mode
        ``"constant"`` (fill with ``constant_values``), ``"edge"`` (repeat the edge elements)
        or ``"reflect"`` (mirror about the edge elements, without repeating them; wider pads
        reflect again, as NumPy does).
    constant_values
        For ``"constant"``: the fill value, or ``(before, after)`` values, or one such pair per
        dimension.
    reflect_type
        Only NumPy's default ``"even"`` (a plain mirror image) is supported.

    The other modes of ``np.pad`` (symmetric, wrap, maximum, mean, median, minimum,
    linear_ramp) and ``reflect_type="odd"`` are not available: they raise ``ValueError``.
    """
    x = as_tensor_variable(x)
    if mode not in PAD_MODES:
        raise ValueError(f"pad: mode must be one of {PAD_MODES}, got {mode!r}")
    if reflect_type != "even":
        raise ValueError(f"pad: only reflect_type='even' is supported, got {reflect_type!r}")
    widths = _as_pairs(pad_width, x.type.ndim, "pad_width")
    values = _as_pairs(constant_values, x.type.ndim, "constant_values")
    for axis, ((before, after), pair) in enumerate(zip(widths, values)):
        if static_int(before) == 0 and static_int(after) == 0:
            continue
        x = _pad_axis(x, axis, before, after, mode, pair)
    return x


__all__ = ["pad"]
