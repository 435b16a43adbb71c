"""``Function``: the callable a compiled graph becomes.

A call binds the arguments to the input cells (checking and converting them), runs the VM,
reads the outputs, and then applies the updates, all at once. Everything a call needs is
computed when the function is created, and the common call (every argument given positionally,
as ndarrays of exactly the expected dtype and number of dimensions) takes a fast path that does
no more than compare each argument's type, dtype and ndim. ``f.trust_input = True`` skips even
that.

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
import time
from typing import Any

import numpy as np

from arignote.compile.aliasing import destroyed_inputs, protect_inputs
from arignote.compile.fastcall import fast_call
from arignote.compile.io import In, Out
from arignote.compile.profiling import as_profile
from arignote.graph.basic import Constant, Variable, clone_get_equiv
from arignote.graph.fg import FunctionGraph
from arignote.graph.shared import Container, SharedVariable, describe_value


class _Explicit:
    """What a call needs to know about one argument (an explicit input)."""

    __slots__ = (
        "allow_downcast",
        "cell",
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
        self.cell = container.storage
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
    trust_input
        When True, positional arguments are stored as given, without any check or conversion
        (the caller guarantees ndarrays of exactly the right dtype and shape).
    profile
        The :class:`~arignote.compile.profiling.ProfileStats`, when profiling.
    """

    def __init__(
        self,
        maker: Any,
        vm: Any,
        containers: list[Container],
        output_cells: list[list],
        thunks: list,
        order: list,
    ) -> None:
        self.maker = maker
        self.vm = vm
        self.input_storage = containers
        self.output_storage = output_cells
        self.thunks = thunks
        self.order = order
        self.name = maker.name
        self._trust_input = False
        self.profile = maker.profile
        self._setup(maker, containers, output_cells)
        self._install_fast_call()

    def _setup(self, maker: Any, containers: list[Container], output_cells: list[list]) -> None:
        self._setup_arguments(maker, containers)
        self._setup_results(maker, containers, output_cells)

    def _setup_arguments(self, maker: Any, containers: list[Container]) -> None:
        self._explicit = [
            _Explicit(position, inp, c)
            for position, (inp, c) in enumerate(zip(maker.inputs, containers))
            if not inp.implicit
        ]
        self._cells = [e.cell for e in self._explicit]
        self._n_args = len(self._explicit)
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
        # The positional fast path checks dtype/ndim only; it is taken when every argument is a
        # tensor without state (a failed check then leaves nothing half-changed).
        self._fast_specs = [(e.cell, e.dtype, e.ndim) for e in self._explicit]
        self._fast_ok = all(e.dtype is not None and not e.state for e in self._explicit) and not (
            self._overwritten
        )
        self._has_static = any(e.static_shape is not None for e in self._explicit)

    def _setup_results(
        self, maker: Any, containers: list[Container], output_cells: list[list]
    ) -> None:
        n_outputs = len(maker.outputs)
        update_inputs = [j for j, inp in enumerate(maker.inputs) if inp.update is not None]
        self._updates = [
            (containers[j].storage, output_cells[n_outputs + k])
            for k, j in enumerate(update_inputs)
        ]
        self._result_cells = output_cells[:n_outputs]
        self._kind = maker.return_kind
        self._keys = maker.output_keys
        self._single_cell = output_cells[0] if self._kind == "single" else None
        # Cells cleared after a call so that the function keeps no reference to arguments and
        # results (the VM may not recycle returned memory anyway).
        gc = getattr(self.vm, "allow_gc", True)
        self._clear_after = [e.cell for e in self._explicit if e.required]
        if gc:
            self._clear_after += [
                cell
                for cell, var in zip(output_cells, maker.fgraph.outputs)
                if var.owner is not None
            ]

    # -- calling ------------------------------------------------------------------------------

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # Functions usually get a generated ``__call__`` (see ``_install_fast_call``); this is
        # the general one, also the fallback of the generated one for unusual arguments.
        return self._call_general(args, kwargs)

    def _call_general(self, args: tuple, kwargs: dict) -> Any:
        try:
            self._bind_and_run(args, kwargs)
        except BaseException:
            self._clear()
            raise
        if self._single_cell is not None:
            results: Any = self._single_cell[0]
        else:
            results = [cell[0] for cell in self._result_cells]
            if self._kind == "dict":
                results = dict(zip(self._keys, results))
        if self._updates:
            self._apply_updates()
        self._clear()
        return results

    def _clear(self) -> None:
        """Drop the references to arguments and results (the function keeps none)."""
        for cell in self._clear_after:
            cell[0] = None

    def _bind_and_run(self, args: tuple, kwargs: dict) -> None:
        if kwargs or len(args) != self._n_args:
            self._bind_slow(args, kwargs)
        elif self._trust_input:
            for cell, arg in zip(self._cells, args):
                cell[0] = arg
        elif self._fast_ok:
            for (cell, dtype, ndim), arg in zip(self._fast_specs, args):
                if type(arg) is np.ndarray and arg.dtype is dtype and arg.ndim == ndim:
                    cell[0] = arg
                else:
                    self._bind_slow(args, kwargs)
                    break
            else:
                if self._has_static:
                    self._check_static_shapes(args)
        else:
            self._bind_slow(args, kwargs)
        self.vm()

    @property
    def trust_input(self) -> bool:
        """Skip checking and converting positional arguments (the caller guarantees them)."""
        return self._trust_input

    @trust_input.setter
    def trust_input(self, value: bool) -> None:
        self._trust_input = bool(value)
        if "_explicit" in self.__dict__:
            self._install_fast_call()

    def _install_fast_call(self) -> None:
        """Give this function a ``__call__`` generated for its signature (see ``fastcall``)."""
        call = fast_call(self)
        if call is None:
            return
        cls = self.__dict__.get("_own_class")
        if cls is None:
            cls = type(type(self).__name__, (type(self),), {"__module__": type(self).__module__})
            self.__dict__["_own_class"] = cls
            self.__class__ = cls
        cls.__call__ = call

    def _apply_updates(self) -> None:
        """Store every update's new value, reading them all before writing any (a swap works)."""
        updates = self._updates
        if len(updates) == 1:
            target, source = updates[0]
            target[0] = source[0]
            return
        values = [source[0] for _, source in updates]
        for (target, _), value in zip(updates, values):
            target[0] = value

    def _check_static_shapes(self, args: tuple) -> None:
        for e, arg in zip(self._explicit, args):
            if e.static_shape is not None and any(
                s is not None and s != n for s, n in zip(e.static_shape, arg.shape)
            ):
                self._set(e, arg)  # raises the descriptive error

    def _bind_slow(self, args: tuple, kwargs: dict) -> None:
        """Bind positional and keyword arguments: check, convert, apply defaults."""
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
        for e, value in zip(explicit, checked):
            if value is not _MISSING:
                e.cell[0] = value
            elif e.required or (e.state and e.cell[0] is None):
                raise TypeError(
                    f"{self._signature()} is missing the argument for input {self._describe(e)}"
                )
            elif not e.state:
                # The function may overwrite a mutable input: give it a copy of the default.
                e.cell[0] = copy.copy(e.default) if e.spec.mutable else e.default
        if self._overwritten:
            self._unalias_overwritten()

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

    def _set(self, e: _Explicit, value: Any) -> None:
        e.cell[0] = self._check(e, value)

    def _unalias_overwritten(self) -> None:
        """Copy an argument the function overwrites if it shares memory with another one."""
        for index in self._overwritten:
            e = self._explicit[index]
            value = e.cell[0]
            vtype = e.container.type
            for other in self._explicit:
                if other is not e and vtype.may_share_memory(value, other.cell[0]):
                    e.cell[0] = copy.copy(value)
                    break

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
        return e.default if not e.required and not e.state else e.cell[0]

    def __setitem__(self, key: Any, value: Any) -> None:
        """Change an input's default value, or its state for inputs with updates."""
        e = self._find(key)
        checked = self._check(e, value)
        e.cell[0] = checked
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
        return [inp.variable for inp in self.maker.inputs if inp.implicit]

    def free(self) -> None:
        """Drop every intermediate and output value kept from the last call (frees memory)."""
        inputs = {id(c.storage) for c in self.input_storage}
        for var, cell in self.vm.storage_map.items():
            if var.owner is not None and id(cell) not in inputs:
                cell[0] = None

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
            Share the storage of intermediate values with this function (saves memory; the
            two must then never run at the same time). Inputs and outputs are never shared.
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


class ProfiledFunction(Function):
    """A Function that times whole calls and feeds its profile (its VM times the nodes)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return super().__call__(*args, **kwargs)
        finally:
            self.profile.record_call(time.perf_counter() - start)
            update = getattr(self.vm, "update_profile", None)
            if update is not None:
                update(self.profile)


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
    fgraph, equiv = _copy_graph(maker, delete_updates, swap)
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
    storage_map = None
    if share_memory:
        boundary = set(maker.fgraph.inputs) | set(maker.fgraph.outputs)
        storage_map = {
            equiv[var]: cell
            for var, cell in fn.vm.storage_map.items()
            if var not in boundary and not isinstance(var, Constant) and var in equiv
        }
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
    copied = new_maker.create(containers, storage_map=storage_map)
    copied.trust_input = fn.trust_input
    return copied


def _check_swap(maker: Any, old: Any, new: Any) -> None:
    if not isinstance(old, SharedVariable) or not isinstance(new, SharedVariable):
        raise TypeError(f"swap maps shared variables to shared variables, got {old!r}: {new!r}")
    if not any(inp.variable is old for inp in maker.inputs):
        raise ValueError(f"swap: shared variable {old} is not used by this function")
    if not old.type.in_same_class(new.type):
        raise TypeError(f"swap: {new} (type {new.type}) cannot replace {old} (type {old.type})")


def _copy_graph(maker: Any, delete_updates: bool, swap: dict) -> tuple[FunctionGraph, dict]:
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
    return fgraph, equiv


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
