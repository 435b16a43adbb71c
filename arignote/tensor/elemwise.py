"""``DimShuffle``, ``Elemwise`` and ``CAReduce``: the ops that lift scalar ops to tensors."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arignote.graph.basic import Apply, Constant, Variable
from arignote.graph.grad_types import grad_not_implemented, is_disconnected, is_null
from arignote.graph.op import Op
from arignote.graph.traversal import io_toposort
from arignote.graph.utils import FrozenDict
from arignote.scalar.arithmetic import (
    Abs,
    Add,
    Cast,
    Maximum,
    Mul,
    Second,
    Switch,
    TrueDiv,
    eq,
    switch,
)
from arignote.scalar.basic import (
    ScalarOp,
    complex_dtypes,
    continuous_dtypes,
    convert_weak_scalars,
    discrete_dtypes,
    get_scalar_type,
    grad_dtype,
    gradient_mask,
)
from arignote.scalar.math import Sqr, Sqrt
from arignote.tensor.basic import (
    as_tensor_variable,
    constant,
    constant_value_rule,
)
from arignote.tensor.type import TensorType, tensor_type


def _is_static_one(var: Variable, dim: int) -> bool:
    return var.type.shape[dim] == 1


class DimShuffle(Op):
    """Reorder, drop (length-1) and insert (``"x"``) dimensions; the result is a view.

    ``new_order`` lists, for each output dimension, the input dimension it takes or ``"x"`` for a
    new length-1 dimension. ``DimShuffle(2, (1, 0))`` transposes a matrix;
    ``DimShuffle(0, ("x", "x"))`` turns a 0-d tensor into a 1x1 matrix.
    """

    __props__ = ("input_ndim", "new_order")
    view_map = {0: [0]}

    def __init__(self, input_ndim: int | Sequence[bool], new_order: Sequence[Any]) -> None:
        if not isinstance(input_ndim, int):  # the older spelling: input broadcastable flags
            input_ndim = len(tuple(input_ndim))
        new_order = tuple(new_order)
        kept = [d for d in new_order if d != "x"]
        for d in kept:
            if not isinstance(d, (int, np.integer)) or not 0 <= d < input_ndim:
                raise ValueError(
                    f"DimShuffle order entries must be 'x' or input dimensions in "
                    f"[0, {input_ndim}), got {new_order}"
                )
        if len(set(kept)) != len(kept):
            raise ValueError(f"DimShuffle order {new_order} repeats a dimension")
        self.input_ndim = input_ndim
        self.new_order = tuple(d if d == "x" else int(d) for d in new_order)
        self.drop = tuple(d for d in range(input_ndim) if d not in kept)
        self.shuffle = tuple(kept)
        self.augment = tuple(i for i, d in enumerate(self.new_order) if d == "x")
        # After dropping, the kept dims are in increasing order; this puts them in shuffle order.
        ranks = [sorted(self.shuffle).index(d) for d in self.shuffle]
        self.permutation = None if ranks == sorted(ranks) else tuple(ranks)
        # Precomputed indices for perform (the trailing Ellipsis keeps 0-d results arrays).
        self._drop_index = (
            tuple(0 if d in self.drop else slice(None) for d in range(input_ndim)) + (Ellipsis,)
            if self.drop
            else None
        )
        self._augment_index = (
            tuple(None if d == "x" else slice(None) for d in self.new_order)
            if self.augment
            else None
        )

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        if x.type.ndim != self.input_ndim:
            raise TypeError(f"{self} expects a {self.input_ndim}-d input, got {x.type}")
        # As in PyTensor 3, a dimension of unknown length may be dropped: perform checks that
        # its length is 1. A known length other than 1 is refused here.
        for d in self.drop:
            if x.type.shape[d] not in (1, None):
                raise ValueError(
                    f"{self} drops dimension {d} of {x}, whose static length is "
                    f"{x.type.shape[d]} instead of 1"
                )
        shape = tuple(1 if d == "x" else x.type.shape[d] for d in self.new_order)
        return Apply(self, [x], [tensor_type(x.type.dtype, shape)()])

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        if self._drop_index is not None:  # index 0 along the dropped length-1 dims: a view
            self._check_dropped(x)
            x = x[self._drop_index]
        if self.permutation is not None:
            x = x.transpose(self.permutation)
        if self._augment_index is not None:  # None along the new dims: a view
            x = x[self._augment_index]
        output_storage[0][0] = x if x is not inputs[0] else x.view()

    def _check_dropped(self, x: np.ndarray) -> None:
        for d in self.drop:
            if x.shape[d] != 1:
                raise ValueError(
                    f"{self}: dimension {d} is dropped, so its length must be 1, but the input "
                    f"has shape {x.shape}"
                )

    def infer_shape(self, fgraph, node, input_shapes):
        (shape,) = input_shapes
        return [tuple(1 if d == "x" else shape[d] for d in self.new_order)]

    def grad(self, inputs, output_grads):
        (x,), (gz,) = inputs, output_grads
        gz = as_tensor_variable(gz)
        added = [i for i, d in enumerate(self.new_order) if d == "x"]
        if added and any(gz.type.shape[i] != 1 for i in added):
            gz = gz.sum(axis=added, keepdims=True)
        # Invert the shuffle: input dim d comes from output dim new_order.index(d); dims the
        # op dropped come back as new length-1 dims.
        grad_order = [
            "x" if d in self.drop else self.new_order.index(d) for d in range(self.input_ndim)
        ]
        if x.type.dtype in discrete_dtypes:
            # an integer-valued output is a step function of its input: zero gradient
            return [x.zeros_like(dtype=grad_dtype(x))]
        gx = DimShuffle(gz.type.ndim, grad_order)(gz)
        return [gx.astype(x.type.dtype)]

    def R_op(self, inputs, eval_points):
        (ev,) = eval_points
        return [None if ev is None else self(ev)]  # linear

    def __str__(self) -> str:
        return "InplaceDimShuffle{" + ",".join(str(d) for d in self.new_order) + "}"


@constant_value_rule.register(DimShuffle)
def _dimshuffle_value(op, node, index, recurse):
    return recurse(node.inputs[0])


def broadcast_static_shape(shapes: Sequence[tuple], context: Any = None) -> tuple:
    """The static output shape of broadcasting equal-ndim static ``shapes`` (None: unknown).

    Raises ``ValueError`` when two known lengths differ and neither is 1.
    """
    result = []
    for dim, sizes in enumerate(zip(*shapes)):
        known = {s for s in sizes if s is not None and s != 1}
        if len(known) > 1:
            raise ValueError(
                f"Incompatible static shapes {list(shapes)} in dimension {dim}"
                + (f" for {context}" if context is not None else "")
            )
        if known:
            result.append(known.pop())
        elif all(s == 1 for s in sizes):
            result.append(1)
        else:
            result.append(None)
    return tuple(result)


class Elemwise(Op):
    """Applies a scalar op to every element of its inputs, broadcasting them against each other.

    Inputs of fewer dimensions are first padded on the left with length-1 dimensions (through a
    ``DimShuffle``). A dimension is broadcast only if its static length is 1: lengths unknown at
    build time must match at run time. ``inplace_pattern`` maps outputs to the input whose memory
    they overwrite.
    """

    __props__ = ("scalar_op", "inplace_pattern")

    def __init__(
        self,
        scalar_op: ScalarOp,
        inplace_pattern: dict | None = None,
        name: str | None = None,
        nfunc_spec: Any = None,
    ) -> None:
        if not isinstance(scalar_op, ScalarOp):
            raise TypeError(f"Elemwise expects a ScalarOp, got {scalar_op!r}")
        self.scalar_op = scalar_op
        self.inplace_pattern = FrozenDict(inplace_pattern or {})
        # Derived from the props, read on every call of perform.
        self._inplace = bool(self.inplace_pattern)
        self._single_output = scalar_op.nout == 1
        self.destroy_map = {o: [i] for o, i in self.inplace_pattern.items()}
        self._name = name
        self.nfunc_spec = nfunc_spec

    @property
    def name(self) -> str:
        return self._name or str(self)

    def __str__(self) -> str:
        if self._name:
            return self._name
        if self.inplace_pattern:
            return f"Elemwise{{{self.scalar_op}}}{sorted(self.inplace_pattern.items())}"
        return f"Elemwise{{{self.scalar_op},no_inplace}}"

    # -- building ---------------------------------------------------------------------------

    def make_node(self, *inputs: Any) -> Apply:
        nin = self.scalar_op.nin
        if nin >= 0 and len(inputs) != nin:
            raise TypeError(f"{self} takes {nin} inputs, got {len(inputs)}")
        inputs = convert_weak_scalars(
            inputs,
            lambda v, dt: constant(v, dtype=dt),
            self.scalar_op.typing_positions,
            scalar_op=self.scalar_op,
        )
        inputs = [as_tensor_variable(i) for i in inputs]
        ndim = max((i.type.ndim for i in inputs), default=0)
        inputs = [_pad_left(i, ndim) for i in inputs]
        scalar_types = [get_scalar_type(i.type.dtype) for i in inputs]
        out_dtypes = [t.dtype for t in self.scalar_op.output_types(scalar_types)]
        shape = broadcast_static_shape([i.type.shape for i in inputs], context=self)
        for out, inp in self.inplace_pattern.items():
            if inputs[inp].type.dtype != out_dtypes[out] or inputs[inp].type.shape != shape:
                raise TypeError(
                    f"{self} cannot overwrite input {inp} ({inputs[inp].type}) with an output of "
                    f"dtype {out_dtypes[out]} and shape {shape}"
                )
        return Apply(self, inputs, [tensor_type(dt, shape)() for dt in out_dtypes])

    # -- computing ----------------------------------------------------------------------------

    def perform(self, node, inputs, output_storage):
        # NOTE: this runs once per node per call; the common case (inputs of one shape, one
        # output, no in-place) is kept free of generic loops and Mapping lookups.
        if len(inputs) > 1:
            shape = inputs[0].shape
            for value in inputs:
                if value.shape != shape:
                    _check_runtime_broadcast(node, inputs)
                    break
        if self._inplace:
            results = self._perform_inplace(inputs)
        else:
            results = self.scalar_op.elementwise(*inputs)
        if self._single_output:
            dtype = node.outputs[0].type.numpy_dtype
            if type(results) is not np.ndarray or results.dtype != dtype:
                results = np.asarray(results, dtype=dtype)
            output_storage[0][0] = results
            return
        for cell, value, out in zip(output_storage, results, node.outputs):
            dtype = out.type.numpy_dtype
            if type(value) is not np.ndarray or value.dtype != dtype:
                value = np.asarray(value, dtype=dtype)
            cell[0] = value

    def _perform_inplace(self, inputs: list) -> Any:
        ufunc = self.scalar_op.nfunc
        # the ufunc computes the op only where ``elementwise`` is the default (nfunc itself);
        # an op that overrides it may keep nfunc only for its output dtypes
        direct = type(self.scalar_op).elementwise is ScalarOp.elementwise
        if (
            direct
            and self.scalar_op.nout == 1
            and isinstance(ufunc, np.ufunc)
            and ufunc.nin == len(inputs)
        ):
            target = inputs[self.inplace_pattern[0]]
            return ufunc(*inputs, out=target)
        results = self.scalar_op.elementwise(*inputs)
        single = self.scalar_op.nout == 1
        results = [results] if single else list(results)
        for out, inp in self.inplace_pattern.items():
            inputs[inp][...] = results[out]
            results[out] = inputs[inp]
        return results[0] if single else results

    def infer_shape(self, fgraph, node, input_shapes):
        out_type = node.outputs[0].type
        shape = []
        for dim, static in enumerate(out_type.shape):
            if static is not None:
                shape.append(static)
                continue
            source = next(i for i, inp in enumerate(node.inputs) if not _is_static_one(inp, dim))
            shape.append(input_shapes[source][dim])
        return [tuple(shape)] * len(node.outputs)

    def connection_pattern(self, node):
        scalar_pattern = getattr(self.scalar_op, "connection_pattern", None)
        if scalar_pattern is None:
            return [[True] * len(node.outputs) for _ in node.inputs]
        return scalar_pattern(node)

    # -- derivatives --------------------------------------------------------------------------

    def L_op(self, inputs, outputs, output_grads):
        masks, output_grads = _unmask(output_grads)
        terms = self._elementwise_partials(inputs, outputs, output_grads)
        if isinstance(self.scalar_op, Sqrt):
            terms = [_zero_at_minimum(term, inp) for term, inp in zip(terms, inputs)]
        terms = [_remask(term, masks) for term in terms]
        return [_fit_gradient(term, inp) for term, inp in zip(terms, inputs)]

    def R_op(self, inputs, eval_points):
        """``J v`` from the scalar op's own tangent rule, lifted over the tensors.

        As for ``L_op``: the scalar op's ``R_op`` builds the tangent graph on scalar stand-ins
        of the inputs and eval points (one rule, ``ScalarOp.R_op``, for scalars and tensors,
        complex numbers included), and each scalar node becomes an ``Elemwise``.
        """
        outputs = self(*inputs, return_list=True)
        if all(ev is None for ev in eval_points):
            return [None] * len(outputs)
        s_inputs = [get_scalar_type(i.type.dtype)() for i in inputs]
        s_points = [None if ev is None else get_scalar_type(ev.type.dtype)() for ev in eval_points]
        s_tangents = self.scalar_op.R_op(s_inputs, s_points)
        mapping = dict(zip(s_inputs, inputs))
        mapping.update((s, ev) for s, ev in zip(s_points, eval_points) if s is not None)
        wanted = [t for t in s_tangents if t is not None]
        lifted = dict(zip(map(id, wanted), _lift_scalar_graph(wanted, mapping)))
        return [
            None if t is None else _fit_tangent(lifted[id(t)], out)
            for t, out in zip(s_tangents, outputs)
        ]

    def _elementwise_partials(self, inputs, outputs, output_grads) -> list:
        """Per-input gradient terms, not yet summed over broadcast dimensions."""
        s_inputs = [get_scalar_type(i.type.dtype)() for i in inputs]
        s_outputs = self.scalar_op.make_node(*s_inputs).outputs
        # An output the cost does not depend on contributes nothing: a zero cotangent.
        grads = [
            o.zeros_like(dtype=grad_dtype(o)) if is_disconnected(g) else g
            for g, o in zip(output_grads, outputs)
        ]
        s_grads = [get_scalar_type(g.type.dtype)() for g in grads]
        s_terms = self.scalar_op.L_op(s_inputs, s_outputs, s_grads)
        lifted = _lift_scalar_graph(
            s_terms, dict(zip(s_inputs + s_outputs + s_grads, [*inputs, *outputs, *grads]))
        )
        return lifted


def _pad_left(x: Variable, ndim: int) -> Variable:
    missing = ndim - x.type.ndim
    if missing == 0:
        return x
    return DimShuffle(x.type.ndim, ["x"] * missing + list(range(x.type.ndim)))(x)


def _lift_scalar_graph(scalar_outputs: list, mapping: dict) -> list:
    """Rebuild a graph of scalar ops over tensors, one ``Elemwise`` per scalar node."""
    mapping = dict(mapping)
    wanted = [v for v in scalar_outputs if isinstance(v, Variable) and v not in mapping]
    for node in io_toposort(list(mapping), wanted):
        for inp in node.inputs:
            if inp in mapping:
                continue
            if not isinstance(inp, Constant):
                raise ValueError(f"A scalar derivative used a free variable {inp} (in {node})")
            mapping[inp] = constant(np.asarray(inp.data), dtype=inp.type.dtype)
        lifted = Elemwise(node.op)(*[mapping[i] for i in node.inputs], return_list=True)
        for scalar_out, out in zip(node.outputs, lifted):
            if getattr(scalar_out.tag, "gradient_mask", False):
                out.tag.gradient_mask = True  # see arignote.scalar.basic.gradient_mask
        mapping.update(zip(node.outputs, lifted))
    results = []
    for v in scalar_outputs:
        if is_null(v) or is_disconnected(v):
            results.append(v)
        elif isinstance(v, Constant) and v not in mapping:
            results.append(constant(np.asarray(v.data), dtype=v.type.dtype))
        else:
            results.append(mapping[v])
    return results


def _fit_tangent(tangent: Variable, out: Variable) -> Variable:
    """Give a lifted tangent the shape and dtype of ``out`` (it may depend on fewer inputs)."""
    if is_null(tangent) or out.type.dtype in discrete_dtypes:
        return tangent if is_null(tangent) else None
    if tangent.type.ndim < out.type.ndim or any(
        t == 1 and s != 1 for t, s in zip(tangent.type.shape, out.type.shape)
    ):
        tangent = _pad_left(tangent, out.type.ndim) + out.zeros_like(dtype=tangent.type.dtype)
    if tangent.type.dtype != out.type.dtype:
        tangent = tangent.astype(out.type.dtype)
    return tangent


def _fit_gradient(term: Variable, inp: Variable) -> Variable:
    """Give a gradient term the shape of ``inp``: sum over dims ``inp`` was broadcast along."""
    if is_null(term) or is_disconnected(term):
        return term
    if isinstance(term, Constant) and np.all(term.data == 0):
        return inp.zeros_like(dtype=term.type.dtype)
    summed = [d for d in range(inp.type.ndim) if inp.type.shape[d] == 1 and term.type.shape[d] != 1]
    if summed:
        term = term.sum(axis=summed, keepdims=True)
    if any(t == 1 and s != 1 for t, s in zip(term.type.shape, inp.type.shape)):
        term = term + inp.zeros_like(dtype=term.type.dtype)  # broadcast up to inp's shape
    if inp.type.dtype in continuous_dtypes and term.type.dtype != inp.type.dtype:
        term = term.astype(inp.type.dtype)  # e.g. float64 constants in a float32 derivative
    return term


# -- derivatives at the minimum of a non-negative argument ---------------------------------------
#
# sqrt(u) has an infinite derivative at u = 0. When u is non-negative by construction (a square,
# an absolute value, a variance, relu(x), ...), u = 0 is a minimum of u, so the derivative of u
# itself vanishes there (or, for |x| at 0, is taken as 0): the chain rule multiplies inf by 0 and
# gives NaN although the composite (|v| = sqrt(v**2), std over one element, sqrt(relu(x)) for
# x < 0) is locally constant or has a finite one-sided slope. The derivative of sqrt is taken as
# 0 there, which makes those gradients 0, as the simplified graphs give.

_NONNEGATIVE_IF_ALL = (Add, Mul, TrueDiv, Cast, Sqrt)  # non-negative when every input is
_NONNEGATIVE_REDUCTIONS = (Add, Mul, Maximum)


def _is_nonnegative(var: Variable, depth: int = 12) -> bool:
    """Whether ``var`` is real and >= 0 whatever the values of the graph's inputs."""
    if getattr(var.type, "dtype", "complex") in complex_dtypes:
        return False
    if isinstance(var, Constant):
        return _nonnegative_data(var.data)
    node = var.owner
    if node is None or depth == 0:
        return False
    op, scalar_op = node.op, getattr(node.op, "scalar_op", None)
    if isinstance(op, DimShuffle):
        return _is_nonnegative(node.inputs[0], depth - 1)
    if isinstance(op, CAReduce):
        return isinstance(scalar_op, _NONNEGATIVE_REDUCTIONS) and _is_nonnegative(node.inputs[0])
    if not isinstance(op, Elemwise):
        return False
    if isinstance(scalar_op, (Sqr, Abs)):
        return True
    check = any if isinstance(scalar_op, Maximum) else all
    if isinstance(scalar_op, (Maximum, *_NONNEGATIVE_IF_ALL)):
        return check(_is_nonnegative(i, depth - 1) for i in node.inputs)
    return False


def _nonnegative_data(data: Any) -> bool:
    data = np.asarray(data)
    return data.dtype.kind in "biuf" and bool(np.all(data >= 0))


def _zero_at_minimum(term: Variable, inp: Variable) -> Variable:
    """``term`` (a derivative of sqrt) replaced by 0 where ``inp`` is 0 at its minimum."""
    if is_null(term) or is_disconnected(term) or not _is_nonnegative(inp):
        return term
    at_zero = Elemwise(eq)(inp, constant(0, dtype=inp.type.dtype))
    return Elemwise(switch)(at_zero, constant(0, dtype=term.type.dtype), term)


# -- gradient masks ------------------------------------------------------------------------------
#
# The gradient of switch(c, a, b) sends the branch not taken a zero: switch(c, 0, g), a gradient
# mask (arignote.scalar.basic.gradient_mask). The chain rule of the op that computed the branch
# would multiply that zero by its partial derivative, which is inf or NaN where the branch is
# evaluated outside its domain (betainc(a, b, x) for x > 1 under nan_to_num or where): 0 * NaN
# = NaN although the function is locally constant. An elementwise chain rule commutes with an
# elementwise mask, so the mask is taken off the output gradient and put back on each input's
# term, switch(c, 0, g * d): the zero is chosen, never multiplied.


def _is_zero_gradient(var: Variable) -> bool:
    """Whether ``var`` is a constant zero or zeros_like of something (second(x, 0))."""
    while var.owner is not None and (
        isinstance(var.owner.op, DimShuffle) or is_elemwise_of(var.owner, Second)
    ):
        var = var.owner.inputs[-1]
    return isinstance(var, Constant) and _nonnegative_data(var.data) and not np.any(var.data)


def _mask_of(gz: Variable) -> tuple | None:
    """``(cond, zero_first, taken)`` where ``gz`` is a gradient mask (beside zero terms)."""
    node = gz.owner
    if is_elemwise_of(node, Add) and len(node.outputs) == 1:
        live = [t for t in node.inputs if not _is_zero_gradient(t)]
        if len(live) != 1 or live[0].type != gz.type:
            return None
        gz, node = live[0], live[0].owner
    if not (is_elemwise_of(node, Switch) and getattr(gz.tag, "gradient_mask", False)):
        return None
    cond, a, b = node.inputs
    for zero_first, (zero, taken) in ((True, (a, b)), (False, (b, a))):
        if _is_zero_gradient(zero) and taken.type == gz.type:
            return cond, zero_first, taken
    return None


def _unmask(output_grads: list) -> tuple[list, list]:
    """The masks (outermost first) around a single output gradient, and that gradient
    without them."""
    if len(output_grads) != 1 or not isinstance(output_grads[0], Variable):
        return [], output_grads
    masks, gz = [], output_grads[0]
    while (found := _mask_of(gz)) is not None:
        masks.append(found[:2])
        gz = found[2]
    return masks, [gz]


def _remask(term: Variable, masks: list) -> Variable:
    if not masks or is_null(term) or is_disconnected(term) or _is_zero_gradient(term):
        return term
    zero = constant(0, dtype=term.type.dtype)
    for cond, zero_first in reversed(masks):
        branches = (zero, term) if zero_first else (term, zero)
        term = gradient_mask(Elemwise(switch)(cond, *branches))
    return term


def _check_runtime_broadcast(node: Apply, inputs: list) -> None:
    check_runtime_broadcast(node, [i.shape for i in inputs])


def check_runtime_broadcast(node: Apply, shapes: list) -> None:
    """Refuse inputs of ``shapes`` that broadcast only at run time (a length-1 dimension the
    input's type does not declare broadcastable, against a longer or empty one).

    Backends that know shapes when tracing (JAX) call it with those, so every backend refuses
    the same calls.
    """
    first = tuple(shapes[0])
    if all(tuple(shape) == first for shape in shapes[1:]):
        return
    out_shape = np.broadcast_shapes(*[tuple(shape) for shape in shapes])
    for position, (shape, var) in enumerate(zip(shapes, node.inputs)):
        for dim, (size, static) in enumerate(zip(shape, var.type.shape)):
            if size == 1 and out_shape[dim] != 1 and static != 1:
                raise ValueError(
                    f"Runtime broadcasting is not allowed: input {position} of {node.op} has "
                    f"length 1 in dimension {dim} where the others have {out_shape[dim]}, but its "
                    f"type ({var.type}) does not declare that dimension broadcastable. Use "
                    "specify_broadcastable (or a static shape) if broadcasting was intended."
                )


class CAReduce(Op):
    """Reduces ``axis`` (a tuple of dimensions, or None for all) with an associative scalar op.

    The result has the reduced dimensions removed; ``dtype`` is the output dtype and
    ``acc_dtype`` the dtype of the accumulation.
    """

    __props__ = ("scalar_op", "axis", "dtype", "acc_dtype")

    def __init__(
        self,
        scalar_op: ScalarOp,
        axis: Sequence[int] | None = None,
        dtype: Any = None,
        acc_dtype: Any = None,
    ) -> None:
        if not isinstance(scalar_op, ScalarOp):
            raise TypeError(f"CAReduce expects a ScalarOp, got {scalar_op!r}")
        if axis is not None:
            axis = tuple(sorted(int(a) for a in axis))
            if any(a < 0 for a in axis) or len(set(axis)) != len(axis):
                raise ValueError(f"CAReduce axes must be distinct and non-negative, got {axis}")
        self.scalar_op = scalar_op
        self.axis = axis
        self.dtype = None if dtype is None else np.dtype(dtype).name
        self.acc_dtype = None if acc_dtype is None else np.dtype(acc_dtype).name

    def _output_dtype(self, input_dtype: str) -> str:
        return self.dtype or input_dtype

    def _acc_dtype(self, input_dtype: str) -> str:
        return self.acc_dtype or self._output_dtype(input_dtype)

    def _reduced_axes(self, ndim: int) -> tuple[int, ...]:
        return tuple(range(ndim)) if self.axis is None else self.axis

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        axes = self._reduced_axes(x.type.ndim)
        if any(a >= x.type.ndim for a in axes):
            raise np.exceptions.AxisError(f"{self}: axis {self.axis} is out of range for {x.type}")
        shape = tuple(s for d, s in enumerate(x.type.shape) if d not in axes)
        return Apply(self, [x], [tensor_type(self._output_dtype(x.type.dtype), shape)()])

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        out_dtype = node.outputs[0].type.numpy_dtype
        axes = self._reduced_axes(x.ndim)
        result = self._reduce(x, axes, self._acc_dtype(node.inputs[0].type.dtype))
        output_storage[0][0] = np.asarray(result, dtype=out_dtype)

    def _reduce(self, x: np.ndarray, axes: tuple[int, ...], acc_dtype: str) -> Any:
        ufunc = self.scalar_op.nfunc
        if not axes:
            return x.astype(acc_dtype)
        if ufunc in (np.maximum, np.minimum):
            return ufunc.reduce(x, axis=axes)
        return ufunc.reduce(x, axis=axes, dtype=acc_dtype)

    def infer_shape(self, fgraph, node, input_shapes):
        (shape,) = input_shapes
        axes = self._reduced_axes(len(shape))
        return [tuple(s for d, s in enumerate(shape) if d not in axes)]

    def L_op(self, inputs, outputs, output_grads):
        # Subclasses (Sum, Max, ...) give the rule of their scalar op; a generic reduction has
        # none, except that an integer-valued result is a step function of its input.
        (x,), (out,) = inputs, outputs
        if out.type.dtype in discrete_dtypes:
            return [x.zeros_like(dtype=grad_dtype(x))]
        return [
            grad_not_implemented(
                self, 0, x, f"No derivative rule for a reduction with {self.scalar_op}."
            )
        ]

    def __str__(self) -> str:
        axis = "" if self.axis is None else "axis=[" + ", ".join(map(str, self.axis)) + "], "
        return f"{type(self).__name__}{{{axis}{self.scalar_op}}}"


def is_elemwise_of(node: Any, scalar_op_class: type) -> bool:
    """Whether ``node`` applies an ``Elemwise`` of the given scalar op class."""
    return (
        node is not None
        and isinstance(node.op, Elemwise)
        and isinstance(node.op.scalar_op, scalar_op_class)
    )


__all__ = ["CAReduce", "DimShuffle", "Elemwise", "TensorType"]
