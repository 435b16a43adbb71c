"""JAX version of ``Scan`` (``arignote/scan/op.py``): ``lax.scan``, or ``lax.while_loop``.

The inner graph is converted with the same conversions as the outer graph and called once per
step. The outputs are those of the VM's loop, row for row:

* a traced output with taps ``(k1, k2, ...)`` and ``L = -min(taps)`` carries a *window* of its
  last ``L`` rows; tap ``k`` reads row ``L + k`` of the window (row ``L - 1`` is the previous
  step), and each step shifts the new row in. Its output is the ``L`` initial rows followed by
  the stacked new rows, or, when the memory rewrite keeps only its last ``keep <= L`` rows, the
  last rows of the final window (nothing is stacked);
* a mapped output is the stack of its rows (its last ``keep`` rows when limited);
* untraced states (random keys among them) are carried and returned at the end.

A loop of a known number of steps (a constant, or a length computed from static shapes) is a
``lax.scan``. A loop with ``until``, or whose step count is an input value, is a
``lax.while_loop``: its outputs must then have lengths known when compiling, which holds for
states read only through their last rows (``y[-1]``: the memory rewrite keeps a fixed number of
rows) and for untraced states; a full stack of rows whose count is only known at run time
raises :class:`DynamicShapeError` saying which value to make static. A step count known only at
run time is checked when the function runs (negative, or more steps than a sequence has rows),
raising the VM's ``ValueError``.

Random variables in the inner graph draw with the JAX key the loop carries as an untraced
state (split at every step), so every step draws new numbers, as on the VM (but not the same
numbers as NumPy's).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

import jax
import jax.numpy as jnp
from arignote.graph.basic import Apply
from arignote.graph.traversal import io_toposort
from arignote.link.jax.dispatch.basic import (
    DynamicShapeError,
    fgraph_to_jax,
    is_static,
    register_by_name,
    static_ints,
)
from arignote.link.jax.dispatch.checks import register_checking, runtime_check, static_in_jax
from jax import lax

_SCAN = "arignote.scan.op.Scan"
# a step count computed from input values is checked when the function runs
register_checking(_SCAN, lambda node: not static_in_jax(node.inputs[0]))


@dataclass(frozen=True)
class _Layout:
    """What the loop needs of the op and node, computed once per node."""

    name: str
    lags: tuple[int, ...]
    taps: tuple[tuple[int, ...], ...]
    keep: tuple[int | None, ...]
    n_seqs: int
    n_mapped: int
    n_untraced: int
    as_while: bool
    dtypes: tuple[np.dtype, ...]  # of the traced and mapped outputs

    @property
    def n_traced(self) -> int:
        return len(self.lags)


def _layout(op: Any, node: Apply) -> _Layout:
    info = op.info
    n_kept = info.n_traced + info.n_mapped
    return _Layout(
        str(op),
        info.lags,
        info.traced_taps,
        op.keep,
        info.n_seqs,
        info.n_mapped,
        info.n_untraced,
        info.as_while,
        tuple(np.dtype(o.type.dtype) for o in node.outputs[:n_kept]),
    )


@register_by_name(_SCAN)
def jax_funcify_Scan(op: Any, node: Apply, **kwargs: Any) -> Callable:
    inputs, outputs = list(op.inner_inputs), list(op.inner_outputs)
    inner = fgraph_to_jax(inputs, outputs, io_toposort(inputs, outputs), **kwargs)
    lay = _layout(op, node)
    slices = op.outer_slices()

    def scan(n_steps, *args):
        values = [n_steps, *args]
        seqs, inits, states, nonseqs = (
            values[slices[k]] for k in ("seqs", "inits", "untraced", "nonseqs")
        )
        windows = [_initial_window(lay, j, init) for j, init in enumerate(inits)]
        step = _Step(lay, inner, nonseqs)
        if is_static(n_steps) and not lay.as_while:
            results = _run_scan(
                lay, node, step, static_ints(n_steps, node, "n_steps"), seqs, windows, list(states)
            )
        else:
            results = _run_while(lay, node, step, n_steps, seqs, windows, list(states))
        return tuple(results) if len(results) > 1 else results[0]

    return scan


def _initial_window(lay: _Layout, j: int, init: Any) -> Any:
    lag = lay.lags[j]
    if jnp.shape(init)[0] < lag:
        raise ValueError(
            f"{lay.name}: output {j} needs {lag} initial rows for taps {lay.taps[j]}, got "
            f"{jnp.shape(init)[0]}"
        )
    return jnp.asarray(init[:lag], dtype=lay.dtypes[j])


class _Step:
    """One step of the loop: the inner graph called on the current rows, taps and states."""

    def __init__(self, lay: _Layout, inner: Callable, nonseqs: list) -> None:
        self.lay, self.inner, self.nonseqs = lay, inner, nonseqs

    def __call__(self, rows: list, windows: list, states: list) -> tuple:
        lay = self.lay
        taps = [w[lag + k] for w, lag, ks in zip(windows, lay.lags, lay.taps) for k in ks]
        outs = list(self.inner(*rows, *taps, *states, *self.nonseqs))
        n_traced, n_kept = lay.n_traced, lay.n_traced + lay.n_mapped
        new_rows = [jnp.asarray(v, dtype=d) for v, d in zip(outs[:n_kept], lay.dtypes)]
        for j, (window, row) in enumerate(zip(windows, new_rows)):
            if jnp.shape(row) != jnp.shape(window)[1:]:
                raise ValueError(
                    f"{lay.name}: output {j} has rows of shape {jnp.shape(row)}, but its "
                    f"initial value has rows of shape {jnp.shape(window)[1:]} (they must be "
                    "equal)"
                )
        windows = [_shifted(w, r) for w, r in zip(windows, new_rows)]
        new_states = outs[n_kept : n_kept + lay.n_untraced]
        condition = jnp.asarray(outs[-1]).astype(bool) if lay.as_while else None
        return windows, new_states, new_rows[:n_traced], new_rows[n_traced:], condition


def _shifted(window: Any, row: Any) -> Any:
    """The window after a step: its oldest row dropped, ``row`` appended."""
    if jnp.shape(window)[0] == 1:
        return row[None]
    return jnp.concatenate([window[1:], row[None]])


# -- a known number of steps: lax.scan ---------------------------------------------------------


def _stacked(lay: _Layout, j: int, n: int) -> bool:
    """Whether traced output ``j`` needs its stacked rows (not only its final window)."""
    keep, lag = lay.keep[j], lay.lags[j]
    return keep is None or min(keep, lag + n) > lag


def _sequence_rows(lay: _Layout, seq: Any, k: int, n: int) -> Any:
    if jnp.shape(seq)[0] < n:
        raise ValueError(
            f"{lay.name}: sequence {k} has {jnp.shape(seq)[0]} rows, fewer than the {n} steps"
        )
    return seq[:n]


def _run_scan(lay, node, step, n, seqs, windows, states) -> list:
    if n < 0:
        raise ValueError(f"{lay.name}: n_steps must not be negative, got {n}")
    rows = [_sequence_rows(lay, s, k, n) for k, s in enumerate(seqs)]
    if n == 0:
        return _no_steps(lay, step, seqs, windows, states)
    stacked = [_stacked(lay, j, n) for j in range(lay.n_traced)]

    def body(carry, xs):
        windows, states, new_traced, mapped, _ = step(list(xs), *carry)
        kept = [r for r, s in zip(new_traced, stacked) if s]
        return (windows, list(states)), (kept, mapped)

    initial = list(windows)
    try:
        (windows, states), (kept, mapped) = lax.scan(body, (windows, states), rows, length=n)
    except TypeError as err:
        raise _carry_error(lay, err) from err
    traced, kept = [], iter(kept)
    for j in range(lay.n_traced):
        rows_j = jnp.concatenate([initial[j], next(kept)]) if stacked[j] else windows[j]
        traced.append(_last_rows(rows_j, lay.keep[j], lay.lags[j] + n))
    mapped = [_last_rows(m, lay.keep[lay.n_traced + i], n) for i, m in enumerate(mapped)]
    return [*traced, *mapped, *states]


def _no_steps(lay, step, seqs, windows, states) -> list:
    """The outputs of a loop of zero steps, as the VM's: the initial rows, no mapped rows and
    the untraced states as given. The step is not traced (only its mapped rows' shapes are):
    a body ill-shaped for these inputs never runs, so it must not raise (an empty foldr)."""
    traced = [_last_rows(w, lay.keep[j], lay.lags[j]) for j, w in enumerate(windows)]
    mapped = []
    if lay.n_mapped:
        rows = [jax.ShapeDtypeStruct(jnp.shape(s)[1:], jnp.result_type(s)) for s in seqs]
        shapes = jax.eval_shape(lambda r, w, s: step(r, w, s)[3], rows, windows, states)
        mapped = [jnp.zeros((0, *x.shape), x.dtype) for x in shapes]
    return [*traced, *mapped, *states]


def _last_rows(rows: Any, keep: int | None, total: int) -> Any:
    """The output of ``total`` rows limited to its last ``keep`` (``rows`` ends with them)."""
    count = total if keep is None else min(keep, total)
    return rows[jnp.shape(rows)[0] - count :]


def _carry_error(lay: _Layout, err: Exception) -> Exception:
    return TypeError(
        f"{lay.name}: a state fed back by the loop changes type or shape between steps in JAX "
        f"mode (JAX needs the same shape and dtype at every step): {err}"
    )


# -- until, or a step count known at run time: lax.while_loop ----------------------------------


def _check_fixed_lengths(lay: _Layout, node: Apply, n: Any) -> None:
    """Raise DynamicShapeError if an output's length depends on the number of steps done."""
    why = (
        "the loop stops on its `until` condition"
        if lay.as_while
        else "its n_steps is computed from input values at run time"
    )
    fix = (
        "use only the last rows of that output (y[-1]), whose number is fixed"
        if lay.as_while
        else "make n_steps a constant, or compute it from the static length of a sequence "
        "(pt.tensor(shape=...) or specify_shape), or use only the last rows of that output "
        "(y[-1])"
    )
    for j, (keep, lag) in enumerate(zip(lay.keep, lay.lags)):
        if keep is None or keep > lag:
            _raise_dynamic(node, f"output {j}", why, fix)
    n_known = is_static(n) and int(n) >= 1
    for m in range(lay.n_mapped):
        if lay.keep[lay.n_traced + m] != 1 or not n_known:
            _raise_dynamic(node, f"output {lay.n_traced + m}", why, fix)


def _raise_dynamic(node: Apply, which: str, why: str, fix: str) -> None:
    raise DynamicShapeError(
        f"The JAX backend needs the length of {which} of node {node} when it compiles the "
        f"function, but it is the number of steps the loop runs, known only at run time "
        f"({why}). Make it static: {fix}"
    )


def _run_while(lay, node, step, n, seqs, windows, states) -> list:
    _check_fixed_lengths(lay, node, n)
    n = _checked_steps(lay, n, seqs)
    zero = jnp.zeros((), dtype="int64")
    mapped = _mapped_placeholders(lay, step, seqs, windows, states)

    def keep_going(carry):
        t, done = carry[0], carry[1]
        return (t < n) & jnp.logical_not(done)

    def body(carry):
        t, _, windows, states, _ = carry
        rows = [lax.dynamic_index_in_dim(s, t, keepdims=False) for s in seqs]
        windows, states, _, mapped, condition = step(rows, windows, states)
        done = condition if condition is not None else jnp.zeros((), dtype=bool)
        return t + 1, done, windows, list(states), mapped

    carry = (zero, jnp.zeros((), dtype=bool), windows, states, mapped)
    try:
        _, _, windows, states, mapped = lax.while_loop(keep_going, body, carry)
    except TypeError as err:
        raise _carry_error(lay, err) from err
    traced = [w[jnp.shape(w)[0] - k :] for w, k in zip(windows, lay.keep)]
    return [*traced, *[m[None] for m in mapped], *states]


def _checked_steps(lay: _Layout, n: Any, seqs: list) -> Any:
    """``n`` as a JAX scalar, checked (at run time if need be) like the VM checks it."""
    runtime_check(n >= 0, ValueError, f"{lay.name}: n_steps must not be negative")
    for k, seq in enumerate(seqs):
        rows = jnp.shape(seq)[0]
        runtime_check(
            n <= rows, ValueError, f"{lay.name}: sequence {k} has {rows} rows, fewer than the steps"
        )
    return jnp.asarray(n, dtype="int64")


def _mapped_placeholders(lay, step, seqs, windows, states) -> list:
    """Zero rows of the shape of each mapped output's rows (the loop's carry)."""
    if not lay.n_mapped:
        return []
    rows = [s[0] for s in seqs]
    shapes = jax.eval_shape(lambda r, w, s: step(r, w, s)[3], rows, windows, states)
    return [jnp.zeros(x.shape, x.dtype) for x in shapes]
