"""``Eigvalsh``: the eigenvalues of a symmetric matrix ``a``, or of the generalized problem
``a v = w b v`` with ``b`` symmetric positive definite (``scipy.linalg.eigvalsh(a, b)``).

Only the ``lower`` (or upper) triangles of ``a`` and ``b`` are read. Derivatives (distinct
eigenvalues): with eigenvectors ``V`` normalised by ``V^T b V = I``, ``dw_i = v_i^T (da - w_i
db) v_i``, so ``ga = V diag(gw) V^T`` and ``gb = -V diag(gw w) V^T``, each folded onto the
triangle that is read. Without ``b`` the op differentiates as ``Eigh`` does.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg

from arignote.graph.basic import Apply, Variable
from arignote.graph.grad_types import grad_not_implemented, is_disconnected
from arignote.graph.op import Op
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.linalg.basic import (
    as_matrices,
    check_square_value,
    square_input,
    square_shape,
)
from arignote.tensor.linalg.decompositions import Eigh
from arignote.tensor.type import tensor_type


def _matrix(op: Op, x: Any):
    x = square_input(op, x)
    if x.type.ndim != 2:
        raise TypeError(f"{op} takes one matrix per input (Blockwise for stacks), got {x.type}")
    return x


def _eigvalsh_dtype(*dtypes: str) -> str:
    """SciPy's dtype of the eigenvalues (real, of the inputs' precision)."""
    probe = np.eye(1, dtype=np.result_type(*dtypes))
    return scipy.linalg.eigvalsh(probe).dtype.name


class Eigvalsh(Op):
    """Eigenvalues (ascending) of ``a`` or of the pencil ``(a, b)``, like
    ``scipy.linalg.eigvalsh(a, b, lower=lower)``."""

    __props__ = ("lower",)

    def __init__(self, lower: bool = True) -> None:
        self.lower = bool(lower)

    def make_node(self, a, b=None):
        inputs = [_matrix(self, a)] + ([] if b is None else [_matrix(self, b)])
        n = square_shape(inputs[0])[0]
        dtype = _eigvalsh_dtype(*[x.type.dtype for x in inputs])
        return Apply(self, inputs, [tensor_type(dtype, (n,))()])

    def perform(self, node, inputs, output_storage):
        for x in inputs:
            check_square_value(self, x)
        b = inputs[1] if len(inputs) == 2 else None
        w = scipy.linalg.eigvalsh(inputs[0], b, lower=self.lower)
        output_storage[0][0] = np.asarray(w, dtype=node.outputs[0].type.dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        return [(input_shapes[0][0],)]

    def _standard(self) -> Eigh:
        return Eigh("L" if self.lower else "U", compute_v=False)

    def L_op(self, inputs, outputs, output_grads):
        (gw,) = output_grads
        if is_disconnected(gw):
            return [x.zeros_like() for x in inputs]
        if len(inputs) == 1:
            return self._standard().L_op(inputs, outputs, output_grads)
        return EigvalshGrad(self.lower)(*inputs, gw, return_list=True)

    def R_op(self, inputs, eval_points):
        if len(inputs) == 1:
            return self._standard().R_op(inputs, eval_points)
        if all(ev is None for ev in eval_points):
            return [None]
        # dw = diag(V^T da V) - w diag(V^T db V): the cotangent e_i gives row i of the Jacobian
        evs = [x.zeros_like() if ev is None else ev for x, ev in zip(inputs, eval_points)]
        return [EigvalshTangent(self.lower)(*inputs, *evs)]


def _fold(g: np.ndarray, lower: bool) -> np.ndarray:
    """``g`` folded onto the triangle that is read (the adjoint of symmetrising it)."""
    if lower:
        return np.tril(g) + np.triu(g, 1).conj().T
    return np.triu(g) + np.tril(g, -1).conj().T


def _symmetric(x: np.ndarray, lower: bool) -> np.ndarray:
    """The symmetric (Hermitian) matrix whose ``lower`` (or upper) triangle ``x`` holds."""
    part = np.tril(x) if lower else np.triu(x)
    return part + np.tril(part, -1).conj().T if lower else part + np.triu(part, 1).conj().T


class EigvalshGrad(Op):
    """``(ga, gb)`` for the generalized :class:`Eigvalsh` (see the module docstring)."""

    __props__ = ("lower",)

    def __init__(self, lower: bool = True) -> None:
        self.lower = bool(lower)

    def make_node(self, a, b, gw):
        a, b = _matrix(self, a), _matrix(self, b)
        gw = as_tensor_variable(gw)
        return Apply(self, [a, b, gw], [a.type(), b.type()])

    def perform(self, node, inputs, output_storage):
        a, b, gw = inputs
        w, v = scipy.linalg.eigh(a, b, lower=self.lower)
        ga = (v * gw) @ v.conj().T
        gb = -(v * (gw * w)) @ v.conj().T
        for cell, g, out in zip(output_storage, (ga, gb), node.outputs):
            cell[0] = np.asarray(_fold(g, self.lower), dtype=out.type.dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        return input_shapes[:2]

    def L_op(self, inputs, outputs, output_grads):
        reason = "second derivatives of generalized eigenvalues are not implemented"
        return [grad_not_implemented(self, k, x, reason) for k, x in enumerate(inputs)]


class EigvalshTangent(Op):
    """``dw`` of the generalized :class:`Eigvalsh` along ``(da, db)``: ``diag(V^T da V) -
    w diag(V^T db V)`` (see the module docstring)."""

    __props__ = ("lower",)

    def __init__(self, lower: bool = True) -> None:
        self.lower = bool(lower)

    def make_node(self, a, b, da, db):
        a, b, da, db = (_matrix(self, x) for x in (a, b, da, db))
        n = square_shape(a)[0]
        return Apply(self, [a, b, da, db], [tensor_type(_eigvalsh_dtype(a.type.dtype), (n,))()])

    def perform(self, node, inputs, output_storage):
        a, b, da, db = inputs
        w, v = scipy.linalg.eigh(a, b, lower=self.lower)
        da, db = _symmetric(da, self.lower), _symmetric(db, self.lower)
        dw = np.einsum("ji,jk,ki->i", v.conj(), da, v) - w * np.einsum(
            "ji,jk,ki->i", v.conj(), db, v
        )
        output_storage[0][0] = np.asarray(dw.real, dtype=node.outputs[0].type.dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        return [(input_shapes[0][0],)]

    def L_op(self, inputs, outputs, output_grads):
        reason = "second derivatives of generalized eigenvalues are not implemented"
        return [grad_not_implemented(self, k, x, reason) for k, x in enumerate(inputs)]


def eigvalsh(a: Any, b: Any = None, lower: bool = True, UPLO: str | None = None) -> Variable:
    """Eigenvalues (ascending) of symmetric matrices ``a``, or of the pencil ``(a, b)``.

    Both signatures work: SciPy's and PyTensor's ``eigvalsh(a, b=None, lower=True)`` (``b``
    symmetric positive definite: ``a v = w b v``) and NumPy's ``eigvalsh(a, UPLO="L")`` (a
    string second argument is ``UPLO``). Only the ``lower`` (``UPLO="L"``) triangle is read.
    """
    if isinstance(b, str):
        b, UPLO = None, b
    uplo = ("L" if lower else "U") if UPLO is None else UPLO  # Eigh refuses other strings
    if b is None:
        return Eigh(uplo, compute_v=False)(as_matrices(a, "eigvalsh", square=True))
    return Eigvalsh(uplo == "L")(a, b)


__all__ = ["Eigvalsh", "EigvalshGrad", "EigvalshTangent", "eigvalsh"]
