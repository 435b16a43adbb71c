"""The op classes PyTensor keeps in ``tensor.extra_ops`` for three functions arignote builds
as graphs: ``Bartlett`` (``bartlett_``), ``FillDiagonal`` (``fill_diagonal_``) and
``FillDiagonalOffset`` (``fill_diagonal_offset_``).

``pt.bartlett``, ``pt.fill_diagonal`` and ``pt.fill_diagonal_offset`` stay graphs of indexing
and elementwise ops (every backend runs them natively, rewrites see inside); these ops compute
the same values in one node, for code that applies PyTensor's op instances directly.
"""

from __future__ import annotations

from functools import reduce
from typing import Any

import numpy as np

from arignote.graph.basic import Apply, Variable
from arignote.graph.grad_types import disconnected
from arignote.graph.op import Op
from arignote.scalar.basic import integer_dtypes, upcast
from arignote.tensor import math as tm
from arignote.tensor.alloc import arange
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.shape import shape_i
from arignote.tensor.type import tensor_type


class Bartlett(Op):
    """The Bartlett (triangular) window of ``M`` points, as ``np.bartlett`` (float64)."""

    __props__ = ()

    def make_node(self, M: Any) -> Apply:
        M = as_tensor_variable(M)
        if M.type.ndim != 0:
            raise TypeError(f"Bartlett only works on a scalar input, got {M.type}")
        if M.type.dtype not in integer_dtypes:
            raise TypeError(f"Bartlett only works on an integer input, got {M.type}")
        return Apply(self, [M], [tensor_type("float64", (None,))()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = np.bartlett(int(inputs[0]))

    def infer_shape(self, fgraph, node, input_shapes):
        return [(tm.maximum(node.inputs[0], 0),)]  # np.bartlett of M <= 0 is empty

    def grad(self, inputs, output_grads):
        return [disconnected()]  # an integer number of points

    def R_op(self, inputs, eval_points):
        return [None]


def _scalar_like(op: Op, a: Variable, val: Any) -> Variable:
    # a Python number takes the array's dtype (unless a float goes into integers)
    number = isinstance(val, (int, float)) and not isinstance(val, bool)
    if number and (isinstance(val, int) or a.type.dtype[0] in "fc"):
        return as_tensor_variable(np.asarray(val, dtype=a.type.dtype))
    val = as_tensor_variable(val)
    if val.type.ndim != 0:
        raise TypeError(f"{op}: the value must be a scalar, got {val.type}")
    if upcast(a.type.dtype, val.type.dtype) != a.type.dtype:
        raise TypeError(
            f"{op}: the value's dtype {val.type.dtype} does not fit the array's {a.type.dtype}"
        )
    return tm.cast(val, a.type.dtype)


def _diagonal_length(rows: Any, cols: Any, offset: Any) -> Any:
    """The number of entries of diagonal ``offset`` of a rows x cols matrix (never wrapped)."""
    return tm.maximum(tm.minimum(rows + tm.minimum(offset, 0), cols - tm.maximum(offset, 0)), 0)


class FillDiagonal(Op):
    """``a`` with its main diagonal set to the scalar ``val`` (``np.fill_diagonal`` on a copy;
    a tall matrix is not wrapped: only its first ``cols`` rows hold diagonal entries)."""

    __props__ = ()

    def make_node(self, a: Any, val: Any) -> Apply:
        a = as_tensor_variable(a)
        if a.type.ndim < 2:
            raise TypeError(f"FillDiagonal: the array must have at least 2 dimensions: {a.type}")
        return Apply(self, [a, _scalar_like(self, a, val)], [a.type()])

    def perform(self, node, inputs, output_storage):
        a, val = inputs
        out = a.copy()
        n = min(a.shape)
        out[(np.arange(n),) * a.ndim] = val
        output_storage[0][0] = out

    def infer_shape(self, fgraph, node, input_shapes):
        return [input_shapes[0]]

    def grad(self, inputs, output_grads):
        (gz,) = output_grads
        a = inputs[0]
        # the diagonal of the output comes from val, the rest from a
        n = reduce(tm.minimum, [shape_i(a, d) for d in range(a.type.ndim)])
        index = (arange(n),)
        return [self(gz, 0), gz[index * a.type.ndim].sum()]

    def R_op(self, inputs, eval_points):
        ea, ev = eval_points
        if ea is None and ev is None:
            return [None]
        a = inputs[0]
        return [self(a.zeros_like() if ea is None else ea, 0 if ev is None else ev)]


class FillDiagonalOffset(Op):
    """The matrix ``a`` with its diagonal ``offset`` (> 0 above the main one, < 0 below) set
    to the scalar ``val``."""

    __props__ = ()

    def make_node(self, a: Any, val: Any, offset: Any) -> Apply:
        a, offset = as_tensor_variable(a), as_tensor_variable(offset)
        if a.type.ndim != 2:
            raise TypeError(f"FillDiagonalOffset: the array must be a matrix, got {a.type}")
        if offset.type.ndim != 0 or offset.type.dtype not in integer_dtypes:
            raise TypeError(f"FillDiagonalOffset: the offset must be a scalar integer: {offset}")
        return Apply(self, [a, _scalar_like(self, a, val), offset], [a.type()])

    def perform(self, node, inputs, output_storage):
        a, val, offset = inputs
        out = a.copy()
        offset = int(offset)
        rows, cols = a.shape
        n = max(min(rows + min(offset, 0), cols - max(offset, 0)), 0)
        index = np.arange(n)
        out[index + max(-offset, 0), index + max(offset, 0)] = val
        output_storage[0][0] = out

    def infer_shape(self, fgraph, node, input_shapes):
        return [input_shapes[0]]

    def grad(self, inputs, output_grads):
        (gz,) = output_grads
        a, _, offset = inputs
        n = _diagonal_length(shape_i(a, 0), shape_i(a, 1), offset)
        index = arange(n)
        diagonal = gz[index + tm.maximum(-offset, 0), index + tm.maximum(offset, 0)]
        return [self(gz, 0, offset), diagonal.sum(), disconnected()]

    def connection_pattern(self, node):
        return [[True], [True], [False]]

    def R_op(self, inputs, eval_points):
        ea, ev, _ = eval_points
        if ea is None and ev is None:
            return [None]
        a, _, offset = inputs
        return [self(a.zeros_like() if ea is None else ea, 0 if ev is None else ev, offset)]


bartlett_ = Bartlett()
fill_diagonal_ = FillDiagonal()
fill_diagonal_offset_ = FillDiagonalOffset()

__all__ = [
    "Bartlett",
    "FillDiagonal",
    "FillDiagonalOffset",
    "bartlett_",
    "fill_diagonal_",
    "fill_diagonal_offset_",
]
