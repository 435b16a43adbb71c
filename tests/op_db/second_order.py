"""The op_db entries whose second derivatives ``test_second_order`` checks.

``grad`` of ``grad`` goes through the gradient graphs of the ops (their ``L_op`` must itself be
differentiable, exactly, at the samples' points). Checking every entry would double the cost
of the gradient tests, so a representative few per family are listed here (float64 samples
only); an entry can also set ``second_order=True`` itself.
"""

from __future__ import annotations

SECOND_ORDER = frozenset(
    {
        # elementwise: products, quotients, powers, smooth unary functions, kinks
        "mul",
        "true_div",
        "pow",
        "tanh",
        "sigmoid",
        "log1p",
        "arctan2",
        "maximum",
        "abs",
        # reductions (prod with zeros in a group)
        "sum",
        "prod",
        "max",
        "var",
        # shapes, indexing, joins, allocation
        "reshape",
        "transpose",
        "getitem_basic",
        "getitem_advanced",
        "inc_subtensor_advanced1",
        "take",
        "where",
        "sort",
        "concatenate",
        "split",
        "alloc",
        "broadcast_to",
        "pad[reflect]",
        # products and BLAS
        "dot",
        "matmul",
        "einsum",
        "gemm",
        # other families
        "cumsum",
        "cumprod",
        "repeat",
        "diag",
        "inv",
        "det",
        "solve",
        "cholesky",
        "eigh",
        "matrix_power",
        "softmax",
        "log_softmax",
        "logsumexp",
        "gammaln",
        "xlogy",
    }
)
