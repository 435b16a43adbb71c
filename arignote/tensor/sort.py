"""Sorting and searching: sort, argsort, searchsorted and unique."""

from __future__ import annotations

from typing import Any

import numpy as np

from arignote.graph.basic import Apply, Variable
from arignote.graph.grad_types import disconnected, is_disconnected
from arignote.graph.op import Op
from arignote.scalar.basic import grad_dtype, integer_dtypes
from arignote.tensor import math as tm
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.indexing_ops import (
    AddAlongAxis,
    TakeAlongAxis,
    normalize_axis,
    take,
)
from arignote.tensor.reshape import flatten, reshape
from arignote.tensor.shape import shape
from arignote.tensor.subtensor import getitem, inc_subtensor
from arignote.tensor.type import tensor_type

SORT_KINDS = ("quicksort", "mergesort", "heapsort", "stable")


def _sort_kind(kind: str | None, stable: bool | None, name: str) -> str:
    if stable:
        if kind is not None and kind not in ("stable", "mergesort"):
            raise ValueError(f"{name}: stable=True conflicts with kind={kind!r}")
        return "stable"
    kind = "quicksort" if kind is None else kind
    if kind not in SORT_KINDS:
        raise ValueError(f"{name}: kind must be one of {SORT_KINDS}, got {kind!r}")
    return kind


class _AlongAxisOp(Op):
    """Shared checks of the ops that work along one axis with a sorting ``kind``."""

    __props__ = ("axis", "kind")

    def __init__(self, axis: int, kind: str = "quicksort") -> None:
        if int(axis) < 0:
            raise ValueError(f"{type(self).__name__} expects a non-negative axis, got {axis}")
        self.axis = int(axis)
        self.kind = _sort_kind(kind, None, type(self).__name__)

    def _check(self, x: Variable) -> None:
        if self.axis >= x.type.ndim:
            raise np.exceptions.AxisError(f"{self}: axis {self.axis} is out of bounds for {x.type}")

    def infer_shape(self, fgraph, node, input_shapes):
        return [input_shapes[0]]

    def __str__(self) -> str:
        return f"{type(self).__name__}{{axis={self.axis}, kind={self.kind}}}"


class Sort(_AlongAxisOp):
    """``np.sort(x, axis, kind)``."""

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        self._check(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = np.sort(inputs[0], axis=self.axis, kind=self.kind)

    def grad(self, inputs, output_grads):
        (x,), (gz,) = inputs, output_grads
        # sorted = take_along_axis(x, p) for the permutation p = argsort(x): its adjoint sends
        # each cotangent back to the position its value came from
        permutation = Argsort(self.axis, self.kind)(x)
        zeros = tm.zeros_like(x, dtype=gz.type.dtype)
        return [AddAlongAxis(self.axis)(zeros, permutation, gz)]

    def R_op(self, inputs, eval_points):
        (x,), (ev,) = inputs, eval_points
        if ev is None:
            return [None]
        return [TakeAlongAxis(self.axis)(ev, Argsort(self.axis, self.kind)(x))]


class Argsort(_AlongAxisOp):
    """``np.argsort(x, axis, kind)``, as int64."""

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        self._check(x)
        return Apply(self, [x], [tensor_type("int64", x.type.shape)()])

    def perform(self, node, inputs, output_storage):
        order = np.argsort(inputs[0], axis=self.axis, kind=self.kind)
        output_storage[0][0] = order.astype(np.int64, copy=False)

    def grad(self, inputs, output_grads):
        (x,) = inputs
        # the order does not change under a small perturbation of distinct values
        return [tm.zeros_like(x, dtype=grad_dtype(x))]

    def R_op(self, inputs, eval_points):
        return [None]  # integer output


def _flatten_for_axis(a: Any, axis: int | None, name: str) -> tuple[Variable, int]:
    a = as_tensor_variable(a)
    if axis is None:
        return flatten(a), 0
    return a, normalize_axis(axis, a.type.ndim, name)


def _no_order(order: Any) -> None:
    if order is not None:
        raise ValueError("Cannot specify order when the array has no fields.")


def sort(a: Any, axis: int | None = -1, kind: str | None = None, order=None, *, stable=None):
    """``a`` sorted along ``axis`` (``None``: flattened first), like ``np.sort``.

    ``kind`` is one of "quicksort" (default), "mergesort", "heapsort", "stable"; ``stable=True``
    asks for a stable sort. The gradient sends each cotangent back through the permutation.
    """
    _no_order(order)
    a, axis = _flatten_for_axis(a, axis, "sort")
    return Sort(axis, _sort_kind(kind, stable, "sort"))(a)


def argsort(a: Any, axis: int | None = -1, kind: str | None = None, order=None, *, stable=None):
    """The int64 indices that sort ``a`` along ``axis`` (``None``: flattened), like
    ``np.argsort``; ``take_along_axis(a, argsort(a, axis), axis)`` is ``sort(a, axis)``."""
    _no_order(order)
    a, axis = _flatten_for_axis(a, axis, "argsort")
    return Argsort(axis, _sort_kind(kind, stable, "argsort"))(a)


# -- searchsorted ----------------------------------------------------------------------------


class SearchSorted(Op):
    """``np.searchsorted(a, v, side, sorter)``: where ``v`` would go in the sorted vector ``a``.

    Inputs: ``a``, ``v`` and optionally ``sorter`` (the permutation that sorts ``a``).
    """

    __props__ = ("side",)

    def __init__(self, side: str = "left") -> None:
        if side not in ("left", "right"):
            raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
        self.side = side

    def make_node(self, a: Any, v: Any, sorter: Any = None) -> Apply:
        a, v = as_tensor_variable(a), as_tensor_variable(v)
        if a.type.ndim != 1:
            raise ValueError(f"searchsorted: a must be a vector, got {a.type}")
        inputs = [a, v]
        if sorter is not None:
            sorter = as_tensor_variable(sorter)
            if sorter.type.ndim != 1 or sorter.type.dtype not in integer_dtypes:
                raise TypeError(
                    f"searchsorted: sorter must be an integer vector, got {sorter.type}"
                )
            inputs.append(sorter)
        return Apply(self, inputs, [tensor_type("int64", v.type.shape)()])

    def perform(self, node, inputs, output_storage):
        a, v, *sorter = inputs
        found = np.searchsorted(a, v, side=self.side, sorter=sorter[0] if sorter else None)
        output_storage[0][0] = np.asarray(found, dtype=np.int64)

    def infer_shape(self, fgraph, node, input_shapes):
        return [input_shapes[1]]

    def connection_pattern(self, node):
        return [[True], [True]] + [[False]] * (len(node.inputs) - 2)

    def grad(self, inputs, output_grads):
        a, v = inputs[:2]
        # insertion points are piecewise constant in a and v
        zeros = [tm.zeros_like(a, dtype=grad_dtype(a)), tm.zeros_like(v, dtype=grad_dtype(v))]
        return zeros + [disconnected() for _ in inputs[2:]]

    def R_op(self, inputs, eval_points):
        return [None]  # integer output

    def __str__(self) -> str:
        return f"SearchSorted{{side={self.side}}}"


def searchsorted(a: Any, v: Any, side: str = "left", sorter: Any = None) -> Variable:
    """Indices where the elements of ``v`` would be inserted into the sorted vector ``a`` to keep
    it sorted, like ``np.searchsorted`` (``side``: "left" or "right"; ``sorter``: argsort(a)
    when ``a`` is not sorted itself)."""
    op = SearchSorted(side)
    return op(a, v) if sorter is None else op(a, v, sorter)


# -- unique ----------------------------------------------------------------------------------


class UniqueCount(Op):
    """How many distinct values (``axis=None``) or slices along ``axis`` a tensor has.

    It is the length of ``unique``'s outputs, which depends on the values: computing it takes a
    sort, but not the outputs themselves.
    """

    __props__ = ("axis", "equal_nan")

    def __init__(self, axis: int | None = None, equal_nan: bool = True) -> None:
        self.axis = None if axis is None else int(axis)
        self.equal_nan = bool(equal_nan)

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        return Apply(self, [x], [tensor_type("int64", ())()])

    def perform(self, node, inputs, output_storage):
        values = np.unique(inputs[0], axis=self.axis, equal_nan=self.equal_nan)
        length = values.size if self.axis is None else values.shape[self.axis]
        output_storage[0][0] = np.asarray(length, dtype=np.int64)

    def infer_shape(self, fgraph, node, input_shapes):
        return [()]

    def connection_pattern(self, node):
        return [[False]]

    def grad(self, inputs, output_grads):
        return [disconnected()]

    def R_op(self, inputs, eval_points):
        return [None]


class Unique(Op):
    """``np.unique(x, return_index, return_inverse, return_counts, axis, equal_nan)``.

    Outputs: the sorted unique values (or slices along ``axis``), then the requested int64
    outputs in NumPy's order: first indices, inverse (``x``'s shape for ``axis=None``), counts.
    """

    __props__ = ("return_index", "return_inverse", "return_counts", "axis", "equal_nan")

    def __init__(
        self,
        return_index: bool = False,
        return_inverse: bool = False,
        return_counts: bool = False,
        axis: int | None = None,
        equal_nan: bool = True,
    ) -> None:
        self.return_index = bool(return_index)
        self.return_inverse = bool(return_inverse)
        self.return_counts = bool(return_counts)
        if axis is not None and int(axis) < 0:
            raise ValueError(f"Unique expects a non-negative axis, got {axis}")
        self.axis = None if axis is None else int(axis)
        self.equal_nan = bool(equal_nan)

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        if self.axis is not None and self.axis >= x.type.ndim:
            raise np.exceptions.AxisError(f"{self}: axis {self.axis} is out of bounds for {x.type}")
        if self.axis is None:
            values, inverse = (None,), x.type.shape
        else:
            values = tuple(None if d == self.axis else s for d, s in enumerate(x.type.shape))
            inverse = (x.type.shape[self.axis],)
        shapes = [values]
        shapes += [(None,)] if self.return_index else []
        shapes += [inverse] if self.return_inverse else []
        shapes += [(None,)] if self.return_counts else []
        dtypes = [x.type.dtype] + ["int64"] * (len(shapes) - 1)
        return Apply(self, [x], [tensor_type(d, s)() for d, s in zip(dtypes, shapes)])

    def perform(self, node, inputs, output_storage):
        results = np.unique(
            inputs[0],
            return_index=self.return_index,
            return_inverse=self.return_inverse,
            return_counts=self.return_counts,
            axis=self.axis,
            equal_nan=self.equal_nan,
        )
        results = results if isinstance(results, tuple) else (results,)
        for cell, value, out in zip(output_storage, results, node.outputs):
            cell[0] = np.asarray(value, dtype=out.type.dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        # Data-dependent: the number of unique entries is counted from the values.
        (x_shape,) = input_shapes
        count = UniqueCount(self.axis, self.equal_nan)(node.inputs[0])
        if self.axis is None:
            values, inverse = (count,), x_shape
        else:
            values = tuple(count if d == self.axis else s for d, s in enumerate(x_shape))
            inverse = (x_shape[self.axis],)
        shapes = [values]
        shapes += [(count,)] if self.return_index else []
        shapes += [inverse] if self.return_inverse else []
        shapes += [(count,)] if self.return_counts else []
        return shapes

    def _n_outputs(self) -> int:
        return 1 + self.return_index + self.return_inverse + self.return_counts

    def _first_index(self, x: Variable) -> Variable:
        return Unique(True, False, False, self.axis, self.equal_nan)(x)[1]

    def L_op(self, inputs, outputs, output_grads):
        (x,), gz = inputs, output_grads[0]
        if is_disconnected(gz):
            return [tm.zeros_like(x, dtype=grad_dtype(x))]
        # unique values are copies of the elements at their first occurrence (where the values
        # are distinct, which is where the derivative exists)
        first = self._first_index(x)
        if self.axis is None:
            flat = flatten(x)
            scattered = inc_subtensor(getitem(tm.zeros_like(flat, dtype=gz.type.dtype), first), gz)
            return [reshape(scattered, shape(x), ndim=x.type.ndim)]
        index = (slice(None),) * self.axis + (first,)
        return [inc_subtensor(getitem(tm.zeros_like(x, dtype=gz.type.dtype), index), gz)]

    def R_op(self, inputs, eval_points):
        (x,), (ev,) = inputs, eval_points
        if ev is None:
            return [None] * self._n_outputs()
        # the values are the elements at the first occurrences: linear in x there
        values = take(ev, self._first_index(x), axis=self.axis)
        return [values] + [None] * (self._n_outputs() - 1)

    def __str__(self) -> str:
        flags = [f for f in ("return_index", "return_inverse", "return_counts") if getattr(self, f)]
        flags += [] if self.axis is None else [f"axis={self.axis}"]
        flags += [] if self.equal_nan else ["equal_nan=False"]
        return f"Unique{{{', '.join(flags)}}}" if flags else "Unique"


def unique(
    ar: Any,
    return_index: bool = False,
    return_inverse: bool = False,
    return_counts: bool = False,
    axis: int | None = None,
    *,
    equal_nan: bool = True,
    sorted: bool = True,
) -> Variable | tuple[Variable, ...]:
    """The sorted unique elements of ``ar`` (or unique slices along ``axis``), like
    ``np.unique``, with the optional indices of first occurrences, inverse (``x`` rebuilt as
    ``take(values, inverse)`` for ``axis=None``) and counts, as a tuple in NumPy's order.

    The values are always sorted: ``sorted=False`` (NumPy 2.3) is accepted, and NumPy allows a
    sorted result for it too.
    """
    del sorted  # see the docstring: sorting is always allowed
    ar = as_tensor_variable(ar)
    if axis is not None:
        axis = normalize_axis(axis, ar.type.ndim, "unique")
    op = Unique(return_index, return_inverse, return_counts, axis, equal_nan)
    outputs = op(ar, return_list=True)
    return outputs[0] if len(outputs) == 1 else tuple(outputs)


__all__ = [
    "Argsort",
    "SearchSorted",
    "Sort",
    "Unique",
    "UniqueCount",
    "argsort",
    "searchsorted",
    "sort",
    "unique",
]
