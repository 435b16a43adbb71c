"""How an index is described to the indexing ops, and the helpers they share.

An index is stored in two parts. An op's ``idx_list`` prop holds its *structure*: one entry per
index item, :data:`INT` (an integer), a :class:`SliceSpec` (a slice, saying which of start, stop
and step are given), ``None`` (a new axis) and, for advanced indexing, :data:`ARRAY`,
:data:`MASK` and ``Ellipsis``. The *values* (integers, slice bounds, index arrays) are inputs of
the node, after ``x`` (and ``y`` for the inc/set ops), so that one op serves constant and
symbolic indices alike.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

import numpy as np

from arignote.graph.basic import Variable
from arignote.scalar.basic import integer_dtypes
from arignote.tensor import math as tm
from arignote.tensor.basic import (
    NotScalarConstantError,
    as_tensor_variable,
    constant,
    get_scalar_constant_value,
)

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
        raise TypeError(
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
