"""Creating tensors: ``Alloc`` (zeros, ones, full, broadcast_to), ``AllocEmpty``, ``Eye``,
``ARange`` and ``Linspace``, with the NumPy-style functions built on them."""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy as np

from arignote.config import config
from arignote.graph.basic import Apply, Constant, Variable
from arignote.graph.grad_types import disconnected
from arignote.graph.op import Op
from arignote.scalar.basic import (
    cast_python_scalar,
    continuous_dtypes,
    discrete_dtypes,
    float_dtypes,
    grad_dtype,
    integer_dtypes,
    is_python_scalar,
)
from arignote.tensor import basic as tb
from arignote.tensor.basic import (
    MakeVector,
    NotScalarConstantError,
    as_tensor_variable,
    constant,
    constant_value_rule,
    get_scalar_constant_value,
)
from arignote.tensor.elemwise import DimShuffle, broadcast_static_shape
from arignote.tensor.math import (
    add,
    cast,
    floor,
    gt,
    int_div,
    le,
    maximum,
    neg,
    sub,
    switch,
    true_div,
)
from arignote.tensor.shape import Shape, shape_i, shape_tuple
from arignote.tensor.type import tensor_type

# -- shapes given by the user ---------------------------------------------------------------


def as_size(size: Any, context: str) -> Variable:
    """One dimension length as an integer 0-d tensor; negative constants are refused."""
    if isinstance(size, (bool, np.bool_)):
        raise TypeError(f"{context}: a dimension length must be an integer, got {size!r}")
    size = as_tensor_variable(size)
    if size.type.ndim != 0 or size.type.dtype not in integer_dtypes:
        raise TypeError(f"{context}: a dimension length must be an integer scalar, got {size.type}")
    static = static_int(size)
    if static is not None and static < 0:
        raise ValueError(f"{context}: negative dimension length {static}")
    return size


def static_int(var: Any) -> int | None:
    """The integer value of ``var`` when it is known at graph-build time, else None."""
    try:
        return int(get_scalar_constant_value(var))
    except (NotScalarConstantError, TypeError, ValueError):
        return None


def shape_entries(shape: Any, context: str = "shape") -> list[Variable]:
    """A shape (an int, a sequence of ints / 0-d variables, or an int vector of known length)
    as one integer 0-d tensor per dimension."""
    if isinstance(shape, Variable) and getattr(shape.type, "ndim", None) == 1:
        return [as_size(s, context) for s in _vector_entries(shape, context)]
    if not is_sequence(shape):
        return [as_size(shape, context)]
    return [as_size(s, context) for s in shape]


def is_sequence(value: Any) -> bool:
    """Whether ``value`` is a Python sequence or an array of at least one dimension (variables
    are not: their entries are not known when the graph is built)."""
    return isinstance(value, (list, tuple)) or (isinstance(value, np.ndarray) and value.ndim > 0)


def _vector_entries(vector: Variable, context: str) -> list:
    if isinstance(vector, Constant):
        return [np.asarray(v, dtype=vector.type.dtype) for v in vector.data]
    owner = vector.owner
    if owner is not None and isinstance(owner.op, MakeVector):
        return list(owner.inputs)
    if owner is not None and isinstance(owner.op, Shape):
        return list(shape_tuple(owner.inputs[0]))
    length = vector.type.shape[0]
    if length is None:
        raise ValueError(f"{context}: the length of the shape vector {vector} is not known")
    if tb._vector_element is None:
        raise TypeError(f"{context}: reading entries of {vector} needs arignote.tensor.subtensor")
    return [tb._vector_element(vector, i) for i in range(length)]


def _sum_to(g: Variable, like: Variable) -> Variable:
    """Sum ``g`` over the dimensions ``like`` was broadcast along (leading, or static 1)."""
    extra = g.type.ndim - like.type.ndim
    if extra:
        g = g.sum(axis=tuple(range(extra)))
    axes = [d for d, s in enumerate(like.type.shape) if s == 1 and g.type.shape[d] != 1]
    if axes:
        g = g.sum(axis=axes, keepdims=True)
    return g


# -- Alloc ----------------------------------------------------------------------------------


class Alloc(Op):
    """A new array of the given shape filled with ``value``, broadcast NumPy-style.

    The inputs are ``value`` and one integer 0-d length per output dimension. A dimension of
    ``value`` is broadcast only when its static length is 1 (as in ``Elemwise``).
    """

    __props__ = ()

    def make_node(self, value: Any, *shape: Any) -> Apply:
        value = as_tensor_variable(value)
        sizes = [as_size(s, "Alloc") for s in shape]
        if value.type.ndim > len(sizes):
            raise TypeError(
                f"Alloc: the value {value} has {value.type.ndim} dimensions, more than the "
                f"{len(sizes)} of the requested shape"
            )
        static = self._static_shape(value, [static_int(s) for s in sizes])
        return Apply(self, [value, *sizes], [tensor_type(value.type.dtype, static)()])

    @staticmethod
    def _static_shape(value: Variable, requested: list) -> tuple:
        lead = len(requested) - value.type.ndim
        result = list(requested)
        for d, v in enumerate(value.type.shape):
            out = requested[lead + d]
            if v is None or v == 1:
                continue
            if out is not None and out != v:
                raise ValueError(
                    f"Alloc: cannot broadcast a value of static shape {value.type.shape} to "
                    f"{tuple(requested)}"
                )
            result[lead + d] = v  # a non-broadcastable dimension keeps its length
        return tuple(result)

    def perform(self, node, inputs, output_storage):
        value, *shape = inputs
        shape = tuple(int(s) for s in shape)
        check_alloc_broadcast(node, value, shape)
        out = output_storage[0][0]
        if out is None or out.shape != shape:
            out = np.empty(shape, dtype=node.outputs[0].type.dtype)
        out[...] = value
        output_storage[0][0] = out

    def infer_shape(self, fgraph, node, input_shapes):
        return [tuple(node.inputs[1:])]

    def connection_pattern(self, node):
        return [[True]] + [[False]] * (len(node.inputs) - 1)

    def grad(self, inputs, output_grads):
        value, *sizes = inputs
        (gz,) = output_grads
        rest = [disconnected() for _ in sizes]
        if value.type.dtype in discrete_dtypes:
            return [value.zeros_like(dtype=grad_dtype(value)), *rest]
        # each element of value is copied to every position it is broadcast to
        return [_sum_to(gz, value).astype(value.type.dtype), *rest]

    def R_op(self, inputs, eval_points):
        if eval_points[0] is None:
            return [None]
        return [self(eval_points[0], *inputs[1:])]  # linear in value

    def do_constant_folding(self, fgraph, node):
        # Folding zeros((10**4, 10**4)) would store a huge constant in the graph: only fold
        # results small enough to be worth keeping.
        sizes = [static_int(s) for s in node.inputs[1:]]
        if any(s is None for s in sizes):
            return False
        return int(np.prod(sizes, dtype=np.int64)) <= config.max_constant_fold_size


def check_alloc_broadcast(node: Apply, value: Any, shape: tuple) -> None:
    """Refuses to stretch a value dimension of length 1 whose type does not say it has length 1
    (PyTensor's rule against runtime broadcasting); also the backends' check."""
    lead = len(shape) - value.ndim
    static = node.inputs[0].type.shape
    for d, length in enumerate(value.shape):
        out = shape[lead + d]
        if length == out or (length == 1 and static[d] == 1):
            continue
        reason = (
            "its type does not declare that dimension broadcastable (static length 1)"
            if length == 1
            else "the lengths differ"
        )
        raise ValueError(
            f"Alloc: cannot broadcast a value of shape {value.shape} to {shape}: dimension {d} "
            f"has length {length} where {out} is requested, and {reason}"
        )


@constant_value_rule.register(Alloc)
def _alloc_value(op, node, index, recurse):
    return recurse(node.inputs[0])  # every element is (a copy of) the value


_alloc = Alloc()


def alloc(value: Any, *shape: Any) -> Variable:
    """``value`` broadcast into a new array of shape ``shape``.

    Parameters
    ----------
    value
        The fill value (a tensor or number); its dimensions align with the trailing ones of
        ``shape``.
    *shape
        The lengths (ints or integer scalars), or a single sequence / int vector of them.
    """
    if len(shape) == 1 and (
        isinstance(shape[0], (list, tuple))
        or (isinstance(shape[0], Variable) and getattr(shape[0].type, "ndim", 0) == 1)
    ):
        shape = tuple(shape_entries(shape[0], "alloc"))
    return _alloc(value, *shape)


def _creation_dtype(dtype: Any) -> str:
    return config.floatX if dtype is None else np.dtype(dtype).name


def full(shape: Any, fill_value: Any, dtype: Any = None) -> Variable:
    """A new tensor of ``shape`` filled with ``fill_value``, like ``np.full``.

    Parameters
    ----------
    shape
        An int, a sequence of ints / integer scalars, or an int vector of known length.
    fill_value
        A number or tensor, broadcast to ``shape``.
    dtype
        The dtype of the result; by default that of ``fill_value``.
    """
    value = _fill_value(fill_value, dtype)
    return _alloc(value, *shape_entries(shape, "full"))


def _fill_value(fill_value: Any, dtype: Any) -> Variable:
    """``fill_value`` cast to ``dtype`` (None: keep its own); as in NumPy, a Python int out of
    the range of an integer ``dtype`` raises ``OverflowError`` instead of wrapping around."""
    if dtype is None:
        return as_tensor_variable(fill_value)
    dtype = np.dtype(dtype).name
    if is_python_scalar(fill_value):
        return as_tensor_variable(cast_python_scalar(fill_value, dtype))
    return cast(as_tensor_variable(fill_value), dtype)


def zeros(shape: Any, dtype: Any = None) -> Variable:
    """A tensor of zeros of ``shape`` (ints, integer scalars or an int vector), like
    ``np.zeros``; ``dtype`` defaults to ``config.floatX``."""
    return full(shape, constant(0, dtype=_creation_dtype(dtype)))


def ones(shape: Any, dtype: Any = None) -> Variable:
    """A tensor of ones of ``shape``, like ``np.ones``; ``dtype`` defaults to floatX."""
    return full(shape, constant(1, dtype=_creation_dtype(dtype)))


def full_like(x: Any, fill_value: Any, dtype: Any = None) -> Variable:
    """A tensor with the shape of ``x`` filled with ``fill_value``, like ``np.full_like``.

    The dtype is ``dtype``, else that of ``x`` (the fill value is cast to it).
    """
    x = as_tensor_variable(x)
    value = _fill_value(fill_value, x.type.dtype if dtype is None else dtype)
    return _alloc(value, *shape_tuple(x))


def broadcast_to(x: Any, shape: Any) -> Variable:
    """``x`` broadcast to ``shape``, like ``np.broadcast_to`` (the result is a new array).

    Only dimensions of ``x`` with static length 1 may be broadcast to another length.
    """
    x = as_tensor_variable(x)
    entries = shape_entries(shape, "broadcast_to")
    if len(entries) < x.type.ndim:
        raise ValueError(
            f"broadcast_to: cannot broadcast {x.type} to {len(entries)} dimensions, fewer than "
            "it has"
        )
    return _alloc(x, *entries)


def broadcast_shape(*arrays: Any) -> tuple[Variable, ...]:
    """The shape of broadcasting ``arrays`` together, one int 0-d tensor per dimension.

    A dimension is taken from an array whose length there is not statically 1; where every
    array has static length 1 the result is 1.
    """
    tensors = [as_tensor_variable(a) for a in arrays]
    ndim = max((t.type.ndim for t in tensors), default=0)
    padded = [_padded(t, ndim) for t in tensors]
    broadcast_static_shape(padded, context="broadcast_shape")
    result = []
    for d in range(ndim):
        candidates = []
        for t, static in zip(tensors, padded):
            if static[d] != 1:
                candidates.append(shape_i(t, d - (ndim - t.type.ndim)))
        result.append(_first_known(candidates))
    return tuple(result)


def _first_known(candidates: list) -> Variable:
    if not candidates:
        return constant(1, dtype="int64")
    known = [c for c in candidates if isinstance(c, Constant)]
    if len(candidates) == 1 or (known and len(known) == len(candidates)):
        return (known or candidates)[0]
    # several lengths, some known only at run time: they must be equal (a length of 1
    # broadcasts only where it is static), which BroadcastLength checks when it runs
    return BroadcastLength()(*candidates)


class BroadcastLength(Op):
    """The common length of a dimension of several arrays, checked when the function runs.

    Its inputs are the lengths (int64 0-d) of the arrays whose length there is not statically
    1; they must all be equal, as only static length-1 dimensions broadcast (PyTensor's rule),
    otherwise ``perform`` raises ``ValueError``.
    """

    __props__ = ()

    def make_node(self, *lengths: Any) -> Apply:
        lengths = [as_tensor_variable(n) for n in lengths]
        if not lengths or any(n.type.ndim or n.type.dtype not in integer_dtypes for n in lengths):
            raise TypeError(f"BroadcastLength expects integer scalars, got {lengths}")
        return Apply(self, lengths, [tensor_type("int64", ())()])

    def perform(self, node, inputs, output_storage):
        values = {int(n) for n in inputs}
        if len(values) > 1:
            raise ValueError(
                f"broadcast_shape: lengths {[int(n) for n in inputs]} of one dimension differ; "
                "runtime broadcasting is not allowed: a length 1 broadcasts only where the "
                "type says so (use specify_broadcastable)"
            )
        output_storage[0][0] = np.asarray(values.pop(), dtype=np.int64)

    def infer_shape(self, fgraph, node, input_shapes):
        return [()]

    def connection_pattern(self, node):
        return [[False] for _ in node.inputs]

    def grad(self, inputs, output_grads):
        return [disconnected() for _ in inputs]  # an integer length: a step function

    def R_op(self, inputs, eval_points):
        return [None]


def broadcast_arrays(*arrays: Any) -> list[Variable]:
    """The ``arrays`` broadcast against each other, like ``np.broadcast_arrays``."""
    tensors = [as_tensor_variable(a) for a in arrays]
    shape = broadcast_shape(*tensors)
    return [_alloc(t, *shape) if _needs_broadcast(t, shape) else t for t in tensors]


def _needs_broadcast(t: Variable, shape: tuple) -> bool:
    """Whether ``t`` differs from ``shape``: fewer dims, or a static 1 where ``shape`` is not 1.

    Other lengths must already match, since only static-1 dimensions broadcast.
    """
    if t.type.ndim < len(shape):
        return True
    return any(s == 1 and static_int(r) != 1 for s, r in zip(t.type.shape, shape))


# -- AllocEmpty -----------------------------------------------------------------------------


class AllocEmpty(Op):
    """A new array of ``dtype`` and the given shape whose values are not initialized."""

    __props__ = ("dtype",)
    #: Outputs whose values are whatever the memory held: DebugMode does not compare them.
    uninitialized_outputs = (0,)

    def __init__(self, dtype: Any) -> None:
        self.dtype = np.dtype(dtype).name

    def make_node(self, *shape: Any) -> Apply:
        sizes = [as_size(s, "AllocEmpty") for s in shape]
        static = tuple(static_int(s) for s in sizes)
        return Apply(self, sizes, [tensor_type(self.dtype, static)()])

    def perform(self, node, inputs, output_storage):
        shape = tuple(int(s) for s in inputs)
        out = output_storage[0][0]
        if out is None or out.shape != shape:
            output_storage[0][0] = np.empty(shape, dtype=self.dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        return [tuple(node.inputs)]

    def connection_pattern(self, node):
        return [[False] for _ in node.inputs]

    def grad(self, inputs, output_grads):
        return [disconnected() for _ in inputs]

    def R_op(self, inputs, eval_points):
        return [None]

    def do_constant_folding(self, fgraph, node):
        return False  # a constant would freeze arbitrary memory contents into the graph


def empty(shape: Any, dtype: Any = None) -> Variable:
    """A tensor of ``shape`` whose values are arbitrary, like ``np.empty`` (dtype: floatX)."""
    return AllocEmpty(_creation_dtype(dtype))(*shape_entries(shape, "empty"))


def empty_like(x: Any, dtype: Any = None) -> Variable:
    """A tensor with the shape (and dtype, unless ``dtype``) of ``x`` and arbitrary values."""
    x = as_tensor_variable(x)
    return AllocEmpty(dtype or x.type.dtype)(*shape_tuple(x))


# -- Eye ------------------------------------------------------------------------------------


class Eye(Op):
    """``np.eye(n, m, k, dtype)``: ones on the ``k``-th diagonal of an ``n`` x ``m`` matrix."""

    __props__ = ("dtype",)

    def __init__(self, dtype: Any) -> None:
        self.dtype = np.dtype(dtype).name

    def make_node(self, n: Any, m: Any, k: Any) -> Apply:
        n, m = as_size(n, "Eye"), as_size(m, "Eye")
        k = as_tensor_variable(k)
        if k.type.ndim != 0 or k.type.dtype not in integer_dtypes:
            raise TypeError(f"Eye: the diagonal offset k must be an integer scalar, got {k.type}")
        static = (static_int(n), static_int(m))
        return Apply(self, [n, m, k], [tensor_type(self.dtype, static)()])

    def perform(self, node, inputs, output_storage):
        n, m, k = (int(v) for v in inputs)
        output_storage[0][0] = np.eye(n, m, k, dtype=self.dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        return [(node.inputs[0], node.inputs[1])]

    def connection_pattern(self, node):
        return [[False]] * 3

    def grad(self, inputs, output_grads):
        return [disconnected() for _ in inputs]

    def R_op(self, inputs, eval_points):
        return [None]


def eye(n: Any, m: Any = None, k: Any = 0, dtype: Any = None) -> Variable:
    """The ``n`` x ``m`` matrix (``m`` defaults to ``n``) with ones on diagonal ``k``.

    Like ``np.eye``; ``dtype`` defaults to ``config.floatX``.
    """
    return Eye(_creation_dtype(dtype))(n, n if m is None else m, k)


def identity_like(x: Any, dtype: Any = None) -> Variable:
    """The identity-like matrix (ones on the main diagonal) of the shape of matrix ``x``."""
    x = as_tensor_variable(x)
    if x.type.ndim != 2:
        raise ValueError(f"identity_like expects a matrix, got {x.type}")
    return eye(shape_i(x, 0), shape_i(x, 1), 0, dtype=dtype or x.type.dtype)


def tri(N: Any, M: Any = None, k: Any = 0, dtype: Any = None) -> Variable:
    """The ``N`` x ``M`` matrix with ones at and below diagonal ``k``, like ``np.tri``."""
    M = N if M is None else M
    rows = DimShuffle(1, (0, "x"))(arange(N))
    cols = DimShuffle(1, ("x", 0))(arange(M))
    return cast(le(cols, add(rows, k)), _creation_dtype(dtype))  # T[i, j] = j <= i + k


# -- ARange ---------------------------------------------------------------------------------


def arange_dtype(*dtypes: str) -> str:
    """The dtype of ``np.arange`` for start, stop and step of these dtypes (always 64 bits:
    NumPy computes with Python numbers)."""
    samples = [1 if d == "bool" else np.ones((), dtype=d)[()] for d in dtypes]
    return np.arange(*samples).dtype.name


class ZeroStepError(ValueError, ZeroDivisionError):
    """``arange`` with a zero step: NumPy raises ZeroDivisionError, arignote's ops ValueError
    for bad arguments; this error is both."""


class ARange(Op):
    """``np.arange(start, stop, step, dtype)`` for 0-d ``start``, ``stop`` and ``step``."""

    __props__ = ("dtype",)

    def __init__(self, dtype: Any) -> None:
        self.dtype = np.dtype(dtype).name

    def make_node(self, start: Any, stop: Any, step: Any) -> Apply:
        bounds = [as_tensor_variable(v) for v in (start, stop, step)]
        for name, b in zip(("start", "stop", "step"), bounds):
            if b.type.ndim != 0 or b.type.dtype not in discrete_dtypes + float_dtypes:
                raise TypeError(f"ARange: {name} must be a real scalar, got {b.type}")
        values = [_static_number(b) for b in bounds]
        if values[2] is not None and values[2] == 0:
            raise ZeroStepError("ARange: step must not be zero")
        length = None
        if all(v is not None for v in values):
            length = _arange_length(*values)
        return Apply(self, bounds, [tensor_type(self.dtype, (length,))()])

    def perform(self, node, inputs, output_storage):
        start, stop, step = (v.item() for v in inputs)  # NumPy computes with Python numbers
        if step == 0:
            raise ZeroStepError(f"{self}: step must not be zero")
        output_storage[0][0] = np.arange(start, stop, step, dtype=self.dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        start, stop, step = node.inputs
        if all(b.type.dtype in discrete_dtypes for b in node.inputs):
            length = neg(int_div(sub(start, stop), step))  # ceil((stop - start) / step)
        else:
            # in float64, as NumPy computes the length with Python floats
            start, stop, step = (cast(b, "float64") for b in node.inputs)
            length = neg(floor(true_div(sub(start, stop), step)))
        return [(maximum(cast(length, "int64"), 0),)]

    def connection_pattern(self, node):
        return [[True], [False], [True]]  # stop only moves where the sequence ends

    def grad(self, inputs, output_grads):
        start, _, step = inputs
        (gz,) = output_grads
        if self.dtype in discrete_dtypes:
            return [start.zeros_like(dtype=grad_dtype(start)), disconnected(), _zero_like(step)]
        # out[i] = start + i * step
        index = arange(shape_i(gz, 0))
        g_start = gz.sum()
        g_step = (gz * cast(index, self.dtype)).sum()
        return [
            _grad_for(start, g_start),
            disconnected(),
            _grad_for(step, g_step),
        ]

    def R_op(self, inputs, eval_points):
        ev_start, _, ev_step = eval_points
        if self.dtype in discrete_dtypes or (ev_start is None and ev_step is None):
            return [None]
        out = self(*inputs)
        result = out.zeros_like()
        if ev_start is not None:
            result = result + cast(ev_start, self.dtype)
        if ev_step is not None:
            index = cast(arange(shape_i(out, 0)), self.dtype)
            result = result + index * cast(ev_step, self.dtype)
        return [result]


def _arange_length(start: Any, stop: Any, step: Any) -> int:
    """The length of ``np.arange(start, stop, step)``: ``max(0, ceil((stop - start) / step))``."""
    if all(isinstance(v, (np.integer, np.bool_)) for v in (start, stop, step)):
        return builtins.max(0, -((int(start) - int(stop)) // int(step)))
    return builtins.max(0, math.ceil((float(stop) - float(start)) / float(step)))


def _zero_like(x: Variable) -> Variable:
    return x.zeros_like(dtype=grad_dtype(x))


def _grad_for(x: Variable, g: Variable) -> Variable:
    """A gradient term for input ``x``: in its dtype when it is a float one."""
    return g.astype(x.type.dtype) if x.type.dtype in continuous_dtypes else g


def _static_number(var: Variable) -> Any:
    try:
        return get_scalar_constant_value(var)[()]
    except NotScalarConstantError:
        return None


def arange(start: Any, stop: Any = None, step: Any = 1, dtype: Any = None) -> Variable:
    """Evenly spaced values in ``[start, stop)`` by ``step``, like ``np.arange``.

    ``arange(n)`` counts from 0. The bounds may be symbolic scalars. The default dtype follows
    NumPy: int64 for integer bounds, float64 when one is a float (complex128 for complex).
    """
    if stop is None:
        start, stop = 0, start
    bounds = [as_tensor_variable(v) for v in (start, stop, step)]
    if dtype is None:
        dtype = arange_dtype(*[b.type.dtype for b in bounds])
    return ARange(dtype)(*bounds)


# -- Linspace -------------------------------------------------------------------------------


class Linspace(Op):
    """``np.linspace(start, stop, num, endpoint, dtype=dtype, axis=axis)``.

    ``start`` and ``stop`` broadcast against each other (runtime broadcasting only along
    dimensions of static length 1); the ``num`` samples lie along output dimension ``axis``.
    """

    __props__ = ("endpoint", "dtype", "axis")

    def __init__(self, endpoint: bool = True, dtype: Any = "float64", axis: int = 0) -> None:
        self.endpoint = bool(endpoint)
        self.dtype = np.dtype(dtype).name
        if int(axis) < 0:
            raise ValueError(f"Linspace expects a non-negative axis, got {axis}")
        self.axis = int(axis)

    def make_node(self, start: Any, stop: Any, num: Any) -> Apply:
        start, stop = as_tensor_variable(start), as_tensor_variable(stop)
        num = as_size(num, "Linspace")
        ndim = max(start.type.ndim, stop.type.ndim)
        if self.axis > ndim:
            raise np.exceptions.AxisError(
                f"Linspace: axis {self.axis} is out of range for {ndim + 1} dims"
            )
        shape = list(broadcast_static_shape([_padded(start, ndim), _padded(stop, ndim)], self))
        shape.insert(self.axis, static_int(num))
        return Apply(self, [start, stop, num], [tensor_type(self.dtype, tuple(shape))()])

    def perform(self, node, inputs, output_storage):
        start, stop, num = inputs
        _check_no_runtime_broadcast(self, node.inputs[:2], [start, stop])
        output_storage[0][0] = np.linspace(
            start, stop, int(num), endpoint=self.endpoint, dtype=self.dtype, axis=self.axis
        )

    def infer_shape(self, fgraph, node, input_shapes):
        start, stop, num = node.inputs
        ndim = node.outputs[0].type.ndim - 1
        padded = [_padded_shape(s, ndim) for s in input_shapes[:2]]
        statics = [_padded(start, ndim), _padded(stop, ndim)]
        shape = [padded[1][d] if statics[0][d] == 1 else padded[0][d] for d in range(ndim)]
        shape.insert(self.axis, num)
        return [tuple(shape)]

    def connection_pattern(self, node):
        return [[True], [True], [False]]

    def _fraction(self, num: Variable, ndim: int) -> Variable:
        """t[i] = i / div along ``axis`` (out = start + t * (stop - start), exactly at the ends)."""
        div = num - 1 if self.endpoint else num
        index = cast(arange(num), "float64")
        t = cast(true_div(index, cast(maximum(div, 1), "float64")), _float_of(self.dtype))
        order = ["x"] * ndim
        order.insert(self.axis, 0)
        return DimShuffle(1, order)(t)

    def grad(self, inputs, output_grads):
        start, stop, num = inputs
        (gz,) = output_grads
        if self.dtype in discrete_dtypes:
            return [_zero_like(start), _zero_like(stop), disconnected()]
        t = self._fraction(num, gz.type.ndim - 1)
        g_start = (gz * (1 - t)).sum(axis=self.axis)
        g_stop = (gz * t).sum(axis=self.axis)
        return [
            _grad_for(start, _sum_to(g_start, start)),
            _grad_for(stop, _sum_to(g_stop, stop)),
            disconnected(),
        ]

    def R_op(self, inputs, eval_points):
        num = inputs[2]
        if self.dtype in discrete_dtypes or all(ev is None for ev in eval_points[:2]):
            return [None]
        t = self._fraction(num, self(*inputs).type.ndim - 1)
        terms = []
        for ev, weight in zip(eval_points[:2], (1 - t, t)):
            if ev is not None:
                ev = _pad_to(cast(ev, self.dtype), t.type.ndim - 1)
                terms.append(_insert_axis(ev, self.axis) * weight)
        total = terms[0] if len(terms) == 1 else terms[0] + terms[1]
        return [total + self(*inputs).zeros_like()]


def _check_no_runtime_broadcast(op: Op, variables: list, values: list) -> None:
    """Refuse values whose lengths differ where no static length-1 dimension allows it."""
    ndim = builtins.max(v.ndim for v in values)
    shapes = [_padded_shape(v.shape, ndim) for v in values]
    statics = [_padded(var, ndim) for var in variables]
    for d in range(ndim):
        lengths = {s[d] for s, st in zip(shapes, statics) if st[d] != 1}
        if len(lengths) > 1:
            raise ValueError(
                f"{op}: inputs of shapes {[v.shape for v in values]} do not match in dimension "
                f"{d}, and only dimensions of static length 1 may be broadcast"
            )


def _float_of(dtype: str) -> str:
    return dtype if dtype in continuous_dtypes else "float64"


def _padded(x: Variable, ndim: int) -> tuple:
    return (1,) * (ndim - x.type.ndim) + x.type.shape


def _padded_shape(shape: tuple, ndim: int) -> tuple:
    return (1,) * (ndim - len(shape)) + tuple(shape)


def _pad_to(x: Variable, ndim: int) -> Variable:
    missing = ndim - x.type.ndim
    if missing <= 0:
        return x
    return DimShuffle(x.type.ndim, ["x"] * missing + list(range(x.type.ndim)))(x)


def _insert_axis(x: Variable, axis: int) -> Variable:
    order: list = list(range(x.type.ndim))
    order.insert(axis, "x")
    return DimShuffle(x.type.ndim, order)(x)


def _weak_dtype(value: Any) -> Any:
    """A Python number itself (weak in NumPy's promotion), else the dtype of the tensor."""
    return value if is_python_scalar(value) else as_tensor_variable(value).type.dtype


def linspace(
    start: Any,
    stop: Any,
    num: Any = 50,
    endpoint: bool = True,
    retstep: bool = False,
    dtype: Any = None,
    axis: int = 0,
):
    """``num`` evenly spaced samples from ``start`` to ``stop``, like ``np.linspace``.

    Parameters
    ----------
    start, stop
        Numbers or tensors (broadcast against each other).
    num
        The number of samples (an int or integer scalar).
    endpoint
        Whether ``stop`` is the last sample.
    retstep
        Also return the spacing between samples.
    dtype
        The result dtype; by default float64, or the floating dtype of ``start`` and ``stop``.
    axis
        Where the samples lie in the result (when ``start``/``stop`` are arrays).
    """
    # Python numbers are weak (NEP 50): linspace(float32, 2) stays float32
    ends = [v if is_python_scalar(v) else as_tensor_variable(v).type.dtype for v in (start, stop)]
    float_dtype = np.result_type(*ends, 1.0).name
    dtype = float_dtype if dtype is None else dtype
    start, stop = as_tensor_variable(start), as_tensor_variable(stop)
    ndim = max(start.type.ndim, stop.type.ndim) + 1
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(
            f"linspace: axis {axis} is out of range for a {ndim}-d result"
        )
    samples = Linspace(endpoint, dtype, axis % ndim)(start, stop, num)
    if not retstep:
        return samples
    return samples, _linspace_step(start, stop, num, endpoint, float_dtype)


def _linspace_step(start: Variable, stop: Variable, num: Any, endpoint: bool, dtype: str):
    """NumPy's step: ``(stop - start) / div`` in the floating dtype of the ends, where
    ``div`` is ``num - 1`` (``num`` without the endpoint); NaN when ``div`` is 0."""
    div = sub(num, 1) if endpoint else as_tensor_variable(num)
    delta = sub(cast(stop, dtype), cast(start, dtype))
    step = true_div(delta, cast(maximum(div, 1), dtype))
    return switch(gt(div, 0), step, constant(np.nan, dtype=dtype))


__all__ = [
    "ARange",
    "Alloc",
    "AllocEmpty",
    "Eye",
    "Linspace",
    "alloc",
    "arange",
    "broadcast_arrays",
    "broadcast_shape",
    "broadcast_to",
    "empty",
    "empty_like",
    "eye",
    "full",
    "full_like",
    "identity_like",
    "linspace",
    "ones",
    "tri",
    "zeros",
]
