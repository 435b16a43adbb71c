"""``Reshape``: the same elements, read in C order, with another shape."""

from __future__ import annotations

from typing import Any

import numpy as np

from arignote.graph.basic import Apply, Constant, Variable
from arignote.graph.grad_types import disconnected
from arignote.graph.op import Op
from arignote.scalar.basic import discrete_dtypes, grad_dtype
from arignote.tensor import basic as tb
from arignote.tensor.basic import (
    MakeVector,
    NotScalarConstantError,
    as_tensor_variable,
    get_scalar_constant_value,
)
from arignote.tensor.math import eq, int_div, mul, switch
from arignote.tensor.shape import as_shape_vector, shape_i, shape_tuple
from arignote.tensor.type import tensor_type


def _static_entries(shape_var: Variable, ndim: int) -> list:
    """The entries of a shape vector that are known when the graph is built (None if not)."""
    if isinstance(shape_var, Constant):
        return [int(v) for v in shape_var.data]
    if shape_var.owner is not None and isinstance(shape_var.owner.op, MakeVector):
        entries = []
        for e in shape_var.owner.inputs:
            try:
                entries.append(int(get_scalar_constant_value(e)))
            except NotScalarConstantError:
                entries.append(None)
        return entries
    return [None] * ndim


def _entry_variables(shape_var: Variable, ndim: int) -> list:
    """One 0-d variable per entry of a shape vector."""
    if isinstance(shape_var, Constant):
        return [as_tensor_variable(np.int64(v)) for v in shape_var.data]
    if shape_var.owner is not None and isinstance(shape_var.owner.op, MakeVector):
        return list(shape_var.owner.inputs)
    if tb._vector_element is None:
        raise TypeError("Reading a computed shape vector needs arignote.tensor.subtensor")
    return [tb._vector_element(shape_var, i) for i in range(ndim)]


class Reshape(Op):
    """``np.reshape(x, shape)``; ``shape`` is an int vector of length ``ndim`` (one -1 allowed)."""

    __props__ = ("ndim",)
    view_map = {0: [0]}

    def __init__(self, ndim: int) -> None:
        self.ndim = int(ndim)

    def make_node(self, x: Any, shp: Any) -> Apply:
        x = as_tensor_variable(x)
        shp = as_tensor_variable(shp)
        if shp.type.ndim != 1 or shp.type.dtype not in ("int8", "int16", "int32", "int64"):
            raise TypeError(f"Reshape expects an integer vector as shape, got {shp.type}")
        if shp.type.shape[0] is not None and shp.type.shape[0] != self.ndim:
            raise ValueError(
                f"Reshape to {self.ndim} dims got a shape of length {shp.type.shape[0]}"
            )
        entries = _static_entries(shp, self.ndim)
        if sum(e == -1 for e in entries) > 1:
            raise ValueError("Reshape: at most one dimension may be -1")
        _check_entries(entries, x.type.shape)
        entries = _resolve_minus_one(entries, x.type.shape)
        return Apply(self, [x, shp], [tensor_type(x.type.dtype, tuple(entries))()])

    def perform(self, node, inputs, output_storage):
        x, shp = inputs
        if len(shp) != self.ndim:
            raise ValueError(f"Reshape to {self.ndim} dims got shape {tuple(shp)}")
        try:
            output_storage[0][0] = np.reshape(x, tuple(int(s) for s in shp))
        except ValueError as err:
            raise ValueError(
                f"Cannot reshape an array of shape {x.shape} into {tuple(shp)}"
            ) from err

    def infer_shape(self, fgraph, node, input_shapes):
        x_shape = input_shapes[0]
        static = node.outputs[0].type.shape
        requested = _entry_variables(node.inputs[1], self.ndim)
        if -1 not in _static_entries(node.inputs[1], self.ndim) and all(
            s is not None for s in static
        ):
            return [tuple(static)]
        total = _product(x_shape)
        known = _product([switch(eq(r, -1), 1, r) for r in requested])
        return [tuple(switch(eq(r, -1), int_div(total, known), r) for r in requested)]

    def connection_pattern(self, node):
        return [[True], [False]]

    def grad(self, inputs, output_grads):
        (x, _), (gz,) = inputs, output_grads
        if x.type.dtype in discrete_dtypes:
            return [x.zeros_like(dtype=grad_dtype(x)), disconnected()]  # integer-valued output
        return [reshape(gz, list(shape_tuple(x)), ndim=x.type.ndim), disconnected()]

    def R_op(self, inputs, eval_points):
        if eval_points[0] is None:
            return [None]
        return [self(eval_points[0], inputs[1])]  # linear


def _product(entries: list) -> Variable:
    """The product of int64 0-d ``entries`` (1 for none; ``mul`` needs two operands)."""
    if not entries:
        return as_tensor_variable(np.int64(1))
    if len(entries) == 1:
        return as_tensor_variable(entries[0])
    return mul(*entries)


def _resolve_minus_one(entries: list, in_shape: tuple) -> list:
    if -1 not in entries:
        return [None if e is None else e for e in entries]
    if None in entries or any(s is None for s in in_shape):
        return [None if e in (None, -1) else e for e in entries]
    total = int(np.prod(in_shape, dtype=np.int64))
    others = int(np.prod([e for e in entries if e != -1], dtype=np.int64))
    if others == 0 or total % others:
        raise ValueError(f"Cannot reshape a tensor of shape {in_shape} into {tuple(entries)}")
    return [total // others if e == -1 else e for e in entries]


def _check_entries(entries: list, in_shape: tuple) -> None:
    """Refuse lengths below -1, and static lengths whose product differs from the input's."""
    if any(e is not None and e < -1 for e in entries):
        raise ValueError(f"Reshape: invalid length in {tuple(entries)}")
    if None in entries or -1 in entries or None in in_shape:
        return
    if int(np.prod(entries, dtype=np.int64)) != int(np.prod(in_shape, dtype=np.int64)):
        raise ValueError(f"Cannot reshape a tensor of shape {in_shape} into {tuple(entries)}")


def reshape(x: Any, newshape: Any, ndim: int | None = None) -> Variable:
    """``x`` with shape ``newshape`` (ints, 0-d variables or an int vector; one -1 allowed)."""
    x = as_tensor_variable(x)
    shp = as_shape_vector(newshape)
    if ndim is None:
        ndim = shp.type.shape[0]
        if ndim is None:
            raise ValueError(
                f"reshape to {newshape}: pass ndim, the length of the shape is unknown"
            )
    return Reshape(ndim)(x, shp)


def flatten(x: Any, ndim: int = 1, outdim: int | None = None) -> Variable:
    """``x`` with its trailing dimensions merged so that it has ``ndim`` dimensions
    (``outdim`` is Theano's name for ``ndim``)."""
    x = as_tensor_variable(x)
    ndim = ndim if outdim is None else outdim
    if not 1 <= ndim <= max(x.type.ndim, 1):
        raise ValueError(f"flatten to {ndim} dims is impossible for {x.type}")
    if x.type.ndim == ndim:
        return x
    leading = [shape_i(x, d) for d in range(ndim - 1)]
    return reshape(x, [*leading, -1], ndim=ndim)


def ravel(x: Any) -> Variable:
    """``x`` as a vector (C order), like ``np.ravel``."""
    return flatten(x, 1)


__all__ = ["Reshape", "flatten", "ravel", "reshape"]
