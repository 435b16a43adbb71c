"""Indexing tensors: ``x[index]``, ``set_subtensor`` and ``inc_subtensor``, and the basic ops.

:func:`getitem` reads a Python index (integers, slices, ``None``, ``...``, integer arrays, boolean
masks, lists, symbolic scalars and tensors) the way NumPy does, and builds the cheapest op that
computes it: :class:`Subtensor` for a basic index (its result is a view), ``AdvancedSubtensor1``
for one integer vector on axis 0, ``AdvancedSubtensor`` otherwise (see ``advanced_subtensor``).
How an index is split between an op's ``idx_list`` and its inputs is described in
``index_spec``.
"""

from __future__ import annotations

import operator
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from arignote.graph.basic import Apply, Constant, Variable
from arignote.graph.grad_types import disconnected
from arignote.graph.op import Op
from arignote.scalar.basic import integer_dtypes, is_python_scalar, weak_scalar_dtype
from arignote.tensor import math as tm
from arignote.tensor.advanced_subtensor import (
    AdvancedIncSubtensor,
    AdvancedIncSubtensor1,
    AdvancedSubtensor,
    AdvancedSubtensor1,
    is_advanced_entry,
)
from arignote.tensor.basic import (
    MakeVector,
    NotScalarConstantError,
    as_tensor_variable,
    constant,
    constant_value_rule,
    register_vector_element,
)
from arignote.tensor.index_spec import (
    ARRAY,
    FULL_SLICE,
    INT,
    MASK,
    SliceSpec,
    as_index_scalar,
    check_idx_list,
    check_input_count,
    check_runtime_value,
    check_static_bound,
    check_value_fits,
    entry_groups,
    entry_str,
    int_or_variable,
    numpy_index,
    slice_length,
    static_int,
    static_slice_length,
    sum_to_type,
    zero_cotangent,
)
from arignote.tensor.shape import Shape
from arignote.tensor.slices import SliceType, python_slice
from arignote.tensor.type import tensor_type

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


_NOT_AN_INDEX = (
    "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or "
    "boolean arrays are valid indices"
)


# -- reading a Python index ------------------------------------------------------------------


def _int64_scalar(var: Variable) -> Variable:
    return var if var.type.dtype == "int64" else tm.cast(var, "int64")


def _slice_bound(value: Any) -> Variable:
    if isinstance(value, (Variable, Apply)):
        var = as_tensor_variable(value)
        if var.type.ndim != 0 or var.type.dtype not in integer_dtypes:
            raise TypeError(
                f"slice indices must be integers or None or have an __index__ method, got "
                f"{var.type}"
            )
        return _int64_scalar(var)
    try:
        return constant(np.int64(operator.index(value)))
    except TypeError as err:
        raise TypeError(
            f"slice indices must be integers or None or have an __index__ method, got {value!r}"
        ) from err


def _slice_entry(item: slice) -> tuple:
    bounds = (item.start, item.stop, item.step)
    inputs = [_slice_bound(b) for b in bounds if b is not None]
    if item.step is not None and static_int(inputs[-1]) == 0:
        raise ValueError("slice step cannot be zero")
    return SliceSpec(*(b is not None for b in bounds)), inputs


def _index_variable(item: Any) -> Variable:
    if isinstance(item, (Variable, Apply)):
        return as_tensor_variable(item)
    if isinstance(item, (list, tuple)) and any(isinstance(i, (Variable, Apply)) for i in item):
        return as_tensor_variable(item)
    data = np.asarray(item)
    if data.size == 0 and data.dtype.kind == "f":
        data = data.astype(np.int64)  # [] selects nothing, as an integer index
    if data.dtype.kind not in "biu":
        raise IndexError("arrays used as indices must be of integer (or boolean) type")
    return constant(data)


def _array_entry(item: Any) -> tuple:
    var = _index_variable(item)
    if var.type.dtype == "bool":
        return MASK, [var]
    if var.type.dtype not in integer_dtypes:
        raise IndexError(
            f"arrays used as indices must be of integer (or boolean) type, got {var.type}"
        )
    if var.type.ndim == 0:  # a 0-d integer array indexes like an integer
        return INT, [_int64_scalar(var)]
    return ARRAY, [var]


def _entry(item: Any) -> tuple:
    """``(idx_list entry, its inputs)`` for one item of a Python index."""
    if item is None or item is Ellipsis:
        return item, []
    if isinstance(item, slice):
        return _slice_entry(item)
    if isinstance(item, Variable) and isinstance(item.type, SliceType):
        return _slice_entry(python_slice(item))  # make_slice(a, b) indexes as a:b
    if isinstance(item, (bool, np.bool_)):
        return MASK, [constant(np.bool_(item))]
    if isinstance(item, (Variable, Apply, list, tuple, np.ndarray, np.generic)):
        return _array_entry(item)
    try:
        return INT, [constant(np.int64(operator.index(item)))]
    except TypeError as err:
        raise IndexError(f"{_NOT_AN_INDEX}, got {item!r}") from err


def _reads(entry: Any, inputs: list) -> int:
    if entry is None or entry is Ellipsis:
        return 0
    return inputs[0].type.ndim if entry == MASK else 1


def _mask_as_arrays(x: Variable, entries: list) -> list:
    """Constant boolean masks as integer arrays (their ``nonzero``), which gives static shapes.

    Only masks whose dimensions are statically known to match ``x``'s are converted, so that a
    mismatch still raises NumPy's IndexError.
    """
    reads = [_reads(e, inputs) for e, inputs in entries]
    rest = x.type.ndim - sum(reads)
    converted, start = [], 0
    for (entry, inputs), count in zip(entries, reads):
        count = rest if entry is Ellipsis else count
        dims = x.type.shape[start : start + count]
        start += count
        mask = inputs[0] if entry == MASK else None
        if isinstance(mask, Constant) and mask.type.ndim and tuple(dims) == mask.data.shape:
            converted.extend((ARRAY, [constant(i)]) for i in np.nonzero(mask.data))
        else:
            converted.append((entry, inputs))
    return converted


def _strip_trailing(entries: list) -> list:
    """Drop a trailing ellipsis and trailing full slices: they change nothing.

    NOTE: full slices after an ellipsis stay, or the ellipsis would cover other dimensions.
    """
    while entries:
        last = entries[-1][0]
        has_ellipsis = any(e is Ellipsis for e, _ in entries)
        if not (last is Ellipsis or (last == FULL_SLICE and not has_ellipsis)):
            break
        entries = entries[:-1]
    return entries


def _expand_ellipsis(x: Variable, entries: list) -> list:
    reads = sum(_reads(e, inputs) for e, inputs in entries)
    expanded = []
    for entry, inputs in entries:
        if entry is Ellipsis:
            expanded.extend((FULL_SLICE, []) for _ in range(max(x.type.ndim - reads, 0)))
        else:
            expanded.append((entry, inputs))
    return expanded


def _apply(op_class: type, x: Variable, entries: list) -> Variable:
    idx_list = tuple(e for e, _ in entries)
    inputs = [i for _, group in entries for i in group]
    return op_class(idx_list)(x, *inputs)


def getitem(x: Any, index: Any) -> Variable:
    """``x[index]`` with NumPy's semantics (what ``TensorVariable.__getitem__`` calls).

    Statically known errors (too many indices, an integer or a constant array out of bounds for
    a known length, a mask of the wrong shape, arrays that cannot broadcast) raise IndexError
    here; the others raise IndexError when the function runs, naming the node.
    """
    x = as_tensor_variable(x)
    items = index if isinstance(index, tuple) else (index,)
    entries = [_entry(item) for item in items]
    if sum(e is Ellipsis for e, _ in entries) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    indexed = sum(_reads(e, inputs) for e, inputs in entries)
    if indexed > x.type.ndim:  # checked before trailing full slices are dropped
        raise IndexError(
            f"too many indices for array: array is {x.type.ndim}-dimensional, but {indexed} "
            "were indexed"
        )
    entries = _mask_as_arrays(x, entries)
    if not any(is_advanced_entry(e) and e != INT for e, _ in entries):
        return _apply(Subtensor, x, _strip_trailing(_expand_ellipsis(x, entries)))
    entries = _strip_trailing(entries)
    if len(entries) == 1 and entries[0][0] == ARRAY and entries[0][1][0].type.ndim == 1:
        return AdvancedSubtensor1()(x, entries[0][1][0])
    return _apply(AdvancedSubtensor, x, entries)


def _vector_element(v: Variable, i: int) -> Variable:
    return getitem(v, i)


# MakeVector.grad and Reshape.infer_shape read single entries of vectors through this hook.
register_vector_element(_vector_element)


# -- writing into a subtensor --------------------------------------------------------------


def _value_for(x: Variable, y: Any, overwrite: bool, name: str) -> Variable:
    """``y`` in ``x``'s dtype: any cast for a write (as NumPy's assignment), same-kind for inc."""
    if is_python_scalar(y):
        y = constant(y, dtype=weak_scalar_dtype([x.type.dtype], y))
    y = as_tensor_variable(y)
    if y.type.dtype == x.type.dtype:
        return y
    if not overwrite and not np.can_cast(y.type.dtype, x.type.dtype, "same_kind"):
        raise TypeError(
            f"{name}: cannot add {y.type.dtype} values into a {x.type.dtype} tensor (NumPy's "
            "same_kind casting rule); cast y explicitly"
        )
    return tm.cast(y, x.type.dtype)


def inc_subtensor(
    x: Any,
    y: Any,
    inplace: bool = False,
    set_instead_of_inc: bool = False,
    tolerate_inplace_aliasing: bool = False,
    ignore_duplicates: bool = False,
) -> Variable:
    """The tensor indexed by ``x = t[index]`` with ``y`` added at ``index``: ``t[index] += y``.

    Parameters
    ----------
    x
        The result of indexing a tensor ``t`` (``t[1:, idx]``); the return value is a new ``t``.
    y
        The values to add; they broadcast to the shape of ``x`` (only along dimensions whose
        static length is 1 or that ``y`` lacks) and are cast to ``t``'s dtype (NumPy's
        same-kind rule for an increment, any cast for a write).
    inplace
        Overwrite ``t`` (normally left to the in-place rewrite).
    set_instead_of_inc
        Write ``y`` instead of adding it (:func:`set_subtensor`).
    tolerate_inplace_aliasing
        Accepted for compatibility; aliasing is checked by the compiler.
    ignore_duplicates
        With integer arrays that repeat a position, NumPy's ``t[index] += y`` (one of the values
        is added) instead of accumulating every value as ``np.add.at`` does.

    Returns
    -------
    TensorVariable
        The updated copy of ``t``.
    """
    name = "set_subtensor" if set_instead_of_inc else "inc_subtensor"
    x = as_tensor_variable(x)
    owner = x.owner
    if owner is None or not isinstance(
        owner.op, (Subtensor, AdvancedSubtensor1, AdvancedSubtensor)
    ):
        raise TypeError(f"{name} expects the result of indexing a tensor (t[index]), got {x}")
    base, *index = owner.inputs
    y = _value_for(base, y, set_instead_of_inc, name)
    if isinstance(owner.op, Subtensor):
        return IncSubtensor(owner.op.idx_list, inplace, set_instead_of_inc)(base, y, *index)
    if isinstance(owner.op, AdvancedSubtensor1):
        op = AdvancedIncSubtensor1(inplace, set_instead_of_inc, ignore_duplicates)
        return op(base, y, *index)
    op = AdvancedIncSubtensor(owner.op.idx_list, inplace, set_instead_of_inc, ignore_duplicates)
    return op(base, y, *index)


def set_subtensor(x: Any, y: Any, inplace: bool = False, tolerate_inplace_aliasing=False):
    """The tensor indexed by ``x = t[index]`` with ``y`` written at ``index``: ``t[index] = y``.

    ``y`` broadcasts to the shape of ``x`` and is cast to ``t``'s dtype. Where an integer array
    repeats a position, the last write wins, as in NumPy. See :func:`inc_subtensor`.
    """
    return inc_subtensor(x, y, inplace, set_instead_of_inc=True)


__all__ = [
    "AdvancedIncSubtensor",
    "AdvancedIncSubtensor1",
    "AdvancedSubtensor",
    "AdvancedSubtensor1",
    "IncSubtensor",
    "SliceSpec",
    "Subtensor",
    "getitem",
    "inc_subtensor",
    "set_subtensor",
]
