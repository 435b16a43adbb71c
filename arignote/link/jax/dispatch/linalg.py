"""JAX versions of the linear-algebra ops (``arignote/tensor/linalg/``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import jax.scipy.linalg as jsl
from arignote.graph.basic import Apply
from arignote.link.jax.dispatch.basic import jax_funcify, output_dtypes, register_unsupported
from arignote.tensor.linalg.decompositions import QR, SVD, Cholesky, Eig, Eigh
from arignote.tensor.linalg.inverse import Det, MatrixInverse, SlogDet
from arignote.tensor.linalg.least_squares import Lstsq, MatrixPinv
from arignote.tensor.linalg.misc import BlockDiagonal, DiagonalBlocks, Expm, ExpmFrechet
from arignote.tensor.linalg.pivoted_qr import PivotedQR
from arignote.tensor.linalg.solve import ChoSolve, Solve, SolveTriangular

register_unsupported(Eig, "jax.numpy.linalg.eig runs on CPU only and is not differentiable")


def _cast_outputs(node: Apply, fn: Callable) -> Callable:
    """``fn`` with its results cast to the node's output dtypes (one or several)."""
    dtypes = output_dtypes(node)
    if len(dtypes) == 1:
        (dtype,) = dtypes
        return lambda *args: jnp.asarray(fn(*args)).astype(dtype)
    return lambda *args: tuple(jnp.asarray(r).astype(d) for r, d in zip(fn(*args), dtypes))


def _nan_if_not_finite(compute: Callable) -> Callable:
    """``compute`` for an SVD-based routine, NaN for each matrix holding NaN or infinity.

    XLA calls LAPACK's divide-and-conquer SVD on the CPU, which loops forever on an infinity
    (NumPy raises ``LinAlgError`` for those matrices; compiled JAX code cannot raise on
    values). Such a matrix is replaced by zeros for the computation (so that LAPACK never sees
    it) and its floating-point results by NaN (the rank, an integer, is the zero matrix's).
    """

    def guarded(a, *rest):
        finite = jnp.all(jnp.isfinite(a), axis=(-2, -1))  # one flag per matrix of a batch
        safe = jnp.where(finite[..., None, None], a, jnp.zeros((), a.dtype))
        results = compute(safe, *rest)
        if isinstance(results, tuple):
            return tuple(_nan_where(finite, r) for r in results)
        return _nan_where(finite, results)

    return guarded


def _nan_where(finite: Any, result: Any) -> Any:
    if not jnp.issubdtype(result.dtype, jnp.inexact):
        return result
    flags = jnp.reshape(finite, jnp.shape(finite) + (1,) * (result.ndim - jnp.ndim(finite)))
    return jnp.where(flags, result, jnp.nan)


def _cholesky(x: Any, op: Cholesky) -> Any:
    factor = jsl.cholesky(x, lower=op.lower)
    if op.on_error == "raise":  # (JAX cannot raise: a failed factor holds NaNs)
        return factor
    # on_error="nan": a matrix that cannot be factored gives NaNs only (JAX's factor may hold
    # some numbers before the failed pivot)
    failed = jnp.isnan(factor).any(axis=(-2, -1), keepdims=True)
    return jnp.where(failed, jnp.nan, factor)


def _pivoted_qr(x: Any, mode: str) -> tuple:
    # (mode "r": the economic R, min(M, N) rows, as perform; JAX's own "r" keeps M rows)
    q, r, p = jsl.qr(x, mode="full" if mode == "complete" else "economic", pivoting=True)
    if x.shape[-2] == 0:  # no rows: SciPy leaves the columns in place
        p = jnp.broadcast_to(jnp.arange(x.shape[-1]), p.shape)
    return (r, p.astype(jnp.int32)) if mode == "r" else (q, r, p.astype(jnp.int32))


# op class -> function of (op, node) building the JAX computation on the inputs
_BUILDERS: dict[type, Callable] = {
    Cholesky: lambda op, node: lambda x: _cholesky(x, op),
    MatrixInverse: lambda op, node: jnp.linalg.inv,
    Det: lambda op, node: jnp.linalg.det,
    SlogDet: lambda op, node: lambda x: tuple(jnp.linalg.slogdet(x)),
    Expm: lambda op, node: jsl.expm,
    ExpmFrechet: lambda op, node: lambda a, e: jsl.expm_frechet(a, e, compute_expm=False),
    # NumPy reads only the UPLO triangle; JAX would average x with its transpose first
    Eigh: lambda op, node: (
        (lambda x: tuple(jnp.linalg.eigh(x, UPLO=op.uplo, symmetrize_input=False)))
        if op.compute_v
        else (lambda x: jnp.linalg.eigvalsh(x, UPLO=op.uplo, symmetrize_input=False))
    ),
    SVD: lambda op, node: _nan_if_not_finite(
        (lambda x: tuple(jnp.linalg.svd(x, full_matrices=op.full_matrices)))
        if op.compute_uv
        else (lambda x: jnp.linalg.svd(x, compute_uv=False))
    ),
    QR: lambda op, node: (
        (lambda x: jnp.linalg.qr(x, mode="r"))
        if op.mode == "r"
        else (lambda x: tuple(jnp.linalg.qr(x, mode=op.mode)))
    ),
    PivotedQR: lambda op, node: lambda x: _pivoted_qr(x, op.mode),
    MatrixPinv: lambda op, node: (
        (lambda x: jnp.linalg.pinv(x, rtol=op.cutoff, hermitian=op.hermitian))
        if op.hermitian
        else _nan_if_not_finite(lambda x: jnp.linalg.pinv(x, rtol=op.cutoff))
    ),
    Lstsq: lambda op, node: _nan_if_not_finite(
        lambda a, b: tuple(jnp.linalg.lstsq(a, b, rcond=op.rcond))
    ),
    BlockDiagonal: lambda op, node: jsl.block_diag,
    Solve: lambda op, node: _solve(op),
    SolveTriangular: lambda op, node: jnp.vectorize(
        lambda a, b: jsl.solve_triangular(
            a, b, trans=op.trans, lower=op.lower, unit_diagonal=op.unit_diagonal
        ),
        signature="(n,n),(n,k)->(n,k)",
    ),
    ChoSolve: lambda op, node: jnp.vectorize(
        lambda c, b: jsl.cho_solve((c, op.lower), b), signature="(n,n),(n,k)->(n,k)"
    ),
}


def _solve(op: Solve) -> Callable:
    if op.assume_a == "gen":
        return jnp.linalg.solve
    assume = "pos" if op.assume_a == "pos" else "sym" if op.assume_a == "sym" else "her"
    return jnp.vectorize(
        lambda a, b: jsl.solve(a, b, assume_a=assume), signature="(n,n),(n,k)->(n,k)"
    )


def _linalg(op: Any, node: Apply, **kwargs: Any) -> Callable:
    return _cast_outputs(node, _BUILDERS[type(op)](op, node))


for _cls in _BUILDERS:
    jax_funcify.register(_cls)(_linalg)


@jax_funcify.register(DiagonalBlocks)
def jax_funcify_DiagonalBlocks(op: DiagonalBlocks, node: Apply, **kwargs: Any) -> Callable:
    def diagonal_blocks(matrix, *blocks):
        pieces, row, col = [], 0, 0
        for block in blocks:
            rows, cols = jnp.shape(block)
            pieces.append(matrix[row : row + rows, col : col + cols])
            row, col = row + rows, col + cols
        return tuple(pieces) if len(pieces) > 1 else pieces[0]

    return diagonal_blocks
