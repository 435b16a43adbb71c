"""``Function``: the callable a compiled graph becomes.

A call binds the arguments (checking and converting them), asks the *runner* (see
:mod:`arignote.link.basic`) for the outputs, and applies the updates, all at once. The common
call (every argument given positionally, as ndarrays of exactly the expected dtype and number
of dimensions) takes a fast path that does no more than compare each argument's type, dtype and
ndim; ``f.trust_input = True`` skips even that.

Threads: a Function keeps no per-call state (the arguments, intermediates and results of a
call live in that call's frame), so it may be called from several threads at once. Shared
state is guarded by one process-wide re-entrant lock, :data:`STATE_LOCK`: a function that
reads or updates shared variables runs each whole call (reading the shared values,
computing, storing the updates) holding it. Such calls are therefore serialized: each one
sees the state the previous one left, no update is lost, and no call sees a shared value
while an update (possibly in place) rewrites it. Functions without shared variables never
take the lock.

Copying (``Function.copy``) and pickling are defined here too. A pickled function carries its
graph, its defaults and the values of its shared variables; the unpickled function re-links
the graph (without rewriting it again) and computes the same results from the same state.

Shared variables and pickling follow PyTensor: the unpickled function has its own copies of
the shared variables it uses, so it never changes the original function's state. Shared
variables pickled *together* with the function (``pickle.dumps((f, w))``) come back linked to
the unpickled function: updating one is seen by the other. ``copy.deepcopy(f)`` behaves like
pickling; ``f.copy()`` instead keeps using the same shared variables (see :meth:`Function.copy`).
"""

from __future__ import annotations

import copy
import threading
import time
import weakref
from operator import attrgetter
from typing import Any

import numpy as np

from arignote.compile.aliasing import destroyed_inputs, protect_inputs
from arignote.compile.entry import make_entry
from arignote.compile.io import In, Out
from arignote.compile.profiling import as_profile
from arignote.graph.basic import Variable, clone_get_equiv
from arignote.graph.fg import FunctionGraph
from arignote.graph.shared import Container, SharedVariable, describe_value

#: Serializes the calls of functions that read or update shared variables (see above).
STATE_LOCK = threading.RLock()
#: Serializes the recording into ProfileStats objects (several functions may share one).
PROFILE_LOCK = threading.Lock()


class _EntryPoint(property):
    """The type of ``Function.__call__``: a property whose C-level getter returns the
    instance's entry point. Being callable itself, ``Function.__call__(f, ...)`` and
    ``inspect.signature(f)`` work as for a method."""

    def __call__(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        return fn._entry(*args, **kwargs)


class _Explicit:
    """What a call needs to know about one argument (an explicit input)."""

    __slots__ = (
        "allow_downcast",
        "container",
        "default",
        "dtype",
        "name",
        "ndim",
        "position",
        "required",
        "spec",
        "state",
        "static_shape",
        "strict",
    )

    def __init__(self, position: int, spec: In, container: Container) -> None:
        self.position = position
        self.spec = spec
        self.container = container
        self.name = spec.name
        self.strict = spec.strict
        self.allow_downcast = spec.allow_downcast
        self.state = spec.update is not None
        # An input with an update but no initial value is stateful too: its state starts with
        # the first value given, and it is required only while it has none.
        self.required = spec.value is None and not self.state
        # A plain default (no update) is put back whenever the argument is omitted.
        self.default = container.storage[0] if not self.required and not self.state else None
        vtype = spec.variable.type
        numpy_dtype = getattr(vtype, "numpy_dtype", None)
        shape = getattr(vtype, "shape", None)
        self.dtype = numpy_dtype if isinstance(numpy_dtype, np.dtype) else None
        self.ndim = len(shape) if self.dtype is not None else -1
        static = self.dtype is not None and any(s is not None for s in shape)
        self.static_shape = tuple(shape) if static else None


class Function:
    """A compiled function: call it with input values, positionally or by name.

    Attributes
    ----------
    maker
        The :class:`~arignote.compile.function.FunctionMaker`; ``f.maker.fgraph`` is the
        rewritten graph.
    runner
        What runs the graph (the linker's runner: ``run``, ``fail``, ``free``,
        ``report_profile``).
    trust_input
        When True, positional arguments are passed on as given, without any check or
        conversion (the caller guarantees ndarrays of exactly the right dtype and shape).
    profile
        The :class:`~arignote.compile.profiling.ProfileStats`, when profiling.
    """

    def __init__(self, maker: Any, runner: Any, containers: list[Container]) -> None:
        self.maker = maker
        self.runner = runner
        self.input_storage = containers
        # shared generator -> the copy this function draws from (a JAX function: keys)
        self.generator_copies: dict[SharedVariable, SharedVariable] = {}
        self.name = maker.name
        self.profile = maker.profile
        self._setup_arguments(maker, containers)
        self._setup_results(maker, containers)
        self.trust_input = False
        when_native = getattr(runner, "when_native", None)
        if when_native is not None:  # tiered: the entry point calls native code once swapped in
            when_native(weakref.WeakMethod(self._rebuild_entry))

    def _rebuild_entry(self) -> None:
        self._entry = make_entry(self)

    @property
    def vm(self) -> StorageCall:
        """The storage-cell calling convention PyTensor code uses (see :class:`StorageCall`)."""
        return StorageCall(self)

    @property
    def output_storage(self) -> list[list]:
        """Cells receiving the outputs of ``f.vm()`` (one per graph output, updates included)."""
        cells = self.__dict__.get("_output_cells")
        if cells is None:
            cells = self.__dict__["_output_cells"] = [[None] for _ in self.maker.fgraph.outputs]
        return cells

    @property
    def order(self) -> list:
        """The Apply nodes in the order the runner runs them."""
        return self.runner.order

    def _setup_arguments(self, maker: Any, containers: list[Container]) -> None:
        self._explicit = [
            _Explicit(position, inp, c)
            for position, (inp, c) in enumerate(zip(maker.inputs, containers))
            if not inp.implicit
        ]
        self._n_args = len(self._explicit)
        self._n_inputs = len(maker.inputs)
        self._by_name: dict[str, int | None] = {}
        for index, e in enumerate(self._explicit):
            if e.name:
                # A name given to two inputs is ambiguous: neither may be passed by it.
                self._by_name[e.name] = None if e.name in self._by_name else index
        # Arguments the function may overwrite: copied when they alias another argument.
        destroyed = destroyed_inputs(maker.fgraph)
        graph_inputs = maker.fgraph.inputs
        self._overwritten = [
            index for index, e in enumerate(self._explicit) if graph_inputs[e.position] in destroyed
        ]
        # Values of the implicit inputs (shared variables) are read at each call.
        self._implicit = [
            (j, c.storage)
            for j, (inp, c) in enumerate(zip(maker.inputs, containers))
            if inp.implicit
        ]
        self._leading = [e.position for e in self._explicit] == list(range(self._n_args))
        # The positional fast path checks dtype/ndim only; it is taken when every argument is a
        # tensor without state (a failed check then leaves nothing half-changed).
        self._fast_specs = [(e.dtype, e.ndim) for e in self._explicit]
        self._fast_ok = (
            all(e.dtype is not None and not e.state for e in self._explicit)
            and not self._overwritten
            and self._leading
        )
        self._has_static = any(e.static_shape is not None for e in self._explicit)

    def _setup_results(self, maker: Any, containers: list[Container]) -> None:
        n_outputs = len(maker.outputs)
        update_inputs = [j for j, inp in enumerate(maker.inputs) if inp.update is not None]
        self._updates = [
            (containers[j].storage, n_outputs + k) for k, j in enumerate(update_inputs)
        ]
        self._n_outputs = n_outputs
        self._kind = maker.return_kind
        self._keys = maker.output_keys

    # -- calling ------------------------------------------------------------------------------

    #: ``f(...)`` calls the function's entry point: a function generated for its signature by
    #: :func:`make_entry` (the positional fast path, unrolled), falling back on
    #: ``_call_general`` for anything unusual. Reading it through a C-level getter costs no
    #: extra Python frame, and no class is made per function.
    __call__ = _EntryPoint(attrgetter("_entry"), doc="Call the compiled function.")

    @property
    def trust_input(self) -> bool:
        """Skip checking and converting positional arguments (the caller guarantees them)."""
        return self._trusted

    @trust_input.setter
    def trust_input(self, value: bool) -> None:
        self._trusted = bool(value)
        self._entry = make_entry(self)

    def _call_general(self, args: tuple, kwargs: dict) -> Any:
        values = self._bind(args, kwargs)
        if self._implicit or self._updates:
            return self._run_with_state(values)
        return self._package(self._run(values))

    def _run(self, values: list) -> list:
        runner = self.runner
        try:
            return runner.run(values)
        except Exception as err:
            runner.fail(err)
            raise  # unreachable: fail raises

    def _run_with_state(self, values: list) -> Any:
        """Run the whole call holding ``STATE_LOCK`` (see the module docstring)."""
        with STATE_LOCK:
            if not self._leading:
                values = self._in_graph_order(values)
            values += [None] * (self._n_inputs - len(values))
            for j, storage in self._implicit:
                values[j] = storage[0]
            outputs = self._run(values)
            self._apply_updates(outputs)
        return self._package(outputs)

    def _in_graph_order(self, values: list) -> list:
        ordered: list = [None] * self._n_inputs
        for e, value in zip(self._explicit, values):
            ordered[e.position] = value
        return ordered

    def _package(self, outputs: list) -> Any:
        if self._kind == "single":
            return outputs[0]
        results = outputs[: self._n_outputs] if self._updates else outputs
        if self._kind == "dict":
            return dict(zip(self._keys, results))
        return list(results)

    def _apply_updates(self, outputs: list) -> None:
        """Store every update's new value (all read before any is written: a swap works)."""
        for storage, index in self._updates:
            storage[0] = outputs[index]

    def _check_static_shapes(self, args: tuple) -> None:
        for e, arg in zip(self._explicit, args):
            if e.static_shape is not None and any(
                s is not None and s != n for s, n in zip(e.static_shape, arg.shape)
            ):
                self._check(e, arg)  # raises the descriptive error

    def _bind(self, args: tuple, kwargs: dict) -> list:
        """The explicit inputs' values from positional and keyword arguments: checked,
        converted, defaults and states filled in."""
        explicit = self._explicit
        if len(args) > len(explicit):
            raise TypeError(
                f"{self._signature()} takes {len(explicit)} argument"
                f"{'s' if len(explicit) != 1 else ''}, got {len(args)}"
            )
        values: list[Any] = [_MISSING] * len(explicit)
        values[: len(args)] = args
        for name, value in kwargs.items():
            index = self._by_name.get(name, _MISSING)
            if index is _MISSING:
                raise TypeError(f"{self._signature()} got an unexpected keyword argument {name!r}")
            if index is None:
                raise TypeError(
                    f"{self._signature()}: the name {name!r} belongs to several inputs; pass "
                    "them by position"
                )
            if values[index] is not _MISSING:
                raise TypeError(f"{self._signature()} got multiple values for argument {name!r}")
            values[index] = value
        checked = [self._check(e, v) for e, v in zip(explicit, values)]
        bound = [self._fill(e, value) for e, value in zip(explicit, checked)]
        if self._overwritten:
            self._unalias_overwritten(bound)
        if not self._leading:
            return self._in_graph_order(bound)
        return bound

    def _fill(self, e: _Explicit, value: Any) -> Any:
        if value is not _MISSING:
            if e.state:  # a given state replaces the stored one
                e.container.storage[0] = value
            return value
        if e.state:
            if e.container.storage[0] is None:
                raise TypeError(
                    f"{self._signature()} is missing the argument for input {self._describe(e)}"
                )
            return e.container.storage[0]
        # The function may overwrite a mutable input: give it a copy of the default.
        return copy.copy(e.default) if e.spec.mutable else e.default

    def _check(self, e: _Explicit, value: Any) -> Any:
        if value is _MISSING:
            if e.required:
                raise TypeError(
                    f"{self._signature()} is missing the argument for input {self._describe(e)}"
                )
            return value
        try:
            return e.container.type.filter(value, strict=e.strict, allow_downcast=e.allow_downcast)
        except (TypeError, ValueError) as err:
            raise type(err)(
                f"Bad argument for input {self._describe(e)} of {self._signature()}: expected "
                f"{e.container.type}, got {describe_value(value)}. {err}"
            ) from err

    def _unalias_overwritten(self, values: list) -> None:
        """Copy an argument the function overwrites if it shares memory with another one."""
        for index in self._overwritten:
            e, value = self._explicit[index], values[index]
            vtype = e.container.type
            if any(
                k != index and vtype.may_share_memory(value, other)
                for k, other in enumerate(values)
            ):
                values[index] = copy.copy(value)

    # -- describing ---------------------------------------------------------------------------

    def _describe(self, e: _Explicit) -> str:
        index = self._explicit.index(e)
        return f"{e.name!r} (position {index})" if e.name else f"at position {index}"

    def _signature(self) -> str:
        names = []
        for index, e in enumerate(self._explicit):
            name = e.name or f"<input {index}>"
            names.append(
                f"{name}=<state>" if e.state else (name if e.required else f"{name}=<default>")
            )
        return f"{self.name or 'function'}({', '.join(names)})"

    def __str__(self) -> str:
        return f"<arignote.Function {self._signature()}>"

    __repr__ = __str__

    # -- stored values ------------------------------------------------------------------------

    def _find(self, key: Any) -> _Explicit:
        if isinstance(key, int):
            return self._explicit[key]
        if isinstance(key, Variable):
            for e in self._explicit:
                if e.spec.variable is key:
                    return e
        elif isinstance(key, str):
            index = self._by_name.get(key, _MISSING)
            if index is None:
                raise KeyError(f"{self._signature()}: the name {key!r} belongs to several inputs")
            if index is not _MISSING:
                return self._explicit[index]
        raise KeyError(f"{self._signature()} has no input {key!r}")

    def __getitem__(self, key: Any) -> Any:
        """The stored value of an input (its default, or its state for inputs with updates)."""
        e = self._find(key)
        return e.default if not e.required and not e.state else e.container.storage[0]

    def __setitem__(self, key: Any, value: Any) -> None:
        """Change an input's default value, or its state for inputs with updates."""
        e = self._find(key)
        checked = self._check(e, value)
        with STATE_LOCK:
            e.container.storage[0] = checked
            if not e.required and not e.state:
                e.default = checked

    def __contains__(self, key: Any) -> bool:
        try:
            self._find(key)
        except (KeyError, IndexError):
            return False
        return True

    def get_shared(self) -> list[SharedVariable]:
        """The shared variables this function reads or updates."""
        implicit = [inp.variable for inp in self.maker.inputs if inp.implicit]
        return [self.generator_copies.get(var, var) for var in implicit]

    def free(self) -> None:
        """Drop whatever the runner keeps between calls (the VM keeps no values anyway)."""
        self.runner.free()

    # -- copying and pickling -----------------------------------------------------------------

    def copy(
        self,
        share_memory: bool = False,
        swap: dict | None = None,
        delete_updates: bool = False,
        name: str | None = None,
        profile: Any = None,
    ) -> Function:
        """A new function computing the same thing from its own copy of the compiled graph.

        Parameters
        ----------
        share_memory
            Accepted for compatibility and without effect: intermediate values live in each
            call's own frame, so there is no storage to share.
        swap
            ``{old_shared: new_shared}``: the copy reads and updates ``new_shared`` instead of
            ``old_shared`` (same type required).
        delete_updates
            The copy applies no updates (it leaves the shared variables unchanged).
        name
            Name of the copy (default: this function's name plus " copy").
        profile
            As for ``function``: True, a name or a ProfileStats to profile the copy.

        Notes
        -----
        Shared variables stay shared: the copy and the original read and update the same
        ones (unless swapped). Defaults are copied; the states of inputs with updates are
        copied too, so the two functions then evolve independently.
        """
        return _copy_function(self, share_memory, swap or {}, delete_updates, name, profile)

    def __copy__(self) -> Function:
        return self.copy()

    def __reduce__(self) -> tuple:
        return (_restore_function, (self.maker, self.input_storage, self.trust_input))


class StorageCall:
    """``f.vm()``: run the graph on the values in ``f.input_storage`` (containers, explicit
    inputs included) and store every output in ``f.output_storage``, as PyTensor's inner
    loops do. No update is applied. The cells are shared by every caller of this convention,
    so unlike ``f(...)`` it is not safe to use from several threads at once.
    """

    def __init__(self, fn: Function) -> None:
        self.fn = fn

    def __call__(self) -> None:
        fn = self.fn
        values = [container.storage[0] for container in fn.input_storage]
        for cell, value in zip(fn.output_storage, fn._run(values)):
            cell[0] = value


class ProfiledFunction(Function):
    """A Function that times whole calls and feeds its profile (its VM times the nodes)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return super().__call__(*args, **kwargs)
        finally:
            elapsed = time.perf_counter() - start
            with PROFILE_LOCK:
                self.profile.record_call(elapsed)
                self.runner.report_profile(self.profile)


_MISSING: Any = object()


def _restore_function(maker: Any, containers: list[Container], trust_input: bool) -> Function:
    fn = maker.create(containers)
    fn.trust_input = trust_input
    return fn


def _copy_function(
    fn: Function,
    share_memory: bool,
    swap: dict,
    delete_updates: bool,
    name: str | None,
    profile: Any,
) -> Function:
    maker = fn.maker
    for old, new in swap.items():
        _check_swap(maker, old, new)
    fgraph = _copy_graph(maker, delete_updates, swap)
    inputs, containers = [], []
    for inp, container in zip(maker.inputs, fn.input_storage):
        new_inp = copy.copy(inp)
        if delete_updates and inp.update is not None:
            new_inp.update, new_inp.mutable = None, False
        replacement = swap.get(inp.variable)
        if replacement is not None:
            new_inp.variable, new_inp.value = replacement, replacement.container
        inputs.append(new_inp)
        containers.append(_copied_container(new_inp, container))
    _rebind_updates(fgraph, inputs)
    if delete_updates:
        # Inputs that lost their update are no longer mutable: in-place ops of the compiled
        # graph that overwrote them must now overwrite copies.
        protect_inputs(fgraph, [inp.mutable for inp in inputs])
    new_maker = type(maker)(
        inputs,
        [Out(o.variable, o.borrow) for o in maker.outputs],
        maker.mode,
        accept_inplace=True,
        name=name if name is not None else (f"{fn.name} copy" if fn.name else None),
        profile=as_profile(profile, name or fn.name),
        output_keys=maker.output_keys,
        return_kind=maker.return_kind,
        fgraph=fgraph,
    )
    copied = new_maker.create(containers)
    copied.trust_input = fn.trust_input
    return copied


def _check_swap(maker: Any, old: Any, new: Any) -> None:
    if not isinstance(old, SharedVariable) or not isinstance(new, SharedVariable):
        raise TypeError(f"swap maps shared variables to shared variables, got {old!r}: {new!r}")
    if not any(inp.variable is old for inp in maker.inputs):
        raise ValueError(f"swap: shared variable {old} is not used by this function")
    if not old.type.in_same_class(new.type):
        raise TypeError(f"swap: {new} (type {new.type}) cannot replace {old} (type {old.type})")


def _copy_graph(maker: Any, delete_updates: bool, swap: dict) -> FunctionGraph:
    """A copy of the maker's rewritten graph, with swapped shared variables substituted."""
    old = maker.fgraph
    outputs = old.outputs[: len(maker.outputs)] if delete_updates else old.outputs
    memo = {
        var: swap[inp.variable].clone()
        for var, inp in zip(old.inputs, maker.inputs)
        if inp.variable in swap
    }
    equiv = clone_get_equiv(old.inputs, outputs, memo=memo)
    update_mapping = {} if delete_updates else dict(old.update_mapping or {})
    fgraph = FunctionGraph(
        [equiv[v] for v in old.inputs],
        [equiv[v] for v in outputs],
        clone=False,
        update_mapping=update_mapping,
    )
    return fgraph


def _rebind_updates(fgraph: FunctionGraph, inputs: list[In]) -> None:
    """Point the copied In objects' updates at the copied graph's update outputs."""
    reverse = {j: i for i, j in (fgraph.update_mapping or {}).items()}
    for j, inp in enumerate(inputs):
        if inp.update is not None:
            inp.update = fgraph.outputs[reverse[j]]


def _copied_container(inp: In, old: Container) -> Container:
    if inp.shared or isinstance(inp.value, Container):
        return inp.value if isinstance(inp.value, Container) else old
    return Container(
        old.type,
        [copy.deepcopy(old.storage[0])],
        strict=old.strict,
        allow_downcast=old.allow_downcast,
        name=old.name,
    )
