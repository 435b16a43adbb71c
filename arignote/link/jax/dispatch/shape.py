"""JAX versions of the shape ops (``arignote/tensor/shape.py``, ``reshape.py``, ``basic.py``).

Shapes are static while JAX traces, so ``Shape`` and ``Shape_i`` give NumPy values: the
lengths computed from them stay static (see ``basic._partially_evaluable``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import jax.numpy as jnp
from arignote.graph.basic import Apply
from arignote.link.jax.dispatch.basic import jax_funcify, static_ints
from arignote.tensor.reshape import Reshape
from arignote.tensor.shape import Shape, Shape_i, SpecifyShape


@jax_funcify.register(Shape)
def jax_funcify_Shape(op: Shape, node: Apply | None = None, **kwargs: Any) -> Callable:
    def shape(x):
        return np.asarray(jnp.shape(x), dtype="int64")

    return shape


@jax_funcify.register(Shape_i)
def jax_funcify_Shape_i(op: Shape_i, node: Apply | None = None, **kwargs: Any) -> Callable:
    i = op.i

    def shape_i(x):
        return np.asarray(jnp.shape(x)[i], dtype="int64")

    return shape_i


@jax_funcify.register(SpecifyShape)
def jax_funcify_SpecifyShape(op: SpecifyShape, node: Apply, **kwargs: Any) -> Callable:
    declared = [d for d, given in enumerate(op.specified) if given]

    def specify_shape(x, *lengths):
        # checked while tracing, when both the shape and (static) lengths are known
        for d, length in zip(declared, lengths):
            want = static_ints(length, node, f"length of dimension {d}")
            if jnp.shape(x)[d] != want:
                raise AssertionError(
                    f"SpecifyShape: dimension {d} has length {jnp.shape(x)[d]}, expected {want}"
                )
        return x

    return specify_shape


@jax_funcify.register(Reshape)
def jax_funcify_Reshape(op: Reshape, node: Apply, **kwargs: Any) -> Callable:
    def reshape(x, shape):
        return jnp.reshape(x, static_ints(shape, node, "target shape"))

    return reshape
