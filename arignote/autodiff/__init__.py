"""Automatic differentiation: reverse mode (``grad``, ``Lop``) and forward mode (``Rop``)."""

from arignote.autodiff.grad import GradientNotDefinedError, Lop, grad
from arignote.autodiff.rop import Rop

__all__ = ["GradientNotDefinedError", "Lop", "Rop", "grad"]
