"""Tensor shared variables: ``shared(np.zeros(3))`` and friends."""

from __future__ import annotations

from typing import Any

import numpy as np

from arignote.graph.shared import SharedVariable, shared_constructor
from arignote.scalar.basic import is_python_scalar, python_scalar_dtype
from arignote.tensor.type import TensorType
from arignote.tensor.variable import _TensorOperators


class TensorSharedVariable(_TensorOperators, SharedVariable):
    """A shared variable holding an ndarray."""


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
    """Shared tensor of the value's dtype and ndim; lengths stay free unless ``shape`` is given."""
    if is_python_scalar(value):
        value = np.asarray(value, dtype=python_scalar_dtype(value))
    if not isinstance(value, (np.ndarray, np.generic)):
        raise TypeError(f"expected an ndarray or a number, got {type(value).__name__}")
    value = np.asarray(value) if borrow else np.array(value, copy=True)
    if value.dtype.kind not in "biufc":
        raise TypeError(f"expected numeric data, got dtype {value.dtype}")
    if broadcastable is not None:
        shape = tuple(1 if b else None for b in broadcastable)
    if shape is None:
        shape = (None,) * value.ndim
    ttype = TensorType(value.dtype, shape)
    return TensorSharedVariable(
        ttype, value, strict=strict, allow_downcast=allow_downcast, name=name
    )
