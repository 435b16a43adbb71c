"""Flat indices and multi-indices: ``unravel_index`` and ``ravel_multi_index``, as in NumPy.

Both ops compute integers from integers: their outputs do not change under small changes of
the inputs, so the inputs' gradients are zeros and the outputs have no tangents.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arignote.graph.basic import Apply, Variable
from arignote.graph.op import Op
from arignote.scalar.basic import grad_dtype, integer_dtypes
from arignote.tensor import math as tm
from arignote.tensor.advanced_subtensor import broadcast_lengths
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.derived import get_vector_length
from arignote.tensor.elemwise import broadcast_static_shape
from arignote.tensor.type import tensor_type

ORDERS = ("C", "F")
MODES = ("raise", "wrap", "clip")


def _integer(x: Any, op: Op, what: str) -> Variable:
    x = as_tensor_variable(x)
    if x.type.dtype not in integer_dtypes:
        raise TypeError(f"{op}: {what} must be integers, got {x.type}")
    return x


def _check_order(order: str) -> str:
    if order not in ORDERS:
        raise ValueError(f"order must be 'C' or 'F', got {order!r}")
    return order


class UnravelIndex(Op):
    """The multi-index (one int64 tensor per dimension) of flat ``indices`` into an array of
    shape ``dims``: ``np.unravel_index``."""

    __props__ = ("order",)

    def __init__(self, order: str = "C") -> None:
        self.order = _check_order(order)

    def make_node(self, indices: Any, dims: Any) -> Apply:
        indices = _integer(indices, self, "indices")
        dims = _integer(dims, self, "dims")
        if dims.type.ndim != 1:
            raise TypeError(f"{self}: dims must be a vector, got {dims.type}")
        count = get_vector_length(dims)
        outputs = [tensor_type("int64", indices.type.shape)() for _ in range(count)]
        return Apply(self, [indices, dims], outputs)

    def perform(self, node, inputs, output_storage):
        indices, dims = inputs
        for cell, part in zip(output_storage, np.unravel_index(indices, dims, order=self.order)):
            cell[0] = np.asarray(part, dtype=np.int64)

    def infer_shape(self, fgraph, node, input_shapes):
        return [input_shapes[0]] * len(node.outputs)

    def grad(self, inputs, output_grads):
        # integer arithmetic: a small change of the inputs changes nothing
        return [tm.zeros_like(x, dtype=grad_dtype(x)) for x in inputs]

    def R_op(self, inputs, eval_points):
        return [None] * get_vector_length(inputs[1])


def unravel_index(indices: Any, dims: Any, order: str = "C") -> tuple[Variable, ...]:
    """The multi-index of each flat index into an array of shape ``dims``, like
    ``np.unravel_index`` (one tensor per dimension, shaped like ``indices``)."""
    return tuple(UnravelIndex(order)(indices, dims, return_list=True))


class RavelMultiIndex(Op):
    """The flat index of each multi-index into an array of shape ``dims``:
    ``np.ravel_multi_index``. Inputs: one integer tensor per dimension (broadcast together),
    then ``dims``."""

    __props__ = ("mode", "order")

    def __init__(self, mode: str = "raise", order: str = "C") -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        self.mode = mode
        self.order = _check_order(order)

    def make_node(self, *inputs: Any) -> Apply:
        *multi_index, dims = (_integer(x, self, "the multi-index and dims") for x in inputs)
        if dims.type.ndim != 1 or get_vector_length(dims) != len(multi_index):
            raise TypeError(
                f"{self}: dims must be a vector with one length per index ({len(multi_index)})"
            )
        ndim = max(i.type.ndim for i in multi_index)
        if any(i.type.ndim != ndim for i in multi_index):
            raise TypeError(f"{self}: the indices must have the same number of dimensions")
        shape = broadcast_static_shape([i.type.shape for i in multi_index], context=self)
        return Apply(self, [*multi_index, dims], [tensor_type("int64", shape)()])

    def perform(self, node, inputs, output_storage):
        *multi_index, dims = inputs
        flat = np.ravel_multi_index(multi_index, dims, mode=self.mode, order=self.order)
        output_storage[0][0] = np.asarray(flat, dtype=np.int64)

    def infer_shape(self, fgraph, node, input_shapes):
        shapes = input_shapes[:-1]
        return [tuple(broadcast_lengths(*lengths) for lengths in zip(*shapes))]

    def grad(self, inputs, output_grads):
        return [tm.zeros_like(x, dtype=grad_dtype(x)) for x in inputs]  # integer arithmetic

    def R_op(self, inputs, eval_points):
        return [None]


def ravel_multi_index(multi_index: Any, dims: Any, mode: str = "raise", order: str = "C"):
    """The flat index of each multi-index (a sequence of integer tensors, one per dimension)
    into an array of shape ``dims``, like ``np.ravel_multi_index``. ``mode`` says what an
    out-of-range index does: "raise" (a ``ValueError`` when the function runs), "wrap" or
    "clip"."""
    return RavelMultiIndex(mode, order)(*multi_index, dims)


__all__ = ["RavelMultiIndex", "UnravelIndex", "ravel_multi_index", "unravel_index"]
