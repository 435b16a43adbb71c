"""``x[index]`` for tensors, and ``set_subtensor`` / ``inc_subtensor`` on its result.

:func:`getitem` reads a Python index (integers, slices, ``None``, ``...``, integer arrays, boolean
masks, lists, symbolic scalars and tensors) the way NumPy does, and builds the cheapest op that
computes it: ``Subtensor`` for a basic index, ``AdvancedSubtensor1`` for one integer vector on
axis 0, ``AdvancedSubtensor`` otherwise.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from arignote.graph.basic import Apply, Constant, Variable
from arignote.scalar.basic import integer_dtypes, is_python_scalar, weak_scalar_dtype
from arignote.tensor import math as tm
from arignote.tensor.advanced_subtensor import (
    AdvancedIncSubtensor,
    AdvancedIncSubtensor1,
    AdvancedSubtensor,
    AdvancedSubtensor1,
    is_advanced_entry,
)
from arignote.tensor.basic import as_tensor_variable, constant, register_vector_element
from arignote.tensor.subtensor import (
    ARRAY,
    FULL_SLICE,
    INT,
    MASK,
    IncSubtensor,
    SliceSpec,
    Subtensor,
    static_int,
)

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
    """Drop trailing full slices and a trailing ellipsis: they change nothing."""
    while entries and (entries[-1][0] is Ellipsis or entries[-1][0] == FULL_SLICE):
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


__all__ = ["inc_subtensor", "set_subtensor"]
