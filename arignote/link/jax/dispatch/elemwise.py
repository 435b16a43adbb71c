"""JAX versions of ``Elemwise``, ``DimShuffle`` and ``CAReduce`` (``tensor/elemwise.py``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import jax.numpy as jnp
from arignote.graph.basic import Apply
from arignote.link.jax.dispatch.basic import as_dtype, jax_funcify, output_dtypes
from arignote.tensor.elemwise import CAReduce, DimShuffle, Elemwise, check_runtime_broadcast
from arignote.tensor.prod_without_zeros import ProdWithoutZeros


@jax_funcify.register(Elemwise)
def jax_funcify_Elemwise(op: Elemwise, node: Apply, **kwargs: Any) -> Callable:
    scalar_fn = _checked(jax_funcify(op.scalar_op, node=node, **kwargs), node)
    dtypes = output_dtypes(node)
    if len(dtypes) == 1:
        (dtype,) = dtypes

        def elemwise(*inputs):
            return as_dtype(scalar_fn(*inputs), dtype)

        return elemwise

    def elemwise_multi(*inputs):
        return tuple(as_dtype(r, d) for r, d in zip(scalar_fn(*inputs), dtypes))

    return elemwise_multi


def _checked(scalar_fn: Callable, node: Apply) -> Callable:
    """``scalar_fn`` refusing run-time broadcasting as the VM does: JAX knows the shapes when
    it traces, so the check costs nothing per call (it runs once per input signature)."""
    if len(node.inputs) < 2:
        return scalar_fn

    def checked(*inputs):
        check_runtime_broadcast(node, [jnp.shape(i) for i in inputs])
        return scalar_fn(*inputs)

    return checked


@jax_funcify.register(DimShuffle)
def jax_funcify_DimShuffle(op: DimShuffle, node: Apply | None = None, **kwargs: Any) -> Callable:
    # drop the length-1 dims not kept, permute the kept ones, then insert the new ones
    drop, shuffle, augment = op.drop, op.shuffle, op.augment
    out_ndim = len(op.new_order)
    kept_shape_positions = [i for i, d in enumerate(op.new_order) if d != "x"]

    ranks = [sorted(shuffle).index(d) for d in shuffle]  # the permutation after the drop
    permute = ranks != sorted(ranks)

    def dimshuffle(x):
        x = jnp.squeeze(x, axis=drop) if drop else x
        x = jnp.transpose(x, ranks) if permute else x
        shape = [1] * out_ndim
        for position, length in zip(kept_shape_positions, jnp.shape(x)):
            shape[position] = length
        return jnp.reshape(x, shape) if augment else x

    return dimshuffle


# The JAX reduction of each scalar op a CAReduce may fold with (by the ufunc's name).
_REDUCERS: dict[str, Callable] = {
    "add": jnp.sum,
    "multiply": jnp.prod,
    "maximum": jnp.max,
    "minimum": jnp.min,
    "logical_and": jnp.all,
    "logical_or": jnp.any,
}


@jax_funcify.register(CAReduce)
def jax_funcify_CAReduce(op: CAReduce, node: Apply, **kwargs: Any) -> Callable:
    ndim = node.inputs[0].type.ndim
    axes = tuple(range(ndim)) if op.axis is None else tuple(op.axis)
    (out_dtype,) = output_dtypes(node)
    acc_dtype = np.dtype(op._acc_dtype(node.inputs[0].type.dtype))
    name = getattr(op.scalar_op.nfunc, "__name__", None)
    if name in ("bitwise_and", "bitwise_or") and out_dtype == np.bool_:
        name = "logical_and" if name == "bitwise_and" else "logical_or"
    reducer = _REDUCERS.get(name)
    if reducer is None:
        ufunc = getattr(jnp, name or "", None)
        if ufunc is None or not hasattr(ufunc, "reduce"):
            raise NotImplementedError(f"{op}: no JAX reduction for scalar op {op.scalar_op}")
        reducer = ufunc.reduce
    accumulates = name in ("add", "multiply")

    def careduce(x):
        if not axes:
            return jnp.asarray(x).astype(out_dtype)
        if accumulates:
            return reducer(x, axis=axes, dtype=acc_dtype).astype(out_dtype)
        return reducer(x, axis=axes).astype(out_dtype)

    return careduce


# -- PyTensor's multiplication and product that skip zeros --------------------------------------


@jax_funcify.register(ProdWithoutZeros)
def jax_funcify_ProdWithoutZeros(op: ProdWithoutZeros, node: Apply, **kwargs: Any) -> Callable:
    ndim = node.inputs[0].type.ndim
    axes = tuple(range(ndim)) if op.axis is None else tuple(op.axis)
    (out_dtype,) = output_dtypes(node)
    acc_dtype = np.dtype(op._acc_dtype(node.inputs[0].type.dtype))

    def prod_without_zeros(x):
        if not axes:
            return jnp.asarray(x).astype(out_dtype)
        nonzero = x != 0
        product = jnp.prod(jnp.where(nonzero, x, 1), axis=axes, dtype=acc_dtype)
        return jnp.where(jnp.any(nonzero, axis=axes), product, 0).astype(out_dtype)

    return prod_without_zeros
