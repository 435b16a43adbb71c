"""Native ``IndexMap`` (``arignote/scan/index_map.py``): the map over ``range(n)`` as one loop.

``IndexMap`` computes ``stack([f(i, *[s[i] for s in sequences], *non_sequences) for i in
range(n)])``; ``jacobian`` and ``hessian`` build it when the number of rows is only known at
run time. Its inner graph is rewritten and compiled like an outer graph (:mod:`.inner`) and
called once per index by a generated loop, which writes each row into an output allocated
from the first rows' shapes, as the Python VM's ``IndexMap._run`` does (same checks: a
negative length, sequences of another length, rows changing shape). With ``n = 0`` the row
shapes come from the inner shape graphs of the non-sequences, evaluated in object mode (only
then). An inner node without a native kernel runs its ``perform`` in object mode inside the
native loop (``basic.with_inner_fallbacks``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from arignote.graph.basic import Apply
from arignote.link.numba.dispatch.basic import (
    BY_NAME,
    SourceWriter,
    compile_source,
    with_inner_fallbacks,
)
from arignote.link.numba.dispatch.inner import graph_function, rewrite_inner
from arignote.tensor.type import TensorType


def _index_map(op: Any, node: Apply) -> Callable:
    fgraph = rewrite_inner(op.inner_inputs, op.inner_outputs)
    inner, fallbacks = graph_function(fgraph)
    writer = _MapWriter(op, node)
    source = writer.source()  # fills writer.namespace
    shaped = [j for j, out in enumerate(node.outputs) if out.type.ndim > 1]
    namespace = {"inner": inner, "empty_shapes": _empty_shapes(op, shaped), **writer.namespace}
    kernel = compile_source(source, "kernel", namespace)
    return with_inner_fallbacks(kernel, "loop", fallbacks)


BY_NAME["arignote.scan.index_map.IndexMap"] = _index_map


class _MapWriter(SourceWriter):
    """Writes ``kernel(n, *sequences, *non_sequences) -> outputs`` for one IndexMap node."""

    def __init__(self, op: Any, node: Apply) -> None:
        self.op, self.node = op, node
        self.name = str(op).replace("'", "")
        n_args = len(node.inputs) - 1
        self.seqs = [f"s{k}" for k in range(op.n_sequences)]
        self.rest = [f"p{k}" for k in range(n_args - op.n_sequences)]
        self.outs = [f"o{j}" for j in range(len(node.outputs))]
        self.namespace: dict[str, Any] = {}
        self.lines: list[str] = []

    def source(self) -> str:
        self.lines = [f"def kernel({', '.join(['n_arr', *self.seqs, *self.rest])}):"]
        self._line("n = n_arr[()]")
        self._raise("n < 0", "negative length")
        for k, seq in enumerate(self.seqs):
            self._raise(f"{seq}.shape[0] != n", f"sequence {k} has another number of rows than n")
        self._contiguous()
        self._empty()
        self._loop()
        listed = self._results()
        self._line(f"return {listed}")
        return "\n".join(self.lines) + "\n"

    def _dtype(self, j: int) -> str:
        name = f"dt{j}"
        self.namespace[name] = np.dtype(self.node.outputs[j].type.dtype).type
        return name

    def _row_ndim(self, j: int) -> int:
        return self.node.outputs[j].type.ndim - 1

    def _contiguous(self) -> None:
        """Arguments of two or more dimensions made C-contiguous once (the inner graph is
        compiled for contiguous rows; no copy when they are)."""
        for name, var in zip([*self.seqs, *self.rest], self.node.inputs[1:]):
            if isinstance(var.type, TensorType) and var.type.ndim >= 2:
                self._line(f"{name} = np.ascontiguousarray({name})")

    def _empty(self) -> None:
        """``n == 0``: empty outputs whose rows have the shapes the shape graphs give (asked
        from object mode for the outputs whose rows are not 0-d)."""
        self._line("if n == 0:")
        shaped = [j for j in range(len(self.outs)) if self._row_ndim(j) > 0]
        if shaped:
            names = [f"shp{j}" for j in shaped]
            annotations = ", ".join(f"{name}='int64[:]'" for name in names)
            call = f"empty_shapes({''.join(p + ', ' for p in self.rest)})"
            self._line(f"with numba.objmode({annotations}):", 2)
            self._line(f"{''.join(s + ', ' for s in names)}= {call}", 3)
        results = []
        for j in range(len(self.outs)):
            row = "".join(f"shp{j}[{d}], " for d in range(self._row_ndim(j)))
            self._line(f"e{j} = np.empty((0, {row}), {self._dtype(j)})", 2)
            results.append(f"e{j}")
        listed = results[0] if len(results) == 1 else "".join(r + ", " for r in results)
        self._line(f"return {listed}", 2)

    def _loop(self) -> None:
        for j in range(len(self.outs)):  # typed placeholders, allocated at i == 0
            zeros = "(" + "0, " * (self._row_ndim(j) + 1) + ")"
            self._line(f"m{j} = np.empty({zeros}, {self._dtype(j)})")
        self._line("for i in range(n):")
        args = ["np.asarray(np.int64(i))", *(self._row(k) for k in range(len(self.seqs)))]
        args += self.rest
        self._line(f"{''.join(o + ', ' for o in self.outs)}= inner({', '.join(args)})", 2)
        for j, out in enumerate(self.outs):
            self._write(j, out)

    def _row(self, k: int) -> str:
        # a 0-d row is a number in native code: the inner graph takes a 0-d array
        seq = self.seqs[k]
        return f"{seq}[i]" if self.node.inputs[1 + k].type.ndim > 1 else f"np.asarray({seq}[i])"

    def _write(self, j: int, out: str) -> None:
        row_ndim = self._row_ndim(j)
        shape = f"(n,) + {out}.shape" if row_ndim else "(n,)"
        self._line("if i == 0:", 2)
        self._line(f"m{j} = np.empty({shape}, {self._dtype(j)})", 3)
        if row_ndim:
            message = f"output {j} has rows of another shape than at index 0"
            self._raise(f"{out}.shape != m{j}.shape[1:]", message, 2)
        self._line(f"m{j}[i] = {out}", 2)

    def _results(self) -> str:
        results = [f"m{j}" for j in range(len(self.outs))]
        return results[0] if len(results) == 1 else "".join(r + ", " for r in results)


def _empty_shapes(op: Any, shaped: list[int]) -> Callable[..., list]:
    """Row shapes of outputs ``shaped`` for ``n = 0`` (called from object mode): the op's own
    shape function of the non-sequences, compiled at its first use (most maps never have
    ``n = 0``) and kept for this node's kernel only."""
    compiled: list = []

    def shapes(*non_sequences: Any) -> list:
        if not compiled:
            compiled.append(op._empty_row_shapes_function(None))
        every = compiled[0](list(non_sequences))
        return [np.array(every[j], dtype=np.int64) for j in shaped]

    return shapes
