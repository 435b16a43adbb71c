"""``infer_static_shape`` and ``transfer`` (PyTensor's ``pytensor.tensor.basic`` helpers)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arignote.graph.basic import Variable
from arignote.scalar.basic import integer_dtypes
from arignote.tensor.basic import (
    NotScalarConstantError,
    as_tensor_variable,
    get_scalar_constant_value,
)
from arignote.tensor.derived import get_vector_length


def _shape_entry(value: Any) -> Variable:
    var = as_tensor_variable(value, ndim=0)
    if var.type.dtype not in integer_dtypes:
        raise TypeError(f"Shapes must be scalar integers; got {value}")
    return var


def _static_length(var: Variable) -> int | None:
    try:
        return int(get_scalar_constant_value(var))
    except NotScalarConstantError:
        return None


def infer_static_shape(shape: Variable | Sequence[Any]) -> tuple[list[Variable], tuple]:
    """The symbolic entries of a shape and the lengths known when the graph is built.

    Parameters
    ----------
    shape
        A sequence of integers and 0-d integer variables, or a 1-d integer variable (such as
        ``x.shape``) of known length.

    Returns
    -------
    entries, static
        The entries as 0-d integer variables, and a tuple with each entry's value where it is
        a constant or folds to one (``x.shape[0]`` of an ``x`` whose static shape gives it,
        arithmetic of constants), None elsewhere: what an op uses as its output's
        ``TensorType.shape``.

    Raises
    ------
    TypeError
        An entry that is not a scalar integer.
    """
    if isinstance(shape, Variable) and shape.type.ndim == 1:
        shape = [shape[i] for i in range(get_vector_length(shape))]
    entries = [_shape_entry(s) for s in shape]
    return entries, tuple(_static_length(s) for s in entries)


def transfer(var: Any, target: str) -> Variable:
    """``var`` moved to ``target``: ``"cpu"`` (the only target: arignote's tensors live in
    host memory; the JAX backend moves values itself) gives ``as_tensor_variable(var)``.

    Raises
    ------
    ValueError
        Another target.
    """
    if target == "cpu":
        return as_tensor_variable(var)
    raise ValueError(f"Can't transfer to target {target}: arignote knows only 'cpu'")


__all__ = ["infer_static_shape", "transfer"]
