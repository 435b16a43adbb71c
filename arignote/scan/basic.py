"""``scan``: loops written as a Python step function, built into one :class:`Scan` node.

The arguments follow Aesara/PyTensor's ``scan``: ``fn`` receives, in order, the taps of every
sequence, the taps of every fed-back output, then the non-sequences; it returns its outputs
(in the order of ``outputs_info``), optionally an updates dictionary for shared variables and
an :class:`~arignote.scan.utils.until` condition.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import reduce
from typing import Any

import numpy as np

from arignote.graph.basic import Constant, Variable, graph_inputs
from arignote.graph.fg import MissingInputError
from arignote.graph.replace import clone_replace
from arignote.graph.shared import SharedVariable
from arignote.scan.op import Scan, ScanInfo
from arignote.scan.utils import until
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.math import cast, minimum
from arignote.tensor.shape import shape_padleft
from arignote.tensor.type import TensorType


def _as_list(x: Any) -> list:
    if x is None:
        return []
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _as_variable(x: Any) -> Variable:
    return x if isinstance(x, Variable) else as_tensor_variable(x)


def _serial() -> int:
    """The creation number the next variable will have (to tell variables made by ``fn``)."""
    return int(TensorType("int8", shape=())().auto_name[5:])


def _created_since(var: Variable, serial: int) -> bool:
    return int(var.auto_name[5:]) > serial


def _made_by_step(update: Variable | None, serial: int) -> bool:
    """Whether a default update is a variable the step function made (None: there is none)."""
    return update is not None and update.owner is not None and _created_since(update, serial)


def _tap_name(base: Variable, k: int) -> str | None:
    if getattr(base, "name", None) is None:
        return None
    return f"{base.name}[t]" if k == 0 else f"{base.name}[t{k:+d}]"


# -- normalising the arguments ---------------------------------------------------------------


def _sequence_spec(seq: Any) -> tuple[Variable, list[int]]:
    if isinstance(seq, dict):
        taps = seq.get("taps")
        taps = [0] if taps is None else [int(k) for k in _as_list(taps)]
        return _as_variable(seq["input"]), taps
    return _as_variable(seq), [0]


@dataclass
class _Output:
    """One entry of ``outputs_info``: mapped (no initial value), traced, or untraced."""

    initial: Variable | None = None
    taps: list[int] = field(default_factory=list)

    @property
    def kind(self) -> str:
        if self.initial is None:
            return "mapped"
        return "traced" if isinstance(self.initial.type, TensorType) else "untraced"


def _output_spec(i: int, info: Any) -> _Output:
    if info is None:
        return _Output()
    if not isinstance(info, dict):
        return _Output(_as_variable(info), [-1])
    unexpected = set(info) - {"initial", "taps", "inplace"}
    if unexpected:
        raise ValueError(f"These keys were unexpected in Scan outputs_info[{i}]: {unexpected}")
    initial, taps = info.get("initial"), info.get("taps")
    if initial is None:
        if taps is not None:
            raise ValueError(
                "If you are using slices of an output you need to provide an initial state "
                f"for it: {info}"
            )
        return _Output()
    taps = [-1] if taps is None else [int(k) for k in _as_list(taps)]
    if len(set(taps)) != len(taps):
        raise ValueError(f"All the taps must be different in `outputs_info`: {info}")
    if any(k >= 0 for k in taps):
        raise ValueError(f"All the tap values must be smaller than 0: {info}")
    return _Output(_as_variable(initial), taps)


def _split_return(result: Any) -> tuple[Variable | None, list, dict]:
    """``(condition, outputs, updates)`` from what ``fn`` returned."""
    if isinstance(result, until):
        return result.condition, [], {}
    if isinstance(result, dict):
        return None, [], dict(result)
    if _is_outputs(result):
        return None, [_as_variable(o) for o in _as_list(result)], {}
    if isinstance(result, (list, tuple)) and 2 <= len(result) <= 3:
        condition, outputs, updates = None, None, None
        for part in result:
            if isinstance(part, until) and condition is None:
                condition = part.condition
            elif _is_updates(part) and updates is None:
                updates = dict(part)
            elif _is_outputs(part) and outputs is None:
                outputs = [_as_variable(o) for o in _as_list(part)]
            else:
                break
        else:
            return condition, outputs or [], updates or {}
    raise ValueError(
        "The step function of scan must return its outputs (a variable or a list of them), "
        "optionally with an updates dictionary and an `until` condition, in a tuple such as "
        f"(outputs, updates, until(cond)); it returned {result!r}"
    )


def _is_outputs(x: Any) -> bool:
    if isinstance(x, (Variable, np.ndarray, int, float, np.number)):
        return True
    return isinstance(x, (list, tuple)) and all(
        isinstance(o, (Variable, np.ndarray, int, float, np.number)) for o in x
    )


def _is_updates(x: Any) -> bool:
    if isinstance(x, dict):
        return True
    return (
        isinstance(x, (list, tuple))
        and len(x) > 0
        and all(
            isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], SharedVariable) for p in x
        )
    )


# -- the front end ---------------------------------------------------------------------------


class _Builder:
    """Collects the parts of the Scan node while ``scan`` reads its arguments."""

    def __init__(self) -> None:
        self.outer_seqs: list[Variable] = []
        self.rows: list[Variable] = []
        self.traced: list[tuple[_Output, Variable, list[Variable], Any]] = []
        self.untraced: list[tuple[Variable, Variable, Any]] = []
        self.mapped: list[Any] = []


def _sequences(specs: list, go_backwards: bool, b: _Builder) -> None:
    for seq, taps in specs:
        low, high = min(min(taps), 0), max(max(taps), 0)
        for k in taps:
            end = -(high - k) if high != k else None
            sliced = seq[k - low : end] if (k - low, end) != (0, None) else seq
            if go_backwards:
                sliced = sliced[::-1]
            if not isinstance(seq.type, TensorType) or seq.type.ndim == 0:
                raise TypeError(
                    "scan: sequences must be tensors of 1 or more dimensions, got "
                    f"{seq} ({seq.type})"
                )
            row = TensorType(seq.type.dtype, shape=seq.type.shape[1:])()
            row.name = _tap_name(seq, k)
            b.outer_seqs.append(sliced)
            b.rows.append(row)


def _count_steps(n_steps: Any, b: _Builder) -> Variable:
    if n_steps is not None:
        steps = as_tensor_variable(n_steps)
        if steps.type.dtype not in (
            "int8",
            "int16",
            "int32",
            "int64",
            "uint8",
            "uint16",
            "uint32",
            "uint64",
        ):
            raise ValueError(f" n_steps must be an int. dtype provided is {steps.type.dtype}")
        return cast(steps, "int64")
    if not b.outer_seqs:
        raise ValueError(
            "No information about the number of steps provided. Either provide a value for "
            "n_steps argument of scan or provide an input sequence."
        )
    return reduce(minimum, [s.shape[0] for s in b.outer_seqs])


def _feedback_args(specs: list[_Output]) -> tuple[list[list[Variable]], list[Variable]]:
    """The variables ``fn`` receives for each output's taps, and the outer initial rows."""
    per_output, outer = [], []
    for spec in specs:
        if spec.kind == "mapped":
            per_output.append([])
            outer.append(None)
        elif spec.kind == "untraced":
            if spec.taps != [-1]:
                raise ValueError(f"scan: {spec.initial} ({spec.initial.type}) can only use tap -1")
            placeholder = spec.initial.type()
            placeholder.name = _tap_name(spec.initial, -1)
            per_output.append([placeholder])
            outer.append(spec.initial)
        else:
            lag = -min(spec.taps)
            init = spec.initial
            rows = shape_padleft(init) if spec.taps == [-1] else init[:lag]
            row_type = TensorType(
                init.type.dtype, shape=init.type.shape[1:] if spec.taps != [-1] else init.type.shape
            )
            taps = []
            for k in spec.taps:
                placeholder = row_type()
                placeholder.name = _tap_name(init, k)
                taps.append(placeholder)
            per_output.append(taps)
            outer.append(rows)
    return per_output, outer


def _check_arity(fn: Callable, args: list) -> None:
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return
    try:
        signature.bind(*args)
    except TypeError as err:
        raise TypeError(
            f"scan calls its step function with {len(args)} arguments (the taps of each "
            "sequence, then the taps of each output given an initial value, then the "
            f"non-sequences: {[a.name or a for a in args]}), which {fn} does not accept: {err}"
        ) from err


def scan(
    fn: Callable,
    sequences: Any = None,
    outputs_info: Any = None,
    non_sequences: Any = None,
    n_steps: Any = None,
    truncate_gradient: int = -1,
    go_backwards: bool = False,
    mode: Any = None,
    name: str | None = None,
    profile: bool = False,
    allow_gc: bool | None = None,
    strict: bool = False,
    return_list: bool = False,
    return_updates: bool = True,
) -> Any:
    """Build a loop: apply ``fn`` step by step along sequences and fed-back outputs.

    Parameters
    ----------
    fn : callable
        Builds one step. It receives, in this order: for each sequence, its slices at the
        sequence's taps; for each output with an initial value, its previous values at the
        output's taps; then the ``non_sequences``. It returns the new values of the outputs
        (one per entry of ``outputs_info``), optionally with a dictionary of updates for shared
        variables, and optionally an :class:`~arignote.scan.utils.until` condition.
    sequences : variable, dict or list of them
        What to iterate over, along the first dimension. ``dict(input=x, taps=[-1, 0, 2])``
        passes ``x[t-1], x[t], x[t+2]`` at step ``t``; a plain variable means taps ``[0]``.
    outputs_info : None, variable, dict or list of them
        For each output: None (not fed back), its initial value (fed back as ``y[t-1]``), or
        ``dict(initial=y0, taps=[-2, -1])`` where ``y0`` holds ``-min(taps)`` initial rows.
        A non-tensor initial value (a random generator) is fed back and only its final value
        returned.
    non_sequences : variable or list of them
        Passed unchanged to every step. Variables ``fn`` uses without listing them (shared
        variables included) are found and passed automatically.
    n_steps : int or integer scalar, optional
        Number of steps; without it, the length of the shortest sequence. Sequences must have
        at least ``n_steps`` rows (checked when the loop runs).
    truncate_gradient : int
        Number of steps back-propagation goes back through (-1: all).
    go_backwards : bool
        Iterate over the sequences from their end.
    mode
        Mode of the inner graph (None: the mode of the function being compiled).
    name : str, optional
        Name of the loop, shown by printing and profiling.
    profile, allow_gc
        Accepted for compatibility; the inner graph is profiled and collected like the outer
        one.
    strict : bool
        Require every variable ``fn`` uses (shared variables included) to be passed in
        ``sequences``, ``outputs_info`` or ``non_sequences``.
    return_list : bool
        Always return a list of outputs, even for a single one.
    return_updates : bool
        Return ``(outputs, updates)`` (the default), or the outputs only (then no shared
        variable may be updated by the loop).

    Returns
    -------
    outputs
        One variable per output (a list when there are several, or ``return_list``; None when
        there are none): traced and mapped outputs hold one row per step; untraced ones their
        final value.
    updates : dict
        ``{shared variable: its value after the loop}``, to give to ``function(updates=...)``.
    """
    b = _Builder()
    _sequences([_sequence_spec(s) for s in _as_list(sequences)], go_backwards, b)
    steps = _count_steps(n_steps, b)
    specs = [_output_spec(i, o) for i, o in enumerate(_as_list(outputs_info))]
    tap_args, outer_inits = _feedback_args(specs)
    non_seqs = [_as_variable(v) for v in _as_list(non_sequences)]
    args = b.rows + [a for taps in tap_args for a in taps] + non_seqs
    _check_arity(fn, args)
    serial = _serial()
    condition, outputs, updates = _split_return(fn(*args))
    if not specs:
        specs = [_Output() for _ in outputs]
        tap_args, outer_inits = [[] for _ in outputs], [None for _ in outputs]
    if len(outputs) != len(specs):
        raise ValueError(
            f"The step function returned {len(outputs)} outputs but outputs_info has "
            f"{len(specs)} entries. Please provide None as outputs_info for any output that "
            "does not feed back into scan (i.e. it behaves like a map)"
        )
    outputs = [_check_output(i, spec, o) for i, (spec, o) in enumerate(zip(specs, outputs))]
    state = _Loop(b, specs, tap_args, outer_inits, outputs, non_seqs, condition)
    state.collect_shared_updates(updates, serial)
    state.collect_free_inputs(strict, set(non_seqs))
    op, outer_inputs = state.build(truncate_gradient, mode, name)
    node_outputs = op(steps, *outer_inputs, return_list=True)
    results, update_map = state.results(node_outputs)
    if not return_list and len(results) == 1:
        results = results[0]
    elif not results:
        results = None
    if not return_updates:
        if update_map:
            raise ValueError(
                f"return_updates=False but Scan produced updates {update_map}. Make sure to use "
                "outputs_info to handle all recurrent states, and not rely on shared variable "
                "updates."
            )
        return results
    return results, update_map


def _check_output(i: int, spec: _Output, out: Variable) -> Variable:
    """The step's output ``i``, checked against (and converted to) its initial value's type
    (a mismatch is a ValueError, as in PyTensor)."""
    if spec.kind == "mapped":
        return out
    expected = spec.initial.type
    if spec.kind == "traced" and spec.taps != [-1]:
        expected = TensorType(expected.dtype, shape=expected.shape[1:])
    if spec.kind == "untraced":
        if out.type != expected:
            raise ValueError(
                f"The step function's output {i} ({out}) has type {out.type}, but its initial "
                f"value in outputs_info has type {expected}; they must be the same"
            )
        return out
    if (
        not isinstance(out.type, TensorType)
        or out.type.dtype != expected.dtype
        or out.type.ndim != expected.ndim
    ):
        raise ValueError(
            f"The step function's output {i} ({out}) has type {out.type}, but its initial value "
            f"in outputs_info ({spec.initial}) has rows of type {expected}; they must have the "
            "same dtype and number of dimensions (cast the initial value or the output)"
        )
    return expected.filter_variable(out, allow_convert=True) if out.type != expected else out


class _Loop:
    """The pieces of one ``scan`` call, assembled into a Scan node."""

    def __init__(self, b, specs, tap_args, outer_inits, outputs, non_seqs, condition) -> None:
        self.b, self.specs, self.condition = b, specs, condition
        # one inner input per distinct variable: the step graph refers to the variable itself,
        # so a non-sequence given twice is one input of the loop (PyTensor accepts repeats)
        self.non_seqs = list(dict.fromkeys(v for v in non_seqs if not isinstance(v, Constant)))
        self.traced = [
            (j, tap_args[j], outer_inits[j], outputs[j])
            for j, s in enumerate(specs)
            if s.kind == "traced"
        ]
        self.mapped = [(j, outputs[j]) for j, s in enumerate(specs) if s.kind == "mapped"]
        self.untraced = [
            (j, tap_args[j][0], outer_inits[j], outputs[j])
            for j, s in enumerate(specs)
            if s.kind == "untraced"
        ]
        self.shared_traced: list[SharedVariable] = []
        self.shared_untraced: list[SharedVariable] = []
        self.replace: dict[Variable, Variable] = {}

    def _graphs(self) -> list[Variable]:
        outs = [o for *_, o in self.traced] + [o for _, o in self.mapped]
        outs += [o for *_, o in self.untraced]
        return outs + ([self.condition] if self.condition is not None else [])

    def collect_shared_updates(self, updates: dict, serial: int) -> None:
        """Shared variables updated in the loop become fed-back states: those in ``updates``
        and those created by ``fn`` with a default update (random generators of its draws).

        A generator made before and given to a draw in ``fn`` as ``rng=`` got the step's next
        state as default update, a variable of the step graph that means nothing outside it:
        it is dropped (the loop's update, if ``updates`` has one, advances the generator;
        without one the generator is a non-sequence and every step draws the same numbers,
        as in PyTensor)."""
        pending = dict(updates)
        for var in graph_inputs(self._graphs() + list(pending.values())):
            if not isinstance(var, SharedVariable) or var.default_update is None:
                continue
            if _created_since(var, serial):
                pending.setdefault(var, var.default_update)
            elif not _made_by_step(var.default_update, serial):
                continue
            var.default_update = None  # the loop updates it now, not each call
        for var, update in pending.items():
            placeholder = var.type()
            placeholder.name = f"{var.name}_copy" if var.name else None
            self.replace[var] = placeholder
            if isinstance(var.type, TensorType):
                update = var.type.filter_variable(update, allow_convert=True)
                self.traced.append((None, [placeholder], shape_padleft(var), update))
                self.shared_traced.append(var)
            else:
                self.untraced.append((None, placeholder, var, update))
                self.shared_untraced.append(var)

    def collect_free_inputs(self, strict: bool, given: set) -> None:
        """Variables the step uses without receiving them become non-sequences."""
        known = set(self.b.rows) | set(self.replace) | set(self.non_seqs)
        for _, taps, _, _ in self.traced:
            known.update(taps)
        known.update(p for _, p, _, _ in self.untraced)
        for var in graph_inputs(self._graphs(), blockers=known):
            if var in known or isinstance(var, Constant) or var.owner is not None:
                continue
            if strict and var not in given:
                raise MissingInputError(
                    f"scan(strict=True): the step function uses {var} ({var.type}), which is "
                    "not given in sequences, outputs_info or non_sequences"
                )
            self.non_seqs.append(var)
            known.add(var)
        # a shared variable updated by the loop is a state: the step reads it as the state's
        # placeholder, not as a non-sequence too (one inner input per variable)
        states = {*self.shared_traced, *self.shared_untraced}
        self.non_seqs = [v for v in self.non_seqs if v not in states]
        for var in self.non_seqs:
            placeholder = var.type()
            placeholder.name = f"{var.name}_copy" if var.name else None
            self.replace.setdefault(var, placeholder)

    def build(self, truncate_gradient: int, mode: Any, name: str | None) -> tuple[Scan, list]:
        taps = [tuple(self.specs[j].taps) if j is not None else (-1,) for j, *_ in self.traced]
        info = ScanInfo(
            n_seqs=len(self.b.rows),
            traced_taps=tuple(taps),
            n_mapped=len(self.mapped),
            n_untraced=len(self.untraced),
            n_nonseqs=len(self.non_seqs),
            as_while=self.condition is not None,
        )
        inner_inputs = list(self.b.rows)
        for _, tap_vars, _, _ in self.traced:
            inner_inputs += tap_vars
        inner_inputs += [p for _, p, _, _ in self.untraced]
        inner_inputs += [self.replace[v] for v in self.non_seqs]
        inner_outputs = (
            clone_replace(self._graphs(), replace=self.replace) if self._graphs() else []
        )
        op = Scan(inner_inputs, inner_outputs, info, truncate_gradient, mode=mode, name=name)
        outer = list(self.b.outer_seqs) + [init for _, _, init, _ in self.traced]
        outer += [init for _, _, init, _ in self.untraced] + list(self.non_seqs)
        return op, outer

    def results(self, node_outputs: list) -> tuple[list, dict]:
        n_traced, n_mapped = len(self.traced), len(self.mapped)
        by_position: dict[int, Variable] = {}
        updates: dict = {}
        for (j, taps, _, _), out in zip(self.traced, node_outputs[:n_traced]):
            lag = len(taps) if j is None else -min(self.specs[j].taps)
            if j is None:
                continue
            by_position[j] = out[lag:]
        shared_outs = node_outputs[n_traced - len(self.shared_traced) : n_traced]
        for var, out in zip(self.shared_traced, shared_outs):
            updates[var] = out[-1]
        for (j, _), out in zip(self.mapped, node_outputs[n_traced : n_traced + n_mapped]):
            by_position[j] = out
        untraced_outs = node_outputs[n_traced + n_mapped :]
        for (j, _, init, _), out in zip(self.untraced, untraced_outs):
            if j is None:
                updates[init] = out
            else:
                by_position[j] = out
        return [by_position[j] for j in sorted(by_position)], updates


__all__ = ["scan"]
