"""Ops the compiler itself uses (``DeepCopyOp``, ``ViewOp``) and ``as_op`` for quick ops."""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from arignote.graph.basic import Apply, Variable
from arignote.graph.grad_types import grad_not_implemented
from arignote.graph.op import Op


class ViewOp(Op):
    """Returns its input itself (a view): marks where a value may be aliased."""

    __props__ = ()
    view_map = {0: [0]}

    def make_node(self, x: Variable) -> Apply:
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0]

    def infer_shape(self, fgraph, node, input_shapes):
        return input_shapes

    def grad(self, inputs, output_grads):
        return list(output_grads)

    def R_op(self, inputs, eval_points):
        return list(eval_points)


class DeepCopyOp(Op):
    """Returns a copy of its input, so that an output never aliases an input or another output."""

    __props__ = ()

    def make_node(self, x: Variable) -> Apply:
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        output_storage[0][0] = x.copy() if isinstance(x, np.ndarray) else copy.deepcopy(x)

    def infer_shape(self, fgraph, node, input_shapes):
        return input_shapes

    def do_constant_folding(self, fgraph, node):
        # A copy exists to give its consumers private memory: folding it into a constant
        # (read-only, shared) would undo that.
        return False

    def grad(self, inputs, output_grads):
        return list(output_grads)

    def R_op(self, inputs, eval_points):
        return list(eval_points)

    def __str__(self) -> str:
        return "DeepCopyOp"


view_op = ViewOp()
deep_copy_op = DeepCopyOp()


class FromFunctionOp(Op):
    """An op that calls a Python function on its input values (made by :func:`as_op`)."""

    __props__ = ("fn", "itypes", "otypes", "infer_shape_fn")

    def __init__(
        self, fn: Callable, itypes: Sequence, otypes: Sequence, infer_shape: Callable | None
    ) -> None:
        self.fn = fn
        self.itypes = tuple(itypes)
        self.otypes = tuple(otypes)
        self.infer_shape_fn = infer_shape
        self.__doc__ = fn.__doc__
        if infer_shape is not None:
            self.infer_shape = infer_shape

    def perform(self, node, inputs, output_storage):
        outputs = self.fn(*inputs)
        if len(self.otypes) == 1:
            outputs = [outputs]
        if len(outputs) != len(self.otypes):
            raise ValueError(f"{self} returned {len(outputs)} values, expected {len(self.otypes)}")
        for cell, value, otype in zip(output_storage, outputs, self.otypes):
            cell[0] = otype.filter(value, allow_downcast=True)

    def grad(self, inputs, output_grads):
        return [
            grad_not_implemented(self, i, x, "as_op makes ops without gradients")
            for i, x in enumerate(inputs)
        ]

    def __str__(self) -> str:
        return getattr(self.fn, "__name__", "FromFunctionOp")

    def __reduce__(self):
        return (FromFunctionOp, (self.fn, self.itypes, self.otypes, self.infer_shape_fn))


def _as_type(t: Any) -> Any:
    """A type from an ``itypes``/``otypes`` entry (constructors like ``matrix`` included)."""
    if hasattr(t, "default_type"):
        return t.default_type()
    if not hasattr(t, "filter") or not callable(t):
        raise TypeError(f"as_op types must be Types (such as dmatrix), got {t!r}")
    return t


def as_op(itypes: Sequence, otypes: Sequence, infer_shape: Callable | None = None):
    """Decorator making an op of a Python function on NumPy values.

    ``itypes``/``otypes`` are the types of its inputs and outputs (``dmatrix``, or ``matrix``
    for floatX); ``infer_shape(fgraph, node, input_shapes)`` lets shapes be computed without
    calling the function. The op has no gradient. The function must return new arrays, not
    views of its inputs or modified inputs.
    """
    itypes = [_as_type(t) for t in (itypes if isinstance(itypes, (list, tuple)) else [itypes])]
    otypes = [_as_type(t) for t in (otypes if isinstance(otypes, (list, tuple)) else [otypes])]

    def decorator(fn: Callable) -> FromFunctionOp:
        return FromFunctionOp(fn, itypes, otypes, infer_shape)

    return decorator


def wrap_py(itypes: Sequence, otypes: Sequence, infer_shape: Callable | None = None):
    """PyTensor 3's name for :func:`as_op`: a decorator making an op of a Python function.

    >>> import numpy as np, arignote.tensor as pt
    >>> @wrap_py(itypes=[pt.dvector], otypes=[pt.dvector])
    ... def reverse(x):
    ...     return x[::-1].copy()
    >>> reverse(pt.as_tensor(np.arange(3.0))).eval()
    array([2., 1., 0.])
    """
    return as_op(itypes, otypes, infer_shape)
