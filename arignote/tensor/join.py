"""Joining and splitting tensors along an axis: ``Join`` and ``Split`` (each the other's
gradient), with ``concatenate``, ``stack`` and ``split``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arignote.graph.basic import Apply, Variable
from arignote.graph.grad_types import disconnected, is_disconnected
from arignote.graph.op import Op
from arignote.scalar.basic import discrete_dtypes, grad_dtype, upcast
from arignote.tensor.alloc import as_size, shape_entries, static_int
from arignote.tensor.basic import as_tensor_variable, register_stacker
from arignote.tensor.math import add, int_div
from arignote.tensor.reduction import normalize_axes
from arignote.tensor.shape import as_axis, expand_dims, shape_i, specify_shape
from arignote.tensor.type import tensor_type


def _normalize_axis(axis: Any, ndim: int, context: str) -> int:
    try:
        (axis,) = normalize_axes(as_axis(axis, context), ndim)
    except ValueError as err:
        raise type(err)(f"{context}: {err}") from err  # AxisError stays one (NumPy's class)
    return axis


class Join(Op):
    """The inputs concatenated along ``axis``: ``np.concatenate(inputs, axis)``.

    The inputs have the same number of dimensions and equal lengths except along ``axis``; the
    result has their common dtype (NumPy promotion).
    """

    __props__ = ("axis",)

    def __init__(self, axis: int) -> None:
        if int(axis) < 0:
            raise ValueError(f"Join expects a non-negative axis, got {axis}")
        self.axis = int(axis)

    def make_node(self, *tensors: Any) -> Apply:
        tensors = [as_tensor_variable(t) for t in tensors]
        if not tensors:
            raise ValueError("Join needs at least one tensor")
        ndim = tensors[0].type.ndim
        if any(t.type.ndim != ndim for t in tensors):
            raise TypeError(
                f"Join: all inputs must have the same number of dimensions, got "
                f"{[str(t.type) for t in tensors]}"
            )
        if self.axis >= ndim:
            raise np.exceptions.AxisError(
                f"Join: axis {self.axis} is out of range for {ndim}-d inputs"
            )
        dtype = upcast(*[t.type.dtype for t in tensors])
        return Apply(self, tensors, [tensor_type(dtype, self._static_shape(tensors))()])

    def _static_shape(self, tensors: list) -> tuple:
        shape = []
        for d in range(tensors[0].type.ndim):
            lengths = [t.type.shape[d] for t in tensors]
            if d == self.axis:
                shape.append(None if None in lengths else sum(lengths))
                continue
            known = {s for s in lengths if s is not None}
            if len(known) > 1:
                raise ValueError(
                    f"Join along axis {self.axis}: the inputs' static lengths differ in "
                    f"dimension {d}: {[str(t.type) for t in tensors]}"
                )
            shape.append(known.pop() if known else None)
        return tuple(shape)

    def perform(self, node, inputs, output_storage):
        dtype = node.outputs[0].type.dtype
        try:
            result = np.concatenate(inputs, axis=self.axis, dtype=dtype, casting="unsafe")
        except ValueError as err:
            raise ValueError(
                f"{self}: cannot join arrays of shapes {[x.shape for x in inputs]}: {err}"
            ) from err
        output_storage[0][0] = result

    def infer_shape(self, fgraph, node, input_shapes):
        shape = list(input_shapes[0])  # the other lengths are equal (checked by perform)
        total = input_shapes[0][self.axis]
        for other in input_shapes[1:]:
            total = add(total, other[self.axis])
        shape[self.axis] = total
        return [tuple(shape)]

    def grad(self, inputs, output_grads):
        (gz,) = output_grads
        sizes = [shape_i(x, self.axis) for x in inputs]
        parts = Split(len(inputs), self.axis)(gz, *sizes, return_list=True)
        return [
            x.zeros_like(dtype=grad_dtype(x))
            if x.type.dtype in discrete_dtypes
            else part.astype(x.type.dtype)
            for x, part in zip(inputs, parts)
        ]

    def R_op(self, inputs, eval_points):
        if all(ev is None for ev in eval_points):
            return [None]
        evs = [x.zeros_like() if ev is None else ev for x, ev in zip(inputs, eval_points)]
        return [self(*evs)]  # linear


def join(axis: int, *tensors: Any) -> Variable:
    """``tensors`` concatenated along ``axis`` (PyTensor's argument order: axis first)."""
    tensors = [as_tensor_variable(t) for t in tensors]
    if not tensors:
        raise ValueError("join needs at least one tensor")
    axis = _normalize_axis(axis, tensors[0].type.ndim, "join")
    if len(tensors) == 1:
        return tensors[0]
    return Join(axis)(*tensors)


def concatenate(tensor_list: Sequence[Any], axis: int | None = 0) -> Variable:
    """``tensor_list`` joined along ``axis``, like ``np.concatenate``.

    With ``axis=None`` the tensors are flattened first.
    """
    tensors = [as_tensor_variable(t) for t in tensor_list]
    if not tensors:
        raise ValueError("concatenate needs at least one tensor")
    if axis is None:
        tensors = [t.flatten() if t.type.ndim != 1 else t for t in tensors]
        axis = 0
    if any(t.type.ndim == 0 for t in tensors):
        raise ValueError("concatenate: zero-dimensional tensors cannot be concatenated")
    return join(axis, *tensors)


def stack(tensors: Sequence[Any], axis: int = 0) -> Variable:
    """``tensors`` (all of one shape) stacked along a new dimension ``axis``, like ``np.stack``."""
    if isinstance(tensors, Variable):
        raise TypeError("stack expects a sequence of tensors, e.g. stack([x, y])")
    tensors = [as_tensor_variable(t) for t in tensors]
    if not tensors:
        raise ValueError("stack needs at least one tensor")
    ndim = tensors[0].type.ndim
    if any(t.type.ndim != ndim for t in tensors):
        raise TypeError(
            "stack: all tensors must have the same number of dimensions, got "
            f"{[str(t.type) for t in tensors]}"
        )
    axis = _normalize_axis(axis, ndim + 1, "stack")
    expanded = [expand_dims(t, axis) for t in tensors]
    if len(expanded) == 1:
        return expanded[0]
    return Join(axis)(*expanded)


register_stacker(stack)


def vstack(tensors: Sequence[Any]) -> Variable:
    """``tensors`` joined along their first dimension (1-d ones as rows), like ``np.vstack``."""
    from_rows = [_at_least(as_tensor_variable(t), 2) for t in tensors]
    return concatenate(from_rows, axis=0)


def hstack(tensors: Sequence[Any]) -> Variable:
    """``tensors`` joined along their second dimension (1-d ones end to end), ``np.hstack``."""
    tensors = [_at_least(as_tensor_variable(t), 1) for t in tensors]
    return concatenate(tensors, axis=0 if tensors and tensors[0].type.ndim == 1 else 1)


def _at_least(x: Variable, ndim: int) -> Variable:
    """``x`` with leading length-1 dims added up to ``ndim`` (as np.atleast_1d/2d do)."""
    for _ in range(ndim - x.type.ndim):
        x = expand_dims(x, 0)
    return x


class Split(Op):
    """``x`` cut along ``axis`` into ``n_splits`` consecutive pieces of the given lengths.

    The inputs are ``x`` and one integer 0-d length per piece; the lengths must add up to
    ``x.shape[axis]``. The outputs are views of ``x``.
    """

    __props__ = ("n_splits", "axis")

    def __init__(self, n_splits: int, axis: int) -> None:
        if int(n_splits) < 1 or int(axis) < 0:
            raise ValueError(f"Split expects n_splits >= 1 and axis >= 0, got {n_splits}, {axis}")
        self.n_splits = int(n_splits)
        self.axis = int(axis)
        self.view_map = {i: [0] for i in range(self.n_splits)}

    def make_node(self, x: Any, *sizes: Any) -> Apply:
        x = as_tensor_variable(x)
        if len(sizes) != self.n_splits:
            raise TypeError(f"{self} expects {self.n_splits} lengths, got {len(sizes)}")
        if self.axis >= x.type.ndim:
            raise np.exceptions.AxisError(f"{self}: axis {self.axis} is out of range for {x.type}")
        sizes = [as_size(s, "Split") for s in sizes]
        static = [static_int(s) for s in sizes]
        total = x.type.shape[self.axis]
        if None not in static and total is not None and sum(static) != total:
            raise ValueError(
                f"{self}: the lengths {static} do not add up to {total}, the length of axis "
                f"{self.axis} of {x.type}"
            )
        outputs = []
        for length in static:
            shape = list(x.type.shape)
            shape[self.axis] = length
            outputs.append(tensor_type(x.type.dtype, tuple(shape))())
        return Apply(self, [x, *sizes], outputs)

    def perform(self, node, inputs, output_storage):
        x, *sizes = inputs
        sizes = [int(s) for s in sizes]
        if any(s < 0 for s in sizes) or sum(sizes) != x.shape[self.axis]:
            raise ValueError(
                f"{self}: cannot split an axis of length {x.shape[self.axis]} (shape "
                f"{x.shape}) into pieces of lengths {sizes}"
            )
        pieces = np.split(x, np.cumsum(sizes)[:-1], axis=self.axis)
        for cell, piece in zip(output_storage, pieces):
            cell[0] = piece

    def infer_shape(self, fgraph, node, input_shapes):
        x_shape = input_shapes[0]
        shapes = []
        for size in node.inputs[1:]:
            shape = list(x_shape)
            shape[self.axis] = size
            shapes.append(tuple(shape))
        return shapes

    def connection_pattern(self, node):
        return [[True] * self.n_splits] + [[False] * self.n_splits] * self.n_splits

    def L_op(self, inputs, outputs, output_grads):
        x = inputs[0]
        rest = [disconnected() for _ in inputs[1:]]
        if x.type.dtype in discrete_dtypes:
            return [x.zeros_like(dtype=grad_dtype(x)), *rest]
        # an unused piece contributes zeros of its shape
        parts = [
            out.zeros_like(dtype=x.type.dtype) if is_disconnected(g) else g.astype(x.type.dtype)
            for out, g in zip(outputs, output_grads)
        ]
        return [Join(self.axis)(*parts) if len(parts) > 1 else parts[0], *rest]

    def R_op(self, inputs, eval_points):
        if eval_points[0] is None:
            return [None] * self.n_splits
        return self(eval_points[0], *inputs[1:], return_list=True)  # linear in x


def split(x: Any, splits_size: Any, n_splits: int | None = None, axis: int = 0) -> list:
    """``x`` cut along ``axis`` into pieces of lengths ``splits_size`` (PyTensor's ``split``).

    Parameters
    ----------
    x
        The tensor to split.
    splits_size
        The lengths of the pieces: a sequence of ints or integer scalars, or an int vector of
        known length. They must add up to ``x.shape[axis]`` (checked at run time when not known
        before). A plain Python int ``n`` asks instead for ``n`` pieces of equal length, as
        ``np.split(x, n)`` does (the length of the axis must be a multiple of ``n``). Note that
        a sequence gives lengths, not NumPy's split points.
    n_splits
        The number of pieces (checked against ``splits_size`` when given); it also gives the
        length of a ``splits_size`` vector whose length the graph does not know.
    axis
        The axis to cut along (negative counts from the end).
    """
    x = as_tensor_variable(x)
    axis = _normalize_axis(axis, x.type.ndim, "split")
    if isinstance(splits_size, (int, np.integer)) and not isinstance(splits_size, bool):
        sizes = _equal_sections(x, int(splits_size), axis)
    else:
        sizes = shape_entries(_of_length(splits_size, n_splits), "split")
    if n_splits is not None and int(n_splits) != len(sizes):
        raise ValueError(f"split: n_splits={n_splits} but {len(sizes)} lengths were given")
    return Split(len(sizes), axis)(x, *sizes, return_list=True)


def _of_length(splits_size: Any, n_splits: int | None) -> Any:
    """A symbolic vector of lengths, given its static length ``n_splits`` if it has none."""
    unknown = isinstance(splits_size, Variable) and splits_size.type.shape == (None,)
    if n_splits is None or not unknown:
        return splits_size
    return specify_shape(splits_size, (int(n_splits),))


def _equal_sections(x: Variable, sections: int, axis: int) -> list:
    """``sections`` equal lengths for ``axis`` of ``x`` (``np.split`` with an int)."""
    if sections < 1:
        raise ValueError(f"split: the number of sections must be positive, got {sections}")
    length = x.type.shape[axis]
    if length is not None:
        if length % sections:
            raise ValueError(
                f"split: an axis of length {length} cannot be divided into {sections} equal "
                "sections"
            )
        return [length // sections] * sections
    # checked when the function runs: Split refuses lengths that do not add up
    return [int_div(shape_i(x, axis), sections)] * sections


__all__ = [
    "Join",
    "Split",
    "concatenate",
    "hstack",
    "join",
    "split",
    "stack",
    "vstack",
]
