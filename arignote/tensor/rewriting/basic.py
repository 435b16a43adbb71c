"""What tensor rewrites share: the pattern hooks for tensors, constant folding, and helpers.

The generic pattern matcher (``arignote.graph.rewriting.pattern``) asks the domain layer what
"a constant equal to 1" is, whether an op is commutative, and how to make a replacement fit the
variable it replaces; the answers for tensors are registered here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arignote.graph.basic import Apply, Constant, Variable
from arignote.graph.rewriting.db import register_rewrite
from arignote.graph.rewriting.folding import constant_folding
from arignote.graph.rewriting.pattern import (
    NotAConstant,
    constant_value,
    fit_replacement,
    is_commutative,
    may_be_constant,
    op_label,
)
from arignote.scalar.arithmetic import Cast, Identity, Second
from arignote.tensor.basic import as_tensor_variable, constant
from arignote.tensor.elemwise import CAReduce, DimShuffle, Elemwise
from arignote.tensor.math import cast, second
from arignote.tensor.type import TensorType

register_rewrite("canonicalize", "stabilize", "specialize", "constant_folding", "fast_compile")(
    constant_folding
)


# -- pattern hooks -------------------------------------------------------------------------------


def _through_broadcasts(var: Variable) -> Variable:
    """The variable under a chain of dimension shuffles, casts and fills of ``var``."""
    for _ in range(8):
        node = var.owner
        if node is None:
            break
        op = node.op
        if isinstance(op, DimShuffle) or (
            isinstance(op, Elemwise) and isinstance(op.scalar_op, (Cast, Identity))
        ):
            var = node.inputs[0]
        elif isinstance(op, Elemwise) and isinstance(op.scalar_op, Second):
            var = node.inputs[1]  # fill(shape_source, value) holds value everywhere
        else:
            break
    return var


def scalar_constant(var: Variable) -> Any:
    """The uniform value of ``var`` if it is a constant (seen through broadcasts and casts),
    else None. Cheap: it never evaluates other ops (constant folding has done that)."""
    source = _through_broadcasts(var)
    if not isinstance(source, Constant):
        return None
    value = _uniform_value(source)
    if value is None:
        return None
    if not hasattr(var.type, "dtype"):
        return value
    if np.iscomplexobj(value) and not var.type.dtype.startswith("complex"):
        value = value.real  # a cast from complex to real keeps the real part
    return value.astype(var.type.dtype)


_NOT_UNIFORM = object()


def _uniform_value(const: Constant) -> Any:
    """The value every element of ``const`` holds (None if they differ), cached on its tag."""
    cached = getattr(const.tag, "uniform_value", None)
    if cached is None:
        flat = np.asarray(const.data).reshape(-1)
        uniform = flat.size > 0 and (flat.size == 1 or bool(np.all(flat == flat[0])))
        cached = flat[0] if uniform else _NOT_UNIFORM
        const.tag.uniform_value = cached
    return None if cached is _NOT_UNIFORM else cached


@may_be_constant.register(TensorType)
def _tensor_may_be_constant(type_: TensorType, var: Variable) -> bool:
    return isinstance(_through_broadcasts(var), Constant)


@constant_value.register(TensorType)
def _tensor_constant_value(type_: TensorType, var: Variable) -> Any:
    value = scalar_constant(var)
    if value is None:
        raise NotAConstant(var)
    return value


@is_commutative.register(Elemwise)
def _elemwise_commutative(op: Elemwise) -> bool:
    return bool(op.scalar_op.commutative)


@op_label.register(Elemwise)
def _elemwise_label(op: Elemwise) -> str:
    return str(op.scalar_op)


@op_label.register(CAReduce)
def _careduce_label(op: CAReduce) -> str:
    return type(op).__name__.lower()


@fit_replacement.register(TensorType)
def _fit_tensor(type_: TensorType, new: Any, old: Variable, node: Apply, allow_cast: bool):
    if not isinstance(new, Variable):
        new = constant(new, dtype=old.type.dtype)
    new = as_tensor_variable(new)
    if new.type.dtype != old.type.dtype:
        if not allow_cast:
            return None
        new = cast(new, old.type.dtype)
    return broadcast_like(new, old, node.inputs)


# -- helpers -----------------------------------------------------------------------------------


def pad_to_ndim(x: Variable, ndim: int) -> Variable:
    """``x`` with length-1 dimensions added on the left up to ``ndim`` dimensions."""
    missing = ndim - x.type.ndim
    if missing <= 0:
        return x
    return DimShuffle(x.type.ndim, ["x"] * missing + list(range(x.type.ndim)))(x)


def _widened_dims(new: Variable, old: Variable) -> list[int]:
    """Dimensions where ``new`` is statically 1 but ``old`` may be longer."""
    return [d for d, (n, o) in enumerate(zip(new.type.shape, old.type.shape)) if n == 1 and o != 1]


def broadcast_like(new: Variable, old: Variable, references: list[Variable]) -> Variable | None:
    """``new`` broadcast to the shape of ``old``, taking lengths from ``references``.

    ``references`` are variables whose broadcast gave ``old`` its shape (the inputs of the node
    that computed it). Returns None when ``new`` cannot take ``old``'s place (more dimensions,
    or a known length that differs).
    """
    if new.type.ndim > old.type.ndim:
        return None
    new = pad_to_ndim(new, old.type.ndim)
    for ref in references:
        widened = _widened_dims(new, old)
        if not widened:
            break
        if not isinstance(ref.type, TensorType) or ref.type.ndim != old.type.ndim:
            continue
        if any(ref.type.shape[d] != 1 for d in widened):
            new = second(ref, new)  # the values of new, with the lengths of ref
    if _widened_dims(new, old):
        return None
    for n, o in zip(new.type.shape, old.type.shape):
        if n is not None and o is not None and n != o:
            return None
    return new


def may_differ(ref: Variable, new: Variable) -> bool:
    """Whether ``ref`` may have, at run time, a length that ``new`` lacks in a dimension where
    neither broadcasts statically (a run-time broadcast that the original graph refused)."""
    if ref is new or ref.type.ndim != new.type.ndim:
        return False
    for r, n in zip(ref.type.shape, new.type.shape):
        if r != 1 and n != 1 and (r is None or n is None or r != n):
            return True
    return False


def keep_shape_checks(new: Variable, cancelled: list[Variable]) -> Variable:
    """``new`` broadcast against every cancelled factor whose length it may not share: the
    original graph checked (and broadcast) those lengths; ``second(ref, new)`` keeps both,
    so that x[-1:] * y / y still raises where the lengths differ, as x[-1:] * 1 does."""
    for ref in cancelled:
        if isinstance(ref.type, TensorType) and may_differ(ref, new):
            new = second(ref, new)
    return new


def is_constant_equal(var: Variable, value: Any) -> bool:
    """Whether ``var`` is known to hold ``value`` everywhere."""
    found = scalar_constant(var)
    if found is None:
        return False
    with np.errstate(all="ignore"):
        return bool(found == value)


def single_client(fgraph: Any, var: Variable) -> bool:
    """Whether ``var`` is used exactly once in ``fgraph`` (and is not a graph output)."""
    clients = fgraph.clients.get(var, ())
    return len(clients) == 1 and clients[0][0] != "output"


def is_tensor_constant(var: Variable) -> bool:
    return isinstance(var, Constant) and isinstance(var.type, TensorType)
