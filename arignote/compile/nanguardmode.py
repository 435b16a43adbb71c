"""``NanGuardMode``: stop at the first node that produces a NaN, an infinity or a huge value.

Functions compiled with ``mode="NanGuardMode"`` (or ``NanGuardMode(...)``) check, after every
node, the values it produced, and before every node the function inputs it reads. The first
offending value raises :class:`NanGuardError`, whose message names the node (and where user
code created it), the output, what was found, and a summary of each input value of the node.

A variable tagged ``var.tag.nan_guard_mode_check = False`` is not checked (for values where a
NaN is expected, such as uninitialised buffers). The tag follows the variable through
rewriting: a rewrite replacing it passes the tag on to its replacement.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arignote.compile.mode import Mode, register_mode
from arignote.config import config
from arignote.graph.basic import Apply, Constant, Variable
from arignote.graph.features import Feature
from arignote.graph.shared import describe_value
from arignote.graph.utils import format_trace
from arignote.link.vm import VMLinker

#: Values larger than this in absolute value count as "big" (PyTensor's threshold).
BIG_THRESHOLD = 1e10


class NanGuardError(AssertionError):
    """A node produced (or a function received) a NaN, infinity or huge value."""

    def __init__(self, message: str, node: Apply | None, variable: Variable, problem: str):
        super().__init__(message)
        self.node = node
        self.variable = variable
        self.problem = problem


def _problem(value: Any, nan: bool, inf: bool, big: bool) -> str | None:
    """What is wrong with ``value`` ("NaN", "Inf", "big value"), or None."""
    if not isinstance(value, (np.ndarray, np.generic)) or value.size == 0:
        return None
    kind = value.dtype.kind
    if kind not in "fc":
        return None
    if nan and np.isnan(value).any():
        return "NaN"
    if inf and np.isinf(value).any():
        return "Inf"
    if big:
        array = np.asarray(value)
        finite = np.abs(array[np.isfinite(array)])  # an infinity is not a "big value"
        if finite.size and float(np.max(finite)) > BIG_THRESHOLD:
            return f"big value (abs > {BIG_THRESHOLD:g})"
    return None


def contains_nan(arr: Any, node: Apply | None = None, var: Variable | None = None) -> bool:
    """Whether a value holds a NaN (False for non-float values and non-arrays)."""
    return _problem(arr, nan=True, inf=False, big=False) is not None


def contains_inf(arr: Any, node: Apply | None = None, var: Variable | None = None) -> bool:
    """Whether a value holds a positive or negative infinity."""
    return _problem(arr, nan=False, inf=True, big=False) is not None


def flatten(nested: Any) -> list:
    """The leaves of nested lists and tuples, in order (``[[a], (b, [c])]`` -> ``[a, b, c]``)."""
    if not isinstance(nested, (list, tuple)):
        return [nested]
    return [leaf for item in nested for leaf in flatten(item)]


def _value_summary(value: Any) -> str:
    text = describe_value(value)
    if isinstance(value, np.ndarray) and value.size:
        if value.size <= 6:
            return f"{text}: {np.array2string(value, separator=', ')}"
        if value.dtype.kind in "fciu":
            finite = value[np.isfinite(value)] if value.dtype.kind in "fc" else value
            if finite.size:
                return f"{text}, min {finite.min()}, max {finite.max()}"
    return text


def _article(word: str) -> str:
    return "an" if word[0].lower() in "aeiou" else "a"


def _checked(var: Variable) -> bool:
    return getattr(var.tag, "nan_guard_mode_check", True) is not False


class NanGuard:
    """The callbacks a NanGuardMode linker calls around every node."""

    def __init__(self, nan_is_error: bool, inf_is_error: bool, big_is_error: bool) -> None:
        self.flags = (nan_is_error, inf_is_error, big_is_error)

    def before(self, node: Apply, storage_map: dict, **_: Any) -> None:
        """Check the function inputs (not computed by a node) that ``node`` reads."""
        for var in node.inputs:
            if var.owner is None and not isinstance(var, Constant) and _checked(var):
                problem = _problem(storage_map[var][0], *self.flags)
                if problem is not None:
                    raise NanGuardError(
                        f"NanGuardMode: the function input {var} holds {_article(problem)} "
                        f"{problem} "
                        f"({_value_summary(storage_map[var][0])}), read by {node}",
                        None,
                        var,
                        problem,
                    )

    def after(self, node: Apply, storage_map: dict, **_: Any) -> None:
        """Check the outputs ``node`` just produced."""
        for index, var in enumerate(node.outputs):
            if not _checked(var):
                continue
            problem = _problem(storage_map[var][0], *self.flags)
            if problem is not None:
                raise NanGuardError(
                    self._message(node, index, problem, storage_map), node, var, problem
                )

    def _message(self, node: Apply, index: int, problem: str, storage_map: dict) -> str:
        lines = [
            f"NanGuardMode found {_article(problem)} {problem} in output {index} of {node}, the "
            "first node to "
            f"produce one (op {node.op})",
            f"  created at: {format_trace(getattr(node.outputs[index].tag, 'trace', None))}",
            "  inputs of the node:",
        ]
        for i, var in enumerate(node.inputs):
            value = var.data if isinstance(var, Constant) else storage_map[var][0]
            lines.append(f"    {i}: {var} = {_value_summary(value)}")
        lines.append(f"  output {index}: {_value_summary(storage_map[node.outputs[index]][0])}")
        return "\n".join(lines)


class KeepNanGuardTag(Feature):
    """Passes ``tag.nan_guard_mode_check = False`` from a replaced variable to its replacement."""

    def on_change_input(self, fgraph, node, i, var, new_var, reason=None):
        if getattr(var.tag, "nan_guard_mode_check", True) is False:
            new_var.tag.nan_guard_mode_check = False


def _flag(given: bool | None, default: bool) -> bool:
    return default if given is None else given


class NanGuardMode(Mode):
    """A mode raising :class:`NanGuardError` at the first node producing a bad value.

    Parameters
    ----------
    nan_is_error, inf_is_error, big_is_error
        Which values are errors: NaN, infinities, and values larger than 1e10 in absolute
        value (None: the flags ``config.NanGuardMode__nan_is_error``, ``__inf_is_error`` and
        ``__big_is_error``, all True by default, as in PyTensor).
    optimizer, linker
        As for :class:`Mode` (the linker must be a VM linker: the checks are VM callbacks).
    """

    def __init__(
        self,
        nan_is_error: bool | None = None,
        inf_is_error: bool | None = None,
        big_is_error: bool | None = None,
        optimizer: Any = "default",
        linker: Any = None,
        include: tuple = (),
        exclude: tuple = (),
        require: tuple = (),
    ) -> None:
        super().__init__(linker, optimizer, include, exclude, require)
        self.nan_is_error = _flag(nan_is_error, config.NanGuardMode__nan_is_error)
        self.inf_is_error = _flag(inf_is_error, config.NanGuardMode__inf_is_error)
        self.big_is_error = _flag(big_is_error, config.NanGuardMode__big_is_error)

    @property
    def linker(self) -> VMLinker:
        base = super().linker
        if not isinstance(base, VMLinker):
            raise TypeError(f"NanGuardMode needs a VM linker, got {base}")
        guard = NanGuard(self.nan_is_error, self.inf_is_error, self.big_is_error)
        return VMLinker(
            allow_gc=base.allow_gc,
            impl=base.impl,
            callback=guard.after,
            callback_input=guard.before,
        )

    def fgraph_features(self) -> list[Feature]:
        return [KeepNanGuardTag()]

    def __str__(self) -> str:
        flags = f"nan={self.nan_is_error}, inf={self.inf_is_error}, big={self.big_is_error}"
        return f"NanGuardMode({flags}, optimizer={self.optimizer_spec})"

    __repr__ = __str__


register_mode("NanGuardMode", NanGuardMode)
