"""Slices as graph values: ``SliceType``, the ``MakeSlice`` op and ``NoneSliceConst``
(PyTensor's ``pytensor.tensor.type_other``).

arignote's indexing ops keep the structure of an index in their props and take the slice
bounds as integer inputs, so a slice rarely needs to be a variable. These names exist for code
that builds one: ``x[make_slice(a, b)]`` indexes like ``x[a:b]`` (the indexing functions read
the bounds back from the ``MakeSlice`` node, or the value of a constant slice), and a compiled
function can return a slice.
"""

from __future__ import annotations

from typing import Any

from arignote.graph.basic import Apply, Constant, Variable
from arignote.graph.grad_types import disconnected
from arignote.graph.op import Op
from arignote.graph.type import Type
from arignote.scalar.basic import integer_dtypes
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.random.type import NoneConst, is_none_const


class SliceType(Type):
    """The type of Python ``slice`` values."""

    __props__ = ()

    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        if isinstance(data, slice):
            return data
        raise TypeError(f"Expected a slice, got {type(data).__name__} ({data!r})")

    def may_share_memory(self, a: Any, b: Any) -> bool:
        return isinstance(a, slice) and a is b  # slices hold no buffers

    def __str__(self) -> str:
        return "slice"

    __repr__ = __str__


slicetype = SliceType()


def _bound(value: Any) -> Variable:
    """A slice bound as a graph input: ``NoneConst`` for None, else a 0-d integer tensor."""
    if value is None or is_none_const(value):
        return NoneConst
    var = as_tensor_variable(value, ndim=0)
    if var.type.dtype not in integer_dtypes:
        raise TypeError(f"slice bounds must be integers or None, got {var.type}")
    return var


class MakeSlice(Op):
    """``slice(start, stop, step)`` of its three inputs (0-d integers or ``NoneConst``)."""

    __props__ = ()

    def make_node(self, slc: Any, stop: Any = None, step: Any = None) -> Apply:
        if isinstance(slc, slice):
            if stop is not None or step is not None:
                raise TypeError("make_slice takes a slice, or start, stop and step")
            slc, stop, step = slc.start, slc.stop, slc.step
        return Apply(self, [_bound(v) for v in (slc, stop, step)], [slicetype()])

    def perform(self, node: Apply, inputs: list, output_storage: list) -> None:
        output_storage[0][0] = slice(*(None if v is None else int(v) for v in inputs))

    def infer_shape(self, fgraph, node, input_shapes):
        return [None]  # a slice has no shape

    def grad(self, inputs, output_grads):
        return [disconnected() for _ in inputs]  # integer positions: nothing to differentiate


make_slice = MakeSlice()

NoneSliceConst = Constant(slicetype, slice(None), name="slice(None)")


def python_slice(var: Variable) -> slice:
    """The ``slice`` whose bounds are the graph values of a slice variable: a constant's
    value, or the inputs of its ``MakeSlice`` node (None where ``NoneConst``)."""
    if isinstance(var, Constant):
        return var.data
    if var.owner is None or not isinstance(var.owner.op, MakeSlice):
        raise TypeError(
            f"{var} is a slice variable not made by make_slice: its bounds are not known "
            "when the graph is built"
        )
    return slice(*(None if is_none_const(v) else v for v in var.owner.inputs))


__all__ = ["MakeSlice", "NoneSliceConst", "SliceType", "make_slice", "slicetype"]
