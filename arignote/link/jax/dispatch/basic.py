"""The JAX conversion table: ``jax_funcify``, the unsupported-op list and the static-value helpers.

Each op class gets one function ``jax_funcify_<OpClass>(op, node, **kwargs)`` registered on
:func:`jax_funcify`; it returns a function of JAX arrays computing the node's outputs (one value
for a node with one output, a tuple otherwise). Work that depends only on the op and the node
(axes, dtypes, tables) is done once, outside the returned closure.

Values seen while tracing are of two kinds: JAX arrays (tracers) and *static* NumPy values
(constants of the graph, and shapes, which JAX knows while tracing). Ops that need a Python
number (a shape, a slice bound, a length) read it with :func:`static_ints`, which raises
:class:`DynamicShapeError` with the fix when the value is only known at run time.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import singledispatch
from typing import Any

import numpy as np

import jax.numpy as jnp
from arignote.graph.basic import Apply, Constant, Variable
from arignote.graph.op import Op
from arignote.link.basic import raise_with_op
from arignote.tensor.basic import MakeVector, ScalarFromTensor, TensorFromScalar
from arignote.tensor.gradient_ops import (
    ConsiderConstant,
    DisconnectedGrad,
    GradClip,
    GradientViewOp,
    GradScale,
    UndefinedGrad,
    ZeroGrad,
)


class UnsupportedOpError(NotImplementedError):
    """The graph holds an op the JAX backend cannot run (see ``UNSUPPORTED`` for why)."""


class DynamicShapeError(ValueError):
    """A length JAX needs while compiling is computed from input values at run time."""


def qualified_name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


# Conversions of ops defined above the link layer (compile, scan, testing...), which this
# package cannot import: they are registered by the op class's qualified name.
_BY_NAME: dict[str, Callable] = {}


def register_by_name(*names: str) -> Callable[[Callable], Callable]:
    """Register a conversion for the op classes with these qualified names."""

    def decorate(fn: Callable) -> Callable:
        for name in names:
            _BY_NAME[name] = fn
        return fn

    return decorate


def _by_name(op_class: type) -> Callable | None:
    for cls in op_class.__mro__:
        found = _BY_NAME.get(qualified_name(cls))
        if found is not None:
            return found
    return None


@singledispatch
def jax_funcify(op: Any, node: Apply | None = None, **kwargs: Any) -> Callable:
    """A function of JAX arrays computing ``node`` (one value, or a tuple for several outputs)."""
    found = _by_name(type(op))
    if found is None:
        raise UnsupportedOpError(
            f"The JAX backend has no conversion for {type(op).__name__} (node {node})"
        )
    return found(op, node=node, **kwargs)


# The one list of ops the JAX backend does not convert, each with the reason (by qualified
# name, so that ops of any layer can be listed). Compiling a graph that holds one raises
# UnsupportedOpError naming the op and the node: there is no fallback.
UNSUPPORTED: dict[str, str] = {
    "arignote.compile.ops.FromFunctionOp": "it calls an arbitrary Python function (as_op, "
    "wrap_py), which JAX cannot trace",
    "arignote.tensor.slices.MakeSlice": "its output is a Python slice object, not an array "
    "(indexing with make_slice reads the bounds when the graph is built and never runs it)",
    **dict.fromkeys(
        [
            f"arignote.optimize.{name}"
            for name in (
                "MinimizeOp",
                "MinimizeScalarOp",
                "RootOp",
                "RootScalarOp",
                "ScipyWrapperOp",
                "ScipyScalarWrapperOp",
                "ScipyVectorWrapperOp",
            )
        ],
        "it runs SciPy's optimisers (scipy.optimize), Python loops over NumPy values that JAX "
        "cannot trace (jax.scipy.optimize has only BFGS minimisation)",
    ),
}


#: Scalar ops the JAX backend runs on real inputs but not on complex ones, with the reason (by
#: qualified name): a node applying one to a complex input is refused as an op of
#: :data:`UNSUPPORTED` is.
UNSUPPORTED_COMPLEX: dict[str, str] = {}


def register_unsupported(op_class: type | str, reason: str) -> None:
    """Add ``op_class`` (a class or its qualified name) to the unsupported list with ``reason``."""
    UNSUPPORTED[op_class if isinstance(op_class, str) else qualified_name(op_class)] = reason


def register_unsupported_complex(op_class: type, reason: str) -> None:
    """List the scalar op class ``op_class`` as refused on complex inputs, with ``reason``."""
    UNSUPPORTED_COMPLEX[qualified_name(op_class)] = reason


def unsupported_reason(op: Op, node: Apply | None = None) -> str | None:
    """Why the JAX backend cannot run ``op`` (None when it can); given the ``node`` applying
    it, also whether a scalar op of :data:`UNSUPPORTED_COMPLEX` meets a complex input there.

    An ``Elemwise`` is refused for its scalar op, a ``Composite`` for any op of its inner graph.
    """
    if node is not None:
        reason = _complex_reason(getattr(op, "scalar_op", op), node.inputs)
        if reason is not None:
            return reason
    inner = [getattr(op, "scalar_op", None)] + [n.op for n in getattr(op, "nodes", ())]
    for inner_op in inner:
        reason = unsupported_reason(inner_op) if inner_op is not None else None
        if reason is not None:
            return reason
    for cls in type(op).__mro__:
        reason = UNSUPPORTED.get(qualified_name(cls))
        if reason is not None:
            return reason
    converter = jax_funcify.dispatch(type(op))
    if converter is jax_funcify.dispatch(object) and _by_name(type(op)) is None:
        return "no JAX conversion is registered for this op class"
    return None


def _complex_reason(scalar_op: Op, inputs: list[Variable]) -> str | None:
    """The reason of :data:`UNSUPPORTED_COMPLEX` refusing ``scalar_op`` (or an op of its inner
    graph, for a Composite) on these inputs, if any."""
    applied = [(scalar_op, inputs)] + [(n.op, n.inputs) for n in getattr(scalar_op, "nodes", ())]
    for inner, args in applied:
        reason = UNSUPPORTED_COMPLEX.get(qualified_name(type(inner)))
        if reason is not None and any(_is_complex(a) for a in args):
            return reason
    return None


def _is_complex(var: Variable) -> bool:
    dtype = getattr(var.type, "dtype", None)
    return dtype is not None and np.dtype(dtype).kind == "c"


def check_supported(nodes: list[Apply]) -> None:
    """Raise :class:`UnsupportedOpError` for the first node the JAX backend cannot run."""
    for node in nodes:
        reason = unsupported_reason(node.op, node)
        if reason is not None:
            raise UnsupportedOpError(
                f"The JAX backend cannot run op {node.op} ({type(node.op).__name__}) of node "
                f"{node}: {reason}. Compile this function with another mode (e.g. FAST_RUN)"
            )


# -- static values -----------------------------------------------------------------------------


def is_static(value: Any) -> bool:
    """Whether ``value`` is known while tracing (a NumPy value, a Python number or None)."""
    return value is None or isinstance(value, (np.ndarray, np.generic, int, float, bool))


def static_ints(value: Any, node: Apply, what: str) -> tuple[int, ...] | int:
    """``value`` (an integer scalar or vector known while tracing) as Python ints.

    Raises :class:`DynamicShapeError` saying which value of which node is dynamic and how to
    make it static.
    """
    if not is_static(value):
        raise DynamicShapeError(
            f"The JAX backend needs the {what} of node {node} when it compiles the function, but "
            "it is computed from input values at run time. Make it static: give the inputs it "
            "depends on static shapes (pt.tensor(shape=...), or specify_shape(x, shape)), or "
            "use a constant"
        )
    array = np.asarray(value)
    return int(array) if array.ndim == 0 else tuple(int(v) for v in array)


def static_scalar(value: Any, node: Apply, what: str) -> Any:
    """``value`` (a 0-d value known while tracing) as a Python number (see :func:`static_ints`)."""
    if not is_static(value):
        static_ints(value, node, what)  # raises the DynamicShapeError
    return np.asarray(value).item()


def output_dtypes(node: Apply) -> list[np.dtype]:
    return [np.dtype(out.type.dtype) for out in node.outputs]


def as_dtype(value: Any, dtype: np.dtype) -> Any:
    """``value`` as an array of ``dtype`` (a NumPy value stays NumPy, i.e. static)."""
    if is_static(value):
        return np.asarray(value, dtype=dtype)
    return value if value.dtype == dtype else value.astype(dtype)


# -- identity-like ops ---------------------------------------------------------------------------

_IDENTITIES = (
    ConsiderConstant,
    DisconnectedGrad,
    GradClip,
    GradScale,
    GradientViewOp,
    UndefinedGrad,
    ZeroGrad,
)


@register_by_name(
    "arignote.compile.ops.DeepCopyOp",
    "arignote.compile.ops.ViewOp",
    "arignote.testing.rop.BreakRop",
)
def _identity(op: Op, node: Apply | None = None, **kwargs: Any) -> Callable:
    # JAX arrays are immutable, so a copy or a view is the value itself; the gradient ops act
    # only on the symbolic gradient and compute their input unchanged.
    def identity(x):
        return x

    return identity


for _cls in _IDENTITIES:
    jax_funcify.register(_cls)(_identity)


@jax_funcify.register(MakeVector)
def jax_funcify_MakeVector(op: MakeVector, node: Apply | None = None, **kwargs: Any) -> Callable:
    dtype = np.dtype(op.dtype)

    def make_vector(*values):
        if all(is_static(v) for v in values):  # lengths: they stay static
            return np.asarray(values, dtype=dtype).reshape(len(values))
        return jnp.stack([jnp.asarray(v, dtype=dtype) for v in values])

    return make_vector


@jax_funcify.register(TensorFromScalar)
def jax_funcify_TensorFromScalar(op: Op, node: Apply, **kwargs: Any) -> Callable:
    (dtype,) = output_dtypes(node)

    def tensor_from_scalar(x):
        return as_dtype(x, dtype)

    return tensor_from_scalar


@jax_funcify.register(ScalarFromTensor)
def jax_funcify_ScalarFromTensor(op: Op, node: Apply, **kwargs: Any) -> Callable:
    def scalar_from_tensor(x):
        return x[()] if is_static(x) else jnp.reshape(x, ())

    return scalar_from_tensor


# -- graphs --------------------------------------------------------------------------------------


@singledispatch
def jax_typify(data: Any) -> Any:
    """The value a constant contributes while tracing: NumPy data stays NumPy (static); other
    kinds of values (NumPy generators) register their JAX form."""
    return data


@jax_typify.register(np.ndarray)
@jax_typify.register(np.generic)
@jax_typify.register(int)
@jax_typify.register(float)
def _typify_array(data: Any) -> Any:
    return np.asarray(data)


def constant_value(var: Constant) -> Any:
    return jax_typify(var.data)


def _partially_evaluable(node: Apply, values: list) -> bool:
    """Whether ``node`` is evaluated while tracing, by its ``perform`` (shape arithmetic).

    JAX needs shapes as Python numbers, and turns every ``jnp`` call inside ``jit`` into a
    traced value, even on constants: so small integer computations on static values (the
    lengths a graph computes from ``Shape`` and constants) are done with NumPy while tracing,
    and stay static. They become constants of the compiled program.
    """
    if not all(is_static(v) for v in values) or getattr(node.op, "destroy_map", None):
        return False
    for out in node.outputs:
        dtype = getattr(out.type, "dtype", None)
        if dtype is None or np.dtype(dtype).kind not in "biu" or len(out.type.shape) > 1:
            return False
    return True


def _evaluate_static(node: Apply, values: list) -> list:
    cells = [[None] for _ in node.outputs]
    node.op.perform(node, [np.asarray(v) if v is not None else v for v in values], cells)
    return [cell[0] for cell in cells]


def _run_node(node: Apply, fn: Callable, values: list) -> list:
    if _partially_evaluable(node, values):
        return _evaluate_static(node, values)
    result = fn(*values)
    return list(result) if len(node.outputs) > 1 else [result]


def fgraph_to_jax(
    inputs: list[Variable], outputs: list[Variable], nodes: list[Apply], **kwargs: Any
) -> Callable:
    """A function of JAX arrays computing ``outputs`` from ``inputs`` over ``nodes`` in order.

    Every node is converted once here; the returned function is meant to be traced (by
    ``jax.jit`` or ``jax.vmap``), so its Python loop runs once per trace, not once per call.
    A failure while tracing a node is re-raised with the node described.
    """
    check_supported(nodes)
    steps = [(node, jax_funcify(node.op, node=node, **kwargs)) for node in nodes]
    constants = {
        var: constant_value(var)
        for node in nodes
        for var in node.inputs
        if isinstance(var, Constant)
    }
    constants.update({o: constant_value(o) for o in outputs if isinstance(o, Constant)})

    def graph_function(*values):
        env = dict(constants)
        env.update(zip(inputs, values))
        for node, fn in steps:
            try:
                results = _run_node(node, fn, [env[v] for v in node.inputs])
            except Exception as err:
                raise_with_op(None, node, err)
            env.update(zip(node.outputs, results))
        return tuple(env[o] for o in outputs)

    return graph_function
