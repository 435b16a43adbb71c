"""Shapes as graph values: ``Shape``, ``Shape_i`` and ``SpecifyShape``."""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from arignote.graph.basic import Apply, Variable
from arignote.graph.grad_types import disconnected
from arignote.graph.op import Op
from arignote.scalar.basic import discrete_dtypes, grad_dtype
from arignote.tensor.basic import (
    NotScalarConstantError,
    as_tensor_variable,
    constant_value_rule,
    get_scalar_constant_value,
    make_vector,
)
from arignote.tensor.elemwise import DimShuffle
from arignote.tensor.type import TensorType, tensor_type


class Shape(Op):
    """The shape of a tensor, as an int64 vector."""

    __props__ = ()

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        return Apply(self, [x], [tensor_type("int64", (x.type.ndim,))()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = np.asarray(inputs[0].shape, dtype="int64")

    def infer_shape(self, fgraph, node, input_shapes):
        return [(len(input_shapes[0]),)]

    def connection_pattern(self, node):
        return [[False]]  # the values of x do not matter, only its shape

    def grad(self, inputs, output_grads):
        return [disconnected()]

    def R_op(self, inputs, eval_points):
        return [None]

    def do_constant_folding(self, fgraph, node):
        return False  # the shape of a constant is folded by the shape rewrites instead


class Shape_i(Op):
    """The length of dimension ``i`` of a tensor, as an int64 0-d tensor."""

    __props__ = ("i",)

    def __init__(self, i: int) -> None:
        if int(i) < 0:
            raise ValueError(f"Shape_i expects a non-negative dimension, got {i}")
        self.i = int(i)

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        if self.i >= x.type.ndim:
            raise ValueError(f"{self}: {x} has only {x.type.ndim} dimensions")
        return Apply(self, [x], [tensor_type("int64", ())()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = np.asarray(inputs[0].shape[self.i], dtype="int64")

    def infer_shape(self, fgraph, node, input_shapes):
        return [()]

    def connection_pattern(self, node):
        return [[False]]

    def grad(self, inputs, output_grads):
        return [disconnected()]

    def R_op(self, inputs, eval_points):
        return [None]

    def __str__(self) -> str:
        return f"Shape_i{{{self.i}}}"


_shape = Shape()


def shape(x: Any) -> Variable:
    """The shape of ``x`` as a symbolic int64 vector."""
    return _shape(x)


def shape_i(x: Any, i: int) -> Variable:
    """The length of dimension ``i`` of ``x``; a constant when the static shape knows it."""
    x = as_tensor_variable(x)
    static = x.type.shape[i]
    if static is not None:
        return as_tensor_variable(np.int64(static))
    return Shape_i(i % x.type.ndim)(x)


def shape_tuple(x: Any) -> tuple[Variable, ...]:
    """One int64 0-d variable (or constant) per dimension of ``x``."""
    x = as_tensor_variable(x)
    return tuple(shape_i(x, i) for i in range(x.type.ndim))


@constant_value_rule.register(Shape_i)
def _shape_i_value(op, node, index, recurse):
    static = node.inputs[0].type.shape[op.i]
    if static is None:
        raise NotScalarConstantError(f"the length of dimension {op.i} is not known statically")
    return np.int64(static)


class SpecifyShape(Op):
    """Asserts at run time that a tensor has the given lengths, and records them statically.

    ``specified[d]`` says whether dimension ``d`` has a length input; the inputs are the tensor
    followed by one int64 0-d tensor per specified dimension.
    """

    __props__ = ("specified",)
    view_map = {0: [0]}

    def __init__(self, specified: Sequence[bool]) -> None:
        self.specified = tuple(bool(s) for s in specified)

    def make_node(self, x: Any, *lengths: Any) -> Apply:
        x = as_tensor_variable(x)
        if x.type.ndim != len(self.specified):
            raise ValueError(f"{self} expects a {len(self.specified)}-d tensor, got {x.type}")
        lengths = [as_tensor_variable(s) for s in lengths]
        if len(lengths) != sum(self.specified):
            raise TypeError(f"{self} expects {sum(self.specified)} lengths, got {len(lengths)}")
        for s in lengths:
            if s.type.ndim != 0 or s.type.dtype not in (
                "int8",
                "int16",
                "int32",
                "int64",
                "uint8",
                "uint16",
                "uint32",
                "uint64",
            ):
                raise TypeError(f"SpecifyShape lengths must be integer scalars, got {s.type}")
        return Apply(self, [x, *lengths], [tensor_type(x.type.dtype, self._static(x, lengths))()])

    def _static(self, x: Variable, lengths: list) -> tuple:
        result = []
        values = iter(lengths)
        for known, declared in zip(x.type.shape, self.specified):
            if not declared:
                result.append(known)
                continue
            try:
                value = int(get_scalar_constant_value(next(values)))
            except NotScalarConstantError:
                result.append(known)
                continue
            if known is not None and known != value:
                raise ValueError(f"{x} has static length {known}, cannot specify {value}")
            result.append(value)
        return tuple(result)

    def perform(self, node, inputs, output_storage):
        x, *lengths = inputs
        expected = iter(lengths)
        for d, declared in enumerate(self.specified):
            if declared:
                want = int(next(expected))
                if x.shape[d] != want:
                    raise AssertionError(
                        f"SpecifyShape: dimension {d} has length {x.shape[d]}, expected {want} "
                        f"(shape {x.shape})"
                    )
        output_storage[0][0] = x

    def infer_shape(self, fgraph, node, input_shapes):
        x_shape = input_shapes[0]
        lengths = iter(node.inputs[1:])
        return [tuple(next(lengths) if s else x_shape[d] for d, s in enumerate(self.specified))]

    def connection_pattern(self, node):
        return [[True]] + [[False]] * (len(node.inputs) - 1)

    def grad(self, inputs, output_grads):
        (gz,) = output_grads
        x = inputs[0]
        if x.type.dtype in discrete_dtypes:
            gx = x.zeros_like(dtype=grad_dtype(x))  # integer-valued output: step function
        else:
            gx = specify_shape(gz, _lengths_of(self, inputs))
        return [gx] + [disconnected()] * (len(inputs) - 1)

    def R_op(self, inputs, eval_points):
        if eval_points[0] is None:
            return [None]
        return [self(eval_points[0], *inputs[1:])]  # linear in x

    def __str__(self) -> str:
        return "SpecifyShape"


def _lengths_of(op: SpecifyShape, inputs: list) -> tuple:
    lengths = iter(inputs[1:])
    return tuple(next(lengths) if s else None for s in op.specified)


def specify_shape(x: Any, shape: Sequence[Any] | Variable) -> Variable:
    """``x`` with its dimension lengths declared (None: unconstrained); checked at run time."""
    x = as_tensor_variable(x)
    if isinstance(shape, Variable):
        if shape.type.ndim != 1 or shape.type.shape[0] is None:
            raise TypeError("specify_shape takes a sequence of lengths or a vector of known length")
        shape = [shape[i] for i in range(shape.type.shape[0])]
    shape = tuple(shape)
    if len(shape) != x.type.ndim:
        raise ValueError(f"specify_shape: {x} has {x.type.ndim} dimensions, got shape {shape}")
    if all(s is None for s in shape):
        return x
    lengths = [s for s in shape if s is not None]
    return SpecifyShape(tuple(s is not None for s in shape))(x, *lengths)


def specify_broadcastable(x: Any, *axes: int) -> Variable:
    """``x`` with dimensions ``axes`` declared of length 1 (so they may broadcast)."""
    x = as_tensor_variable(x)
    shape = [None] * x.type.ndim
    for a in axes:
        if not -x.type.ndim <= a < x.type.ndim:  # AxisError is both ValueError and IndexError
            raise np.exceptions.AxisError(f"specify_broadcastable: axis {a} is out of range")
        shape[a] = 1
    return specify_shape(x, shape)


def _specify_static_shape(var: Variable, target: tuple) -> Variable:
    return specify_shape(var, [t if s is None else None for s, t in zip(var.type.shape, target)])


TensorType.shape_specifier = staticmethod(_specify_static_shape)


def shape_padleft(x: Any, n_ones: int = 1) -> Variable:
    """``x`` with ``n_ones`` length-1 dimensions added in front."""
    x = as_tensor_variable(x)
    return DimShuffle(x.type.ndim, ["x"] * n_ones + list(range(x.type.ndim)))(x)


def shape_padright(x: Any, n_ones: int = 1) -> Variable:
    """``x`` with ``n_ones`` length-1 dimensions added at the end."""
    x = as_tensor_variable(x)
    return DimShuffle(x.type.ndim, list(range(x.type.ndim)) + ["x"] * n_ones)(x)


def shape_padaxis(x: Any, axis: int) -> Variable:
    """``x`` with a length-1 dimension inserted at ``axis`` (``np.expand_dims``)."""
    x = as_tensor_variable(x)
    ndim = x.type.ndim + 1
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(f"axis {axis} is out of bounds for a {ndim}-d result")
    axis %= ndim
    order: list = list(range(x.type.ndim))
    order.insert(axis, "x")
    return DimShuffle(x.type.ndim, order)(x)


def as_axis(value: Any, context: str, what: str = "an axis") -> int:
    """An axis (or another integer argument) as a Python int. Like NumPy, floats and booleans
    are refused with a ``TypeError`` rather than truncated."""
    if not isinstance(value, (bool, np.bool_)):
        try:
            return operator.index(value)
        except TypeError:
            pass
    raise TypeError(f"{context}: {what} must be an integer, got {value!r}")


def _normalize_axis_list(axis: Any, ndim: int, context: str) -> list[int]:
    """``axis`` (an int or a sequence of ints, negatives allowed) as distinct non-negative ints."""
    axes = [axis] if np.ndim(axis) == 0 else list(axis)
    normalized = []
    for a in axes:
        a = as_axis(a, context)
        if not -ndim <= a < ndim:
            raise np.exceptions.AxisError(
                f"{context}: axis {a} is out of bounds for {ndim} dimensions"
            )
        normalized.append(a % ndim)
    if len(set(normalized)) != len(normalized):
        raise ValueError(f"{context}: repeated axis in {axis}")
    return normalized


def expand_dims(x: Any, axis: Any) -> Variable:
    """``x`` with length-1 dimensions inserted at positions ``axis`` of the result.

    Like ``np.expand_dims``: ``axis`` is an int or a tuple, negatives counting from the end of
    the result.
    """
    x = as_tensor_variable(x)
    n_new = 1 if np.ndim(axis) == 0 else len(axis)
    new_axes = set(_normalize_axis_list(axis, x.type.ndim + n_new, "expand_dims"))
    kept = iter(range(x.type.ndim))
    order = ["x" if d in new_axes else next(kept) for d in range(x.type.ndim + n_new)]
    return DimShuffle(x.type.ndim, order)(x)


def squeeze(x: Any, axis: Any = None) -> Variable:
    """``x`` without the length-1 dimensions ``axis``, like ``np.squeeze``.

    Without ``axis``, only the dimensions whose length is statically known to be 1 (in
    ``x.type.shape``) are removed: unlike NumPy, a dimension that turns out to have length 1
    only when the function runs is kept, since the number of dimensions of the result must be
    known when the graph is built. Name it in ``axis`` (or ``specify_shape`` it) to remove it.

    A dimension named in ``axis`` whose length is not known statically is checked at run time
    (through :func:`specify_shape`, which raises an ``AssertionError`` naming the dimension,
    its length and the expected 1); one statically known to differ from 1 raises
    ``ValueError`` when the graph is built.
    """
    x = as_tensor_variable(x)
    if axis is None:
        axes = [d for d, s in enumerate(x.type.shape) if s == 1]
    else:
        axes = _normalize_axis_list(axis, x.type.ndim, "squeeze")
    for d in axes:
        if x.type.shape[d] not in (None, 1):
            raise ValueError(
                f"squeeze: cannot remove dimension {d} of {x}, whose length is {x.type.shape[d]}"
            )
    if any(x.type.shape[d] is None for d in axes):
        x = specify_shape(x, [1 if d in axes else None for d in range(x.type.ndim)])
    return DimShuffle(x.type.ndim, [d for d in range(x.type.ndim) if d not in axes])(x)


def transpose(x: Any, axes: Any = None) -> Variable:
    """``x`` with its dimensions permuted (reversed by default), like ``np.transpose``."""
    x = as_tensor_variable(x)
    if axes is None:
        order = list(reversed(range(x.type.ndim)))
    else:
        order = _normalize_axis_list(axes, x.type.ndim, "transpose")
        if len(order) != x.type.ndim:
            raise ValueError(
                f"transpose: axes {axes} do not list each of the {x.type.ndim} dimensions once"
            )
    return DimShuffle(x.type.ndim, order)(x)


permute_dims = transpose


def moveaxis(x: Any, source: Any, destination: Any) -> Variable:
    """``x`` with dimensions ``source`` moved to positions ``destination``, ``np.moveaxis``."""
    x = as_tensor_variable(x)
    src = _normalize_axis_list(source, x.type.ndim, "moveaxis")
    dst = _normalize_axis_list(destination, x.type.ndim, "moveaxis")
    if len(src) != len(dst):
        raise ValueError("moveaxis: source and destination must have the same number of axes")
    order = [d for d in range(x.type.ndim) if d not in src]
    for dest, s in sorted(zip(dst, src)):
        order.insert(dest, s)
    return DimShuffle(x.type.ndim, order)(x)


def swapaxes(x: Any, axis1: int, axis2: int) -> Variable:
    """``x`` with dimensions ``axis1`` and ``axis2`` exchanged, like ``np.swapaxes``."""
    x = as_tensor_variable(x)
    a, b = (_normalize_axis_list(ax, x.type.ndim, "swapaxes")[0] for ax in (axis1, axis2))
    order = list(range(x.type.ndim))
    order[a], order[b] = order[b], order[a]
    return DimShuffle(x.type.ndim, order)(x)


def _atleast(arrays: tuple, ndim: int, place) -> Any:
    results = []
    for a in arrays:
        a = as_tensor_variable(a)
        results.append(a if a.type.ndim >= ndim else DimShuffle(a.type.ndim, place(a))(a))
    return results[0] if len(results) == 1 else results


def atleast_1d(*arrays: Any) -> Any:
    """Each array with at least one dimension (0-d ones become length-1 vectors)."""
    return _atleast(arrays, 1, lambda a: ["x"])


def atleast_2d(*arrays: Any) -> Any:
    """Each array with at least two dimensions, like ``np.atleast_2d`` (vectors become rows)."""
    return _atleast(arrays, 2, lambda a: ["x"] * (2 - a.type.ndim) + list(range(a.type.ndim)))


def atleast_3d(*arrays: Any) -> Any:
    """Each array with at least three dimensions, like ``np.atleast_3d``.

    A vector of length n becomes (1, n, 1) and a matrix (m, n) becomes (m, n, 1).
    """
    patterns = {0: ["x", "x", "x"], 1: ["x", 0, "x"], 2: [0, 1, "x"]}
    return _atleast(arrays, 3, lambda a: patterns[a.type.ndim])


def as_shape_vector(shape: Any) -> Variable:
    """A shape given as ints, 0-d variables or an int vector, as an int64 vector."""
    if isinstance(shape, Variable) and shape.type.ndim == 1:
        if shape.owner is not None and isinstance(shape.owner.op, Shape):
            # x.shape as separate lengths: later ops can read them without indexing
            return make_vector(*shape_tuple(shape.owner.inputs[0]), dtype="int64")
        return shape
    entries = [shape] if np.ndim(shape) == 0 and not isinstance(shape, (list, tuple)) else shape
    return make_vector(*[as_tensor_variable(s) for s in entries], dtype="int64")


__all__ = [
    "Shape",
    "Shape_i",
    "SpecifyShape",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "expand_dims",
    "moveaxis",
    "permute_dims",
    "shape",
    "shape_i",
    "shape_padaxis",
    "shape_padleft",
    "shape_padright",
    "shape_tuple",
    "specify_broadcastable",
    "specify_shape",
    "squeeze",
    "swapaxes",
    "transpose",
]
