"""``map``, ``reduce``, ``foldl``, ``foldr``: common loops written with :func:`scan`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from arignote.graph.basic import Variable
from arignote.scan.basic import scan
from arignote.scan.op import Scan
from arignote.tensor.subtensor import Subtensor


def map(
    fn: Callable,
    sequences: Any,
    non_sequences: Any = None,
    truncate_gradient: int = -1,
    go_backwards: bool = False,
    mode: Any = None,
    name: str | None = None,
    return_updates: bool = True,
) -> Any:
    """``fn`` applied to every row of the sequences: ``scan`` without fed-back outputs.

    Returns what :func:`scan` returns: ``(outputs, updates)``, or the outputs alone with
    ``return_updates=False``.
    """
    return scan(
        fn,
        sequences=sequences,
        outputs_info=None,
        non_sequences=non_sequences,
        truncate_gradient=truncate_gradient,
        go_backwards=go_backwards,
        mode=mode,
        name=name,
        return_updates=return_updates,
    )


def reduce(
    fn: Callable,
    sequences: Any,
    outputs_info: Any,
    non_sequences: Any = None,
    go_backwards: bool = False,
    mode: Any = None,
    name: str | None = None,
    return_updates: bool = True,
) -> Any:
    """``scan`` keeping only the last step of each output (the accumulated result).

    ``fn`` receives the sequence rows, then the accumulators, then the non-sequences.
    """
    results, updates = scan(
        fn,
        sequences=sequences,
        outputs_info=outputs_info,
        non_sequences=non_sequences,
        go_backwards=go_backwards,
        mode=mode,
        name=name,
    )
    if isinstance(results, (list, tuple)):
        results = [_last_state(r) for r in results]
    elif results is not None:
        results = _last_state(results)
    if not return_updates:
        if updates:
            raise ValueError(f"return_updates=False but the loop produced updates {updates}")
        return results
    return results, updates


def _last_state(result: Variable) -> Variable:
    """The last row of a loop output; for an output fed back from an initial value, the last
    row of the whole buffer (initial rows included), so that a loop of zero steps returns the
    initial value (as PyTensor's rewritten graphs do) instead of indexing an empty array."""
    owner = result.owner
    if owner is not None and isinstance(owner.op, Subtensor):
        buffer = owner.inputs[0]
        if buffer.owner is not None and isinstance(buffer.owner.op, Scan):
            return buffer[-1]
    return result[-1]


def foldl(
    fn: Callable,
    sequences: Any,
    outputs_info: Any,
    non_sequences: Any = None,
    mode: Any = None,
    name: str | None = None,
    return_updates: bool = True,
) -> Any:
    """:func:`reduce` from the first row to the last."""
    return reduce(fn, sequences, outputs_info, non_sequences, False, mode, name, return_updates)


def foldr(
    fn: Callable,
    sequences: Any,
    outputs_info: Any,
    non_sequences: Any = None,
    mode: Any = None,
    name: str | None = None,
    return_updates: bool = True,
) -> Any:
    """:func:`reduce` from the last row to the first."""
    return reduce(fn, sequences, outputs_info, non_sequences, True, mode, name, return_updates)


__all__ = ["foldl", "foldr", "map", "reduce"]
