"""JAX versions of the LU ops (``arignote/tensor/linalg/lu.py``); Schur, QZ and the Riccati
solver are listed unsupported (JAX has no QZ nor Riccati solver, and its Schur runs on CPU
only without eigenvalue sorting)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.lax.linalg as jll
import jax.numpy as jnp
import jax.scipy.linalg as jsl
from arignote.graph.basic import Apply
from arignote.link.jax.dispatch.basic import jax_funcify, output_dtypes, register_unsupported
from arignote.tensor.linalg.basic import check_square_value
from arignote.tensor.linalg.lu import LU, LUFactor, PivotToPermutations

for _name, _reason in [
    ("arignote.tensor.linalg.schur.Schur", "jax.scipy.linalg.schur is CPU-only and unsorted"),
    ("arignote.tensor.linalg.schur.QZ", "JAX has no QZ (generalized Schur) decomposition"),
    ("arignote.tensor.linalg.riccati.SolveDiscreteARE", "JAX has no Riccati equation solver"),
    *(
        (
            f"arignote.tensor.linalg.generalized_eigen.{name}",
            "jax.scipy.linalg.eigh refuses b (no "
            "generalized symmetric eigensolver), and these ops take one",
        )
        for name in ("Eigvalsh", "EigvalshGrad", "EigvalshTangent")
    ),
    (
        "arignote.tensor.linalg.tridiagonal.LUFactorTridiagonal",
        "JAX has no LAPACK gttrf (its tridiagonal_solve does not expose the pivoted factors)",
    ),
    (
        "arignote.tensor.linalg.tridiagonal.SolveLUFactorTridiagonal",
        "JAX has no LAPACK gttrs (it solves from gttrf's pivoted factors)",
    ),
]:
    register_unsupported(_name, _reason)


def _row_order(a):
    """The rows ``r`` with ``a[r] = L U`` and the packed factor, from ``jax.lax.linalg.lu``."""
    packed, _, order = jll.lu(a)
    return packed, order


@jax_funcify.register(LU)
def jax_funcify_LU(op: LU, node: Apply, **kwargs: Any) -> Callable:
    dtypes = output_dtypes(node)
    if not op.p_indices:

        def lu(a):
            check_square_value(op, a)  # shapes are static while JAX traces: raised there
            factors = jsl.lu(a, permute_l=op.permute_l)
            return tuple(r.astype(d) for r, d in zip(factors, dtypes, strict=True))

        return lu

    def lu_with_indices(a):
        check_square_value(op, a)
        _, lower, upper = jsl.lu(a)
        _, order = _row_order(a)
        return jnp.argsort(order).astype(dtypes[0]), lower, upper

    return lu_with_indices


@jax_funcify.register(LUFactor)
def jax_funcify_LUFactor(op: LUFactor, node: Apply, **kwargs: Any) -> Callable:
    dtypes = output_dtypes(node)

    def lu_factor(a):
        check_square_value(op, a)  # shapes are static while JAX traces: raised there
        return tuple(r.astype(d) for r, d in zip(jsl.lu_factor(a), dtypes, strict=True))

    return lu_factor


@jax_funcify.register(PivotToPermutations)
def jax_funcify_PivotToPermutations(op: PivotToPermutations, node: Apply, **kwargs) -> Callable:
    (dtype,) = output_dtypes(node)

    def permutation(pivots):
        order = jll.lu_pivots_to_permutation(pivots, pivots.shape[-1])
        return (order if op.inverse else jnp.argsort(order)).astype(dtype)

    return permutation
