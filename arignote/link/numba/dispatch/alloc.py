"""Native kernels of creation and joining ops (``Alloc``, ``AllocEmpty``, ``MakeVector``,
``Join``), of ``BroadcastLength``'s check, the tensor/scalar conversions, and the compiler's
``DeepCopyOp``/``ViewOp``."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from arignote.graph.basic import Apply
from arignote.link.numba.dispatch.basic import BY_NAME, compile_source, numba_funcify
from arignote.link.numba.dispatch.random import copy_rng
from arignote.tensor.alloc import Alloc, AllocEmpty, BroadcastLength
from arignote.tensor.basic import MakeVector, ScalarFromTensor, TensorFromScalar
from arignote.tensor.join import Join
from arignote.tensor.random.type import RandomGeneratorType


def _arguments(node: Apply) -> str:
    return ", ".join(f"i{k}" for k in range(len(node.inputs)))


def _kernel(source: str) -> Callable:
    return compile_source(source, "kernel", {})


@numba_funcify.register(Alloc)
def _alloc(op: Alloc, node: Apply) -> Callable:
    nshape = len(node.inputs) - 1
    shape = "(" + "".join(f"i{k + 1}[()], " for k in range(nshape)) + ")"
    value = "i0[()]" if node.inputs[0].type.ndim == 0 else "i0"
    return _kernel(
        f"def kernel({_arguments(node)}):\n"
        f"    out = np.empty({shape}, dtype=np.{node.outputs[0].type.dtype})\n"
        + _runtime_broadcast_checks(node)
        + f"    out[...] = {value}\n"
        "    return out\n"
    )


def _runtime_broadcast_checks(node: Apply) -> str:
    """As ``perform``: a value dimension of length 1 stretches only where its type says so
    (static length 1), not because it happens to be 1 when the kernel runs."""
    static = node.inputs[0].type.shape
    lead = node.outputs[0].type.ndim - len(static)
    checks = ""
    for d, length in enumerate(static):
        if length == 1:
            continue
        message = (  # (numba raises constant messages only)
            f"Alloc: cannot broadcast a value whose dimension {d} has length 1 to another "
            "length: its type does not declare that dimension broadcastable (static length 1)"
        )
        checks += f"    if i0.shape[{d}] == 1 and out.shape[{lead + d}] != 1:\n"
        checks += f"        raise ValueError({message!r})\n"
    return checks


@numba_funcify.register(AllocEmpty)
def _alloc_empty(op: AllocEmpty, node: Apply) -> Callable:
    shape = "(" + "".join(f"np.int64(i{k}[()]), " for k in range(len(node.inputs))) + ")"
    # numba's own message differs from NumPy's ("negative dimensions not allowed")
    checks = "".join(
        f"    if i{k}[()] < 0:\n        raise ValueError('negative dimensions are not allowed')\n"
        for k in range(len(node.inputs))
    )
    return _kernel(
        f"def kernel({_arguments(node)}):\n"
        + checks
        + f"    return np.empty({shape}, dtype=np.{np.dtype(op.dtype).name})\n"
    )


@numba_funcify.register(BroadcastLength)
def _broadcast_length(op: BroadcastLength, node: Apply) -> Callable:
    n = len(node.inputs)
    lengths = " + ', ' + ".join(f"str(np.int64(i{k}[()]))" for k in range(n))
    differ = " or ".join(f"i{k}[()] != i0[()]" for k in range(1, n)) or "False"
    return _kernel(
        f"def kernel({_arguments(node)}):\n"
        f"    if {differ}:\n"
        "        raise ValueError(\n"
        f"            'broadcast_shape: lengths [' + {lengths} + '] of one dimension differ; '\n"
        "            'runtime broadcasting is not allowed: a length 1 broadcasts only where the '\n"
        "            'type says so (use specify_broadcastable)'\n"
        "        )\n"
        "    out = np.empty((), dtype=np.int64)\n"
        "    out[()] = i0[()]\n"
        "    return out\n"
    )


@numba_funcify.register(MakeVector)
def _make_vector(op: MakeVector, node: Apply) -> Callable:
    n = len(node.inputs)
    fills = "".join(f"    out[{k}] = i{k}[()]\n" for k in range(n))
    return _kernel(
        f"def kernel({_arguments(node)}):\n"
        f"    out = np.empty({n}, dtype=np.{op.dtype})\n" + fills + "    return out\n"
    )


@numba_funcify.register(Join)
def _join(op: Join, node: Apply) -> Callable:
    dtype = node.outputs[0].type.dtype
    parts = "".join(f"np.asarray(i{k}, dtype=np.{dtype}), " for k in range(len(node.inputs)))
    if any(i.type.dtype != dtype for i in node.inputs):
        parts = "".join(f"i{k}.astype(np.{dtype}), " for k in range(len(node.inputs)))
    return _kernel(
        f"def kernel({_arguments(node)}):\n    return np.concatenate(({parts}), axis={op.axis})\n"
    )


@numba_funcify.register(TensorFromScalar)
def _tensor_from_scalar(op: TensorFromScalar, node: Apply) -> Callable:
    return _kernel(
        "def kernel(x):\n"
        f"    out = np.empty((), dtype=np.{node.outputs[0].type.dtype})\n"
        "    out[()] = x\n"
        "    return out\n"
    )


@numba_funcify.register(ScalarFromTensor)
def _scalar_from_tensor(op: ScalarFromTensor, node: Apply) -> Callable:
    return _kernel("def kernel(x):\n    return x[()]\n")


def _deep_copy(op, node: Apply) -> Callable:
    if isinstance(node.inputs[0].type, RandomGeneratorType):
        return copy_rng  # an independent generator in the same state, made in object mode
    return _kernel("def kernel(x):\n    return x.copy()\n")


def _view(op, node: Apply) -> Callable:
    return _kernel("def kernel(x):\n    return x\n")


BY_NAME["arignote.compile.ops.DeepCopyOp"] = _deep_copy
BY_NAME["arignote.compile.ops.ViewOp"] = _view
