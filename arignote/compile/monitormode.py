"""``MonitorMode``: call user functions before and after every node, as PyTensor's does.

``pre_func(fgraph, i, node, fn)`` and ``post_func(fgraph, i, node, fn)`` receive the function's
graph, the node's position in the execution order, the node, and a view ``fn`` of the node's
storage for this call: ``fn.inputs`` and ``fn.outputs`` are lists of one-element cells
(``fn.outputs[0][0]`` is the first output's value in ``post_func``, None in ``pre_func``).
This is the interface of PyTensor's debugging FAQ (finding the node that makes a NaN).
"""

from __future__ import annotations

import pickle
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from arignote.compile.mode import Mode
from arignote.link.program import Step
from arignote.link.vm import VMLinker, VMRunner


class NodeStorage:
    """The cells of one node for one call: ``inputs`` and ``outputs`` (lists of ``[value]``)."""

    __slots__ = ("inputs", "outputs")

    def __init__(self, inputs: list, outputs: list) -> None:
        self.inputs = inputs
        self.outputs = outputs


def monitored(step: Step, fgraph: Any, pre: Callable | None, post: Callable | None) -> Step:
    """``step`` calling ``pre``/``post`` with ``(fgraph, position, node, storage)`` around it."""
    kernel, position = step.kernel, step.position

    def run(node: Any, inputs: list, cells: list) -> None:
        storage = NodeStorage([[value] for value in inputs], cells)
        if pre is not None:
            pre(fgraph, position, node, storage)
        kernel(node, inputs, cells)
        if post is not None:
            post(fgraph, position, node, storage)

    return step.with_kernel(run)


class MonitorLinker(VMLinker):
    """The VM linker with every step wrapped by a :class:`MonitorMode`'s functions."""

    def __init__(self, pre_func=None, post_func=None, allow_gc=None, impl=None) -> None:
        super().__init__(allow_gc=allow_gc, impl=impl)
        self.pre_func, self.post_func = pre_func, post_func

    def clone(self, allow_gc: bool | None = None) -> MonitorLinker:
        allow_gc = self.allow_gc if allow_gc is None else allow_gc
        return MonitorLinker(self.pre_func, self.post_func, allow_gc, self.impl)

    def make_runner(self) -> VMRunner:
        runner = super().make_runner()
        fgraph = runner.program.fgraph
        steps = [monitored(s, fgraph, self.pre_func, self.post_func) for s in runner.steps]
        return VMRunner(runner.program, steps, runner.profiler)


class MonitorMode(Mode):
    """A mode calling ``pre_func``/``post_func`` around every node (FAST_RUN otherwise).

    Parameters
    ----------
    pre_func, post_func
        Called as ``f(fgraph, i, node, fn)`` before/after node ``i`` runs; ``fn.inputs`` and
        ``fn.outputs`` hold the node's values in one-element lists.
    optimizer
        The rewrite pipeline ("default": ``config.optimizer``).
    linker
        Must be None: the mode uses its own linker (as in PyTensor, another one is refused).
    """

    def __init__(
        self,
        pre_func: Callable | None = None,
        post_func: Callable | None = None,
        optimizer: Any = "default",
        linker: Any = None,
    ) -> None:
        if linker is not None:
            raise ValueError("MonitorMode uses its own linker: do not pass one")
        super().__init__(MonitorLinker(pre_func, post_func), optimizer)
        self.pre_func, self.post_func = pre_func, post_func

    def clone(self, link_kwargs: dict | None = None, optimizer: Any = "", **kwargs: Any):
        """A MonitorMode with the same functions (and another ``optimizer`` if given)."""
        if kwargs or set(link_kwargs or {}) - {"allow_gc"}:
            raise TypeError(f"MonitorMode.clone: unsupported options {sorted(kwargs)}")
        keep = self.optimizer_spec if optimizer == "" else optimizer
        return MonitorMode(self.pre_func, self.post_func, keep)

    def __str__(self) -> str:
        return f"MonitorMode(optimizer={self.optimizer_spec})"

    __repr__ = __str__


def detect_nan(fgraph: Any, i: int, node: Any, fn: NodeStorage) -> None:
    """A ``post_func`` for ``MonitorMode`` that reports a node whose output holds a NaN.

    It prints ``*** NaN detected ***``, the node, and the values of its inputs and outputs
    (the helper PyTensor's debugging FAQ suggests: ``MonitorMode(post_func=detect_nan)``).
    """
    if any(_has_nan(cell[0]) for cell in fn.outputs):
        lines = [
            "*** NaN detected ***",
            f"{node}  (position {i} in the execution order)",
            f"Inputs : {[cell[0] for cell in fn.inputs]}",
            f"Outputs: {[cell[0] for cell in fn.outputs]}",
        ]
        sys.stdout.write("\n".join(lines) + "\n")


def _has_nan(value: Any) -> bool:
    # generators and other non-numeric outputs have no NaN
    array = np.asarray(value) if isinstance(value, (np.ndarray, np.generic, float)) else None
    return array is not None and array.dtype.kind in "fc" and bool(np.isnan(array).any())


def function_dump(filename: str | Path, inputs: Any, outputs: Any = None, **kwargs: Any) -> None:
    """Pickle the arguments of a ``function`` call to ``filename``, for a bug report.

    ``pickle.load`` on the file gives a dict ``d`` with ``inputs``, ``outputs`` and the
    keyword arguments, so that ``arignote.function(**d)`` compiles the same function.
    """
    arguments = {"inputs": inputs, "outputs": outputs, **kwargs}
    with open(filename, "wb") as file:
        pickle.dump(arguments, file, protocol=pickle.HIGHEST_PROTOCOL)


__all__ = ["MonitorMode", "detect_nan", "function_dump"]
