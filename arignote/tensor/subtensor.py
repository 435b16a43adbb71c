"""Basic indexing: ``Subtensor`` (``x[1:, i, None]``, a view of ``x``) and ``IncSubtensor``.

An index is stored in two parts. The op's ``idx_list`` prop holds its *structure*: one entry per
index item, :data:`INT` (an integer), a :class:`SliceSpec` (a slice, saying which of start, stop
and step are given), ``None`` (a new axis) and, for advanced indexing, :data:`ARRAY`,
:data:`MASK` and ``Ellipsis``. The *values* (integers, slice bounds, index arrays) are inputs of
the node, after ``x`` (and ``y`` for the inc/set ops), so that one op serves constant and
symbolic indices alike. The helpers below are shared with ``advanced_subtensor``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np

from arignote.graph.basic import Apply, Constant, Variable
from arignote.graph.grad_types import disconnected
from arignote.graph.op import Op
from arignote.scalar.basic import integer_dtypes
from arignote.tensor import math as tm
from arignote.tensor.basic import (
    MakeVector,
    NotScalarConstantError,
    as_tensor_variable,
    constant,
    constant_value_rule,
    get_scalar_constant_value,
)
from arignote.tensor.shape import Shape
from arignote.tensor.type import tensor_type

INT = "int"  # a 0-d integer input picks one position; the dimension disappears
ARRAY = "array"  # an integer array input (advanced indexing)
MASK = "mask"  # a boolean array input (advanced indexing); covers mask.ndim dimensions


class SliceSpec(NamedTuple):
    """A slice entry of an ``idx_list``: which of start, stop and step are node inputs."""

    start: bool
    stop: bool
    step: bool

    def __str__(self) -> str:
        parts = ["s" if self.start else "", "s" if self.stop else "", "s" if self.step else ""]
        return ":".join(parts).rstrip(":") or ":"


FULL_SLICE = SliceSpec(False, False, False)

#: A value of a shape computation not known when the graph is built.
UNKNOWN = type("Unknown", (), {"__repr__": lambda self: "UNKNOWN"})()


def entry_str(entry: Any) -> str:
    if entry is None:
        return "newaxis"
    if entry is Ellipsis:
        return "..."
    return str(entry)


def n_entry_inputs(entry: Any) -> int:
    """How many node inputs an ``idx_list`` entry takes."""
    if isinstance(entry, SliceSpec):
        return sum(entry)
    return 1 if entry in (INT, ARRAY, MASK) else 0


def check_idx_list(op_name: str, idx_list: Sequence[Any], allowed: tuple) -> tuple:
    """``idx_list`` as a tuple, checking that every entry is one of the ``allowed`` kinds."""
    idx_list = tuple(SliceSpec(*e) if isinstance(e, tuple) else e for e in idx_list)
    for entry in idx_list:
        kind = SliceSpec if isinstance(entry, SliceSpec) else entry
        if kind not in allowed:
            raise ValueError(f"{op_name} does not accept the index entry {entry!r}")
    if sum(e is Ellipsis for e in idx_list) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    return idx_list


def entry_groups(idx_list: Sequence[Any], inputs: Sequence[Any]) -> Iterator[tuple]:
    """``(entry, its inputs)`` pairs: the node inputs split among the ``idx_list`` entries.

    A slice's group has one item per field (``None`` for a field that is not given).
    """
    position = 0
    for entry in idx_list:
        if isinstance(entry, SliceSpec):
            group = []
            for given in entry:
                group.append(inputs[position] if given else None)
                position += given
            yield entry, tuple(group)
        else:
            count = n_entry_inputs(entry)
            yield entry, tuple(inputs[position : position + count])
            position += count


def numpy_index(idx_list: Sequence[Any], values: Sequence[Any]) -> tuple:
    """The NumPy index tuple for ``idx_list`` with input ``values`` (in ``perform``)."""
    index = []
    for entry, group in entry_groups(idx_list, values):
        if isinstance(entry, SliceSpec):
            index.append(slice(*(None if v is None else int(v) for v in group)))
        elif entry == INT:
            index.append(int(group[0]))
        elif entry in (ARRAY, MASK):
            index.append(group[0])
        else:  # None (new axis) and Ellipsis mean the same to NumPy
            index.append(entry)
    return tuple(index)


# -- index inputs ----------------------------------------------------------------------------


def as_index_scalar(op: Any, value: Any) -> Variable:
    """``value`` as a 0-d integer tensor (an integer index or a slice bound)."""
    var = as_tensor_variable(value)
    if var.type.ndim != 0 or var.type.dtype not in integer_dtypes:
        raise TypeError(
            f"{op}: integer indices and slice bounds must be 0-d integers, got {var.type}"
        )
    return var


def check_input_count(op: Any, idx_list: Sequence[Any], index: Sequence[Any]) -> None:
    expected = sum(n_entry_inputs(e) for e in idx_list)
    if len(index) != expected:
        raise TypeError(f"{op} takes {expected} index inputs, got {len(index)}")


def static_int(value: Any) -> Any:
    """The integer value of a constant index input; ``None`` stays ``None``; else UNKNOWN."""
    if value is None:
        return None
    try:
        return int(get_scalar_constant_value(value))
    except NotScalarConstantError:
        return UNKNOWN


def int_or_variable(value: Any) -> Any:
    """A constant index input as a Python int (so shape graphs fold), else the variable."""
    static = static_int(value)
    return value if static is UNKNOWN else static


def check_static_bound(position: Any, length: Any, axis: int) -> None:
    """IndexError when a known integer index is out of bounds for a known length."""
    if position is UNKNOWN or length is None:
        return
    if not -length <= position < length:
        raise IndexError(f"index {position} is out of bounds for axis {axis} with size {length}")


# -- slice lengths ---------------------------------------------------------------------------
# These helpers compute with Python ints when they can and build graphs otherwise, so that
# one formula gives both static lengths and the symbolic lengths of infer_shape.


def _maximum(a: Any, b: Any) -> Any:
    return max(a, b) if isinstance(a, int) and isinstance(b, int) else tm.maximum(a, b)


def _minimum(a: Any, b: Any) -> Any:
    return min(a, b) if isinstance(a, int) and isinstance(b, int) else tm.minimum(a, b)


def _if_negative(v: Any, then: Any, otherwise: Any) -> Any:
    if isinstance(v, int):
        return then if v < 0 else otherwise
    return tm.switch(tm.lt(v, 0), then, otherwise)


def _bound(v: Any, n: Any, positive_step: bool) -> Any:
    """A start/stop clipped as Python clips it: negatives count from the end.

    With a positive step the result lies in [0, n]; with a negative step in [-1, n - 1].
    """
    if positive_step:
        return _if_negative(v, _maximum(v + n, 0), _minimum(v, n))
    return _if_negative(v, _maximum(v + n, -1), _minimum(v, n - 1))


def _length_positive_step(n: Any, start: Any, stop: Any, step: Any) -> Any:
    start = 0 if start is None else _bound(start, n, True)
    stop = n if stop is None else _bound(stop, n, True)
    # ceil((stop - start) / step), and 0 for an empty range
    return (_maximum(stop - start, 0) + step - 1) // step


def _length_negative_step(n: Any, start: Any, stop: Any, step: Any) -> Any:
    start = n - 1 if start is None else _bound(start, n, False)
    stop = -1 if stop is None else _bound(stop, n, False)
    return (_maximum(start - stop, 0) - step - 1) // (-step)


def slice_length(n: Any, start: Any, stop: Any, step: Any) -> Any:
    """``len(range(n)[start:stop:step])`` for ints or 0-d integer variables (None: absent)."""
    if step is None:
        step = 1
    if isinstance(step, int):
        if step == 0:
            raise ValueError("slice step cannot be zero")
        length = _length_positive_step if step > 0 else _length_negative_step
        return length(n, start, stop, step)
    # Unknown sign: compute both; the clamped steps keep the unused branch free of x // 0.
    positive = _length_positive_step(n, start, stop, _maximum(step, 1))
    negative = _length_negative_step(n, start, stop, _minimum(step, -1))
    return tm.switch(tm.gt(step, 0), positive, negative)


def static_slice_length(n: int | None, start: Any, stop: Any, step: Any) -> int | None:
    """The static length of a slice of a dimension of static length ``n`` (None: unknown).

    ``start``, ``stop``, ``step`` are ints, None (absent) or UNKNOWN (symbolic).
    """
    if step == 0:
        raise ValueError("slice step cannot be zero")
    if UNKNOWN in (start, stop, step):
        return None
    if start is None and stop is None and step in (None, 1, -1):
        return n
    if n is None:
        return None
    return len(range(*slice(start, stop, step).indices(n)))


# -- y values of set/inc -------------------------------------------------------------------


def check_value_fits(op: Any, x: Variable, y: Variable, target: tuple) -> None:
    """Build-time checks that ``y`` may be written into ``x[index]`` of static shape ``target``.

    ``y`` must have ``x``'s dtype (``set_subtensor``/``inc_subtensor`` cast it), at most as many
    dimensions as the target, and lengths that match it or are statically 1.
    """
    if y.type.dtype != x.type.dtype:
        raise TypeError(f"{op}: y has dtype {y.type.dtype}, x has {x.type.dtype}; cast y first")
    if y.type.ndim > len(target):
        raise ValueError(
            f"{op}: cannot write a {y.type.ndim}-d value into a {len(target)}-d subtensor"
        )
    for y_len, t_len in zip(y.type.shape[::-1], target[::-1]):
        if None not in (y_len, t_len) and y_len not in (1, t_len):
            raise ValueError(
                f"{op}: y of shape {y.type.shape} does not broadcast to the subtensor's shape "
                f"{target}"
            )


def check_runtime_value(
    op: Any, y_var: Variable, y: np.ndarray, target: tuple, what: str = "y"
) -> None:
    """Run-time check of ``y`` against the target shape (broadcast only where the type says).

    As for ``Elemwise``, a dimension of ``y`` broadcasts only if its static length is 1, so
    that the gradient with respect to ``y`` knows which dimensions to sum over.
    """
    offset = len(target) - y.ndim
    for d, (size, static) in enumerate(zip(y.shape, y_var.type.shape)):
        want = target[offset + d]
        if size == want or (size == 1 and static == 1):
            continue
        if size == 1:
            raise ValueError(
                f"{op}: runtime broadcasting is not allowed: {what} has length 1 in dimension "
                f"{d} where the result has {want}, but its type ({y_var.type}) does not declare "
                "that dimension broadcastable"
            )
        raise ValueError(f"{op}: {what} of shape {y.shape} does not broadcast to shape {target}")


def sum_to_type(g: Variable, var: Variable) -> Variable:
    """``g`` summed over the dimensions along which ``var`` was broadcast to ``g``'s shape."""
    extra = g.type.ndim - var.type.ndim
    if extra:
        g = g.sum(axis=tuple(range(extra)))
    axes = [d for d, s in enumerate(var.type.shape) if s == 1 and g.type.shape[d] != 1]
    if axes:
        g = g.sum(axis=axes, keepdims=True)
    return g


def zero_cotangent(gz: Variable) -> Variable:
    """A 0-d zero of ``gz``'s dtype, written into the positions an overwrite cut off."""
    return constant(0, dtype=gz.type.dtype)


# -- Subtensor -----------------------------------------------------------------------------

BASIC_ENTRIES = (INT, SliceSpec, None)


def _basic_walk(idx_list: Sequence[Any], index: Sequence[Any]) -> Iterator[tuple]:
    """``(entry, inputs, x dimension it reads or None)`` for the entries of a basic index."""
    dim = 0
    for entry, group in entry_groups(idx_list, index):
        if entry is None:
            yield entry, group, None
        else:
            yield entry, group, dim
            dim += 1


def _consumed(idx_list: Sequence[Any]) -> int:
    return sum(1 for e in idx_list if e is not None)


def basic_static_shape(op: Any, x: Variable, idx_list: Sequence[Any], index: Sequence) -> tuple:
    """The static shape of ``x[index]``, raising IndexError for what is known to be wrong."""
    used = _consumed(idx_list)
    if used > x.type.ndim:
        raise IndexError(
            f"too many indices for array: array is {x.type.ndim}-dimensional, but {used} were "
            f"indexed ({op})"
        )
    shape: list = []
    for entry, group, dim in _basic_walk(idx_list, [static_int(i) for i in index]):
        if entry is None:
            shape.append(1)
        elif entry == INT:
            check_static_bound(group[0], x.type.shape[dim], dim)
        else:
            shape.append(static_slice_length(x.type.shape[dim], *group))
    return tuple(shape) + x.type.shape[used:]


def basic_symbolic_shape(idx_list: Sequence[Any], x_shape: Sequence, index: Sequence) -> tuple:
    """The shape of ``x[index]`` from the shape of ``x`` and the index inputs."""
    shape: list = []
    for entry, group, dim in _basic_walk(idx_list, [int_or_variable(i) for i in index]):
        if entry is None:
            shape.append(1)
        elif isinstance(entry, SliceSpec):
            shape.append(slice_length(int_or_variable(x_shape[dim]), *group))
    return tuple(shape) + tuple(x_shape[_consumed(idx_list) :])


class Subtensor(Op):
    """``x[index]`` for a basic index: integers, slices and new axes. The result is a view.

    Inputs: ``x``, then the index values (see the module docstring). ``idx_list`` entries are
    :data:`INT`, :class:`SliceSpec` and ``None``.
    """

    __props__ = ("idx_list",)
    view_map = {0: [0]}

    def __init__(self, idx_list: Sequence[Any]) -> None:
        self.idx_list = check_idx_list("Subtensor", idx_list, BASIC_ENTRIES)

    def make_node(self, x: Any, *index: Any) -> Apply:
        x = as_tensor_variable(x)
        index = [as_index_scalar(self, i) for i in index]
        check_input_count(self, self.idx_list, index)
        shape = basic_static_shape(self, x, self.idx_list, index)
        return Apply(self, [x, *index], [tensor_type(x.type.dtype, shape)()])

    def perform(self, node, inputs, output_storage):
        x, *values = inputs
        out = x[numpy_index(self.idx_list, values)]
        output_storage[0][0] = out if isinstance(out, np.ndarray) else np.asarray(out, x.dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        return [basic_symbolic_shape(self.idx_list, input_shapes[0], node.inputs[1:])]

    def connection_pattern(self, node):
        return [[True]] + [[False]] * (len(node.inputs) - 1)

    def grad(self, inputs, output_grads):
        (x, *index), (gz,) = inputs, output_grads
        # x[index] picks elements: its adjoint adds gz back into zeros at the same positions
        zeros = tm.zeros_like(x, dtype=gz.type.dtype)
        gx = IncSubtensor(self.idx_list)(zeros, gz, *index)
        return [gx] + [disconnected() for _ in index]

    def R_op(self, inputs, eval_points):
        if eval_points[0] is None:
            return [None]
        return [self(eval_points[0], *inputs[1:])]  # linear in x

    def __str__(self) -> str:
        return f"Subtensor{{{', '.join(entry_str(e) for e in self.idx_list)}}}"


@constant_value_rule.register(Subtensor)
def _subtensor_value(op, node, index, recurse):
    """``v[i]`` of a constant, a ``make_vector`` or a shape with static lengths."""
    if op.idx_list != (INT,):
        raise NotScalarConstantError("only v[i] of a vector has a constant-value rule")
    v, i = node.inputs
    position = int(recurse(i))
    if isinstance(v, Constant) and v.type.ndim == 1 and -len(v.data) <= position < len(v.data):
        return v.data[position]
    owner = v.owner
    if owner is not None and isinstance(owner.op, MakeVector):
        return recurse(owner.inputs[position])
    if owner is not None and isinstance(owner.op, Shape):
        length = owner.inputs[0].type.shape[position]
        if length is not None:
            return np.int64(length)
    raise NotScalarConstantError(f"{node.outputs[0]} is not a constant")


# -- IncSubtensor --------------------------------------------------------------------------


class IncSubtensor(Op):
    """``x`` with ``y`` added to (or, with ``set_instead_of_inc``, written into) ``x[index]``.

    Inputs: ``x``, ``y``, then the index values, as for :class:`Subtensor`. ``y`` broadcasts
    to the shape of ``x[index]``. With ``inplace`` the result overwrites ``x`` (``destroy_map``);
    the in-place rewrite sets it, users normally do not.
    """

    __props__ = ("idx_list", "inplace", "set_instead_of_inc")

    def __init__(
        self, idx_list: Sequence[Any], inplace: bool = False, set_instead_of_inc: bool = False
    ) -> None:
        self.idx_list = check_idx_list("IncSubtensor", idx_list, BASIC_ENTRIES)
        self.inplace = bool(inplace)
        self.set_instead_of_inc = bool(set_instead_of_inc)
        self.destroy_map = {0: [0]} if self.inplace else {}

    def make_node(self, x: Any, y: Any, *index: Any) -> Apply:
        x, y = as_tensor_variable(x), as_tensor_variable(y)
        index = [as_index_scalar(self, i) for i in index]
        check_input_count(self, self.idx_list, index)
        target = basic_static_shape(self, x, self.idx_list, index)
        check_value_fits(self, x, y, target)
        return Apply(self, [x, y, *index], [x.type()])

    def perform(self, node, inputs, output_storage):
        x, y, *values = inputs
        out = x if self.inplace else x.copy()
        index = numpy_index(self.idx_list, values)
        check_runtime_value(self, node.inputs[1], y, np.shape(out[index]))
        if self.set_instead_of_inc:
            out[index] = y
        else:
            out[index] += y  # a basic index never repeats a position
        output_storage[0][0] = out

    def infer_shape(self, fgraph, node, input_shapes):
        return [input_shapes[0]]

    def connection_pattern(self, node):
        return [[True], [True]] + [[False]] * (len(node.inputs) - 2)

    def grad(self, inputs, output_grads):
        (_, y, *index), (gz,) = inputs, output_grads
        if self.set_instead_of_inc:  # the overwritten elements of x do not reach the output
            gx = IncSubtensor(self.idx_list, set_instead_of_inc=True)(
                gz, zero_cotangent(gz), *index
            )
        else:
            gx = gz
        gy = sum_to_type(Subtensor(self.idx_list)(gz, *index), y)
        return [gx, gy] + [disconnected() for _ in index]

    def R_op(self, inputs, eval_points):
        (x, y, *index), (ev_x, ev_y, *_) = inputs, eval_points
        if ev_x is None and ev_y is None:
            return [None]
        ev_x = tm.zeros_like(x) if ev_x is None else ev_x
        ev_y = tm.zeros_like(y) if ev_y is None else ev_y
        # the result is linear in (x, y) jointly, for both inc and set
        return [IncSubtensor(self.idx_list, False, self.set_instead_of_inc)(ev_x, ev_y, *index)]

    def __str__(self) -> str:
        name = "SetSubtensor" if self.set_instead_of_inc else "IncSubtensor"
        flags = "inplace" if self.inplace else ""
        entries = ", ".join(entry_str(e) for e in self.idx_list)
        return f"{name}{{{entries}}}" + (f"{{{flags}}}" if flags else "")


__all__ = ["IncSubtensor", "SliceSpec", "Subtensor"]
