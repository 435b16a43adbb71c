"""``wrap_jax``: a JAX function as an arignote op, in every mode, with its JAX gradient.

``wrap_jax(f)(x, y)`` with symbolic ``x``, ``y`` (any pytree of them, mixed with constants)
builds one :class:`JAXOp` node: its output types come from ``jax.eval_shape`` on the inputs'
static shapes, its ``perform`` calls ``jax.jit(f)`` (in 64-bit mode when an input or output
is 64-bit), its gradient is another ``JAXOp`` running ``jax.vjp``, and the JAX backend calls
``f`` directly inside the compiled function.

This module imports jax, so it lives in the JAX backend package; ``arignote.wrap_jax`` loads it
on first access (``import arignote`` never imports jax).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import jax
import jax.numpy as jnp
from arignote.graph.basic import Apply, Constant, Variable
from arignote.graph.grad_types import is_disconnected
from arignote.graph.op import Op
from arignote.link.jax.dispatch.basic import jax_funcify
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.type import TensorType, tensor_type

_WIDE = ("float64", "int64", "uint64", "complex128")


def _is_symbolic(leaf: Any) -> bool:
    return isinstance(leaf, Variable) and not isinstance(leaf, Constant)


def _wide(dtypes: list[str]) -> bool:
    return any(d in _WIDE for d in dtypes)


class JAXOp(Op):
    """Runs a JAX function of arrays returning a flat tuple of arrays.

    ``function`` takes the op's inputs as positional arrays; ``output_types`` are the
    ``TensorType``s of its results (static shapes, from ``jax.eval_shape``).
    """

    __props__ = ("function", "output_types", "name")

    def __init__(self, function: Callable, output_types: tuple, name: str = "jax") -> None:
        self.function = function
        self.output_types = tuple(output_types)
        self.name = name
        self._jitted = jax.jit(function)  # stateless: a jitted function, not a compiled graph

    def make_node(self, *inputs):
        inputs = [as_tensor_variable(x) for x in inputs]
        return Apply(self, inputs, [t() for t in self.output_types])

    def perform(self, node, inputs, output_storage):
        dtypes = [v.type.dtype for v in (*node.inputs, *node.outputs)]
        with jax.enable_x64(_wide(dtypes)):
            results = self._jitted(*inputs)
        for cell, value, out in zip(output_storage, results, node.outputs, strict=True):
            cell[0] = np.array(value, dtype=out.type.dtype)  # writable (JAX buffers are not)

    def infer_shape(self, fgraph, node, input_shapes):
        return [t.shape for t in self.output_types]

    def L_op(self, inputs, outputs, output_grads):
        cotangents = [
            out.zeros_like() if is_disconnected(g) else g
            for out, g in zip(outputs, output_grads, strict=True)
        ]
        n = len(inputs)
        function = self.function

        def pullback(*args):
            _, vjp = jax.vjp(lambda *xs: tuple(function(*xs)), *args[:n])
            return vjp(tuple(args[n:]))

        types = tuple(tensor_type(_grad_dtype(x), x.type.shape) for x in inputs)
        grads = JAXOp(pullback, types, f"{self.name}_vjp")(*inputs, *cotangents)
        return grads if isinstance(grads, list) else [grads]

    def __str__(self) -> str:
        return f"JAXOp{{{self.name}}}"


def _grad_dtype(x: Variable) -> str:
    dtype = x.type.dtype
    return dtype if dtype.startswith(("float", "complex")) else "float64"


@jax_funcify.register(JAXOp)
def jax_funcify_JAXOp(op: JAXOp, node: Apply | None = None, **kwargs: Any) -> Callable:
    def call(*inputs):
        results = op.function(*inputs)
        return results if len(results) > 1 else results[0]

    return call


def _static_struct(x: Variable, allow_eval: bool) -> Any:
    shape = x.type.shape
    if any(d is None for d in shape):
        if not allow_eval:
            raise ValueError(f"wrap_jax needs static shapes, got {x.type}: use specify_shape")
        try:
            shape = tuple(int(d) for d in x.shape.eval())
        except ValueError as err:  # the shape depends on free inputs
            raise ValueError(
                f"wrap_jax could not find the shape of {x} ({x.type}): give inputs fully "
                "determined shapes (pt.specify_shape)"
            ) from err
    return jax.ShapeDtypeStruct(shape, np.dtype(x.type.dtype))


def _wrapped(jax_function: Callable, allow_eval: bool) -> Callable:
    def call(*args: Any, **kwargs: Any) -> Any:
        leaves, treedef = jax.tree_util.tree_flatten((args, kwargs))
        symbolic = [i for i, leaf in enumerate(leaves) if _is_symbolic(leaf)]
        fixed = {i: leaf for i, leaf in enumerate(leaves) if i not in set(symbolic)}
        fixed = {i: (v.data if isinstance(v, Constant) else v) for i, v in fixed.items()}
        out_tree: list = []

        def flat_function(*arrays):
            filled = dict(fixed)
            filled.update(zip(symbolic, arrays))
            args_, kwargs_ = jax.tree_util.tree_unflatten(
                treedef, [filled[i] for i in range(len(leaves))]
            )
            results, tree = jax.tree_util.tree_flatten(jax_function(*args_, **kwargs_))
            out_tree[:] = [tree]
            return tuple(jnp.asarray(r) for r in results)

        inputs = [as_tensor_variable(leaves[i]) for i in symbolic]
        structs = [_static_struct(x, allow_eval) for x in inputs]
        with jax.enable_x64(_wide([x.type.dtype for x in inputs])):
            shapes = jax.eval_shape(flat_function, *structs)
        types = tuple(TensorType(str(s.dtype), tuple(s.shape)) for s in shapes)
        name = getattr(jax_function, "__name__", "jax")
        outputs = JAXOp(flat_function, types, name)(*inputs)
        outputs = outputs if isinstance(outputs, list) else [outputs]
        return jax.tree_util.tree_unflatten(out_tree[0], outputs)

    call.__name__ = getattr(jax_function, "__name__", "wrapped")
    call.__doc__ = jax_function.__doc__
    return call


def wrap_jax(jax_function: Callable | None = None, *, allow_eval: bool = True) -> Any:
    """Make a JAX function take and return arignote variables (usable as a decorator).

    Parameters
    ----------
    jax_function
        A jittable JAX function of arrays (any pytree of inputs and outputs; leaves that are
        not symbolic variables are held fixed). None: return a decorator.
    allow_eval
        Evaluate an input's shape when its type does not give it statically (possible only
        for shapes that do not depend on free inputs); otherwise such an input is refused.

    Returns
    -------
    callable
        Called with variables, returns the function's outputs as variables (same pytree).
    """
    if jax_function is None:
        return lambda f: _wrapped(f, allow_eval)
    return _wrapped(jax_function, allow_eval)


__all__ = ["JAXOp", "wrap_jax"]
