"""Turning values into tensor variables, and the ops between scalars, vectors and tensors."""

from __future__ import annotations

from collections.abc import Sequence
from functools import singledispatch
from typing import Any

import numpy as np

from arignote.graph.basic import Apply, Constant, Variable
from arignote.graph.grad_types import grad_not_implemented
from arignote.graph.op import Op
from arignote.scalar.basic import (
    ScalarType,
    discrete_dtypes,
    get_scalar_type,
    grad_dtype,
    is_python_scalar,
    python_scalar_dtype,
    upcast,
)
from arignote.scalar.basic import constant as scalar_constant
from arignote.tensor.type import TensorType, tensor_type


class NotScalarConstantError(ValueError):
    """A variable's value is not a scalar known when the graph is built."""


def constant(x: Any, name: str | None = None, ndim: int | None = None, dtype: Any = None):
    """A tensor constant holding ``x`` (Python numbers take NumPy's default dtypes).

    ``ndim`` pads the value with leading length-1 dimensions (or checks it has that many).
    """
    if dtype is None and is_python_scalar(x):
        dtype = python_scalar_dtype(x)
    try:
        data = np.asarray(x, dtype=dtype)
    except (TypeError, ValueError) as err:
        raise TypeError(f"Cannot make a tensor constant from {x!r}: {err}") from err
    if data.dtype.kind not in "biufc":
        raise TypeError(f"Cannot make a tensor constant from {x!r}: it is not numeric")
    if ndim is not None:
        if data.ndim > ndim:
            squeezable = data.shape[: data.ndim - ndim]
            if any(s != 1 for s in squeezable):
                raise ValueError(f"{x!r} has more than {ndim} dimensions")
            data = data.reshape(data.shape[data.ndim - ndim :])
        elif data.ndim < ndim:
            data = data.reshape((1,) * (ndim - data.ndim) + data.shape)
    return tensor_type(data.dtype.name, data.shape).make_constant(data, name=name)


def as_tensor_variable(x: Any, name: str | None = None, ndim: int | None = None, dtype=None):
    """``x`` as a tensor variable.

    Tensor variables pass through; scalar variables are wrapped; lists and tuples containing
    variables are stacked; numbers and arrays become constants. Anything else raises TypeError.
    """
    if isinstance(x, Apply):
        x = x.default_output()
    if isinstance(x, Variable):
        if isinstance(x.type, ScalarType):
            x = tensor_from_scalar(x)
        elif not isinstance(x.type, TensorType):
            raise TypeError(f"Cannot use {x} of type {x.type} as a tensor")
        if ndim is not None and x.type.ndim != ndim:
            raise ValueError(f"{x} has {x.type.ndim} dimensions, expected {ndim}")
        if dtype is not None and x.type.dtype != np.dtype(dtype).name:
            raise TypeError(f"{x} has dtype {x.type.dtype}, expected {np.dtype(dtype).name}")
        return x
    if isinstance(x, (list, tuple)) and _contains_variable(x):
        return _stack_elements(x, dtype)
    return constant(x, name=name, ndim=ndim, dtype=dtype)


def as_index_variable(x: Any, name: str | None = None) -> Variable:
    """``x`` as a tensor of indices or counts: like ``as_tensor_variable``, except that an empty
    Python sequence becomes an ``int64`` vector, as NumPy reads ``[]`` where integers are
    expected (``np.take(a, [])``, ``np.repeat(a, [])``), instead of NumPy's default float64."""
    if isinstance(x, (list, tuple)) and np.size(x) == 0 and not _contains_variable(x):
        return constant(np.asarray(x, dtype="int64"), name=name)
    return as_tensor_variable(x, name=name)


def _contains_variable(seq: Sequence) -> bool:
    for item in seq:
        if isinstance(item, (Variable, Apply)):
            return True
        if isinstance(item, (list, tuple)) and _contains_variable(item):
            return True
    return False


def _stack_elements(items: Sequence, dtype: Any) -> Variable:
    elements = [as_tensor_variable(i) for i in items]
    if all(e.type.ndim == 0 for e in elements):
        out_dtype = dtype or upcast(*[e.type.dtype for e in elements])
        return MakeVector(out_dtype)(*elements)
    if _stacker is None:
        raise TypeError("Stacking non-scalar variables needs arignote.tensor to be imported")
    return _stacker(elements)


# Set by arignote.tensor.join: stacking tensors of ndim >= 1 is a Join, defined above this module.
_stacker = None


def register_stacker(fn) -> None:
    global _stacker
    _stacker = fn


class TensorFromScalar(Op):
    """A 0-d tensor holding the value of a scalar variable."""

    __props__ = ()

    def make_node(self, s: Any) -> Apply:
        if not isinstance(getattr(s, "type", None), ScalarType):
            raise TypeError(f"TensorFromScalar expects a scalar variable, got {s!r}")
        return Apply(self, [s], [tensor_type(s.type.dtype, ())()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = np.asarray(inputs[0], dtype=node.outputs[0].type.dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        return [()]

    def grad(self, inputs, output_grads):
        (s,), (gz,) = inputs, output_grads
        if s.type.dtype in discrete_dtypes:
            return [scalar_constant(0, grad_dtype(s))]  # integer-valued output: step function
        return [scalar_from_tensor(gz)]

    def R_op(self, inputs, eval_points):
        return [None if eval_points[0] is None else self(eval_points[0])]  # linear


class ScalarFromTensor(Op):
    """The scalar held by a 0-d tensor."""

    __props__ = ()

    def make_node(self, t: Any) -> Apply:
        t = as_tensor_variable(t)
        if t.type.ndim != 0:
            raise TypeError(f"ScalarFromTensor expects a 0-d tensor, got {t.type}")
        return Apply(self, [t], [get_scalar_type(t.type.dtype)()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0][()]

    def infer_shape(self, fgraph, node, input_shapes):
        return [()]

    def grad(self, inputs, output_grads):
        (t,), (gz,) = inputs, output_grads
        if t.type.dtype in discrete_dtypes:
            return [t.zeros_like(dtype=grad_dtype(t))]  # integer-valued output: step function
        return [tensor_from_scalar(gz)]

    def R_op(self, inputs, eval_points):
        return [None if eval_points[0] is None else self(eval_points[0])]  # linear


tensor_from_scalar = TensorFromScalar()
scalar_from_tensor = ScalarFromTensor()


class MakeVector(Op):
    """A vector made of 0-d tensors: ``make_vector(a, b, c) == [a, b, c]``."""

    __props__ = ("dtype",)

    def __init__(self, dtype: Any = "int64") -> None:
        self.dtype = np.dtype(dtype).name

    def make_node(self, *inputs: Any) -> Apply:
        inputs = [as_tensor_variable(i) for i in inputs]
        for i, inp in enumerate(inputs):
            if inp.type.ndim != 0:
                raise TypeError(f"MakeVector input {i} must be 0-d, got {inp.type}")
            if not np.can_cast(inp.type.dtype, self.dtype, "same_kind"):
                raise TypeError(f"MakeVector({self.dtype}) cannot take input {i} of {inp.type}")
        return Apply(self, inputs, [tensor_type(self.dtype, (len(inputs),))()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = np.asarray(inputs, dtype=self.dtype).reshape(len(inputs))

    def infer_shape(self, fgraph, node, input_shapes):
        return [(len(node.inputs),)]

    def grad(self, inputs, output_grads):
        (gz,) = output_grads
        if self.dtype in discrete_dtypes:  # integer-valued output: step function
            return [x.zeros_like(dtype=grad_dtype(x)) for x in inputs]
        # Picking element i of the output gradient needs indexing (arignote.tensor.subtensor).
        if _vector_element is None:
            reason = "Indexing (arignote.tensor.subtensor) is not available."
            return [grad_not_implemented(self, i, x, reason) for i, x in enumerate(inputs)]
        return [_vector_element(gz, i).astype(grad_dtype(x)) for i, x in enumerate(inputs)]

    def R_op(self, inputs, eval_points):
        if all(ev is None for ev in eval_points):
            return [None]
        evs = [ev if ev is not None else x.zeros_like() for x, ev in zip(inputs, eval_points)]
        return [self(*evs)]  # linear


_vector_element = None


def register_vector_element(fn) -> None:
    """Installed by arignote.tensor.subtensor: ``fn(v, i)`` is ``v[i]``."""
    global _vector_element
    _vector_element = fn


def make_vector(*elements: Any, dtype: Any = None) -> Variable:
    """A vector of the 0-d tensors (or numbers) ``elements``."""
    elements = [as_tensor_variable(e) for e in elements]
    dtype = dtype or (upcast(*[e.type.dtype for e in elements]) if elements else "int64")
    return MakeVector(dtype)(*elements)


# -- constant values ------------------------------------------------------------------------


@singledispatch
def constant_value_rule(op: Op, node: Apply, index: int, recurse) -> Any:
    """How to find the constant value of output ``index`` of ``node`` (registered per op class).

    ``recurse(var)`` gives the constant value of another variable or raises
    :class:`NotScalarConstantError`. The default rule knows nothing.
    """
    raise NotScalarConstantError(f"{op} has no constant-value rule")


def get_scalar_constant_value(v: Any, max_recur: int = 20) -> np.ndarray:
    """The value of ``v`` if it is a scalar (or uniform array) known at graph-build time.

    Follows the ops that registered a :func:`constant_value_rule` (dimension shuffles, casts,
    static shapes...). Raises :class:`NotScalarConstantError` otherwise.
    """
    if not isinstance(v, Variable):
        value = np.asarray(v)
        if value.dtype.kind not in "biufc":
            raise NotScalarConstantError(f"{v!r} is not a number")
        return _uniform_value(value, v)
    if isinstance(v, Constant):
        return _uniform_value(np.asarray(v.data), v)
    if v.owner is None or max_recur <= 0:
        raise NotScalarConstantError(f"{v} is not a constant")
    return np.asarray(
        constant_value_rule(
            v.owner.op, v.owner, v.index, lambda w: get_scalar_constant_value(w, max_recur - 1)
        )
    )


def _uniform_value(value: np.ndarray, source: Any) -> np.ndarray:
    if value.ndim == 0:
        return value
    flat = value.reshape(-1)
    if flat.size and np.all(flat == flat[0]):
        return flat[0]
    raise NotScalarConstantError(f"{source} is not a scalar constant")


@constant_value_rule.register(TensorFromScalar)
@constant_value_rule.register(ScalarFromTensor)
def _passthrough_value(op, node, index, recurse):
    return recurse(node.inputs[0])


def extract_constant(x: Any) -> Any:
    """The constant value of ``x`` when it has one, else ``x`` itself."""
    try:
        return get_scalar_constant_value(x)
    except NotScalarConstantError:
        return x
