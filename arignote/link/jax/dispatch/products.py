"""JAX versions of the products (``tensor/products.py``) and the BLAS ops (``tensor/blas.py``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
from arignote.graph.basic import Apply
from arignote.link.jax.dispatch.basic import jax_funcify, output_dtypes
from arignote.tensor.blas import Gemm, Gemv, Ger
from arignote.tensor.products import Dot, Einsum, MatMul


@jax_funcify.register(Dot)
def jax_funcify_Dot(op: Dot, node: Apply, **kwargs: Any) -> Callable:
    (dtype,) = output_dtypes(node)

    def dot(x, y):
        return jnp.dot(x, y).astype(dtype)

    return dot


@jax_funcify.register(MatMul)
def jax_funcify_MatMul(op: MatMul, node: Apply, **kwargs: Any) -> Callable:
    (dtype,) = output_dtypes(node)

    def matmul(x, y):
        return jnp.matmul(x, y).astype(dtype)

    return matmul


@jax_funcify.register(Einsum)
def jax_funcify_Einsum(op: Einsum, node: Apply, **kwargs: Any) -> Callable:
    (dtype,) = output_dtypes(node)
    unique = "".join(dict.fromkeys(op.output_term))
    spec = ",".join(op.input_terms) + "->" + unique
    diagonal = unique != op.output_term  # a repeated output letter: a diagonal of zeros

    def einsum(*operands):
        result = jnp.einsum(spec, *operands).astype(dtype)
        if not diagonal:
            return result
        return _spread_on_diagonal(result, unique, op.output_term, dtype)

    return einsum


def _spread_on_diagonal(result, unique: str, output_term: str, dtype) -> Any:
    """The array of letters ``output_term`` that is ``result`` where repeated letters agree,
    and zero elsewhere (NumPy's einsum writes the result onto such a diagonal)."""
    sizes = dict(zip(unique, result.shape))
    grids = jnp.meshgrid(*[jnp.arange(sizes[c]) for c in output_term], indexing="ij")
    by_letter: dict[str, Any] = {}
    on_diagonal = jnp.ones([sizes[c] for c in output_term], bool)
    for letter, grid in zip(output_term, grids):
        if letter in by_letter:
            on_diagonal = on_diagonal & (grid == by_letter[letter])
        else:
            by_letter[letter] = grid
    values = result[tuple(by_letter[c] for c in unique)]
    return jnp.where(on_diagonal, values, jnp.zeros((), dtype))


@jax_funcify.register(Gemm)
def jax_funcify_Gemm(op: Gemm, node: Apply, **kwargs: Any) -> Callable:
    (dtype,) = output_dtypes(node)

    def gemm(z, alpha, x, y, beta):
        # beta * z + alpha * x @ y (the in-place flag means nothing for immutable arrays)
        return (beta * z + alpha * jnp.dot(x, y)).astype(dtype)

    return gemm


@jax_funcify.register(Gemv)
def jax_funcify_Gemv(op: Gemv, node: Apply, **kwargs: Any) -> Callable:
    (dtype,) = output_dtypes(node)

    def gemv(y, alpha, a, x, beta):
        return (beta * y + alpha * jnp.dot(a, x)).astype(dtype)

    return gemv


@jax_funcify.register(Ger)
def jax_funcify_Ger(op: Ger, node: Apply, **kwargs: Any) -> Callable:
    (dtype,) = output_dtypes(node)

    def ger(a, alpha, x, y):
        return (a + alpha * jnp.outer(x, y)).astype(dtype)

    return ger
