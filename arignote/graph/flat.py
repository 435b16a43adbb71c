"""Graphs as flat lists, so that pickling and deep-copying them never recurse node by node.

Pickle (and ``copy.deepcopy``) follow references depth first: a graph saved as linked
``Variable``/``Apply`` objects needs several stack frames per node along its longest path (and
``var.clients`` links every variable to its users too), so a chain of a hundred nodes already
exceeds Python's recursion limit. :class:`FlatGraph` records the same structure without links:
the variables as a list (each saved without ``owner``, ``index`` and ``clients``), the nodes as
``(op, input positions, output positions, tag)`` in topological order. :meth:`FlatGraph.rebuild`
makes the variables and nodes again, node by node.

A shared variable's ``default_update`` is kept when it is a variable of the graph (as the next
state of a random generator is), saved as its position; an update computed outside the graph is
left out (pickling it would pickle another, possibly deep, graph the linked way).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arignote.graph.basic import Apply, AtomicVariable, Variable
from arignote.graph.shared import SharedVariable
from arignote.graph.traversal import io_toposort

# Fields rebuilt from the structure rather than saved with each variable.
_NOT_SAVED = ("owner", "index", "clients", "_default_update")


class FlatGraph:
    """The graph between ``inputs`` and ``outputs`` as flat lists (see the module docstring).

    ``index`` (not pickled) maps each variable of the original graph to its position.
    """

    def __init__(self, inputs: Sequence[Variable], outputs: Sequence[Variable]) -> None:
        self.index: dict[Variable, int] = {}
        self.variables: list[tuple[type, dict]] = []
        self.inputs = [self._ref(v) for v in inputs]
        self.nodes = [
            (
                node.op,
                [self._ref(v) for v in node.inputs],
                [self._ref(v) for v in node.outputs],
                node.tag,
            )
            for node in io_toposort(list(inputs), list(outputs))
        ]
        self.outputs = [self._ref(v) for v in outputs]
        self.default_updates = {
            position: self.index[update]
            for var, position in self.index.items()
            if isinstance(var, SharedVariable)
            and (update := var.__dict__.get("_default_update")) in self.index
        }

    def _ref(self, var: Variable) -> int:
        position = self.index.get(var)
        if position is None:
            position = self.index[var] = len(self.variables)
            self.variables.append((type(var), _variable_state(var)))
        return position

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        del state["index"]
        return state

    def rebuild(self) -> list[Variable]:
        """New variables and nodes with the saved structure; the variables by position."""
        variables = [_new_variable(cls, state) for cls, state in self.variables]
        for op, inputs, outputs, tag in self.nodes:
            node = Apply(op, [variables[i] for i in inputs], [variables[o] for o in outputs])
            node.tag = tag
        for position, update in self.default_updates.items():
            variables[position].__dict__["_default_update"] = variables[update]
        return variables


def _variable_state(var: Variable) -> dict:
    state = var.__getstate__() if hasattr(var, "__getstate__") else var.__dict__
    state = dict(state or {})
    for name in _NOT_SAVED:
        state.pop(name, None)
    return state


def _new_variable(cls: type, state: dict) -> Any:
    var = cls.__new__(cls)
    if not issubclass(cls, AtomicVariable):
        var.__dict__.update(owner=None, index=None)
    var.__dict__.update(state)
    if issubclass(cls, SharedVariable):
        var.__dict__.setdefault("_default_update", None)
    return var
