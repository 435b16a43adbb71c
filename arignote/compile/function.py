"""``function()``: compile a graph into a Python callable.

Compiling clones the user's graph into a FunctionGraph (so rewrites never touch the user's
variables), rewrites it with the mode's pipeline, makes sure no output aliases an input or
another output, and links it with the mode's linker.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from arignote.compile.io import In, Out
from arignote.compile.mode import Mode, get_mode
from arignote.compile.ops import deep_copy_op
from arignote.compile.pipeline import gc_paused
from arignote.config import config
from arignote.graph.basic import Constant, Variable, ancestors, clone_get_equiv
from arignote.graph.destroyhandler import DestroyHandler
from arignote.graph.features import InconsistencyError, ReplaceValidate
from arignote.graph.fg import FunctionGraph
from arignote.graph.rewriting.trace import RewriteTrace
from arignote.graph.shared import Container, SharedVariable


class UnusedInputError(ValueError):
    """An input of ``function`` is not needed to compute the outputs."""


# -- collecting the graph -------------------------------------------------------------------


def _normalize_inputs(inputs: Sequence[Any]) -> list[In]:
    if not isinstance(inputs, (list, tuple)):
        raise TypeError(f"function inputs must be a list of variables, got {type(inputs).__name__}")
    normalized = []
    for position, inp in enumerate(inputs):
        if isinstance(inp, In):
            normalized.append(inp)
            continue
        if isinstance(inp, Constant):
            raise TypeError(
                f"Input {position} ({inp}) is a Constant: constants cannot be function inputs, "
                "they carry their own value"
            )
        if not isinstance(inp, Variable):
            raise TypeError(
                f"Input {position} must be a Variable or In, got {type(inp).__name__} ({inp!r})"
            )
        normalized.append(In(inp))
    seen: dict = {}
    for position, inp in enumerate(normalized):
        if inp.variable in seen:
            raise ValueError(
                f"Variable {inp.variable} is given twice as input (positions "
                f"{seen[inp.variable]} and {position})"
            )
        seen[inp.variable] = position
    return normalized


def _normalize_outputs(outputs: Any) -> tuple[list[Out], str, list | None]:
    """The outputs as ``Out`` objects, how to return them ("single", "list", "dict"), dict keys."""
    if outputs is None:
        return [], "list", None
    if isinstance(outputs, Mapping):
        keys = list(outputs)
        return [_as_out(outputs[k], repr(k)) for k in keys], "dict", keys
    if isinstance(outputs, (list, tuple)):
        return [_as_out(o, str(i)) for i, o in enumerate(outputs)], "list", None
    return [_as_out(outputs, "0")], "single", None


def _as_out(output: Any, where: str) -> Out:
    if isinstance(output, Out):
        return output
    if isinstance(output, Variable):
        return Out(output)
    raise TypeError(
        f"Output {where} must be a Variable or Out, got {type(output).__name__} ({output!r})"
    )


def _normalize_updates(updates: Any) -> list[tuple[Variable, Variable]]:
    if updates is None:
        return []
    pairs = list(updates.items()) if isinstance(updates, Mapping) else list(updates)
    checked, seen = [], set()
    for pair in pairs:
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise TypeError(f"updates must be (shared variable, expression) pairs, got {pair!r}")
        target, expr = pair
        if not isinstance(target, SharedVariable):
            raise TypeError(f"Update target {target} is not a shared variable")
        if target in seen:
            raise ValueError(f"Shared variable {target} is updated twice")
        seen.add(target)
        if not isinstance(expr, Variable):
            expr = target.type.filter_variable(expr)
        try:
            expr = target.type.filter_variable(expr, allow_convert=True)
        except TypeError as err:
            raise TypeError(
                f"The update of {target} (type {target.type}) has type {expr.type}: {err}. Cast "
                "the expression (e.g. with .astype) or specify the shape of the shared variable"
            ) from err
        checked.append((target, expr))
    return checked


def _apply_givens(variables: list[Variable], givens: Any) -> list[Variable]:
    if not givens:
        return variables
    pairs = list(givens.items()) if isinstance(givens, Mapping) else list(givens)
    memo = {}
    for old, new in pairs:
        if not isinstance(old, Variable):
            raise TypeError(f"givens keys must be variables, got {old!r}")
        if not isinstance(new, Variable):
            new = old.type.filter_variable(new)
        memo[old] = old.type.filter_variable(new, allow_convert=True)
    equiv = clone_get_equiv(list(memo), variables, copy_inputs=False, copy_orphans=False, memo=memo)
    return [equiv[v] for v in variables]


def _implicit_shared(expressions: list[Variable], explicit: set) -> list[SharedVariable]:
    found = []
    for var in ancestors(expressions):
        if isinstance(var, SharedVariable) and var not in explicit and var not in found:
            found.append(var)
    return found


def _check_unused(inputs: list[In], outputs: list[Variable], policy: str) -> None:
    if policy == "ignore":
        return
    used = set(ancestors(outputs))
    for position, inp in enumerate(inputs):
        if inp.implicit or inp.variable in used or inp.update is not None:
            continue
        message = (
            f"Input {position} ({inp.variable}) of the function is not used to compute the "
            "outputs. Pass on_unused_input='warn' or 'ignore' to function() to accept this."
        )
        if policy == "raise":
            raise UnusedInputError(message)
        if policy == "warn":
            warnings.warn(message, stacklevel=4)
        else:
            raise ValueError(f"on_unused_input must be 'raise', 'warn' or 'ignore', got {policy!r}")


# -- protecting inputs and outputs ----------------------------------------------------------


def view_root(var: Variable) -> Variable:
    """The variable whose memory ``var`` may share, following views and in-place ops."""
    while var.owner is not None:
        op = var.owner.op
        aliases = dict(getattr(op, "view_map", {}))
        aliases.update(getattr(op, "destroy_map", {}))
        sources = aliases.get(var.index)
        if not sources:
            break
        var = var.owner.inputs[sources[0]]
    return var


def _alias_chain(var: Variable) -> list[Variable]:
    """``var`` and the variables whose memory it shares (through views and in-place ops)."""
    chain = [var]
    while var.owner is not None:
        op = var.owner.op
        aliases = {**getattr(op, "view_map", {}), **getattr(op, "destroy_map", {})}
        sources = aliases.get(var.index)
        if not sources:
            break
        var = var.owner.inputs[sources[0]]
        chain.append(var)
    return chain


def insert_deepcopy(fgraph: FunctionGraph, outputs: list[Out], inputs: list[In]) -> None:
    """Copy outputs that would alias an input, a constant or another output."""
    graph_inputs = dict(zip(fgraph.inputs, inputs))
    seen_roots: set = set()
    for i in range(len(fgraph.outputs)):
        out = fgraph.outputs[i]
        spec = outputs[i] if i < len(outputs) else None
        root = view_root(out)
        aliases_input = root in graph_inputs
        borrowed = (
            spec is not None and spec.borrow and (not aliases_input or graph_inputs[root].borrow)
        )
        needs_copy = (
            isinstance(root, Constant) or root in seen_roots or (aliases_input and not borrowed)
        )
        seen_roots.add(root)
        if needs_copy:
            fgraph.change_node_input("output", i, deep_copy_op(out), reason="insert_deepcopy")


# -- the compiled function ------------------------------------------------------------------


class FunctionMaker:
    """Builds the FunctionGraph of a function, rewrites and links it."""

    def __init__(
        self,
        inputs: list[In],
        outputs: list[Out],
        updates: list,
        mode: Mode,
        accept_inplace: bool = False,
        name: str | None = None,
        profile: Any = None,
        output_keys: list | None = None,
        return_kind: str = "list",
    ) -> None:
        self.inputs = inputs
        self.outputs = outputs
        self.mode = mode
        self.name = name
        self.profile = profile
        self.accept_inplace = accept_inplace
        self.output_keys = output_keys
        self.return_kind = return_kind
        self.update_targets = [inp for inp in inputs if inp.update is not None]
        graph_outputs = [o.variable for o in outputs] + [i.update for i in self.update_targets]
        fgraph = FunctionGraph([i.variable for i in inputs], graph_outputs, clone=True)
        self.fgraph = fgraph
        self._check_no_destroyers(accept_inplace)
        self.timings: dict[str, float] = {}
        self.rewrite_trace = RewriteTrace() if config.trace_rewrites else None
        self._rewrite()
        insert_deepcopy(fgraph, outputs, inputs)
        self.linker = mode.linker.accept(fgraph, no_recycling=self._no_recycling(), profile=profile)

    def _check_no_destroyers(self, accept_inplace: bool) -> None:
        for node in self.fgraph.apply_nodes:
            if getattr(node.op, "destroy_map", None) and not accept_inplace:
                raise TypeError(
                    f"The graph contains the in-place op {node.op} ({node}); pass "
                    "accept_inplace=True to function() to compile it"
                )

    def _rewrite(self) -> None:
        start = time.perf_counter()
        fgraph = self.fgraph
        fgraph.attach_feature(ReplaceValidate())
        # In-place rewrites may overwrite intermediate values and inputs declared mutable,
        # never other inputs or constants; the handler also checks in-place ops in the graph.
        mutable = [k for k, inp in enumerate(self.inputs) if inp.mutable]
        fgraph.attach_feature(DestroyHandler(mutable))
        if fgraph.destroy_handler.destroyers:
            try:
                fgraph.validate()
            except InconsistencyError as err:
                raise InconsistencyError(
                    f"The graph's in-place operations are unsafe: {err}"
                ) from err
        if self.rewrite_trace is not None:
            fgraph.attach_feature(self.rewrite_trace)
        self.mode.optimizer.rewrite(fgraph)
        self.timings["rewrite"] = time.perf_counter() - start

    def _no_recycling(self) -> list[Variable]:
        """Outputs returned to the user get fresh storage each call unless borrowed.

        So do the intermediate values an output is a view of (or was computed in place into):
        an op reusing such a value's buffer on the next call would overwrite a result the user
        still holds.
        """
        borrowed = {self.fgraph.outputs[i] for i, o in enumerate(self.outputs) if o.borrow}
        fresh: dict[Variable, None] = {}
        for out in self.fgraph.outputs:
            if out not in borrowed:
                fresh.update(dict.fromkeys(_alias_chain(out)))
        return list(fresh)

    def create(self, input_storage: list[Container] | None = None) -> Function:
        start = time.perf_counter()
        containers = input_storage or [self._container(inp) for inp in self.inputs]
        vm, _, output_cells, thunks, order = self.linker.make_thunk(
            input_storage=[c.storage for c in containers]
        )
        self.timings["link"] = time.perf_counter() - start
        return Function(self, vm, containers, output_cells, thunks, order)

    def _container(self, inp: In) -> Container:
        if isinstance(inp.variable, SharedVariable):
            return inp.variable.container
        container = Container(
            inp.variable,
            [None],
            strict=inp.strict,
            allow_downcast=inp.allow_downcast,
            name=inp.name,
        )
        if inp.value is not None:
            value = inp.value.value if isinstance(inp.value, Container) else inp.value
            container.value = value
        return container


class Function:
    """A compiled function: call it with input values, positionally or by name.

    ``f.maker.fgraph`` is the rewritten graph. ``f.trust_input = True`` skips the checking and
    conversion of arguments (the caller then guarantees exact types).
    """

    def __init__(
        self,
        maker: FunctionMaker,
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
        self.trust_input = False
        self.profile = maker.profile
        n_outputs = len(maker.outputs)
        self._explicit = [
            (position, c)
            for position, (inp, c) in enumerate(zip(maker.inputs, containers))
            if not inp.implicit
        ]
        self._explicit_cells = [c.storage for _, c in self._explicit]
        self._by_name = {
            maker.inputs[p].name: index
            for index, (p, _) in enumerate(self._explicit)
            if maker.inputs[p].name
        }
        self._defaults = [
            maker.inputs[p].value is not None or maker.inputs[p].update is not None
            for p, _ in self._explicit
        ]
        # Plain defaults (no update) are restored whenever the argument is omitted.
        self._restore = {
            index: c.storage[0]
            for index, (p, c) in enumerate(self._explicit)
            if maker.inputs[p].value is not None and maker.inputs[p].update is None
        }
        self._updates = [
            (containers[maker.inputs.index(inp)].storage, output_cells[n_outputs + k])
            for k, inp in enumerate(maker.update_targets)
        ]
        self._result_cells = output_cells[:n_outputs]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.trust_input and not kwargs:
            for cell, arg in zip(self._explicit_cells, args):
                cell[0] = arg
        else:
            self._load_arguments(args, kwargs)
        self.vm()
        results = [cell[0] for cell in self._result_cells]
        for target, source in self._updates:
            target[0] = source[0]
        kind = self.maker.return_kind
        if kind == "single":
            return results[0]
        if kind == "dict":
            return dict(zip(self.maker.output_keys, results))
        return results

    def _load_arguments(self, args: tuple, kwargs: dict) -> None:
        explicit = self._explicit
        if len(args) > len(explicit):
            raise TypeError(f"{self._signature()} takes {len(explicit)} arguments, got {len(args)}")
        given = [False] * len(explicit)
        for index, value in enumerate(args):
            self._set(index, value)
            given[index] = True
        for name, value in kwargs.items():
            index = self._by_name.get(name)
            if index is None:
                raise TypeError(f"{self._signature()} got an unexpected keyword argument {name!r}")
            if given[index]:
                raise TypeError(f"{self._signature()} got multiple values for argument {name!r}")
            self._set(index, value)
            given[index] = True
        for index, was_given in enumerate(given):
            if was_given:
                continue
            if not self._defaults[index]:
                position, _ = explicit[index]
                raise TypeError(
                    f"{self._signature()} is missing the argument for input "
                    f"{self._describe(position)}"
                )
            if index in self._restore:
                explicit[index][1].storage[0] = self._restore[index]

    def _set(self, index: int, value: Any) -> None:
        position, container = self._explicit[index]
        inp = self.maker.inputs[position]
        try:
            container.storage[0] = container.type.filter(
                value, strict=inp.strict, allow_downcast=inp.allow_downcast
            )
        except (TypeError, ValueError) as err:
            raise type(err)(
                f"Bad input argument for {self._describe(position)} of {self._signature()}: "
                f"expected {container.type}, got {_describe_value(value)}. {err}"
            ) from err

    def _describe(self, position: int) -> str:
        inp = self.maker.inputs[position]
        index = next(i for i, (p, _) in enumerate(self._explicit) if p == position)
        return f"{inp.name!r} (position {index})" if inp.name else f"at position {index}"

    def _signature(self) -> str:
        names = []
        for index, (position, _) in enumerate(self._explicit):
            inp = self.maker.inputs[position]
            name = inp.name or f"<input {index}>"
            names.append(f"{name}=<default>" if self._defaults[index] else name)
        return f"{self.name or 'function'}({', '.join(names)})"

    def __getitem__(self, name: str) -> Any:
        """The stored value of the input called ``name`` (inputs with defaults or state)."""
        index = self._by_name.get(name)
        if index is None:
            raise KeyError(f"{self._signature()} has no input named {name!r}")
        return self._explicit[index][1].value

    def __setitem__(self, name: str, value: Any) -> None:
        index = self._by_name.get(name)
        if index is None:
            raise KeyError(f"{self._signature()} has no input named {name!r}")
        self._set(index, value)

    def free(self) -> None:
        """Drop the intermediate values kept from the last call (frees their memory)."""
        keep = {id(c.storage) for c in self.input_storage}
        for var, cell in self.vm.storage_map.items():
            if id(cell) not in keep and not isinstance(var, Constant):
                cell[0] = None

    def __str__(self) -> str:
        return f"<arignote.Function {self._signature()}>"

    __repr__ = __str__


def _describe_value(value: Any) -> str:
    shape = getattr(value, "shape", None)
    dtype = getattr(value, "dtype", None)
    if shape is not None and dtype is not None:
        return f"{type(value).__name__} of dtype {dtype} and shape {shape}"
    return f"{type(value).__name__} ({value!r})"


def function(
    inputs: Sequence[Any],
    outputs: Any = None,
    mode: Any = None,
    updates: Any = None,
    givens: Any = None,
    no_default_updates: bool | Sequence = False,
    accept_inplace: bool = False,
    name: str | None = None,
    rebuild_strict: bool = True,
    allow_input_downcast: bool | None = None,
    profile: Any = None,
    on_unused_input: str | None = None,
    trust_input: bool = False,
) -> Function:
    """Compile a function from ``inputs`` to ``outputs``.

    ``outputs`` may be a variable (the function returns one value), a list, or a dict (the
    function returns a dict). ``updates`` lists ``(shared_variable, new_value_expression)``
    pairs applied, all together, after the outputs are computed; shared variables'
    ``default_update`` are added unless ``no_default_updates`` (True, or a list of variables).
    ``givens`` substitutes variables in the graph before compiling. Inputs may be variables or
    :class:`In` (defaults, names, mutability); outputs may be :class:`Out`.
    """
    ins = _normalize_inputs(inputs)
    outs, return_kind, keys = _normalize_outputs(outputs)
    update_pairs = _normalize_updates(updates)
    if allow_input_downcast is not None:
        for inp in ins:
            if inp.allow_downcast is None:
                inp.allow_downcast = allow_input_downcast
    expressions = _apply_givens([o.variable for o in outs] + [e for _, e in update_pairs], givens)
    for out, expr in zip(outs, expressions):
        out.variable = expr
    update_pairs = [(t, e) for (t, _), e in zip(update_pairs, expressions[len(outs) :])]
    explicit_vars = {inp.variable for inp in ins}
    ins = _add_shared_inputs(ins, expressions, explicit_vars, update_pairs, no_default_updates)
    _check_unused(
        ins, [o.variable for o in outs] + [e for _, e in update_pairs], on_unused_input or "raise"
    )
    with gc_paused():  # compiling big graphs makes the collector rescan them again and again
        maker = FunctionMaker(
            ins,
            outs,
            update_pairs,
            get_mode(mode),
            accept_inplace,
            name,
            profile,
            keys,
            return_kind,
        )
        fn = maker.create()
    fn.trust_input = trust_input
    return fn


def _add_shared_inputs(
    ins: list[In], expressions: list, explicit: set, update_pairs: list, no_default_updates: Any
) -> list[In]:
    updates = dict(update_pairs)
    for inp in ins:
        if inp.variable in updates:
            inp.update = updates.pop(inp.variable)
    skip_defaults = (
        set(no_default_updates) if isinstance(no_default_updates, (list, tuple)) else None
    )
    pending = list(expressions)
    while True:
        found = _implicit_shared(pending, explicit | {i.variable for i in ins})
        if not found:
            break
        pending = []
        for var in found:
            update = updates.pop(var, None)
            default = getattr(var, "default_update", None)
            use_default = not (
                no_default_updates is True or (skip_defaults and var in skip_defaults)
            )
            if update is None and default is not None and use_default:
                update = var.type.filter_variable(default, allow_convert=True)
                pending.append(update)
            ins.append(In(var, update=update, implicit=True, mutable=False))
    for target, expr in updates.items():  # updated but not used by any output
        ins.append(In(target, update=expr, implicit=True))
        extra = _implicit_shared([expr], {i.variable for i in ins})
        ins.extend(In(v, implicit=True) for v in extra)
    return ins
