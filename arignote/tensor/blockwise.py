"""``Blockwise``: a core op applied over leading batch dimensions, like a NumPy gufunc.

``Blockwise(core_op, "(m,k),(k,n)->(m,n)")`` takes inputs with any number of extra leading
dimensions (the *batch* dimensions, broadcast against each other) and applies ``core_op`` to
each batch entry's core block. It is how :func:`vectorize_graph` batches an op that has no
batching rule of its own; its gradient is the core op's gradient, vectorized the same way.

The signature names each core dimension; a name shared between inputs and outputs says that
the lengths are equal, which gives the output shapes without running the op. Without a
signature (for an op without ``gufunc_signature``) one is made from the node's number of
dimensions, with every core dimension named apart.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from arignote.graph.basic import Apply, Variable
from arignote.graph.grad_types import DisconnectedType
from arignote.graph.null_type import NullType
from arignote.graph.op import Op
from arignote.graph.replace import _vectorize_node, vectorize_graph
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.elemwise import DimShuffle, Elemwise
from arignote.tensor.index_spec import sum_to_type
from arignote.tensor.math import second
from arignote.tensor.type import TensorType, tensor_type

Signature = tuple[tuple[tuple[str, ...], ...], tuple[tuple[str, ...], ...]]

_ARGS = re.compile(r"\(([^()]*)\)")
_SIDE = re.compile(r"^(\([^()]*\)(,\([^()]*\))*)?$")


def parse_signature(signature: str) -> Signature:
    """``"(m,n),(n)->(m)"`` -> ``((("m", "n"), ("n",)), (("m",),))``."""
    if signature.count("->") != 1:
        raise ValueError(f"not a gufunc signature (one '->' expected): {signature!r}")
    sides = []
    for side in signature.replace(" ", "").split("->"):
        if not _SIDE.match(side):
            raise ValueError(f"not a gufunc signature: {signature!r}")
        groups = _ARGS.findall(side)
        sides.append(tuple(tuple(d for d in g.split(",") if d) for g in groups))
    return sides[0], sides[1]


def signature_of_node(node: Apply) -> str:
    """A signature with each input and output dimension named apart, from ``node``'s types."""

    def group(prefix: str, variables: Sequence[Variable]) -> str:
        return ",".join(
            "(" + ",".join(f"{prefix}{k}_{d}" for d in range(v.type.ndim)) + ")"
            for k, v in enumerate(variables)
        )

    return f"{group('i', node.inputs)}->{group('o', node.outputs)}"


def _batch_static_shape(inputs: Sequence[Variable], batch_ndim: int) -> tuple:
    """The broadcast static batch shape (None: unknown), checking known lengths agree."""
    shape = []
    for d in range(batch_ndim):
        sizes = [i.type.shape[d] for i in inputs]
        known = {s for s in sizes if s is not None and s != 1}
        if len(known) > 1:
            raise ValueError(f"Blockwise: incompatible batch lengths {sorted(known)} in dim {d}")
        if known:
            shape.append(known.pop())
        else:
            shape.append(1 if all(s == 1 for s in sizes) else None)
    return tuple(shape)


def _pad_batch(x: Variable, core_ndim: int, batch_ndim: int) -> Variable:
    """``x`` with length-1 batch dimensions added in front, up to ``batch_ndim`` of them."""
    missing = batch_ndim - (x.type.ndim - core_ndim)
    if missing == 0:
        return x
    return DimShuffle(x.type.ndim, ["x"] * missing + list(range(x.type.ndim)))(x)


def _check_runtime_broadcast(op: Op, node: Apply, inputs: Sequence, batch_shape: tuple) -> None:
    """A length-1 batch dimension broadcasts only where the input's type says it is 1 (as
    for elementwise ops): otherwise its gradient would have the wrong shape."""
    for k, (var, value) in enumerate(zip(node.inputs, inputs)):
        for d, length in enumerate(batch_shape):
            if value.shape[d] == 1 and length != 1 and var.type.shape[d] != 1:
                raise ValueError(
                    f"{op}: input {k} has length 1 in batch dimension {d} where the others have "
                    f"{length}, and its type {var.type} does not allow broadcasting there"
                )


def check_core_lengths(op: Any, input_shapes: Sequence[Sequence[int]]) -> None:
    """Raise ``ValueError`` (as ``np.vectorize`` does) where a core dimension named in the
    signature has different lengths in two inputs: checked before any block runs, so that
    an empty batch, which runs none, refuses what a full one would."""
    seen: dict = {}
    for shape, dims in zip(input_shapes, op.inputs_sig):
        core = list(shape)[len(shape) - len(dims) :]
        for name, length in zip(dims, core):
            first = seen.setdefault(name, length)
            if first != length:
                raise ValueError(
                    f"{op}: inconsistent size for core dimension '{name}': {first} vs {length}"
                )


class Blockwise(Op):
    """``core_op`` applied to each block of its inputs' leading batch dimensions.

    Parameters
    ----------
    core_op
        The op applied to one batch entry's core blocks.
    signature
        Its gufunc signature, ``"(m,n),(n)->(m)"``; defaults to ``core_op.gufunc_signature``.
    """

    __props__ = ("core_op", "signature")

    def __init__(self, core_op: Op, signature: str | None = None) -> None:
        if isinstance(core_op, Blockwise):
            raise TypeError("Blockwise of a Blockwise: apply the outer one to the core op")
        signature = signature or getattr(core_op, "gufunc_signature", None)
        if signature is None:
            raise ValueError(f"Blockwise({core_op}) needs a signature (the op declares none)")
        self.core_op = core_op
        self.signature = signature
        self.inputs_sig, self.outputs_sig = parse_signature(signature)

    # -- building -----------------------------------------------------------------------------

    def make_node(self, *inputs: Any) -> Apply:
        if len(inputs) != len(self.inputs_sig):
            raise TypeError(f"{self} takes {len(self.inputs_sig)} inputs, got {len(inputs)}")
        inputs = [as_tensor_variable(i) for i in inputs]
        for k, (x, dims) in enumerate(zip(inputs, self.inputs_sig)):
            if x.type.ndim < len(dims):
                raise TypeError(
                    f"{self}: input {k} needs at least {len(dims)} dimensions (core "
                    f"{'(' + ','.join(dims) + ')'}), got {x.type}"
                )
        batch_ndim = max(x.type.ndim - len(d) for x, d in zip(inputs, self.inputs_sig))
        inputs = [_pad_batch(x, len(d), batch_ndim) for x, d in zip(inputs, self.inputs_sig)]
        core_node = self._make_core_node(inputs, batch_ndim)
        batch_shape = _batch_static_shape(inputs, batch_ndim)
        outputs = [
            tensor_type(o.type.dtype, batch_shape + o.type.shape)() for o in core_node.outputs
        ]
        return Apply(self, inputs, outputs)

    def _make_core_node(self, inputs: Sequence[Variable], batch_ndim: int) -> Apply:
        """The core op on dummy inputs of the core types (for types, shapes and gradients)."""
        dummies = [tensor_type(x.type.dtype, x.type.shape[batch_ndim:])() for x in inputs]
        core_node = self.core_op.make_node(*dummies)
        if len(core_node.outputs) != len(self.outputs_sig) or any(
            o.type.ndim != len(d) for o, d in zip(core_node.outputs, self.outputs_sig)
        ):
            raise TypeError(
                f"{self}: the core op's outputs {[o.type for o in core_node.outputs]} do not "
                f"match the signature {self.signature}"
            )
        return core_node

    def batch_ndim(self, node: Apply) -> int:
        return node.outputs[0].type.ndim - len(self.outputs_sig[0])

    def core_node(self, node: Apply) -> Apply:
        """The core node of ``node`` (made once per node, kept on its tag)."""
        core = getattr(node.tag, "blockwise_core_node", None)
        if core is None:
            core = node.tag.blockwise_core_node = self._make_core_node(
                node.inputs, self.batch_ndim(node)
            )
        return core

    # -- computing ----------------------------------------------------------------------------

    def perform(self, node, inputs, output_storage):
        batch_ndim = self.batch_ndim(node)
        batch_shape = np.broadcast_shapes(*(x.shape[:batch_ndim] for x in inputs))
        _check_runtime_broadcast(self, node, inputs, batch_shape)
        check_core_lengths(self, [x.shape for x in inputs])
        blocks = [np.broadcast_to(x, batch_shape + x.shape[batch_ndim:]) for x in inputs]
        core_node = self.core_node(node)
        results: list[list] = [[] for _ in node.outputs]
        for index in np.ndindex(*batch_shape):
            cells = [[None] for _ in node.outputs]
            self.core_op.perform(core_node, [b[index] for b in blocks], cells)
            for collected, cell in zip(results, cells):
                collected.append(cell[0])
        for cell, collected, out, dims in zip(
            output_storage, results, node.outputs, self.outputs_sig
        ):
            cell[0] = self._stack(collected, batch_shape, out, dims, inputs)

    def _stack(self, blocks: list, batch_shape: tuple, out: Variable, dims, inputs) -> Any:
        dtype = out.type.numpy_dtype
        if blocks:
            return np.asarray(blocks, dtype=dtype).reshape(batch_shape + np.shape(blocks[0]))
        core_shape = self._empty_core_shape(out, dims, inputs)  # no block to learn it from
        return np.empty(batch_shape + core_shape, dtype=dtype)

    def _empty_core_shape(self, out: Variable, dims: tuple, inputs: Sequence) -> tuple:
        lengths = self._dim_lengths([np.shape(x) for x in inputs])
        core = out.type.shape[out.type.ndim - len(dims) :]
        inferred = self._core_infer_shape(out, inputs)
        return tuple(
            lengths.get(d, s if s is not None else inferred[k])
            for k, (d, s) in enumerate(zip(dims, core, strict=True))
        )

    def _core_infer_shape(self, out: Variable, inputs: Sequence) -> tuple:
        """The core output's shape from the core op's ``infer_shape`` on the inputs' core
        lengths (an output dimension the signature does not name after an input one, as in
        the generic signatures of gradients); 0 where that gives no integer."""
        node = out.owner
        position = node.outputs.index(out)
        core_node = self.core_node(node)
        shapes = [
            tuple(int(n) for n in np.shape(x)[np.ndim(x) - len(dims) :])
            for x, dims in zip(inputs, self.inputs_sig)
        ]
        ndim = core_node.outputs[position].type.ndim
        try:
            found = self.core_op.infer_shape(None, core_node, shapes)[position]
        except Exception:  # an infer_shape that needs a graph: no better guess than 0
            return (0,) * ndim
        return tuple(int(n) if isinstance(n, (int, np.integer)) else 0 for n in found)

    def _dim_lengths(self, input_shapes: Sequence[Sequence]) -> dict:
        """Each named core dimension's length, read from the first input that has it."""
        lengths: dict = {}
        for shape, dims in zip(input_shapes, self.inputs_sig):
            core = list(shape)[len(shape) - len(dims) :]
            for d, length in zip(dims, core):
                lengths.setdefault(d, length)
        return lengths

    def infer_shape(self, fgraph, node, input_shapes):
        batch_ndim = self.batch_ndim(node)
        batch = [self._batch_length(node, input_shapes, d) for d in range(batch_ndim)]
        lengths = self._dim_lengths(input_shapes)
        core_shapes = None
        results = []
        for k, (out, dims) in enumerate(zip(node.outputs, self.outputs_sig)):
            core = []
            for j, d in enumerate(dims):
                static = out.type.shape[batch_ndim + j]
                if d in lengths:
                    core.append(lengths[d])
                elif static is not None:
                    core.append(static)
                else:
                    if core_shapes is None:
                        core_in = [list(s)[batch_ndim:] for s in input_shapes]
                        core_shapes = self.core_op.infer_shape(
                            fgraph, self.core_node(node), core_in
                        )
                    core.append(core_shapes[k][j])
            results.append(tuple(batch) + tuple(core))
        return results

    def _batch_length(self, node: Apply, input_shapes, d: int) -> Any:
        """Batch dim ``d``: the length of the first input not known to broadcast there."""
        for x, shape in zip(node.inputs, input_shapes):
            if x.type.shape[d] != 1:
                return shape[d]
        return 1

    # -- derivatives --------------------------------------------------------------------------

    def L_op(self, inputs, outputs, output_grads):
        core_node = self.core_node(outputs[0].owner)
        # a disconnected cotangent stays disconnected for the core op (it is not a tensor)
        core_cots = [
            g if isinstance(g.type, DisconnectedType) else o.type()
            for o, g in zip(core_node.outputs, output_grads, strict=True)
        ]
        core_grads = self.core_op.L_op(core_node.inputs, core_node.outputs, core_cots)
        replace = dict(zip(core_node.inputs, inputs))
        replace.update(zip(core_node.outputs, outputs))
        replace.update((c, g) for c, g in zip(core_cots, output_grads) if c is not g)
        return [self._batched_grad(g, x, replace) for g, x in zip(core_grads, inputs, strict=True)]

    def _batched_grad(self, core_grad: Variable, x: Variable, replace: dict) -> Variable:
        if isinstance(core_grad.type, (DisconnectedType, NullType)):
            return core_grad  # "no gradient" and "undefined" read the same batched
        batched = vectorize_graph(core_grad, replace)
        if batched.type.ndim < x.type.ndim:  # the same for every block
            batched = second(x, batched)
        # an input broadcast along batch dimensions gets the sum of its blocks' gradients
        return sum_to_type(batched, x)

    def R_op(self, inputs, eval_points):
        node = self.make_node(*inputs)
        core_node = self.core_node(node)
        core_points = [
            None if v is None else x.type() for x, v in zip(core_node.inputs, eval_points)
        ]
        core_results = self.core_op.R_op(core_node.inputs, core_points)
        replace = dict(zip(core_node.inputs, inputs))
        replace.update(zip(core_node.outputs, node.outputs))
        replace.update((c, v) for c, v in zip(core_points, eval_points) if c is not None)
        return [None if r is None else vectorize_graph(r, replace) for r in core_results]

    def connection_pattern(self, node):
        pattern = getattr(self.core_op, "connection_pattern", None)
        if pattern is None:
            return [[True] * len(node.outputs) for _ in node.inputs]
        return pattern(self.core_node(node))

    def __str__(self) -> str:
        return f"Blockwise{{{self.core_op}, {self.signature}}}"


# -- vectorize_node rules ----------------------------------------------------------------------


@_vectorize_node.register(Op)
def _vectorize_any_op(op: Op, node: Apply, *batched_inputs: Variable) -> Apply:
    """Fallback for every op: a ``Blockwise`` of it (tensor inputs and outputs only)."""
    variables = [*node.inputs, *node.outputs, *batched_inputs]
    if not all(isinstance(v.type, TensorType) for v in variables):
        raise NotImplementedError(
            f"vectorize_node: {op} has non-tensor inputs or outputs, which Blockwise cannot "
            "batch; it needs a vectorize rule of its own"
        )
    signature = getattr(op, "gufunc_signature", None) or signature_of_node(node)
    return Blockwise(op, signature).make_node(*batched_inputs)


@_vectorize_node.register(Blockwise)
def _vectorize_blockwise(op: Blockwise, node: Apply, *batched_inputs: Variable) -> Apply:
    return op.make_node(*batched_inputs)  # more batch dimensions are more of the same


@_vectorize_node.register(Elemwise)
def _vectorize_elemwise(op: Elemwise, node: Apply, *batched_inputs: Variable) -> Apply:
    return op.make_node(*batched_inputs)  # elementwise ops broadcast over leading dims


@_vectorize_node.register(DimShuffle)
def _vectorize_dimshuffle(op: DimShuffle, node: Apply, x: Variable) -> Apply:
    extra = x.type.ndim - op.input_ndim
    order = list(range(extra)) + [d if d == "x" else d + extra for d in op.new_order]
    return DimShuffle(x.type.ndim, order).make_node(x)


# -- the functional form ---------------------------------------------------------------------


def vectorize(func: Callable, signature: str | None = None) -> Callable:
    """A version of ``func`` (from core-shaped tensors to tensors) that takes batched inputs,
    like ``numpy.vectorize``: the graph ``func`` builds is re-applied with
    :func:`vectorize_graph`. Without ``signature`` every input's core is a scalar."""

    def wrapped(*args: Any) -> Any:
        args = [as_tensor_variable(a) for a in args]
        core_ndims = (
            [0] * len(args)
            if signature is None
            else [len(d) for d in parse_signature(signature)[0]]
        )
        cores = [
            tensor_type(a.type.dtype, a.type.shape[a.type.ndim - n :])()
            for a, n in zip(args, core_ndims, strict=True)
        ]
        outputs = func(*cores)
        return vectorize_graph(outputs, dict(zip(cores, args)))

    return wrapped


__all__ = ["Blockwise", "vectorize"]
