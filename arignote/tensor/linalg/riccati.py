"""The discrete algebraic Riccati equation, like ``scipy.linalg.solve_discrete_are``.

``X = A^T X A - A^T X B (R + B^T X B)^-1 B^T X A + Q`` for symmetric ``Q`` and ``R``.

Derivative (implicit function theorem): with the gain ``K = (R + B^T X B)^-1 B^T X A`` and the
closed loop ``C = A - B K``, differentiating the equation at its solution gives the Stein
equation ``dX = C^T dX C + S`` with
``S = dQ + dA^T X C + C^T X dA - C^T X dB K - K^T dB^T X C + K^T dR K``.
For a cotangent ``G`` of ``X``, ``W = C W C^T + G`` (a discrete Lyapunov equation in ``C``)
gives ``<G, dX> = <W, S>``, hence ``gQ = W``, ``gA = X C (W + W^T)``,
``gB = -X C (W + W^T) K^T`` and ``gR = K W K^T``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg

from arignote.graph.basic import Apply
from arignote.graph.op import Op
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.linalg.basic import linalg_dtype, mT
from arignote.tensor.linalg.matrix_equations import solve_discrete_lyapunov
from arignote.tensor.linalg.solve import solve
from arignote.tensor.math import cast
from arignote.tensor.products import matmul
from arignote.tensor.type import tensor_type

_REAL = ("float32", "float64")


class SolveDiscreteARE(Op):
    """``X`` solving the discrete algebraic Riccati equation for ``(A, B, Q, R)``.

    Takes real matrices ``A (m, m)``, ``B (m, n)``, ``Q (m, m)``, ``R (n, n)``, with ``Q``
    and ``R`` symmetric (the user function symmetrizes them).
    """

    __props__ = ()
    gufunc_signature = "(m,m),(m,n),(m,m),(n,n)->(m,m)"

    def make_node(self, A, B, Q, R):
        inputs = [as_tensor_variable(x) for x in (A, B, Q, R)]
        for x in inputs:
            if x.type.ndim != 2 or x.type.dtype not in _REAL:
                raise TypeError(f"{self} takes real float matrices, got {x.type}")
        dtype = inputs[0].type.dtype
        if any(x.type.dtype != dtype for x in inputs):
            raise TypeError(f"{self} takes matrices of one dtype, got {[x.type for x in inputs]}")
        m = inputs[0].type.shape[0]
        return Apply(self, inputs, [tensor_type(dtype, (m, m))()])

    def perform(self, node, inputs, output_storage):
        x = scipy.linalg.solve_discrete_are(*inputs)
        output_storage[0][0] = np.asarray(x, dtype=node.outputs[0].type.dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        return [input_shapes[0]]

    def L_op(self, inputs, outputs, output_grads):
        (A, B, _, R), (X,), (G,) = inputs, outputs, output_grads
        gain = solve(R + matmul(mT(B), matmul(X, B)), matmul(mT(B), matmul(X, A)))
        closed = A - matmul(B, gain)
        W = solve_discrete_lyapunov(closed, G)
        x_c_w = matmul(X, matmul(closed, W + mT(W)))
        return [x_c_w, -matmul(x_c_w, mT(gain)), W, matmul(gain, matmul(W, mT(gain)))]


def solve_discrete_are(A: Any, B: Any, Q: Any, R: Any) -> Any:
    """Solve the discrete algebraic Riccati equation, like ``scipy.linalg.solve_discrete_are``.

    Parameters
    ----------
    A, B, Q, R
        Real matrices ``(M, M)``, ``(M, N)``, ``(M, M)`` and ``(N, N)``. Only the symmetric
        parts of ``Q`` and ``R`` enter (the equation is defined for symmetric ones).

    Returns
    -------
    Variable
        The stabilizing solution ``X`` (``M, M``).
    """
    A, B, Q, R = (as_tensor_variable(x) for x in (A, B, Q, R))
    dtype = linalg_dtype(*(x.type.dtype for x in (A, B, Q, R)), what="solve_discrete_are")
    A, B, Q, R = (cast(x, dtype) for x in (A, B, Q, R))
    return SolveDiscreteARE()(A, B, (Q + mT(Q)) / 2, (R + mT(R)) / 2)


__all__ = ["SolveDiscreteARE", "solve_discrete_are"]
