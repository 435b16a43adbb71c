"""Index-based operations: take, take_along_axis, nonzero, where, bincount, diff and choose."""

from __future__ import annotations

from typing import Any

import numpy as np

from arignote.graph.basic import Apply, Constant, Variable
from arignote.graph.grad_types import disconnected
from arignote.graph.op import Op
from arignote.scalar.basic import grad_dtype, integer_dtypes, upcast
from arignote.tensor import math as tm
from arignote.tensor.advanced_subtensor import broadcast_lengths
from arignote.tensor.alloc import broadcast_to
from arignote.tensor.basic import as_index_variable, as_tensor_variable
from arignote.tensor.elemwise import broadcast_static_shape
from arignote.tensor.index_spec import check_runtime_value, sum_to_type
from arignote.tensor.join import concatenate
from arignote.tensor.reduction import sum as tensor_sum
from arignote.tensor.reshape import flatten
from arignote.tensor.shape import as_axis, shape_i, shape_padleft
from arignote.tensor.subtensor import getitem
from arignote.tensor.type import tensor_type


def normalize_axis(axis: Any, ndim: int, name: str) -> int:
    """``axis`` as a non-negative int, or ValueError naming ``name``."""
    axis = as_axis(axis, name)
    if not -ndim <= axis < max(ndim, 1) or ndim == 0:
        raise np.exceptions.AxisError(f"{name}: axis {axis} is out of bounds for a {ndim}-d tensor")
    return axis % ndim


def _check_integer(name: str, var: Variable, what: str) -> None:
    if var.type.dtype not in integer_dtypes:
        raise TypeError(f"{name}: {what} must have an integer dtype, got {var.type}")


# -- take ----------------------------------------------------------------------------------


def take(a: Any, indices: Any, axis: int | None = None, mode: str = "raise") -> Variable:
    """Elements of ``a`` at ``indices`` along ``axis`` (``None``: of the flattened ``a``).

    Like ``np.take``: the result has the shape ``a.shape[:axis] + indices.shape +
    a.shape[axis + 1:]``. ``mode`` says what out-of-bounds indices do: ``"raise"`` (an
    IndexError when the function runs), ``"wrap"`` (modulo the length) or ``"clip"``.
    """
    a = as_tensor_variable(a)
    if axis is None:
        a, axis = flatten(a), 0
    axis = normalize_axis(axis, a.type.ndim, "take")
    indices = as_index_variable(indices)
    _check_integer("take", indices, "indices")
    if mode == "wrap":
        indices = tm.mod(indices, shape_i(a, axis))
    elif mode == "clip":
        indices = tm.minimum(tm.maximum(indices, 0), shape_i(a, axis) - 1)
    elif mode != "raise":
        raise ValueError(f"take: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    return getitem(a, (slice(None),) * axis + (indices,))


# -- along an axis -----------------------------------------------------------------------------


def _along_axis_shape(name: str, arr: Variable, indices: Variable, axis: int) -> tuple:
    if indices.type.ndim != arr.type.ndim:
        raise ValueError(
            f"{name}: indices and arr must have the same number of dimensions, got "
            f"{indices.type} and {arr.type}"
        )
    _check_integer(name, indices, "indices")
    if axis >= arr.type.ndim:
        raise np.exceptions.AxisError(f"{name}: axis {axis} is out of bounds for {arr.type}")
    # the dimensions other than axis broadcast; along axis, the result is as long as indices
    without_axis = [
        tuple(1 if d == axis else s for d, s in enumerate(v.type.shape)) for v in (arr, indices)
    ]
    others = broadcast_static_shape(without_axis, context=name)
    return tuple(indices.type.shape[d] if d == axis else s for d, s in enumerate(others))


def _fancy_along_axis(shape: tuple, indices: np.ndarray, axis: int) -> tuple:
    """The NumPy index ``take_along_axis`` reads: ``indices`` on ``axis``, aranges elsewhere."""
    index = []
    for d, length in enumerate(shape):
        if d == axis:
            index.append(indices)
        else:
            grid = [1] * len(shape)
            grid[d] = length
            index.append(np.arange(length).reshape(grid))
    return tuple(index)


class TakeAlongAxis(Op):
    """``np.take_along_axis(arr, indices, axis)``: ``out[..., j, ...] = arr[..., indices[..., j,
    ...], ...]``; the other dimensions of ``arr`` and ``indices`` broadcast."""

    __props__ = ("axis",)

    def __init__(self, axis: int) -> None:
        if int(axis) < 0:
            raise ValueError(f"TakeAlongAxis expects a non-negative axis, got {axis}")
        self.axis = int(axis)

    def make_node(self, arr: Any, indices: Any) -> Apply:
        arr, indices = as_tensor_variable(arr), as_index_variable(indices)
        shape = _along_axis_shape(str(self), arr, indices, self.axis)
        return Apply(self, [arr, indices], [tensor_type(arr.type.dtype, shape)()])

    def perform(self, node, inputs, output_storage):
        arr, indices = inputs
        output_storage[0][0] = np.take_along_axis(arr, indices, axis=self.axis)

    def infer_shape(self, fgraph, node, input_shapes):
        a_shape, i_shape = input_shapes
        lengths = [
            i_shape[d] if d == self.axis else broadcast_lengths(a_shape[d], i_shape[d])
            for d in range(len(a_shape))
        ]
        return [tuple(lengths)]

    def connection_pattern(self, node):
        return [[True], [False]]

    def grad(self, inputs, output_grads):
        (arr, indices), (gz,) = inputs, output_grads
        # gathering's adjoint: add each cotangent back where it was read from
        zeros = tm.zeros_like(arr, dtype=gz.type.dtype)
        return [AddAlongAxis(self.axis)(zeros, indices, gz), disconnected()]

    def R_op(self, inputs, eval_points):
        if eval_points[0] is None:
            return [None]
        return [self(eval_points[0], inputs[1])]  # linear in arr

    def __str__(self) -> str:
        return f"TakeAlongAxis{{axis={self.axis}}}"


class AddAlongAxis(Op):
    """``arr`` with ``values`` added at the positions ``take_along_axis(arr, indices)`` reads.

    Repeated positions accumulate (``np.add.at``): the adjoint of :class:`TakeAlongAxis`.
    ``values`` must have the shape of ``take_along_axis(arr, indices, axis)``.
    """

    __props__ = ("axis",)

    def __init__(self, axis: int) -> None:
        self.axis = TakeAlongAxis(axis).axis

    def make_node(self, arr: Any, indices: Any, values: Any) -> Apply:
        arr, indices, values = (as_tensor_variable(v) for v in (arr, indices, values))
        target = _along_axis_shape(str(self), arr, indices, self.axis)
        if values.type.ndim != len(target) or values.type.dtype != arr.type.dtype:
            raise TypeError(f"{self}: values of {values.type} cannot be added into {arr.type}")
        return Apply(self, [arr, indices, values], [arr.type()])

    def perform(self, node, inputs, output_storage):
        arr, indices, values = inputs
        out = arr.copy()
        index = _fancy_along_axis(arr.shape, indices, self.axis)
        target = np.broadcast_shapes(*[np.shape(i) for i in index])
        check_runtime_value(self, node.inputs[2], values, target)
        np.add.at(out, index, values)
        output_storage[0][0] = out

    def infer_shape(self, fgraph, node, input_shapes):
        return [input_shapes[0]]

    def connection_pattern(self, node):
        return [[True], [False], [True]]

    def grad(self, inputs, output_grads):
        (_, indices, values), (gz,) = inputs, output_grads
        gv = sum_to_type(TakeAlongAxis(self.axis)(gz, indices), values)
        return [gz, disconnected(), gv]

    def R_op(self, inputs, eval_points):
        (arr, indices, values), (ev_a, _, ev_v) = inputs, eval_points
        if ev_a is None and ev_v is None:
            return [None]
        ev_a = tm.zeros_like(arr) if ev_a is None else ev_a
        ev_v = tm.zeros_like(values) if ev_v is None else ev_v
        return [self(ev_a, indices, ev_v)]  # linear in (arr, values)

    def __str__(self) -> str:
        return f"AddAlongAxis{{axis={self.axis}}}"


def take_along_axis(arr: Any, indices: Any, axis: int | None = -1) -> Variable:
    """Values of ``arr`` at ``indices`` along ``axis``, like ``np.take_along_axis``.

    ``indices`` has the dimensions of ``arr`` (the others broadcast); with ``axis=None``,
    ``arr`` is flattened and ``indices`` must be a vector. Results of ``argsort`` and
    ``argmax(keepdims=True)`` are typical indices.
    """
    arr, indices = as_tensor_variable(arr), as_index_variable(indices)
    if axis is None:
        if indices.type.ndim != 1:
            raise ValueError("take_along_axis: with axis=None, indices must be a vector")
        arr, axis = flatten(arr), 0
    axis = normalize_axis(axis, arr.type.ndim, "take_along_axis")
    return TakeAlongAxis(axis)(arr, indices)


# -- nonzero / where ---------------------------------------------------------------------------


class Nonzero(Op):
    """The indices of the non-zero elements of ``a``: one int64 vector per dimension."""

    __props__ = ()

    def make_node(self, a: Any) -> Apply:
        a = as_tensor_variable(a)
        if a.type.ndim == 0:
            raise ValueError(
                "Calling nonzero on 0d arrays is not allowed. Use atleast_1d(scalar).nonzero()"
            )
        return Apply(self, [a], [tensor_type("int64", (None,))() for _ in range(a.type.ndim)])

    def perform(self, node, inputs, output_storage):
        for cell, positions in zip(output_storage, np.nonzero(inputs[0])):
            cell[0] = positions.astype(np.int64, copy=False)

    def infer_shape(self, fgraph, node, input_shapes):
        # Data-dependent: each output has one entry per non-zero element of a.
        count = tensor_sum(tm.neq(node.inputs[0], 0), dtype="int64")
        return [(count,)] * len(node.outputs)

    def grad(self, inputs, output_grads):
        (a,) = inputs
        # the positions do not change under a small perturbation of the values
        return [tm.zeros_like(a, dtype=grad_dtype(a))]

    def R_op(self, inputs, eval_points):
        return [None] * inputs[0].type.ndim  # integer outputs


def nonzero(a: Any, return_matrix: bool = False) -> tuple[Variable, ...] | Variable:
    """The indices of the non-zero elements of ``a``, one vector per dimension (``np.nonzero``).

    ``a[nonzero(a)]`` gives the non-zero values. With ``return_matrix`` (PyTensor's option),
    the vectors are the rows of one ``(a.ndim, count)`` matrix instead.
    """
    indices = tuple(Nonzero()(a, return_list=True))
    if not return_matrix:
        return indices
    return concatenate([shape_padleft(i) for i in indices], axis=0)


def where(condition: Any, x: Any = None, y: Any = None) -> Variable | tuple[Variable, ...]:
    """``x`` where ``condition`` holds, else ``y`` (elementwise, broadcasting); with only
    ``condition``, its non-zero indices (``nonzero(condition)``), like ``np.where``."""
    if x is None and y is None:
        return nonzero(condition)
    if x is None or y is None:
        raise ValueError("where: either both or neither of x and y should be given")
    return tm.switch(condition, x, y)


# -- bincount --------------------------------------------------------------------------------


class BincountLength(Op):
    """The length of ``bincount(x, minlength)``: ``max(minlength, max(x) + 1)``, 0-based.

    Computing it needs the values of ``x`` but not the counts: it is ``BinCount``'s shape.
    """

    __props__ = ("minlength",)

    def __init__(self, minlength: int = 0) -> None:
        self.minlength = int(minlength)

    def make_node(self, x: Any) -> Apply:
        x = as_index_variable(x)
        return Apply(self, [x], [tensor_type("int64", ())()])

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        largest = int(x.max()) + 1 if x.size else 0
        output_storage[0][0] = np.asarray(max(self.minlength, largest), dtype=np.int64)

    def infer_shape(self, fgraph, node, input_shapes):
        return [()]

    def connection_pattern(self, node):
        return [[False]]

    def grad(self, inputs, output_grads):
        return [disconnected()]

    def R_op(self, inputs, eval_points):
        return [None]


# NumPy accepts uint64 too (values past int64's range raise when the function runs)
_BINCOUNT_DTYPES = ("bool", *integer_dtypes)


class BinCount(Op):
    """``np.bincount(x, weights, minlength)``: how often each value of ``x`` occurs (or the sum
    of the ``weights`` at its positions). Inputs: ``x`` and optionally ``weights``."""

    __props__ = ("minlength",)

    def __init__(self, minlength: int = 0) -> None:
        if int(minlength) < 0:
            raise ValueError(f"bincount: minlength must be non-negative, got {minlength}")
        self.minlength = int(minlength)

    def make_node(self, x: Any, weights: Any = None) -> Apply:
        x = as_index_variable(x)
        if x.type.ndim != 1 or x.type.dtype not in _BINCOUNT_DTYPES:
            raise TypeError(f"bincount: x must be a vector of booleans or integers, got {x.type}")
        inputs, dtype = [x], "int64"
        if weights is not None:
            weights = as_tensor_variable(weights)
            if weights.type.ndim != 1 or weights.type.dtype.startswith("complex"):
                raise TypeError(f"bincount: weights must be a real vector, got {weights.type}")
            inputs, dtype = [x, weights], "float64"  # NumPy sums weights as float64
        return Apply(self, inputs, [tensor_type(dtype, (None,))()])

    def perform(self, node, inputs, output_storage):
        x, *weights = inputs
        counts = np.bincount(x, weights[0] if weights else None, minlength=self.minlength)
        output_storage[0][0] = counts.astype(node.outputs[0].type.dtype, copy=False)

    def infer_shape(self, fgraph, node, input_shapes):
        # Data-dependent: the length is max(x) + 1 (at least minlength).
        return [(BincountLength(self.minlength)(node.inputs[0]),)]

    def grad(self, inputs, output_grads):
        (x, *weights), (gz,) = inputs, output_grads
        gx = tm.zeros_like(x, dtype=grad_dtype(x))  # counts are piecewise constant in x
        if not weights:
            return [gx]
        # out[k] = sum_{i: x_i = k} w_i, so d out / d w_i picks gz[x_i]
        return [gx, tm.cast(getitem(gz, x), grad_dtype(weights[0]))]

    def R_op(self, inputs, eval_points):
        if len(inputs) == 1 or eval_points[1] is None:
            return [None]
        return [self(inputs[0], eval_points[1])]  # linear in the weights

    def __str__(self) -> str:
        return f"BinCount{{minlength={self.minlength}}}"


def bincount(
    x: Any, weights: Any = None, minlength: int | None = 0, assert_nonneg: bool = False
) -> Variable:
    """Occurrences of each value ``0, 1, ..., max(x)`` in the non-negative int vector ``x``.

    Like ``np.bincount``: with ``weights``, the sums of the weights instead of counts (as
    float64); the result has at least ``minlength`` entries (None: no minimum). Negative
    values raise when the function runs, so PyTensor's ``assert_nonneg`` check is always on.
    """
    minlength = 0 if minlength is None else minlength
    return BinCount(minlength)(x) if weights is None else BinCount(minlength)(x, weights)


# -- diff ------------------------------------------------------------------------------------


def diff(a: Any, n: int = 1, axis: int = -1, prepend: Any = None, append: Any = None) -> Variable:
    """The ``n``-th discrete difference along ``axis``: ``a[1:] - a[:-1]``, ``n`` times.

    Like ``np.diff`` (booleans give ``a[1:] != a[:-1]``). ``prepend``/``append`` are joined to
    ``a`` along ``axis`` first (a scalar becomes a slice of length 1); ``n=0`` returns ``a``
    unchanged, ignoring them, as NumPy does.
    """
    a = as_tensor_variable(a)
    n = as_axis(n, "diff", "the order n")
    if n < 0:
        raise ValueError(f"diff: order must be non-negative but got {n}")
    if a.type.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    axis = normalize_axis(axis, a.type.ndim, "diff")
    if n == 0:
        return a
    pieces = [_diff_edge(prepend, a, axis), a, _diff_edge(append, a, axis)]
    pieces = [p for p in pieces if p is not None]
    if len(pieces) > 1:
        a = concatenate(pieces, axis=axis)
    head = (slice(None),) * axis
    for _ in range(n):
        upper, lower = getitem(a, (*head, slice(1, None))), getitem(a, (*head, slice(None, -1)))
        a = tm.neq(upper, lower) if a.type.dtype == "bool" else upper - lower
    return a


def _diff_edge(values: Any, a: Variable, axis: int) -> Variable | None:
    """``diff``'s prepend/append: a scalar is broadcast to ``a``'s shape with length 1 on axis."""
    if values is None:
        return None
    values = as_tensor_variable(values)
    if values.type.ndim != 0:
        return values
    lengths = [1 if d == axis else shape_i(a, d) for d in range(a.type.ndim)]
    return broadcast_to(values, lengths)


# -- choose ----------------------------------------------------------------------------------

CHOOSE_MODES = ("raise", "wrap", "clip")


class Choose(Op):
    """``np.choose(a, choices, mode)``: ``out[I] = choices[a[I]][I]``, all inputs broadcast.

    Inputs: ``a`` (integers), then the choices, padded on the left to a common number of
    dimensions; as for ``Elemwise``, only dimensions of static length 1 broadcast.
    """

    __props__ = ("mode",)

    def __init__(self, mode: str = "raise") -> None:
        if mode not in CHOOSE_MODES:
            raise ValueError(f"choose: mode must be one of {CHOOSE_MODES}, got {mode!r}")
        self.mode = mode

    def make_node(self, a: Any, *choices: Any) -> Apply:
        inputs = [as_index_variable(a)] + [as_tensor_variable(v) for v in choices]
        if len(inputs) < 2:
            raise ValueError("choose needs at least one choice")
        _check_integer("choose", inputs[0], "a")
        ndim = max(v.type.ndim for v in inputs)
        inputs = [shape_padleft(v, ndim - v.type.ndim) if v.type.ndim < ndim else v for v in inputs]
        shape = broadcast_static_shape([v.type.shape for v in inputs], context=self)
        dtype = upcast(*[c.type.dtype for c in inputs[1:]])
        return Apply(self, inputs, [tensor_type(dtype, shape)()])

    def perform(self, node, inputs, output_storage):
        a, *choices = inputs
        out_shape = np.broadcast_shapes(*[np.shape(v) for v in inputs])
        for var, value in zip(node.inputs, inputs):
            check_runtime_value(self, var, value, out_shape, what="an input")
        result = np.choose(a, choices, mode=self.mode)
        output_storage[0][0] = np.asarray(result, dtype=node.outputs[0].type.dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        lengths = []
        for d in range(node.outputs[0].type.ndim):
            sources = [s[d] for v, s in zip(node.inputs, input_shapes) if v.type.shape[d] != 1]
            lengths.append(sources[0] if sources else 1)
        return [tuple(lengths)]

    def _selector(self, a: Variable, n_choices: int) -> Variable:
        """The choice each element takes, after the mode has mapped ``a`` into range."""
        if self.mode == "wrap":
            return tm.mod(a, n_choices)
        if self.mode == "clip":
            return tm.minimum(tm.maximum(a, 0), n_choices - 1)
        return a

    def grad(self, inputs, output_grads):
        (a, *choices), (gz,) = inputs, output_grads
        selector = self._selector(a, len(choices))
        # choice k reaches the output exactly where it is selected
        grads = [
            sum_to_type(tm.switch(tm.eq(selector, k), gz, 0), c) for k, c in enumerate(choices)
        ]
        grads = [tm.cast(g, grad_dtype(c)) for g, c in zip(grads, choices)]
        return [tm.zeros_like(a, dtype=grad_dtype(a)), *grads]

    def R_op(self, inputs, eval_points):
        (a, *choices), (_, *evs) = inputs, eval_points
        if all(ev is None for ev in evs):
            return [None]
        evs = [tm.zeros_like(c) if ev is None else ev for c, ev in zip(choices, evs)]
        return [self(a, *evs)]  # linear in the choices

    def __str__(self) -> str:
        return f"Choose{{mode={self.mode}}}"


def _choice_list(choices: Any) -> list:
    if isinstance(choices, (list, tuple)):
        return list(choices)
    if isinstance(choices, np.ndarray):
        return list(choices)
    choices = as_tensor_variable(choices)
    if isinstance(choices, Constant):
        return list(choices.data)
    count = choices.type.shape[0] if choices.type.ndim else None
    if count is None:
        raise TypeError(
            f"choose: the number of choices must be known when the graph is built; {choices} "
            f"has type {choices.type} (pass a list of tensors, or specify_shape the first axis)"
        )
    return [getitem(choices, k) for k in range(count)]


def choose(a: Any, choices: Any, mode: str = "raise") -> Variable:
    """Elements picked from ``choices`` by the integers in ``a``, like ``np.choose``.

    ``choices`` is a list of tensors (or a tensor whose first axis of known length lists
    them); ``a`` and the choices broadcast together. ``mode`` ("raise", "wrap", "clip") says
    what out-of-range entries of ``a`` do.

    Differences from NumPy: the number of choices must be known when the graph is built, and
    (as for elementwise ops) only dimensions of static length 1 broadcast; other length
    mismatches raise when the function runs. The result has the common dtype of the choices.
    """
    return Choose(mode)(a, *_choice_list(choices))


__all__ = [
    "AddAlongAxis",
    "BinCount",
    "BincountLength",
    "Choose",
    "Nonzero",
    "TakeAlongAxis",
    "bincount",
    "choose",
    "diff",
    "nonzero",
    "take",
    "take_along_axis",
    "where",
]
