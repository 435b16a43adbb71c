"""``scan_checkpoints``: a loop whose gradient keeps one state every ``save_every_N`` steps.

The loop runs as an outer loop over blocks of ``save_every_N`` steps, each block an inner
loop. Only the outer loop's states (one per block) are stored for the gradient; the reverse
pass recomputes each block's steps from its stored state (the inner loop's own gradient), so
memory grows with ``n_steps / save_every_N + save_every_N`` instead of ``n_steps``, for about
one extra forward pass of computation.

Restrictions (PyTensor's): every sequence has ``n_steps`` entries, recurrent outputs use only
the previous step (no taps), and only each output's value after the last step of each block is
returned (the output at steps ``N-1, 2N-1, ...`` and the last step).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from arignote.scan.basic import scan
from arignote.tensor import basic as tb
from arignote.tensor.alloc import zeros
from arignote.tensor.join import join
from arignote.tensor.math import eq, switch
from arignote.tensor.reshape import reshape
from arignote.tensor.shape import shape_i
from arignote.tensor.subtensor import set_subtensor


def _as_list(value: Any) -> list:
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _padded(seq: Any, every: int) -> Any:
    """``seq`` with zero rows appended up to a multiple of ``every`` rows."""
    short = (every - shape_i(seq, 0) % every) % every
    filler = zeros([short, *[shape_i(seq, d) for d in range(1, seq.type.ndim)]], seq.type.dtype)
    return join(0, seq, filler)


def _blocks(seq: Any, every: int) -> Any:
    """``seq`` reshaped to ``(blocks, every, ...)``."""
    rest = [shape_i(seq, d) for d in range(1, seq.type.ndim)]
    return reshape(seq, [shape_i(seq, 0) // every, every, *rest], ndim=seq.type.ndim + 1)


def _block_lengths(n_steps: Any, every: int) -> tuple[Any, Any]:
    """(number of blocks, steps of each block): ``every`` except a shorter last block."""
    n_steps = tb.as_tensor_variable(n_steps).astype("int64")
    blocks = (n_steps + every - 1) // every
    last = switch(eq(n_steps % every, 0), every, n_steps % every)
    lengths = set_subtensor(tb.as_tensor_variable([every]).repeat(blocks)[-1], last)
    return blocks, lengths


def scan_checkpoints(
    fn: Callable,
    sequences: Any = None,
    outputs_info: Any = None,
    non_sequences: Any = None,
    name: str = "checkpointscan_fn",
    n_steps: Any = None,
    save_every_N: int = 10,
    padding: bool = True,
    return_updates: bool = True,
) -> Any:
    """A ``scan`` storing one state every ``save_every_N`` steps for its gradient.

    Parameters
    ----------
    fn, sequences, outputs_info, non_sequences, name, n_steps
        As for :func:`arignote.scan` (sequences all ``n_steps`` long; no taps).
    save_every_N
        Steps per block: the gradient recomputes the steps inside a block.
    padding
        Zero-pad the sequences to a multiple of ``save_every_N`` rows (the padding is never
        read); with False their length must already be a multiple.
    return_updates
        Return ``(outputs, updates)`` as ``scan`` does (else the outputs only).

    Returns
    -------
    outputs (and updates)
        Each output at the last step of every block (``ceil(n_steps / save_every_N)`` rows).
    """
    sequences = [tb.as_tensor_variable(s) for s in _as_list(sequences)]
    outputs_info, non_sequences = _as_list(outputs_info), _as_list(non_sequences)
    if any(isinstance(o, dict) and "taps" in o for o in outputs_info):
        raise ValueError("scan_checkpoints does not take taps (one previous step only)")
    if n_steps is None:
        if not sequences:
            raise ValueError("scan_checkpoints needs sequences or n_steps")
        n_steps = shape_i(sequences[0], 0)
    blocks, lengths = _block_lengths(n_steps, save_every_N)
    if padding:
        sequences = [_padded(s, save_every_N) for s in sequences]
    outer_sequences = [*(_blocks(s, save_every_N) for s in sequences), lengths]
    recurrent = [o for o in outputs_info if o is not None]
    n_seq, n_rec = len(sequences), len(recurrent)

    def block(*args):
        seq_blocks, length = args[:n_seq], args[n_seq]
        states, constants = args[n_seq + 1 : n_seq + 1 + n_rec], args[n_seq + 1 + n_rec :]
        states = iter(states)
        inner_info = [None if o is None else next(states) for o in outputs_info]
        results, updates = scan(
            fn,
            sequences=list(seq_blocks),
            outputs_info=inner_info,
            non_sequences=list(constants),
            n_steps=length,
            name=f"{name}_inner",
            return_list=True,
        )
        return [r[-1] for r in results], updates

    outer_info = [None if o is None else o for o in outputs_info]
    outputs, updates = scan(
        block,
        sequences=outer_sequences,
        outputs_info=outer_info,
        non_sequences=non_sequences,
        n_steps=blocks,
        name=name,
    )
    return (outputs, updates) if return_updates else outputs


__all__ = ["scan_checkpoints"]
