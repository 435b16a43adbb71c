"""``JAXLinker``: the rewritten graph becomes one JAX function, jitted by XLA.

``fgraph_convert`` turns a FunctionGraph into a function of arrays returning a tuple of arrays,
through the per-op conversions of :mod:`arignote.link.jax.dispatch`; ``jax.jit`` compiles it
once per input signature (shapes and dtypes). The linker declares which rewrites it needs and
which it cannot take: in-place rewrites (JAX arrays are immutable; XLA reuses buffers itself)
and elementwise fusion into ``Composite`` (XLA fuses better).

Values between calls stay on the device: the value of a shared variable is moved there once
and then replaced by the device arrays its updates compute, without a round trip through host
memory (``get_value`` copies it back to a NumPy array). Arguments may be NumPy or JAX arrays;
results are JAX arrays.

64-bit floats: JAX computes in 32 bits unless ``jax_enable_x64`` is set. A function whose graph
holds a 64-bit dtype is traced and called inside ``jax.enable_x64(True)`` (a context manager, so
the setting applies to this function's calls only and never changes the rest of the program's
JAX code); ``x64=False`` turns that off (float64 graphs are then computed in float32).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np

import jax
from arignote.graph.fg import FunctionGraph
from arignote.graph.lazy import has_lazy_nodes
from arignote.graph.shared import SharedVariable
from arignote.link.jax.dispatch import fgraph_to_jax
from arignote.link.jax.dispatch.checks import needs_checks, raise_failed_check
from arignote.link.jax.dispatch.ifelse import lazy_fgraph_to_jax
from arignote.link.jax.dispatch.random import generator_to_key
from arignote.link.jit import JITLinker, JITRunner
from arignote.tensor.random.type import RandomGeneratorType
from jax.experimental import checkify
from jax.sharding import Mesh, NamedSharding, PartitionSpec

_ARRAY = jax.Array


class JAXLinker(JITLinker):
    """Compiles a whole graph with ``jax.jit``.

    Parameters
    ----------
    platform
        "cpu", "gpu" (or "cuda", "rocm", "tpu"): run on the first device of that platform.
        None: JAX's default device.
    shard_batch
        Names of explicit inputs whose first axis is a batch: they are split over all local
        devices of the platform (``jax.sharding``, a 1-d mesh), and every other input and
        shared variable is replicated on each device. XLA then runs the function data-parallel
        and inserts the reductions. None: no sharding.
    x64
        "auto" (64-bit JAX inside this function's calls when its graph has 64-bit dtypes),
        True, or False.
    matmul_precision
        The precision of matrix products and convolutions: "highest" (the default: float32
        products are exact float32, as NumPy's, also on GPUs whose default is TF32), "high",
        "default" (the accelerator's fastest, e.g. TF32 or bf16 passes), or None (JAX's global
        setting).
    """

    # The mode's pipeline is built from these (see arignote.link.jit).
    required_rewrites: tuple[str, ...] = ()
    # scan_pushout_add turns a loop's running sum into a stack of per-step rows summed after
    # the loop: JAX keeps the running sum in the loop's carry better, and the stack's length is
    # not static when the step count is an input value.
    incompatible_rewrites: tuple[str, ...] = ("inplace", "fusion", "scan_pushout_add")
    # its random state is a JAX key: a shared NumPy generator stays NumPy's for other functions
    copies_shared_generators = True

    def __init__(
        self,
        platform: str | None = None,
        shard_batch: tuple[str, ...] | None = None,
        x64: bool | str = "auto",
        matmul_precision: str | None = "highest",
    ) -> None:
        if x64 not in ("auto", True, False):
            raise ValueError(f"x64 must be 'auto', True or False, got {x64!r}")
        if matmul_precision not in ("highest", "high", "default", None):
            raise ValueError(
                "matmul_precision must be 'highest', 'high', 'default' or None, "
                f"got {matmul_precision!r}"
            )
        super().__init__()
        self.platform = platform
        self.shard_batch = tuple(shard_batch) if shard_batch else None
        self.x64 = x64
        self.matmul_precision = matmul_precision

    def clone(self, allow_gc: bool | None = None) -> JAXLinker:
        return type(self)(self.platform, self.shard_batch, self.x64, self.matmul_precision)

    # -- the JIT linker interface -----------------------------------------------------------

    def fgraph_convert(self, fgraph: FunctionGraph, **kwargs: Any) -> Callable:
        """``fn(*input_arrays) -> tuple_of_output_arrays`` computing ``fgraph`` with JAX."""
        if has_lazy_nodes(fgraph):  # branches of IfElse nodes computed only when taken
            return lazy_fgraph_to_jax(fgraph, **kwargs)
        return fgraph_to_jax(fgraph.inputs, fgraph.outputs, fgraph.toposort(), **kwargs)

    def jit_compile(self, fn: Callable) -> Callable:
        """``fn`` jitted: XLA compiles it once per input signature, at its first call."""
        if self.matmul_precision is None:
            return jax.jit(fn)
        return jax.jit(_with_matmul_precision(fn, self.matmul_precision))

    # -- running ----------------------------------------------------------------------------

    def uses_x64(self, fgraph: FunctionGraph) -> bool:
        if self.x64 != "auto":
            return bool(self.x64)
        wide = ("float64", "int64", "uint64", "complex128")
        return any(getattr(v.type, "dtype", None) in wide for v in fgraph.variables)

    def make_runner(self) -> JAXRunner:
        fgraph = self._graph()
        function = self.fgraph_convert(fgraph)
        checked = needs_checks(fgraph.toposort())
        if checked:  # run-time checks (Assert, loop lengths): see dispatch/checks.py
            function = checkify.checkify(function, errors=checkify.user_checks)
        compiled = self.jit_compile(function)
        placement = self._placement(fgraph)
        prepare = [self._preparer(var, placement) for var in fgraph.inputs]
        scope = _X64_SCOPE if self.uses_x64(fgraph) else None
        runner = CheckedJAXRunner if checked else JAXRunner
        return runner(fgraph, compiled, str(self), prepare, scope)

    def _placement(self, fgraph: FunctionGraph) -> dict:
        """Where each input goes: a device, a sharding, or nothing (JAX's default device)."""
        devices = jax.devices(self.platform) if self.platform else jax.devices()
        if self.shard_batch is None:
            target = devices[0] if self.platform else None
            return dict.fromkeys(fgraph.inputs, target)
        mesh = Mesh(np.array(devices), ("batch",))
        batch, replicated = (
            NamedSharding(mesh, PartitionSpec("batch")),
            NamedSharding(mesh, PartitionSpec()),
        )
        return {var: batch if var.name in self.shard_batch else replicated for var in fgraph.inputs}

    def _preparer(self, var: Any, placement: dict) -> Callable | None:
        target = placement[var]
        if isinstance(var.type, RandomGeneratorType):
            return _KeyPreparer(target)
        if isinstance(var, SharedVariable) or target is not None:
            return _DevicePreparer(target)
        return None  # jit moves NumPy arguments to the device itself


def _with_matmul_precision(fn: Callable, precision: str) -> Callable:
    """``fn`` traced under ``precision``: the setting is read when each product is traced."""

    def traced(*args: Any) -> Any:
        with jax.default_matmul_precision(precision):
            return fn(*args)

    return traced


class JAXRunner(JITRunner):
    """Runs the jitted function: inputs moved to their device first, inside the x64 scope.

    ``prepare[k]``, when not None, moves input ``k`` to its device (or sharding); a value
    already there passes through, so the device arrays that updates return stay there.
    """

    def __init__(
        self,
        fgraph: FunctionGraph,
        compiled: Callable,
        name: str,
        prepare: list[Callable | None],
        scope: tuple[Callable, Callable] | None,
    ) -> None:
        super().__init__(fgraph, compiled, name)
        self.compiled = compiled
        self.prepared = [(k, move) for k, move in enumerate(prepare) if move is not None]
        self.scope = scope

    def run(self, inputs: Sequence[Any]) -> list[Any]:
        args = list(inputs)
        for k, move in self.prepared:
            args[k] = move(args[k])
        if self.scope is None:
            return list(self.compiled(*args))
        enter, leave = self.scope
        previous = enter()  # cheaper than a ``with`` statement on the per-call path
        try:
            return list(self.compiled(*args))
        finally:
            leave(previous)


class CheckedJAXRunner(JAXRunner):
    """A runner whose compiled function also returns checkify's error: a failed check raises
    its exception before any output (or update) is delivered."""

    def run(self, inputs: Sequence[Any]) -> list[Any]:
        error, outputs = super().run(inputs)
        raise_failed_check(error)
        return list(outputs)


# (enter, leave) around each call: the thread-local switch ``with jax.enable_x64(True)`` sets,
# called directly (a ``with`` statement costs about a microsecond more per call)
_X64_SCOPE = (partial(jax.enable_x64.swap_local, True), jax.enable_x64.set_local)


class _DevicePreparer:
    """Moves a value to its device (or sharding) unless it is already a JAX array there."""

    def __init__(self, target: Any) -> None:
        self.target = target

    def __call__(self, value: Any) -> Any:
        if isinstance(value, _ARRAY) and (
            self.target is None or value.sharding == _as_sharding(self.target)
        ):
            return value
        with jax.enable_x64(True):  # a float64 value stays float64 on the device
            return jax.device_put(value, self.target)


def _as_sharding(target: Any) -> Any:
    return jax.sharding.SingleDeviceSharding(target) if isinstance(target, jax.Device) else target


class _KeyPreparer(_DevicePreparer):
    """A NumPy generator becomes a JAX key (seeded from a copy of it); keys pass through."""

    def __call__(self, value: Any) -> Any:
        if isinstance(value, np.random.Generator):
            value = generator_to_key(value)
        return super().__call__(value)
