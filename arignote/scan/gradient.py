"""Derivatives of ``Scan``: the gradient is a reverse loop, the R-operator a forward one.

Reverse mode. At forward step ``t`` the inner graph maps ``(rows, taps, non-sequences)`` to
the new states. Going back from the last step, the adjoint of the state ``y_j[t]`` is its outer
cotangent plus what later steps sent back to it through their taps. A step reads ``y_j`` at
``t + k`` for ``-L <= k < 0``, so the contributions still to be delivered always concern the
``L`` states before ``t``: the reverse loop carries them as a window ``W_j`` of ``L`` rows,
whose last row completes the adjoint of ``y_j[t]``; after the step the window shifts by one and
receives the inner vector-Jacobian products for the taps. Gradients of non-sequences are summed
in accumulators; those of sequence rows are mapped outputs. After the loop the window holds the
gradient of the initial rows. With ``truncate_gradient = k`` the reverse loop runs over the last
``k`` steps only.

Forward mode. The tangents of the states are states of a new loop that also recomputes the
original ones: the inner graph gains the Jacobian-vector products of its outputs.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from arignote.autodiff import Rop, grad
from arignote.graph.basic import Variable, ancestors
from arignote.graph.grad_types import (
    disconnected,
    grad_not_implemented,
    grad_undefined,
    is_disconnected,
)
from arignote.graph.replace import clone_replace
from arignote.graph.traversal import io_toposort
from arignote.scan.basic import scan
from arignote.scan.op import SCAN_DERIVATIVES, Scan, ScanInfo
from arignote.tensor.alloc import zeros
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.join import concatenate, stack
from arignote.tensor.math import add, minimum, zeros_like
from arignote.tensor.shape import shape_padleft
from arignote.tensor.subtensor import set_subtensor
from arignote.tensor.type import TensorType


def _is_float(var: Variable) -> bool:
    return isinstance(var.type, TensorType) and var.type.dtype.startswith(("float", "complex"))


def _zeros_grad(var: Variable) -> Variable:
    dtype = var.type.dtype if _is_float(var) else "float64"
    return zeros_like(var, dtype=dtype)


def _steps_done(op: Scan, n_steps: Variable, outputs: list) -> Variable:
    """Number of steps the forward loop ran (fewer than n_steps for a stopped while loop)."""
    if not op.info.as_while:
        return n_steps
    if op.info.n_traced:
        return outputs[0].shape[0] - op.info.lags[0]
    return outputs[op.info.n_traced].shape[0]


def scan_grad(op: Scan, inputs: list, outputs: list, output_grads: list) -> list:
    """``L_op`` of a Scan node (see the module docstring)."""
    info = op.info
    if any(k is not None for k in op.keep):
        return [
            grad_not_implemented(
                op,
                i,
                x,
                "a Scan keeping only its last rows (after the memory rewrite) cannot be "
                "differentiated; differentiate before rewriting",
            )
            for i, x in enumerate(inputs)
        ]
    n_diff = info.n_traced + info.n_mapped
    if all(is_disconnected(g) for g in output_grads[:n_diff]):
        return [disconnected() for _ in inputs]
    grads = [
        g if not is_disconnected(g) else _zeros_grad(o)
        for g, o in zip(output_grads[:n_diff], outputs[:n_diff])
    ]
    return _Reverse(op, inputs, outputs, grads).gradients()


class _Reverse:
    """The reverse loop of one Scan node and the gradients read from it."""

    def __init__(self, op: Scan, inputs: list, outputs: list, grads: list) -> None:
        self.op, self.info = op, op.info
        sl = op.outer_slices()
        self.inputs = inputs
        self.seqs = inputs[sl["seqs"]]
        self.inits = inputs[sl["inits"]]
        self.nonseqs = inputs[sl["nonseqs"]]
        self.outputs = outputs
        self.traces = outputs[: self.info.n_traced]
        self.g_traces = grads[: self.info.n_traced]
        self.g_mapped = grads[self.info.n_traced :]
        self.steps = _steps_done(op, inputs[0], outputs)
        k = op.truncate_gradient
        self.count = self.steps if k == -1 else _min(self.steps, k)
        self.t0 = self.steps - self.count
        inner = op.inner_slices()
        self.x_seqs = op.inner_inputs[inner["seqs"]]
        self.x_taps = op.inner_inputs[inner["taps"]]
        self.x_untraced = op.inner_inputs[inner["untraced"]]
        self.x_nonseqs = op.inner_inputs[inner["nonseqs"]]
        self.diff_nonseqs = [p for p, v in zip(self.x_nonseqs, self.nonseqs) if _is_float(v)]
        self.diff_seqs = [r for r in self.x_seqs if _is_float(r)]
        self._inner_vjp()

    def _inner_vjp(self) -> None:
        """The inner graph's vector-Jacobian product, with cotangent placeholders."""
        info, outs = self.info, self.op.inner_outputs
        self.cot_traced = [o.type() for o in outs[: info.n_traced]]
        self.cot_mapped = [o.type() for o in outs[info.n_traced : info.n_traced + info.n_mapped]]
        # <outputs, cotangents> as a cost (not known_grads: an output may also feed another
        # output, and both contributions must add up)
        terms = [
            (out * cot).sum()
            for out, cot in zip(outs, self.cot_traced + self.cot_mapped)
            if _is_float(out)
        ]
        self.wrt = self.diff_seqs + [x for x in self.x_taps if _is_float(x)] + self.diff_nonseqs
        if terms and self.wrt:
            cost = terms[0] if len(terms) == 1 else add(*terms)
            vjp = grad(cost, self.wrt, disconnected_inputs="ignore", return_disconnected="zero")
        else:
            vjp = [zeros_like(w) for w in self.wrt]
        self.frontier_rows: list[Variable] = []
        self.frontier_seqs: list[Variable] = []
        if self.x_untraced and set(self.x_untraced) & set(ancestors(vjp)):
            vjp = self._replay_draws(vjp)
        self.vjp = dict(zip(self.wrt, self._read_known_outputs(vjp)))

    def _read_known_outputs(self, vjp: list) -> list:
        """The products often need the step's own results (``tanh``'s derivative is written
        with its output): those the forward loop returned are read back as sequences instead
        of being computed again."""
        info = self.info
        reached = set(ancestors(vjp))
        n_known = info.n_traced + info.n_mapped
        for k, out in enumerate(self.op.inner_outputs[:n_known]):
            if out not in reached or out in self.op.inner_inputs:
                continue
            row = out.type()
            vjp = clone_replace(vjp, replace={out: row})
            start = info.lags[k] if k < info.n_traced else 0
            self.frontier_rows.append(row)
            self.frontier_seqs.append(self._reversed(self.outputs[k], start, reverse=False))
        return vjp

    def _replay_draws(self, vjp: list) -> list:
        """Make the products independent of the untraced states (random generators).

        The products need the values drawn at each step (a dropout mask). A copy of the
        forward loop returns them as mapped outputs (the generators being its inputs, it draws
        the same values) and the reverse loop reads them as sequences.
        """
        frontier = _draws(self.op.inner_inputs, self.x_untraced, vjp)
        rows = [v.type() for v in frontier]
        vjp = clone_replace(vjp, replace=dict(zip(frontier, rows)))
        if set(self.x_untraced) & set(ancestors(vjp)):
            raise TypeError(
                f"{self.op}: the gradient depends on a non-tensor state of the loop other than "
                "through tensor values computed from it"
            )
        self.frontier_rows = rows
        self.frontier_seqs = [
            self._reversed(d, 0, reverse=False) for d in _recompute(self.op, self.inputs, frontier)
        ]
        return vjp

    def _step(self, *args: Variable) -> list:
        info, lags = self.info, self.info.lags
        it = iter(args)
        rows = [next(it) for _ in self.x_seqs]
        taps = [next(it) for _ in self.x_taps]
        g_rows_traced = [next(it) for _ in range(info.n_traced)]
        g_rows_mapped = [next(it) for _ in range(info.n_mapped)]
        draws = [next(it) for _ in self.frontier_rows]
        windows = [next(it) for _ in range(info.n_traced)]
        accumulators = [next(it) for _ in self.diff_nonseqs]
        nonseqs = [next(it) for _ in self.x_nonseqs]
        replace = dict(zip(self.x_seqs, rows))
        replace.update(zip(self.x_taps, taps))
        replace.update(zip(self.x_nonseqs, nonseqs))
        replace.update(zip(self.frontier_rows, draws))
        # (a one-row window is carried as the row itself)
        totals = [
            g + (w if lag == 1 else w[lag - 1]) for g, w, lag in zip(g_rows_traced, windows, lags)
        ]
        # Only float outputs took part in the cost; an integer state (an MRG generator's
        # int32 state, a counter) gets a float zero cotangent that has no placeholder to fill.
        cotangents = zip(self.cot_traced + self.cot_mapped, totals + g_rows_mapped)
        replace.update((c, g) for c, g in cotangents if _is_float(c))
        vjp = dict(zip(self.wrt, clone_replace([self.vjp[w] for w in self.wrt], replace=replace)))
        new_windows = [self._shift(j, w, vjp) for j, w in enumerate(windows)]
        new_acc = [a + vjp[p] for a, p in zip(accumulators, self.diff_nonseqs)]
        g_seq_rows = [vjp[r] for r in self.diff_seqs]
        return new_windows + new_acc + g_seq_rows

    def _shift(self, j: int, window: Variable, vjp: dict) -> Variable:
        """The window after step ``t``: one row older, plus the products for ``y_j``'s taps."""
        lag = self.info.lags[j]
        group = self.op.tap_groups()[j]
        if lag == 1:  # the window is the adjoint sent back to y_j[t-1], a row
            x = self.op.inner_inputs[group[0]]
            return (
                window.type.filter_variable(vjp[x], allow_convert=True)
                if x in vjp
                else zeros_like(window)
            )
        rows = [zeros_like(window[0])] + [window[i - 1] for i in range(1, lag)]
        for k, position in zip(self.info.traced_taps[j], group):
            x = self.op.inner_inputs[position]
            if x in vjp:
                rows[lag + k] = rows[lag + k] + vjp[x]
        return stack(rows)

    def _reversed(self, var: Variable, start: Any, reverse: bool = True) -> Variable:
        rows = var[start + self.t0 : start + self.steps]
        return rows[::-1] if reverse else rows

    def gradients(self) -> list:
        info, lags = self.info, self.info.lags
        sequences = [self._reversed(s, 0) for s in self.seqs]
        for j, taps in enumerate(info.traced_taps):
            sequences += [self._reversed(self.traces[j], lags[j] + k) for k in taps]
        sequences += [self._reversed(g, lag) for g, lag in zip(self.g_traces, lags)]
        sequences += [self._reversed(g, 0) for g in self.g_mapped]
        sequences += [d[::-1] for d in self.frontier_seqs]
        window_inits = [
            zeros(((lag,) if lag > 1 else ()) + tuple(init.shape)[1:], dtype=init.type.dtype)
            for lag, init in zip(lags, self.inits)
        ]
        acc_inits = [
            zeros_like(v) for v, p in zip(self.nonseqs, self.x_nonseqs) if p in self.diff_nonseqs
        ]
        outputs_info = window_inits + acc_inits + [None] * len(self.diff_seqs)
        results, _ = scan(
            self._step,
            sequences=sequences,
            outputs_info=outputs_info,
            non_sequences=list(self.nonseqs),
            n_steps=self.count,
            name=f"grad_of_{self.op.name or 'scan_fn'}",
            return_list=True,
        )
        n_w, n_a = info.n_traced, len(acc_inits)
        return self._collect(results[:n_w], results[n_w : n_w + n_a], results[n_w + n_a :])

    def _collect(self, windows: list, accumulators: list, seq_rows: list) -> list:
        grads: list = [disconnected()]
        seq_rows = iter(seq_rows)
        for s, r in zip(self.seqs, self.x_seqs):
            if r in self.diff_seqs:
                rows = next(seq_rows)[::-1]
                grads.append(set_subtensor(zeros_like(s)[self.t0 : self.steps], rows))
            else:
                grads.append(_zeros_grad(s))
        for j, (init, window) in enumerate(zip(self.inits, windows)):
            grads.append(self._init_grad(j, init, _last_state(window)))
        first = 1 + len(self.seqs) + len(self.inits)
        grads += [
            grad_undefined(self.op, first + u, x, "the state is not a tensor (a generator)")
            for u, x in enumerate(self.inputs[first : first + len(self.x_untraced)])
        ]
        accumulators = iter(accumulators)
        first += len(self.x_untraced)
        for k, (v, p) in enumerate(zip(self.nonseqs, self.x_nonseqs)):
            if p in self.diff_nonseqs:
                grads.append(_last_state(next(accumulators)))
            elif isinstance(v.type, TensorType):
                grads.append(_zeros_grad(v))
            else:  # a generator given as non-sequence too (PyTensor's updates pattern)
                grads.append(grad_undefined(self.op, first + k, v, "not a tensor (a generator)"))
        return grads

    def _init_grad(self, j: int, init: Variable, window: Variable) -> Variable:
        lag = self.info.lags[j]
        if lag == 1:
            window = shape_padleft(window)
        if self.op.truncate_gradient != -1:  # the window sits t0 rows after the initial rows
            pad = zeros((self.t0, *tuple(window.shape)[1:]), dtype=window.type.dtype)
            window = concatenate([pad, window])[:lag]
        rows = self.g_traces[j][:lag] + window
        if init.type.shape[0] == lag:
            return rows
        return set_subtensor(zeros_like(init)[:lag], rows)


def _draws(inputs: list, states: list, graphs: list) -> list[Variable]:
    """The tensors computed directly from the non-tensor states (the random draws)."""
    dependent = set(states)
    frontier = []
    for node in io_toposort(inputs, graphs):
        touched = [v for v in node.inputs if v in dependent]
        if not touched:
            continue
        dependent.update(node.outputs)
        if any(not isinstance(v.type, TensorType) for v in touched):
            frontier += [o for o in node.outputs if isinstance(o.type, TensorType)]
    return frontier


def _recompute(op: Scan, inputs: list, extra: list[Variable]) -> list[Variable]:
    """The per-step values of inner variables ``extra``, from a copy of the loop."""
    info = op.info
    split = info.n_traced + info.n_mapped
    outs = op.inner_outputs
    new_info = dataclasses.replace(info, n_mapped=info.n_mapped + len(extra))
    new_op = op.replace_graph(op.inner_inputs, [*outs[:split], *extra, *outs[split:]], new_info)
    return new_op(*inputs, return_list=True)[split : split + len(extra)]


def _last_state(result: Variable) -> Variable:
    """The last state of a traced output of ``scan``, its initial value after zero steps (the
    front end drops the initial rows, so read the full trace under the slice)."""
    return result.owner.inputs[0][-1]


def _min(a: Any, b: int) -> Variable:
    return minimum(as_tensor_variable(a), b)


# -- forward mode ----------------------------------------------------------------------------


def scan_rop(op: Scan, inputs: list, eval_points: list) -> list:
    """``R_op`` of a Scan node: a loop computing the states and their tangents together."""
    info = op.info
    if all(ev is None for ev in eval_points[1:]):
        return [None] * (info.n_traced + info.n_mapped + info.n_untraced)
    return _Forward(op, inputs, eval_points).tangents()


class _Forward:
    def __init__(self, op: Scan, inputs: list, eval_points: list) -> None:
        self.op, self.info = op, op.info
        self.inputs, self.evs = inputs, eval_points
        sl, inner = op.outer_slices(), op.inner_slices()
        self.sl = sl
        self.x = {k: op.inner_inputs[v] for k, v in inner.items()}
        self.float_traced = [j for j in range(self.info.n_traced) if _is_float(op.inner_outputs[j])]

    def tangents(self) -> list:
        op, info, sl = self.op, self.info, self.sl
        seq_pairs = [(k, ev) for k, ev in enumerate(self.evs[sl["seqs"]]) if ev is not None]
        nonseq_pairs = [(k, ev) for k, ev in enumerate(self.evs[sl["nonseqs"]]) if ev is not None]
        d_rows = [self.x["seqs"][k].type() for k, _ in seq_pairs]
        d_nonseqs = [self.x["nonseqs"][k].type() for k, _ in nonseq_pairs]
        groups = op.tap_groups()
        d_taps = {j: [op.inner_inputs[p].type() for p in groups[j]] for j in self.float_traced}
        wrt = [self.x["seqs"][k] for k, _ in seq_pairs]
        points = list(d_rows)
        for j in self.float_traced:
            wrt += [op.inner_inputs[p] for p in groups[j]]
            points += d_taps[j]
        wrt += [self.x["nonseqs"][k] for k, _ in nonseq_pairs]
        points += d_nonseqs
        outs = op.inner_outputs
        n_tm = info.n_traced + info.n_mapped
        diff_outs = [j for j in range(n_tm) if _is_float(outs[j])]
        tangents = Rop(
            [outs[j] for j in diff_outs],
            wrt,
            points,
            disconnected_outputs="ignore",
            return_disconnected="zero",
        )
        tangent_of = dict(zip(diff_outs, tangents))
        return self._build(seq_pairs, nonseq_pairs, d_rows, d_nonseqs, d_taps, tangent_of)

    def _build(self, seq_pairs, nonseq_pairs, d_rows, d_nonseqs, d_taps, tangent_of) -> list:
        op, info, sl, x = self.op, self.info, self.sl, self.x
        outs = op.inner_outputs
        mapped_float = [m for m in range(info.n_mapped) if (info.n_traced + m) in tangent_of]
        inner_inputs = list(x["seqs"]) + d_rows
        for group in op.tap_groups():
            inner_inputs += [op.inner_inputs[p] for p in group]
        for j in self.float_traced:
            inner_inputs += d_taps[j]
        inner_inputs += list(x["untraced"]) + list(x["nonseqs"]) + d_nonseqs
        inner_outputs = list(outs[: info.n_traced]) + [tangent_of[j] for j in self.float_traced]
        inner_outputs += list(outs[info.n_traced : info.n_traced + info.n_mapped])
        inner_outputs += [tangent_of[info.n_traced + m] for m in mapped_float]
        inner_outputs += list(outs[info.n_traced + info.n_mapped :])
        new_info = ScanInfo(
            n_seqs=info.n_seqs + len(d_rows),
            traced_taps=info.traced_taps + tuple(info.traced_taps[j] for j in self.float_traced),
            n_mapped=info.n_mapped + len(mapped_float),
            n_untraced=info.n_untraced,
            n_nonseqs=info.n_nonseqs + len(d_nonseqs),
            as_while=info.as_while,
        )
        new_op = Scan(
            inner_inputs, inner_outputs, new_info, op.truncate_gradient, mode=op.mode, name=op.name
        )
        inits = self.inputs[sl["inits"]]
        init_evs = self.evs[sl["inits"]]
        d_inits = [
            init_evs[j] if init_evs[j] is not None else zeros_like(inits[j])
            for j in self.float_traced
        ]
        outer = [self.inputs[0], *self.inputs[sl["seqs"]], *[ev for _, ev in seq_pairs]]
        outer += [*inits, *d_inits, *self.inputs[sl["untraced"]], *self.inputs[sl["nonseqs"]]]
        outer += [ev for _, ev in nonseq_pairs]
        results = new_op(*outer, return_list=True)
        n_t, n_ft = info.n_traced, len(self.float_traced)
        traced_tangents = dict(zip(self.float_traced, results[n_t : n_t + n_ft]))
        start = n_t + n_ft + info.n_mapped
        mapped_tangents = dict(zip(mapped_float, results[start : start + len(mapped_float)]))
        answer: list = [traced_tangents.get(j) for j in range(n_t)]
        answer += [mapped_tangents.get(m) for m in range(info.n_mapped)]
        return answer + [None] * info.n_untraced


SCAN_DERIVATIVES["L_op"] = scan_grad
SCAN_DERIVATIVES["R_op"] = scan_rop

__all__ = ["scan_grad", "scan_rop"]
