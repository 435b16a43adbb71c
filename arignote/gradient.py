"""Symbolic differentiation: the public home of ``grad``, ``Lop``, ``Rop`` and friends.

The machinery lives in :mod:`arignote.autodiff`; the types an op's ``grad`` returns in
:mod:`arignote.graph.grad_types`; ``verify_grad`` in :mod:`arignote.testing`.
"""

from arignote.autodiff import GradientNotDefinedError, Lop, Rop, grad
from arignote.graph.grad_types import (
    DisconnectedInputError,
    DisconnectedType,
    GradientError,
    NullTypeGradError,
    disconnected_type,
    grad_not_implemented,
    grad_undefined,
)
from arignote.graph.null_type import NullType
from arignote.testing.gradcheck import numeric_grad, verify_grad

__all__ = [
    "DisconnectedInputError",
    "DisconnectedType",
    "GradientError",
    "GradientNotDefinedError",
    "Lop",
    "NullType",
    "NullTypeGradError",
    "Rop",
    "disconnected_type",
    "grad",
    "grad_not_implemented",
    "grad_undefined",
    "numeric_grad",
    "verify_grad",
]
