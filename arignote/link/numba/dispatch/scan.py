"""Native ``Scan`` (``arignote/scan/op.py``): the loop and its inner graph in one native call.

The inner graph is rewritten and compiled like an outer graph (:mod:`.inner`); the kernel is a
generated loop calling it once per step, with the buffer layout of the Python VM's loop
(``arignote.scan.op.run_loop``):

* a traced output with taps ``(k1, k2, ...)`` and lag ``L = -min(taps)`` lives in a buffer of
  ``L + n_steps`` rows, or, when the memory rewrite set ``keep``, in a circular buffer of
  ``max(keep, L)`` rows; the step ``t`` reads row ``(t + L + k) % size`` for tap ``k`` and
  writes row ``(t + L) % size``;
* a mapped output gets ``n_steps`` rows (or ``max(min(keep, n_steps), 1)`` in a circle),
  allocated from the first step's row shape;
* a ``while`` loop (``until``) stops after the first step whose condition is true.

Untraced states (random generators) are local variables fed back from step to step, their
last values returned (the initial value itself after zero steps, as on the VM); each is
copied once before the first step, and the steps' draws advance that copy in place. Gradient
loops are Scans of the same layout, so they run natively too. An inner node without a native
kernel runs its ``perform`` in object mode inside the native loop, which is reported under
that node's own key of the fallback registry (``basic.InnerObjectMode``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from arignote.graph.basic import Apply, Constant, Variable
from arignote.link.numba.dispatch.basic import (
    BY_NAME,
    SourceWriter,
    compile_source,
    with_inner_fallbacks,
)
from arignote.link.numba.dispatch.inner import aliasing_outputs, graph_function, rewrite_inner
from arignote.link.numba.dispatch.random import copy_rng
from arignote.tensor.random.type import RandomGeneratorType
from arignote.tensor.type import TensorType


def _scan(op: Any, node: Apply) -> Callable:
    fgraph = rewrite_inner(op.inner_inputs, op.inner_outputs)
    # the loop's generator states are copied once before the first step (see _LoopWriter):
    # the steps' draws may then advance them in place
    states = fgraph.inputs[op.inner_slices()["untraced"]]
    inner, fallbacks = graph_function(fgraph, fresh_inputs=states)
    writer = _LoopWriter(op, node, aliasing_outputs(fgraph))
    source = writer.source()  # fills writer.namespace
    namespace = {"inner": inner, "copy_rng": copy_rng, **writer.namespace}
    return with_inner_fallbacks(compile_source(source, "kernel", namespace), "loop", fallbacks)


BY_NAME["arignote.scan.op.Scan"] = _scan


class _LoopWriter(SourceWriter):
    """Writes the kernel of one Scan node (see the module docstring)."""

    def __init__(self, op: Any, node: Apply, risky: set[int]) -> None:
        self.op, self.node, self.info, self.risky = op, node, op.info, risky
        self.name = str(op).replace("'", "")
        self.namespace: dict[str, Any] = {}
        info = self.info
        n_seq, n_tr, n_map = info.n_seqs, info.n_traced, info.n_mapped
        self.seqs = [f"s{k}" for k in range(n_seq)]
        self.inits = [f"x{j}" for j in range(n_tr)]
        self.states = [f"u{k}" for k in range(info.n_untraced)]
        self.nonseqs = [f"p{k}" for k in range(info.n_nonseqs)]
        n_out = n_tr + n_map + info.n_untraced + int(info.as_while)
        self.outs = [f"o{k}" for k in range(n_out)]
        self.lines: list[str] = []

    def source(self) -> str:
        args = ["n_steps", *self.seqs, *self.inits, *self.states, *self.nonseqs]
        self.lines = [f"def kernel({', '.join(args)}):", "    n = n_steps[()]"]
        self._checks()
        self._contiguous()
        self._buffers()
        self._loop()
        self._empty_mapped()
        self._results()
        return "\n".join(self.lines) + "\n"

    # -- before the loop --------------------------------------------------------------------

    def _checks(self) -> None:
        self._raise("n < 0", "n_steps must not be negative")
        for k, seq in enumerate(self.seqs):
            self._raise(f"{seq}.shape[0] < n", f"sequence {k} has fewer rows than the steps")

    def _contiguous(self) -> None:
        """Sequences and non-sequences made C-contiguous once, before the loop (no copy when
        they are): numba's ``np.dot`` copies an operand of unknown layout at every call, and
        the inner graph is compiled for contiguous rows (vectorised loops)."""
        info = self.info
        first_nonseq = 1 + info.n_seqs + info.n_traced + info.n_untraced
        pairs = [(name, self.node.inputs[1 + k]) for k, name in enumerate(self.seqs)]
        pairs += [(name, self.node.inputs[first_nonseq + k]) for k, name in enumerate(self.nonseqs)]
        for name, var in pairs:
            if isinstance(var.type, TensorType) and var.type.ndim >= 2:
                self._line(f"{name} = np.ascontiguousarray({name})")

    def _dtype(self, position: int) -> str:
        name = f"dt{position}"
        self.namespace[name] = np.dtype(self.node.outputs[position].type.dtype).type
        return name

    def _buffers(self) -> None:
        info, op = self.info, self.op
        for j, (lag, init) in enumerate(zip(info.lags, self.inits)):
            keep = op.keep[j]
            self._raise(f"{init}.shape[0] < {lag}", f"output {j} has too few initial rows")
            size = f"{lag} + n" if keep is None else str(max(keep, lag))
            self._line(f"size{j} = {size}")
            self._line(f"b{j} = np.empty((size{j},) + {init}.shape[1:], {self._dtype(j)})")
            self._line(f"b{j}[:{lag}] = {init}[:{lag}]")
        for m in range(info.n_mapped):
            keep = op.keep[info.n_traced + m]
            size = "n" if keep is None else f"max(min({keep}, n), 1)"
            self._line(f"msize{m} = {size}")
            ndim = self.node.outputs[info.n_traced + m].type.ndim
            zeros = "(" + "0, " * ndim + ")"
            self._line(f"m{m} = np.empty({zeros}, {self._dtype(info.n_traced + m)})")
        outer = self.node.inputs[self.op.outer_slices()["untraced"]]
        for state, var in zip(self.states, outer):
            if not isinstance(var.type, RandomGeneratorType):
                continue
            # a private copy, advanced in place by the steps' draws
            self._line("if n > 0:")
            self._line(f"{state} = copy_rng({state})", 2)
        self._line("steps = 0")

    # -- the loop ---------------------------------------------------------------------------

    def _loop(self) -> None:
        self._line("for t in range(n):")
        args = [self._row(seq, k) for k, seq in enumerate(self.seqs)]
        for j, taps in enumerate(self.info.traced_taps):
            lag = self.info.lags[j]
            for tap in taps:
                args.append(self._tap(j, f"(t + {lag + tap}) % size{j}"))
        args += self.states + self.nonseqs
        self._line(f"{''.join(o + ', ' for o in self.outs)}= inner({', '.join(args)})", 2)
        first_state = self.info.n_traced + self.info.n_mapped
        for u, state in enumerate(self.states):
            self._line(f"{state} = {self.outs[first_state + u]}", 2)
        for k in sorted(self.risky):
            if k < first_state and self._inner_ndim(k) > 0:
                self._line(f"{self.outs[k]} = {self.outs[k]}.copy()", 2)
        for j in range(self.info.n_traced):
            self._write_traced(j)
        for m in range(self.info.n_mapped):
            self._write_mapped(m)
        self._line("steps = t + 1", 2)
        if self.info.as_while:
            self._line(f"if {self.outs[-1]}:", 2)
            self._line("break", 3)

    def _inner_ndim(self, k: int) -> int:
        return self.op.inner_outputs[k].type.ndim

    def _row(self, seq: str, k: int) -> str:
        # a 0-d row is a number in native code: the inner graph takes a 0-d array
        ndim = self.node.inputs[1 + k].type.ndim
        return f"{seq}[t]" if ndim > 1 else f"np.asarray({seq}[t])"

    def _tap(self, j: int, index: str) -> str:
        return f"b{j}[{index}]" if self._inner_ndim(j) > 0 else f"np.asarray(b{j}[{index}])"

    def _write_traced(self, j: int) -> None:
        out = self.outs[j]
        if self._inner_ndim(j) > 0:
            message = f"output {j} has rows of another shape than its initial value"
            self._raise(f"{out}.shape != b{j}.shape[1:]", message, 2)
        self._line(f"b{j}[(t + {self.info.lags[j]}) % size{j}] = {out}", 2)

    def _write_mapped(self, m: int) -> None:
        position = self.info.n_traced + m
        out = self.outs[position]
        shape = f"(msize{m},) + {out}.shape" if self._inner_ndim(position) else f"(msize{m},)"
        self._line("if t == 0:", 2)
        self._line(f"m{m} = np.empty({shape}, {self._dtype(position)})", 3)
        if self._inner_ndim(position) > 0:
            message = f"mapped output {m} changes shape between steps"
            self._raise(f"{out}.shape != m{m}.shape[1:]", message, 2)
        self._line(f"m{m}[t % msize{m}] = {out}", 2)

    # -- after the loop ---------------------------------------------------------------------

    def _empty_mapped(self) -> None:
        """A loop of zero steps still returns mapped outputs of the right row shape."""
        info = self.info
        if not info.n_mapped:
            return
        self._line("if steps == 0:")
        rows = [self.node.outputs[info.n_traced + m].type.shape[1:] for m in range(info.n_mapped)]
        if any(None in shape for shape in rows):
            self.namespace["empty_shapes"] = _empty_shapes(self.op, self.node)
            names = [f"shp{m}" for m in range(info.n_mapped)]
            annotations = ", ".join(f"{name}='int64[:]'" for name in names)
            args = ", ".join(["n_steps", *self.seqs, *self.inits, *self.states, *self.nonseqs])
            self._line(f"with numba.objmode({annotations}):", 2)
            self._line(f"{''.join(s + ', ' for s in names)}= empty_shapes({args})", 3)
            rows = [tuple(f"{name}[{d}]" for d in range(len(r))) for name, r in zip(names, rows)]
        for m, row in enumerate(rows):
            shape = "(0, " + "".join(f"{e}, " for e in row) + ")"
            self._line(f"m{m} = np.empty({shape}, {self._dtype(info.n_traced + m)})", 2)

    def _results(self) -> None:
        info, op, results = self.info, self.op, []
        for j, lag in enumerate(info.lags):
            results.append(self._kept(f"b{j}", f"size{j}", f"{lag} + steps", op.keep[j]))
        for m in range(info.n_mapped):
            keep = op.keep[info.n_traced + m]
            results.append(self._kept(f"m{m}", f"msize{m}", "steps", keep))
        results += self.states  # the last states (the initial ones after zero steps)
        # one output: the value itself (the graph function unpacks tuples only for several)
        listed = results[0] if len(results) == 1 else "".join(r + ", " for r in results)
        self._line(f"return {listed}")

    def _kept(self, buffer: str, size: str, total: str, keep: int | None) -> str:
        """The rows of a buffer in step order: the first ``total``, or the last ``keep``."""
        if keep is None:
            return f"{buffer}[:{total}]"
        # a row-by-row copy: numba compiles integer-array indexing slowly
        name = f"r_{buffer}"
        self._line(f"count = min({keep}, {total})")
        self._line(f"{name} = np.empty((count,) + {buffer}.shape[1:], {buffer}.dtype)")
        self._line("for r in range(count):")
        self._line(f"{name}[r] = {buffer}[({total} - count + r) % {size}]", 2)
        return name


def _empty_shapes(op: Any, node: Apply) -> Callable[..., list]:
    """Row shapes of the mapped outputs of a loop of zero steps (called from object mode):
    the inner shape graphs evaluated on the node's input values, as the VM's loop does."""
    info = op.info
    placeholders = [v.type() for v in node.inputs]
    fake = Apply(op, placeholders, [v.type() for v in node.outputs])
    entries = op.inner_row_shapes(fake)[info.n_traced : info.n_traced + info.n_mapped]

    def shapes(*values: Any) -> list:
        results = []
        for m, shape in enumerate(entries):
            if any(e is None for e in shape):
                raise ValueError(
                    f"{op}: with 0 steps the shape of mapped output {m} cannot be known (it "
                    "depends on values computed in the loop)"
                )
            results.append(np.array([_evaluate(e, placeholders, values) for e in shape]))
        return results

    return shapes


def _evaluate(entry: Variable, placeholders: list, values: tuple) -> int:
    if isinstance(entry, Constant):
        return int(entry.data)
    used = {p: v for p, v in zip(placeholders, values) if p in _ancestors(entry)}
    return int(entry.eval(used))


def _ancestors(var: Variable) -> set:
    seen, stack = set(), [var]
    while stack:
        v = stack.pop()
        if v in seen:
            continue
        seen.add(v)
        if v.owner is not None:
            stack.extend(v.owner.inputs)
    return seen
