"""``RandomVariable``: the op drawing from a NumPy ``Generator``, base of every distribution.

A node ``op(rng, size, *params)`` has two outputs: the generator's next state and the draw. The
draw is computed by the ``Generator`` method named ``op.name``, called with the parameters'
values and ``size``, so that a generator in a given state yields exactly NumPy's numbers.

Shapes follow NumPy: each parameter ``i`` has ``ndims_params[i]`` core dimensions (on the right)
and batch dimensions (the rest). Without ``size`` the draw's batch shape is the broadcast of the
parameters' batch shapes; with ``size`` it is ``size`` (the parameters must broadcast to it).
The draw's shape is the batch shape followed by the support shape (``ndim_supp`` dimensions:
0 for scalar distributions, 1 for vector-valued ones such as ``multivariate_normal``).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from arignote.config import config
from arignote.graph.basic import Apply, Constant, Variable
from arignote.graph.grad_types import NullTypeGradError, grad_undefined
from arignote.graph.op import Op
from arignote.graph.shared import SharedVariable, shared
from arignote.graph.utils import add_tag_trace
from arignote.scalar.basic import discrete_dtypes
from arignote.tensor import basic as tensor_basic
from arignote.tensor.basic import (
    MakeVector,
    NotScalarConstantError,
    as_tensor_variable,
    get_scalar_constant_value,
    make_vector,
)
from arignote.tensor.elemwise import broadcast_static_shape
from arignote.tensor.math import cast
from arignote.tensor.random.type import (
    NoneConst,
    RandomGeneratorType,
    copy_generator,
    is_none_const,
    random_generator_type,
)
from arignote.tensor.type import TensorType, tensor_type

_INTEGER_DTYPES = frozenset(discrete_dtypes) - {"bool"}


# -- size -------------------------------------------------------------------------------------


def normalize_size_param(size: Any) -> Variable:
    """``size`` as a graph input: ``NoneConst``, or an int64 vector of statically known length.

    Accepts None, an int, a sequence of ints and integer 0-d variables, or an integer vector
    variable whose length is known statically.
    """
    if size is None or is_none_const(size):
        return NoneConst
    if isinstance(size, Variable):
        return _size_from_variable(size)
    if isinstance(size, (int, np.integer)):
        size = (size,)
    if not isinstance(size, (Sequence, np.ndarray)) or isinstance(size, (str, bytes)):
        raise TypeError(f"size must be None, an int or a sequence of ints, got {size!r}")
    entries = list(size)
    if any(isinstance(e, Variable) for e in entries):
        return make_vector(*[_size_entry(e) for e in entries], dtype="int64")
    return as_tensor_variable(np.asarray([_constant_length(e) for e in entries], dtype="int64"))


def _size_from_variable(size: Variable) -> Variable:
    if not isinstance(size.type, TensorType) or size.type.dtype not in _INTEGER_DTYPES:
        raise TypeError(f"size must be an integer tensor, got {size} of type {size.type}")
    if size.type.ndim == 0:
        return make_vector(size, dtype="int64")
    if size.type.ndim != 1 or size.type.shape[0] is None:
        raise TypeError(
            f"size must be an integer vector of statically known length (or a tuple), got "
            f"{size.type}; use specify_shape to declare its length"
        )
    return size if size.type.dtype == "int64" else cast(size, "int64")


def _size_entry(entry: Any) -> Variable:
    if not isinstance(entry, Variable):
        return as_tensor_variable(np.int64(_constant_length(entry)))
    entry = as_tensor_variable(entry)
    if entry.type.ndim != 0 or entry.type.dtype not in _INTEGER_DTYPES:
        raise TypeError(f"size entries must be integer scalars, got {entry} of type {entry.type}")
    return entry


def _constant_length(entry: Any) -> int:
    try:
        length = operator.index(entry)
    except TypeError:
        raise TypeError(f"size entries must be integers, got {entry!r}") from None
    if length < 0:
        raise ValueError(f"size entries must be non-negative, got {length}")
    return length


def size_entries(size: Variable) -> list[Variable] | None:
    """The entries of a size vector as 0-d variables (None when they cannot be expressed).

    Constant and ``make_vector`` sizes give their entries directly; any other vector is indexed
    through the element hook that ``arignote.tensor.subtensor`` registers in tensor.basic.
    """
    if isinstance(size, Constant):
        return [as_tensor_variable(np.int64(s)) for s in size.data]
    if size.owner is not None and isinstance(size.owner.op, MakeVector):
        return list(size.owner.inputs)
    element = tensor_basic._vector_element
    if element is None:
        return None
    return [element(size, i) for i in range(size.type.shape[0])]


def static_size(size: Variable) -> tuple | None:
    """The size as a tuple of ints and Nones (unknown entries), or None for ``NoneConst``."""
    if is_none_const(size):
        return None
    entries = size_entries(size)
    if entries is None:
        return (None,) * size.type.shape[0]
    result = []
    for entry in entries:
        try:
            result.append(int(get_scalar_constant_value(entry)))
        except NotScalarConstantError:
            result.append(None)
    return tuple(result)


# -- drawing with batched parameters ----------------------------------------------------------


def draw_batched(
    draw_one: Callable[..., Any],
    params: Sequence[np.ndarray],
    ndims_params: Sequence[int],
    size: tuple | None,
) -> np.ndarray:
    """Draws for parameters with batch dimensions, one ``draw_one(*core_params)`` per entry.

    For NumPy methods that accept only core-shaped parameters (``multivariate_normal``,
    ``dirichlet``...): the parameters are broadcast to the batch shape (``size``, or the
    broadcast of their batch shapes) and the method is called once per batch entry, in C order.
    That order is what makes the numbers reproducible.
    """
    params = [np.asarray(p) for p in params]
    batch_shapes = [p.shape[: p.ndim - nd] for p, nd in zip(params, ndims_params)]
    batch = tuple(size) if size is not None else np.broadcast_shapes(*batch_shapes)
    expanded = [
        np.broadcast_to(p, batch + p.shape[p.ndim - nd :]) for p, nd in zip(params, ndims_params)
    ]
    draws = [draw_one(*[p[index] for p in expanded]) for index in np.ndindex(*batch)]
    if not draws:
        # No draw to learn the support shape from: the vector distributions drawn this way
        # (multivariate_normal, dirichlet, multivariate_hypergeometric) have the length of
        # their first parameter's last axis.
        support = params[0].shape[params[0].ndim - 1 :] if ndims_params[0] else ()
        return np.empty(batch + support, dtype="float64")
    first = np.asarray(draws[0])
    return np.stack([np.asarray(d) for d in draws]).reshape(batch + first.shape)


def has_batch_dims(params: Sequence[np.ndarray], ndims_params: Sequence[int]) -> bool:
    return any(np.ndim(p) > nd for p, nd in zip(params, ndims_params))


def _check_runtime_broadcast(node: Apply, params: list) -> None:
    """Refuse broadcasting a batch dimension whose static type does not allow it.

    As for ``Elemwise``, a length that is 1 only at run time must not stretch to match the other
    parameters: the draw's static type and inferred shape assume it does not.
    """
    op = node.op
    batch_shapes = []
    for value, var, nd in zip(params, node.inputs[2:], op.ndims_params):
        if value is not None and np.ndim(value) > nd:
            batch_shapes.append((np.shape(value)[: np.ndim(value) - nd], var))
    if len(batch_shapes) < 2 or all(s == batch_shapes[0][0] for s, _ in batch_shapes):
        return
    out_batch = np.broadcast_shapes(*[s for s, _ in batch_shapes])
    for shape, var in batch_shapes:
        offset = len(out_batch) - len(shape)
        for dim, length in enumerate(shape):
            static = var.type.shape[dim]
            if length == 1 and out_batch[dim + offset] != 1 and static != 1:
                raise ValueError(
                    f"{op}: parameter {var} has length 1 in dimension {dim}, where the other "
                    f"parameters have {out_batch[dim + offset]}, but its type ({var.type}) does "
                    "not declare that dimension broadcastable. Use specify_broadcastable (or "
                    "pass size) if broadcasting was intended."
                )


# -- the op -----------------------------------------------------------------------------------


class RandomVariable(Op):
    """Draws from a probability distribution with a NumPy ``Generator``.

    Props: ``name`` (the ``Generator`` method), ``ndim_supp`` (dimensions of one draw),
    ``ndims_params`` (core dimensions of each parameter), ``dtype`` (of the draw; ``"floatX"``
    means ``config.floatX``; None lets the subclass derive it from the parameters) and
    ``inplace`` (the op then advances its input generator instead of a copy of it, and declares
    ``destroy_map = {0: [0]}``). Subclasses set the props as class attributes, and override
    :meth:`rng_fn` when the draw is not one call of the method ``name``.

    Inputs are ``(rng, size, *params)``; outputs ``(next_rng, draw)``. Calling the op returns
    the draw (see :meth:`__call__`).
    """

    __props__ = ("name", "ndim_supp", "ndims_params", "dtype", "inplace")
    default_output = 1

    name: str = ""
    ndim_supp: int = 0
    ndims_params: tuple[int, ...] = ()
    dtype: str | None = "floatX"
    #: Positions of parameters that may be left out (given as None, passed to NumPy as None).
    optional_params: tuple[int, ...] = ()

    def __init__(
        self,
        name: str | None = None,
        ndim_supp: int | None = None,
        ndims_params: Sequence[int] | None = None,
        dtype: Any = None,
        inplace: bool = False,
    ) -> None:
        cls = type(self)
        self.name = name if name is not None else cls.name
        self.ndim_supp = int(ndim_supp if ndim_supp is not None else cls.ndim_supp)
        self.ndims_params = tuple(
            int(n) for n in (ndims_params if ndims_params is not None else cls.ndims_params)
        )
        dtype = dtype if dtype is not None else cls.dtype
        self.dtype = dtype if dtype in (None, "floatX") else np.dtype(dtype).name
        self.inplace = bool(inplace)
        if not self.name:
            raise ValueError(f"{cls.__name__} needs the name of the Generator method it calls")
        if self.ndim_supp < 0 or any(n < 0 for n in self.ndims_params):
            raise ValueError(f"{self}: ndim_supp and ndims_params must be non-negative")
        if self.inplace:
            self.destroy_map = {0: [0]}

    def __str__(self) -> str:
        return f"{self.name}_rv{{inplace}}" if self.inplace else f"{self.name}_rv"

    def clone_with(self, **changes: Any) -> RandomVariable:
        """An op like this one with some props changed (``inplace=True``, ``dtype=...``)."""
        props = self._props_dict()
        props.update(changes)
        return type(self)(**props)

    # -- building -----------------------------------------------------------------------------

    def make_node(self, rng: Any, size: Any, *params: Any) -> Apply:
        rng = self._rng_input(rng)
        size = normalize_size_param(size)
        params = self._param_inputs(params)
        batch = self._static_batch_shape(size, params)
        shape = self._assemble(batch, self._static_supp_shape(params))
        draw_type = tensor_type(self._output_dtype(params), shape)
        return Apply(self, [rng, size, *params], [rng.type(), draw_type()])

    def _rng_input(self, rng: Any) -> Variable:
        if isinstance(rng, np.random.Generator):
            return random_generator_type.make_constant(rng)
        if not isinstance(getattr(rng, "type", None), RandomGeneratorType):
            raise TypeError(
                f"{self}: the rng input must be a numpy.random.Generator or a variable of "
                f"RandomGeneratorType, got {rng!r} of type {getattr(rng, 'type', type(rng))}"
            )
        return rng

    def _param_inputs(self, params: Sequence[Any]) -> list[Variable]:
        if len(params) != len(self.ndims_params):
            raise TypeError(f"{self} takes {len(self.ndims_params)} parameters, got {len(params)}")
        converted = []
        for position, (param, ndim) in enumerate(zip(params, self.ndims_params)):
            if position in self.optional_params and (param is None or is_none_const(param)):
                converted.append(NoneConst)
                continue
            param = as_tensor_variable(param)
            if param.type.ndim < ndim:
                raise ValueError(
                    f"{self}: parameter {position} ({param}) must have at least {ndim} "
                    f"dimension(s), got {param.type}"
                )
            converted.append(param)
        return converted

    def _tensor_params(self, params: Sequence[Variable]) -> list[tuple[Variable, int]]:
        """(parameter, core ndim) for the parameters that are tensors (not ``NoneConst``)."""
        return [(p, nd) for p, nd in zip(params, self.ndims_params) if not is_none_const(p)]

    def _batch_ndim(self, size: Variable, params: Sequence[Variable]) -> int:
        if not is_none_const(size):
            return size.type.shape[0]
        return max((p.type.ndim - nd for p, nd in self._tensor_params(params)), default=0)

    def _static_batch_shape(self, size: Variable, params: Sequence[Variable]) -> tuple:
        """The draw's batch shape as known at build time; checks parameters against it."""
        ndim = self._batch_ndim(size, params)
        # Batch shapes padded on the left with broadcastable dimensions, as NumPy aligns them.
        padded = [
            (1,) * (ndim - (p.type.ndim - nd)) + p.type.shape[: p.type.ndim - nd]
            for p, nd in self._tensor_params(params)
        ]
        fixed = static_size(size)
        if fixed is None:
            return broadcast_static_shape(padded, context=self) if padded else ()
        for param_shape, (param, _) in zip(padded, self._tensor_params(params)):
            self._check_fits_size(param, param_shape, fixed)
        return fixed

    def _check_fits_size(self, param: Variable, padded: tuple, fixed: tuple) -> None:
        if len(padded) > len(fixed):
            raise ValueError(
                f"{self}: size {fixed} has fewer dimensions than the batch dimensions of "
                f"parameter {param} ({param.type})"
            )
        for p, s in zip(padded, fixed):
            if p not in (None, 1) and s is not None and p != s:
                raise ValueError(
                    f"{self}: parameter {param} of shape {param.type.shape} cannot be broadcast "
                    f"to size {fixed}"
                )

    def _static_supp_shape(self, params: Sequence[Variable]) -> tuple:
        """The support shape known at build time (scalar distributions: ``()``)."""
        if self.ndim_supp == 0:
            return ()
        return self._static_supp_from_core(params)

    def _static_supp_from_core(self, params: Sequence[Variable]) -> tuple:
        # Vector distributions whose support length is the last length of their first parameter.
        return (params[0].type.shape[-1],)

    def _assemble(self, batch: Sequence, supp: Sequence) -> tuple:
        """The draw's shape from its batch and support shapes (NumPy puts the batch first)."""
        return tuple(batch) + tuple(supp)

    def _output_dtype(self, params: Sequence[Variable]) -> str:
        if self.dtype == "floatX":
            return config.floatX
        if self.dtype is None:
            raise TypeError(f"{type(self).__name__} must define the dtype of its draws")
        return self.dtype

    # -- calling --------------------------------------------------------------------------------

    def __call__(
        self,
        *params: Any,
        size: Any = None,
        name: str | None = None,
        rng: Any = None,
        dtype: Any = None,
        return_next_rng: bool = False,
    ) -> Any:
        """The symbolic draw ``op(*params)`` from ``rng``, of shape ``size`` if given.

        ``rng`` is a generator variable (a function input, a shared variable or a constant) or
        a ``numpy.random.Generator`` (made a constant). When it is None, a new shared generator
        seeded by the operating system is made. A shared generator without a ``default_update``
        gets this draw's next state as one, so compiled functions advance it between calls.
        ``dtype`` overrides the op's output dtype. ``return_next_rng=True`` returns
        ``(next_rng, draw)``.
        """
        op = self if dtype is None or dtype == self.dtype else self.clone_with(dtype=dtype)
        if rng is None:
            rng = shared(np.random.default_rng())
        node = op.make_node(rng, size, *params)
        next_rng, draw = node.outputs
        for out in node.outputs:
            add_tag_trace(out)
        if name is not None:
            draw.name = name
            next_rng.name = f"{name}_next_rng"
        if isinstance(rng, SharedVariable) and getattr(rng, "default_update", None) is None:
            rng.default_update = next_rng
        return (next_rng, draw) if return_next_rng else draw

    # -- computing ------------------------------------------------------------------------------

    def do_constant_folding(self, fgraph, node):
        # Draws happen when the function runs: folding a constant generator's draw would only
        # move a parameter error to compile time and store the draw in the graph.
        return False

    def rng_fn(self, rng: np.random.Generator, *args: Any) -> Any:
        """Draw with the ``Generator`` method ``name``: ``rng_fn(rng, *params, size)``."""
        *params, size = args
        return getattr(rng, self.name)(*params, size=size)

    def perform(self, node, inputs, output_storage):
        rng, size, *params = inputs
        if not self.inplace:
            rng = copy_generator(rng)  # the input generator is never modified
        if size is None:
            _check_runtime_broadcast(node, params)
        else:
            size = tuple(int(s) for s in size)
        draw = self.rng_fn(rng, *params, size)
        output_storage[0][0] = rng
        output_storage[1][0] = np.asarray(draw, dtype=node.outputs[1].type.numpy_dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        _, size, *params = node.inputs
        param_shapes = input_shapes[2:]
        batch = self._symbolic_batch_shape(node, size, params, param_shapes)
        if batch is None:
            return [None, None]
        supp = self._symbolic_supp_shape(params, param_shapes)
        return [None, self._assemble(batch, supp)]

    def _symbolic_batch_shape(self, node, size, params, param_shapes) -> tuple | None:
        if not is_none_const(size):
            return None if (entries := size_entries(size)) is None else tuple(entries)
        out_shape = node.outputs[1].type.shape
        batch_ndim = len(out_shape) - self.ndim_supp
        tensors = [
            (p, shape, nd)
            for p, shape, nd in zip(params, param_shapes, self.ndims_params)
            if not is_none_const(p)
        ]
        batch = []
        for dim in range(batch_ndim):
            batch.append(out_shape[dim] if out_shape[dim] is not None else None)
            if batch[-1] is not None:
                continue
            for param, shape, nd in tensors:
                # dim of the draw is dim - offset of this parameter (padded on the left)
                local = dim - (batch_ndim - (param.type.ndim - nd))
                if local >= 0 and param.type.shape[local] != 1:
                    batch[-1] = shape[local]
                    break
        return tuple(batch)

    def _symbolic_supp_shape(self, params, param_shapes) -> tuple:
        if self.ndim_supp == 0:
            return ()
        return (param_shapes[0][-1],)

    # -- derivatives ----------------------------------------------------------------------------

    def connection_pattern(self, node):
        # The next state depends on the generator only: states are not differentiable, and
        # this keeps gradients of later draws from being linked to earlier parameters.
        return [[True, True]] + [[False, True]] * (len(node.inputs) - 1)

    def grad(self, inputs, output_grads):
        why = (
            "Drawing random numbers is not differentiable: write the draw as a differentiable "
            "function of a parameter-free draw (a reparametrization, e.g. loc + scale * "
            "standard_normal()) to differentiate through it."
        )
        return [grad_undefined(self, i, x, why) for i, x in enumerate(inputs)]

    def R_op(self, inputs, eval_points):
        if all(ev is None for ev in eval_points):
            return [None, None]
        raise NullTypeGradError(
            f"R_op of {self}: random draws have no derivative with respect to their parameters "
            "(reparametrize the draw to differentiate through it)"
        )


# -- user functions -------------------------------------------------------------------------

_COMMON_DOC = """
    size : int, tuple of ints or int vector, optional
        The batch shape of the draws. None: the broadcast batch shape of the parameters.

    Returns
    -------
    TensorVariable
        The symbolic draw. Its owner's first output (``draw.owner.outputs[0]``) is the
        generator's next state.

    Other Parameters
    ----------------
    rng : generator variable or numpy.random.Generator, optional
        The generator to draw from: a function input (never modified), a shared variable
        (which then advances between calls through its ``default_update``) or a constant.
        None: a new shared generator seeded by the operating system.
    name : str, optional
        Name of the draw variable.
    dtype : str, optional
        dtype of the draw, overriding the default.
    return_next_rng : bool, optional
        Return ``(next_rng, draw)`` instead of the draw.
"""


def draw_function(fn: Callable) -> Callable:
    """Decorator completing a distribution function's docstring with the shared arguments."""
    fn.__doc__ = (fn.__doc__ or "").rstrip() + "\n" + _COMMON_DOC
    return fn


__all__ = ["RandomVariable", "draw_batched", "normalize_size_param"]
