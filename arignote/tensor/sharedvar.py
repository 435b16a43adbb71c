"""Tensor shared variables: ``shared(np.zeros(3))``, ``shared(1.5)`` and friends."""

from __future__ import annotations

from typing import Any

import numpy as np

from arignote.graph.shared import SharedVariable, shared_constructor
from arignote.scalar.basic import is_python_scalar
from arignote.tensor.type import TensorType
from arignote.tensor.variable import _TensorOperators


class TensorSharedVariable(_TensorOperators, SharedVariable):
    """A shared variable holding an ndarray (its dtype and number of dimensions are fixed)."""

    def get_value(self, borrow: bool = False, return_internal_type: bool = False) -> Any:
        """The stored value as an ndarray: a copy, or with ``borrow=True`` possibly the stored
        array itself.

        A compiled backend may keep the value on its device (JAX functions store device
        arrays): it is copied back to a NumPy array, unless ``return_internal_type`` asks for
        the stored object itself.
        """
        value = self.container.storage[0]
        if type(value) is np.ndarray or return_internal_type:
            return super().get_value(borrow, return_internal_type)
        return np.asarray(value) if borrow else np.array(value, copy=True)


@shared_constructor
def tensor_constructor(
    value: Any,
    name: str | None = None,
    strict: bool = False,
    allow_downcast: bool | None = None,
    borrow: bool = False,
    shape: tuple | None = None,
    broadcastable: tuple | None = None,
):
    """Shared tensor of the value's dtype and ndim; lengths stay free unless ``shape`` is given.

    Python numbers take NumPy's default dtype for them (``1.5`` is float64, ``3`` int64,
    ``True`` bool), whatever ``floatX`` is, as in PyTensor. ``broadcastable`` is the older
    spelling of a shape with 1 where True.
    """
    if is_python_scalar(value):
        value = np.asarray(value)
    if not isinstance(value, (np.ndarray, np.generic)):
        raise TypeError(f"expected an ndarray or a number, got {type(value).__name__}")
    if value.dtype.kind not in "biufc":
        raise TypeError(f"expected numeric data, got dtype {value.dtype}")
    value = np.asarray(value) if borrow else np.array(value, copy=True)
    if broadcastable is not None:
        if shape is not None:
            raise TypeError("shared() takes shape or broadcastable, not both")
        shape = tuple(1 if b else None for b in broadcastable)
    if shape is None:
        shape = (None,) * value.ndim
    elif len(shape) != value.ndim:
        raise ValueError(
            f"shared(): shape {tuple(shape)} has {len(shape)} dimensions but the value has "
            f"{value.ndim} (shape {value.shape})"
        )
    ttype = TensorType(value.dtype, shape)
    return TensorSharedVariable(
        ttype, value, strict=strict, allow_downcast=allow_downcast, name=name
    )
