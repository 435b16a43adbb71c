"""Automatic differentiation: reverse mode (``grad``, ``Lop``) and forward mode (``Rop``)."""

from arignote.autodiff.grad import Lop, grad
from arignote.autodiff.node_grads import GradientNotDefinedError
from arignote.autodiff.rop import Rop
from arignote.autodiff.subgraph import subgraph_grad

__all__ = ["GradientNotDefinedError", "Lop", "Rop", "grad", "subgraph_grad"]
