"""``function()``: compile a graph into a Python callable.

Compiling has two halves. :func:`function` collects what the function computes: it applies
``givens``, finds the shared variables the graph uses (adding their ``default_update`` unless
``no_default_updates``) and turns every input into an :class:`In`. :class:`FunctionMaker` then
clones the graph into a FunctionGraph (so rewrites never touch the user's variables), protects
the inputs that must not be overwritten, rewrites it with the mode's pipeline, makes sure no
output aliases an input or another output, and links it with the mode's linker.
:class:`~arignote.compile.compiled.Function` is the callable it creates.
"""

from __future__ import annotations

import copy
import time
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from arignote.compile.aliasing import insert_deepcopy, protect_inputs, reuse_pattern
from arignote.compile.compiled import Function, ProfiledFunction
from arignote.compile.io import In, Out, SymbolicInput, SymbolicOutput
from arignote.compile.mode import Mode, get_mode, linking_with
from arignote.compile.pickling import flat_maker_state, restore_maker_state
from arignote.compile.profiling import ProfileStats, as_profile
from arignote.config import config
from arignote.graph.basic import Constant, Variable, ancestors, clone_get_equiv
from arignote.graph.destroyhandler import DestroyHandler
from arignote.graph.features import InconsistencyError, ReplaceValidate
from arignote.graph.fg import FunctionGraph
from arignote.graph.rewriting.trace import RewriteTrace
from arignote.graph.shared import Container, SharedVariable, shared
from arignote.tensor.random.type import RandomGeneratorType


class UnusedInputError(ValueError):
    """An input of ``function`` is not needed to compute the outputs."""


# -- collecting the graph -------------------------------------------------------------------


def _normalize_inputs(inputs: Any, allow_input_downcast: bool | None) -> list[In]:
    if not isinstance(inputs, (list, tuple)):
        raise TypeError(f"function inputs must be a list of variables, got {type(inputs).__name__}")
    normalized = []
    for position, inp in enumerate(inputs):
        if isinstance(inp, SymbolicInput):
            inp = copy.copy(inp)  # never change the caller's In objects
        elif isinstance(inp, Constant):
            raise TypeError(
                f"Input {position} ({inp}) is a Constant: constants cannot be function inputs, "
                "they carry their own value"
            )
        elif isinstance(inp, Variable):
            inp = In(inp)
        else:
            raise TypeError(
                f"Input {position} must be a Variable or In, got {type(inp).__name__} ({inp!r})"
            )
        if isinstance(inp.variable, SharedVariable):
            raise TypeError(
                f"Input {position} ({inp.variable}) is a shared variable: shared variables are "
                "implicit inputs and cannot be arguments. Use givens to substitute a variable "
                "for it if it must be given at call time"
            )
        if inp.allow_downcast is None:
            inp.allow_downcast = allow_input_downcast
        normalized.append(inp)
    seen: dict = {}
    for position, inp in enumerate(normalized):
        if inp.variable in seen:
            raise ValueError(
                f"Variable {inp.variable} is given twice as input (positions "
                f"{seen[inp.variable]} and {position}): the second value would be ignored"
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
    if isinstance(output, SymbolicOutput):
        return Out(output.variable, output.borrow)
    if isinstance(output, Variable):
        return Out(output)
    raise TypeError(
        f"Output {where} must be a Variable or Out, got {type(output).__name__} ({output!r})"
    )


def _pairs(mapping: Any, what: str) -> list[tuple[Any, Any]]:
    if mapping is None:
        return []
    pairs = list(mapping.items()) if isinstance(mapping, Mapping) else list(mapping)
    for pair in pairs:
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            raise TypeError(f"{what} must be (variable, expression) pairs or a dict, got {pair!r}")
    return [tuple(pair) for pair in pairs]


def _normalize_updates(updates: Any) -> list[tuple[SharedVariable, Variable]]:
    checked: list[tuple[SharedVariable, Variable]] = []
    seen: set = set()
    for target, expr in _pairs(updates, "updates"):
        if not isinstance(target, SharedVariable):
            raise TypeError(f"Update target {target} is not a shared variable")
        if target in seen:
            raise ValueError(f"Shared variable {target} is updated twice")
        seen.add(target)
        checked.append((target, _update_expression(target, expr)))
    return checked


def _update_expression(target: SharedVariable, expr: Any) -> Variable:
    try:
        return target.type.filter_variable(expr, allow_convert=True)
    except (TypeError, ValueError) as err:
        raise TypeError(
            f"The update of {target} (type {target.type}) has type "
            f"{getattr(expr, 'type', type(expr).__name__)}: {err}. Cast the expression (e.g. "
            "with .astype) or give the shared variable a compatible shape"
        ) from err


def _givens_memo(givens: Any, explicit: set, strict: bool) -> dict:
    memo: dict = {}
    for old, new in _pairs(givens, "givens"):
        if not isinstance(old, Variable):
            raise TypeError(f"givens keys must be variables, got {old!r}")
        if old in explicit:  # RuntimeError: PyTensor's class for this mistake
            raise RuntimeError(
                f"givens replaces {old}, which is an input of the function: that has no effect. "
                f"Make a new input y and use givens={{{old}: g(y)}} instead"
            )
        if not isinstance(new, Variable):
            new = shared(new)
        if strict:
            try:
                new = old.type.filter_variable(new, allow_convert=True)
            except TypeError as err:
                raise TypeError(
                    f"givens: {new} (type {new.type}) cannot replace {old} (type {old.type}); "
                    "pass rebuild_strict=False to rebuild the graph with the new type"
                ) from err
        memo[old] = new
    for old, new in memo.items():
        depends = [k for k in memo if k in set(ancestors([new]))]
        if depends:
            raise ValueError(
                f"givens: the replacement of {old} depends on {depends[0]}, which is itself "
                "replaced; replacements must not depend on each other"
            )
    return memo


class _Rebuilder:
    """Applies the ``givens`` to expressions, sharing one clone map between them."""

    def __init__(self, memo: dict) -> None:
        self.memo = memo
        self.keys = list(memo)

    def __call__(self, exprs: list[Variable]) -> list[Variable]:
        if not self.memo or not exprs:
            return exprs
        equiv = clone_get_equiv(
            self.keys, exprs, copy_inputs=False, copy_orphans=False, memo=self.memo
        )
        return [equiv[e] for e in exprs]


def _shared_inputs(
    roots: list[Variable],
    updates: dict[SharedVariable, Variable],
    no_default_updates: Any,
    rebuild: _Rebuilder,
) -> list[In]:
    """In objects for the shared variables the graph uses, with their (default) updates."""
    skip = _default_update_exclusions(no_default_updates)
    found: list[SharedVariable] = []
    pending = list(roots) + list(updates.values())
    while pending:
        new_exprs = []
        for var in ancestors(pending):
            if not isinstance(var, SharedVariable) or var in found:
                continue
            found.append(var)
            default = var.default_update
            if var not in updates and default is not None and skip is not True and var not in skip:
                (expr,) = rebuild([_update_expression(var, default)])
                updates[var] = expr
                new_exprs.append(expr)
        pending = new_exprs
    for target in updates:  # updated but used by no output
        if target not in found:
            found.append(target)
    return [
        In(
            var,
            value=var.container,
            update=updates.get(var),
            mutable=var in updates,
            borrow=True,
            implicit=True,
            shared=True,
        )
        for var in found
    ]


def _default_update_exclusions(no_default_updates: Any) -> Any:
    if no_default_updates is True:
        return True
    if no_default_updates is False or no_default_updates is None:
        return set()
    if isinstance(no_default_updates, (list, tuple, set, frozenset)):
        return set(no_default_updates)
    raise TypeError(
        f"no_default_updates must be a bool or a list of shared variables, got "
        f"{no_default_updates!r}"
    )


def _check_unused(inputs: list[In], outputs: list[Variable], policy: str) -> None:
    if policy == "ignore":
        return
    if policy not in ("raise", "warn"):
        raise ValueError(f"on_unused_input must be 'raise', 'warn' or 'ignore', got {policy!r}")
    blockers = [i.variable for i in inputs]
    used = set(ancestors(outputs + [i.update for i in inputs if i.update is not None], blockers))
    for position, inp in enumerate(inputs):
        if inp.implicit or inp.variable in used or inp.update is not None:
            continue
        message = (
            f"Input {position} ({inp.variable}) of the function is not used to compute the "
            "outputs. Pass on_unused_input='warn' or 'ignore' to function() to accept this."
        )
        if policy == "raise":
            raise UnusedInputError(message)
        warnings.warn(message, stacklevel=4)


# -- the maker ------------------------------------------------------------------------------


class FunctionMaker:
    """Builds the FunctionGraph of a function, rewrites and links it, and creates Functions.

    Parameters
    ----------
    inputs, outputs
        ``In`` and ``Out`` specifications (implicit shared-variable inputs included).
    mode
        A Mode, a mode name, or None for ``config.mode``.
    accept_inplace
        Accept a graph that already contains in-place ops (they are made to overwrite copies
        of any input not declared mutable).
    fgraph
        An already prepared graph (used by ``Function.copy`` and unpickling): it is neither
        cloned nor rewritten.
    """

    def __init__(
        self,
        inputs: list[In],
        outputs: list[Out],
        mode: Any = None,
        accept_inplace: bool = False,
        name: str | None = None,
        profile: ProfileStats | None = None,
        output_keys: list | None = None,
        return_kind: str = "list",
        fgraph: FunctionGraph | None = None,
    ) -> None:
        self.inputs = list(inputs)
        self.outputs = list(outputs)
        self.mode: Mode = get_mode(mode)
        self.accept_inplace = accept_inplace
        self.name = name
        self.profile = profile
        self.output_keys = output_keys
        self.return_kind = return_kind
        self.timings: dict[str, float] = {}
        self.rewrite_trace: RewriteTrace | None = None
        if fgraph is None:
            self.fgraph = self._build_fgraph()
            self._prepare()
        else:
            self.fgraph = fgraph
            self._order_destroyers()
        self.linker = self._accept_linker()

    @property
    def update_targets(self) -> list[In]:
        return [inp for inp in self.inputs if inp.update is not None]

    def _build_fgraph(self) -> FunctionGraph:
        n_outputs = len(self.outputs)
        update_mapping = {}
        updates = []
        for j, inp in enumerate(self.inputs):
            if inp.update is not None:
                update_mapping[n_outputs + len(updates)] = j
                updates.append(inp.update)
        return FunctionGraph(
            [i.variable for i in self.inputs],
            [o.variable for o in self.outputs] + updates,
            clone=True,
            update_mapping=update_mapping,
        )

    def _prepare(self) -> None:
        """Check in-place ops, protect inputs, rewrite, and break unwanted aliasing."""
        fgraph = self.fgraph
        destroyers = [n for n in fgraph.apply_nodes if getattr(n.op, "destroy_map", None)]
        if destroyers and not self.accept_inplace:
            raise TypeError(
                f"The graph contains the in-place op {destroyers[0].op} ({destroyers[0]}); pass "
                "accept_inplace=True to function() to compile it"
            )
        mutable = [inp.mutable for inp in self.inputs]
        protect_inputs(fgraph, mutable)
        start = time.perf_counter()
        self._rewrite()
        # Rewrites may have introduced in-place ops: re-check the protection.
        protect_inputs(fgraph, mutable)
        insert_deepcopy(
            fgraph,
            [o.borrow for o in self.outputs] + [False] * len(self.update_targets),
            [i.borrow for i in self.inputs],
            [i.update is not None for i in self.inputs],
            len(self.outputs),
        )
        self.timings["rewrite"] = time.perf_counter() - start
        if self.profile is not None:
            self.profile.rewriting_time += self.timings["rewrite"]

    def _destroy_handler(self) -> DestroyHandler:
        # In-place ops may overwrite intermediate values and mutable inputs, never other inputs
        # or constants; the handler checks that, and orders every reader of a value before the
        # op overwriting it (the linker's toposort follows those orderings).
        return DestroyHandler([k for k, i in enumerate(self.inputs) if i.mutable])

    def _order_destroyers(self) -> None:
        """Give a prepared graph (copied or unpickled) its DestroyHandler back.

        Without it the linker's order ignores in-place ops: a node reading a value could run
        after the op that overwrites it.
        """
        if getattr(self.fgraph, "destroy_handler", None) is None:
            self.fgraph.attach_feature(self._destroy_handler())

    def _rewrite(self) -> None:
        fgraph = self.fgraph
        fgraph.attach_feature(ReplaceValidate())
        fgraph.attach_feature(self._destroy_handler())
        if fgraph.destroy_handler.destroyers:
            try:
                fgraph.validate()
            except InconsistencyError as err:
                raise InconsistencyError(
                    f"The graph's in-place operations are unsafe: {err}"
                ) from err
        if config.trace_rewrites:
            self.rewrite_trace = RewriteTrace()
            fgraph.attach_feature(self.rewrite_trace)
        for feature in self.mode.fgraph_features():
            fgraph.attach_feature(feature)
        self.mode.optimizer.rewrite(fgraph)

    def _no_recycling(self) -> set[Variable]:
        """Variables that may end up in a returned (non-borrowed) output or a shared value."""
        fgraph = self.fgraph
        kept = [
            out
            for i, out in enumerate(fgraph.outputs)
            if i >= len(self.outputs) or not self.outputs[i].borrow
        ]
        return reuse_pattern(fgraph, kept)

    def _accept_linker(self) -> Any:
        return self.mode.linker.accept(
            self.fgraph, no_recycling=sorted(self._no_recycling(), key=id), profile=self.profile
        )

    # -- creating functions ------------------------------------------------------------------

    def create(self, input_storage: list[Container] | None = None) -> Function:
        """A new Function over this graph, with the given input containers (or fresh ones)."""
        start = time.perf_counter()
        containers = list(input_storage or [self._container(inp) for inp in self.inputs])
        copies = self._copy_generators(containers)
        with linking_with(self.mode, self.profile):
            runner = self.linker.make_runner()
        self.timings["link"] = time.perf_counter() - start
        if self.profile is not None:
            self.profile.linker_time += self.timings["link"]
            self.profile.nb_nodes = len(runner.order)
        function_class = Function if self.profile is None else ProfiledFunction
        created = function_class(self, runner, containers)
        created.generator_copies.update(copies)
        return created

    def _copy_generators(self, containers: list[Container]) -> dict:
        """For a linker that ``copies_shared_generators``: each shared generator's container
        in ``containers`` replaced by a copy's; returns the copies by shared variable."""
        copies = {}
        for k, inp in enumerate(self.inputs):
            if self._copies_generator(inp) and containers[k] is inp.variable.container:
                value = copy.deepcopy(inp.variable.get_value(borrow=True))
                copies[inp.variable] = shared(value, name=inp.variable.name)
                containers[k] = copies[inp.variable].container
        if copies:
            warnings.warn(
                f"The shared random generators [{', '.join(map(str, copies))}] are not updated "
                f"by this function ({self.linker}): it draws from a copy of each (its "
                "get_shared() returns the copies)",
                UserWarning,
                stacklevel=4,
            )
        return copies

    def _copies_generator(self, inp: In) -> bool:
        return (
            self.linker.copies_shared_generators
            and inp.shared
            and isinstance(inp.variable.type, RandomGeneratorType)
        )

    def _container(self, inp: In) -> Container:
        if isinstance(inp.value, Container):
            return inp.value
        container = Container(
            inp.variable,
            [None],
            strict=inp.strict,
            allow_downcast=inp.allow_downcast,
            name=inp.name,
        )
        if inp.value is not None:
            try:
                container.value = inp.value
            except (TypeError, ValueError) as err:
                raise type(err)(
                    f"The default value of input {inp.name or inp.variable} does not fit its "
                    f"type {inp.variable.type}: {err}"
                ) from err
        return container

    def __getstate__(self) -> dict:
        # The graph is saved flat (deep graphs would exhaust pickle's recursion); the linker
        # holds thunks (closures) and is rebuilt from the graph when unpickled, without
        # rewriting the graph again.
        return flat_maker_state(self)

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(restore_maker_state(state))
        self._order_destroyers()
        self.linker = self._accept_linker()


def function(
    inputs: Sequence[Any],
    outputs: Any = None,
    mode: Any = None,
    updates: Any = None,
    givens: Any = None,
    no_default_updates: Any = False,
    accept_inplace: bool = False,
    name: str | None = None,
    rebuild_strict: bool = True,
    allow_input_downcast: bool | None = None,
    profile: Any = None,
    on_unused_input: str | None = None,
    trust_input: bool = False,
) -> Function:
    """Compile a function from ``inputs`` to ``outputs``.

    Parameters
    ----------
    inputs
        Variables or :class:`In` objects, the arguments of the function in order. Shared
        variables are not arguments: the function finds them in the graph.
    outputs
        A variable (the function returns one value), a list (it returns a list), a dict (it
        returns a dict with the same keys), or None; :class:`Out` objects are accepted.
    mode
        A :class:`Mode`, a mode name ("FAST_RUN", "FAST_COMPILE", "DebugMode",
        "NanGuardMode"...), or None for ``config.mode``.
    updates
        ``(shared_variable, expression)`` pairs (or a dict). After the outputs are computed, each
        shared variable takes the value of its expression, all at once: every expression sees
        the values from before the call, so ``[(a, b), (b, a)]`` swaps.
    givens
        ``(variable, replacement)`` pairs substituted in the graph before compiling. A
        replacement that is not a variable becomes a shared variable.
    no_default_updates
        True, or a list of shared variables whose ``default_update`` is not applied.
    accept_inplace
        Accept in-place ops already in the graph.
    name
        Name of the function (error messages, profiles).
    rebuild_strict
        Replacements from ``givens`` must fit the type of what they replace; if False, the
        graph is rebuilt with their types.
    allow_input_downcast
        Accept argument values that must be cast with loss of precision (None: only Python
        floats to floatX).
    profile
        True, a name, or a :class:`ProfileStats` to collect timings (None: ``config.profile``).
    on_unused_input
        "raise", "warn" or "ignore" an input the outputs do not depend on (None:
        ``config.on_unused_input``).
    trust_input
        Skip the checking and conversion of arguments (``f.trust_input`` may be changed later);
        the caller then guarantees values of exactly the right types.

    Returns
    -------
    Function
        The compiled callable.
    """
    profile_stats = as_profile(config.profile if profile is None else profile, name)
    ins = _normalize_inputs(inputs, allow_input_downcast)
    outs, return_kind, keys = _normalize_outputs(outputs)
    explicit = {inp.variable for inp in ins}
    rebuild = _Rebuilder(_givens_memo(givens, explicit, rebuild_strict))
    update_pairs = _normalize_updates(updates)
    own_updates = [inp for inp in ins if inp.update is not None]
    exprs = rebuild(
        [o.variable for o in outs]
        + [e for _, e in update_pairs]
        + [inp.update for inp in own_updates]
    )
    for out, expr in zip(outs, exprs):
        out.variable = expr
    rest = exprs[len(outs) :]
    updates_by_target = dict(zip([t for t, _ in update_pairs], rest[: len(update_pairs)]))
    for inp, expr in zip(own_updates, rest[len(update_pairs) :]):
        inp.update = expr
    roots = [o.variable for o in outs] + [inp.update for inp in own_updates]
    ins += _shared_inputs(roots, updates_by_target, no_default_updates, rebuild)
    _check_unused(ins, [o.variable for o in outs], on_unused_input or config.on_unused_input)
    maker = FunctionMaker(ins, outs, mode, accept_inplace, name, profile_stats, keys, return_kind)
    fn = maker.create()
    fn.trust_input = trust_input
    return fn
