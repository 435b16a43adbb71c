"""The native half of tiered execution (:mod:`arignote.link.tiered` calls it when hot).

:func:`compile_checked` takes the graph the VM runs (the default pipeline's, in-place
operations included), turns each in-place node back into its out-of-place form (native
kernels always write fresh outputs, and they are tested on those ops), compiles the whole
graph, runs it on a copy of the inputs of the call that made the function hot, and accepts it
only if its outputs match the VM's on those inputs. Graphs with nodes that would run in
object mode stay on the VM: the gain would be small and the compilation long.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from arignote.graph.fg import FunctionGraph
from arignote.link.basic import Runner
from arignote.link.jit import JITRunner
from arignote.link.numba.linker import convert, native_runner, whole_graph_fallback
from arignote.tensor.random.type import copy_generator, random_generator_type


def compile_checked(
    fgraph: FunctionGraph, vm: Runner, samples: Sequence[Any]
) -> tuple[JITRunner | None, str | None]:
    """The native runner of ``fgraph`` checked against ``vm`` on ``samples``, or why not."""
    reason = whole_graph_fallback(fgraph)
    if reason is not None:
        return None, f"whole graph on the Python VM: {reason}"
    graph_fg = without_inplace(fgraph)
    if graph_fg is None:
        return None, "an in-place op has no out-of-place form"
    converted = convert(graph_fg)
    graph, fallbacks = converted
    if fallbacks:
        ops = sorted({str(node.op) for node in fallbacks})
        return None, f"nodes without a native kernel: {', '.join(ops)}"
    native = native_runner(graph_fg, graph, fallbacks, "numba (tiered)", lease=converted.lease)
    # The caller already saw this call's floating-point warnings (errstate is per thread).
    with np.errstate(all="ignore"):
        expected = vm.run([_copy(v) for v in samples])
        got = native.run([_copy(v) for v in samples])  # numba compiles for these types here
    mismatch = first_mismatch(expected, got)
    if mismatch is not None:
        return None, f"native output {mismatch} differs from the VM's; kept the VM"
    return native, None


def without_inplace(fgraph: FunctionGraph) -> FunctionGraph | None:
    """A copy of ``fgraph`` with every in-place node replaced by its out-of-place form
    (None when some op has none); ``fgraph`` itself when it has no in-place node."""
    if not any(getattr(n.op, "destroy_map", None) for n in fgraph.apply_nodes):
        return fgraph
    copy = FunctionGraph(fgraph.inputs, fgraph.outputs, clone=True)
    for node in copy.toposort():
        if not getattr(node.op, "destroy_map", None):
            continue
        op = out_of_place(node.op)
        if op is None:
            return None
        replacement = op.make_node(*node.inputs)
        copy.replace_all(zip(node.outputs, replacement.outputs), reason="tiered: out of place")
    return copy


def out_of_place(op: Any) -> Any:
    """``op`` without its in-place flag (``inplace`` or ``inplace_pattern`` prop), or None."""
    with_inplace = getattr(op, "with_inplace", None)
    if callable(with_inplace):  # an op built from its inner graph (Scan): no props constructor
        return with_inplace(())
    props = getattr(op, "__props__", ())
    if "inplace_pattern" in props:
        return type(op)(**{**op._props_dict(), "inplace_pattern": {}})
    if "inplace" in props:
        return type(op)(**{**op._props_dict(), "inplace": False})
    return None


def first_mismatch(expected: Sequence[Any], got: Sequence[Any]) -> int | None:
    """The index of the first output of ``got`` not matching ``expected`` (None: all match).

    Same dtype and shape; values equal up to a few ulps of the dtype (native code may fuse
    and vectorize operations), NaNs in the same places.
    """
    if len(expected) != len(got):
        return 0
    for index, (a, b) in enumerate(zip(expected, got)):
        if isinstance(a, np.random.Generator) or isinstance(b, np.random.Generator):
            if not random_generator_type.values_eq(a, b):  # generators: the same state
                return index
            continue
        a, b = np.asarray(a), np.asarray(b)
        if a.dtype != b.dtype or a.shape != b.shape or not _close(a, b):
            return index
    return None


def _close(a: np.ndarray, b: np.ndarray) -> bool:
    if a.dtype.kind not in "fc":
        return bool(np.array_equal(a, b))
    # float64: 1e-8 (a few thousand ulps, room for reassociated sums); float32/16: 1e-3
    tolerance = 1e-8 if np.finfo(a.dtype).eps < 1e-10 else 1e-3
    return bool(np.allclose(a, b, rtol=tolerance, atol=tolerance, equal_nan=True))


def _copy(value: Any) -> Any:
    # A generator is copied too: each run draws from the sampled state, and neither advances
    # the caller's generator (the VM's in-place draws would).
    if isinstance(value, np.random.Generator):
        return copy_generator(value)
    return value.copy() if isinstance(value, np.ndarray) else value


__all__ = ["compile_checked", "first_mismatch", "out_of_place", "without_inplace"]
