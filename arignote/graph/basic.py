"""The graph IR: Variable, Constant and Apply nodes, structural equality and cloning.

A graph is bipartite: a :class:`Variable` stands for data, an :class:`Apply` for one
application of an :class:`~arignote.graph.op.Op` to input variables, producing output
variables. ``var.owner`` points at the Apply that computed ``var`` (``None`` for graph inputs
and constants) and ``var.index`` gives its position among ``var.owner.outputs``.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from arignote.graph import traversal as _traversal
from arignote.graph.traversal import (
    ancestors,
    applys_between,
    general_toposort,
    graph_inputs,
    io_toposort,
    orphans_between,
    toposort,
    variable_depends_on,
    vars_between,
    walk,
)
from arignote.graph.utils import Scratchpad, add_tag_trace

__all__ = [
    "Apply",
    "AtomicVariable",
    "Constant",
    "Node",
    "Variable",
    "ancestors",
    "applys_between",
    "clone",
    "clone_get_equiv",
    "equal_computations",
    "explicit_graph_inputs",
    "general_toposort",
    "graph_inputs",
    "io_toposort",
    "orphans_between",
    "toposort",
    "variable_depends_on",
    "vars_between",
    "walk",
]

_auto_name_counter = itertools.count()


class Node:
    """Common base of :class:`Apply` and :class:`Variable`: something with parents in a graph."""

    def get_parents(self) -> list:
        raise NotImplementedError(f"{type(self).__name__} must define get_parents()")


class Apply(Node):
    """One application of ``op`` to ``inputs``, producing ``outputs``.

    Creating an Apply sets ``owner`` and ``index`` on each output variable. An output that already
    belongs to another node is refused.
    """

    def __init__(self, op: Any, inputs: Sequence[Variable], outputs: Sequence[Variable]) -> None:
        self.op = op
        self.inputs: list[Variable] = []
        self.tag = Scratchpad()
        for position, inp in enumerate(inputs):
            if not isinstance(inp, Variable):
                raise TypeError(
                    f"Apply of {op}: input {position} must be a Variable, got {type(inp).__name__} "
                    f"({inp!r})"
                )
            self.inputs.append(inp)
        self.outputs: list[Variable] = []
        for index, out in enumerate(outputs):
            if not isinstance(out, Variable):
                raise TypeError(
                    f"Apply of {op}: output {index} must be a Variable, got {type(out).__name__}"
                )
            if out.owner is None:
                out.owner = self
                out.index = index
            elif out.owner is not self or out.index != index:
                raise ValueError(f"Apply of {op}: output {index} ({out}) belongs to another node")
            self.outputs.append(out)

    def default_output(self) -> Variable:
        """The output a call of the op returns: ``op.default_output``, or the only output."""
        do = getattr(self.op, "default_output", None)
        if do is None:
            if len(self.outputs) == 1:
                return self.outputs[0]
            raise ValueError(
                f"{self.op} has {len(self.outputs)} outputs and no default_output to choose one"
            )
        if not -len(self.outputs) <= do < len(self.outputs):
            raise ValueError(f"{self.op}.default_output={do} is out of range")
        return self.outputs[do]

    @property
    def out(self) -> Variable:
        """Alias for :meth:`default_output`."""
        return self.default_output()

    @property
    def nin(self) -> int:
        return len(self.inputs)

    @property
    def nout(self) -> int:
        return len(self.outputs)

    def get_parents(self) -> list:
        return list(self.inputs)

    def clone(self, clone_inner_graph: bool = False) -> Apply:
        """A new node with the same op and inputs and fresh output variables."""
        op = self.op
        if clone_inner_graph and hasattr(op, "clone"):
            op = op.clone()
        new = Apply(op, self.inputs, [o.clone() for o in self.outputs])
        new.tag = copy.copy(self.tag)
        return new

    def clone_with_new_inputs(self, inputs: Sequence[Variable], strict: bool = True) -> Apply:
        """A copy of this node applied to ``inputs``.

        Where an input's type differs from the original's, ``strict`` converts it to the original
        type (raising if it cannot); otherwise the node is rebuilt with ``op.make_node``.
        """
        if len(inputs) != len(self.inputs):
            raise ValueError(f"{self.op} expects {len(self.inputs)} inputs, got {len(inputs)}")
        new_inputs = list(inputs)
        remake = False
        for i, (old, new) in enumerate(zip(self.inputs, new_inputs)):
            if old.type == new.type:
                continue
            if strict:
                new_inputs[i] = old.type.filter_variable(new)
                remake = remake or new_inputs[i].type != old.type
            else:
                remake = True
        if remake:
            new_node = self.op.make_node(*new_inputs)
            new_node.tag = copy.copy(self.tag).__update__(new_node.tag)
            return new_node
        new_node = Apply(self.op, new_inputs, [o.clone() for o in self.outputs])
        new_node.tag = copy.copy(self.tag)
        return new_node

    def __str__(self) -> str:
        return f"{self.op}({', '.join(str(i) for i in self.inputs)})"

    __repr__ = __str__


# Set by the compile layer (``arignote.compile``), which sits above this module: evaluating a
# variable means compiling a function, and the graph layer may not import upward.
_evaluator: Callable[..., Any] | None = None


def register_evaluator(evaluator: Callable[..., Any]) -> None:
    """Install the function :meth:`Variable.eval` uses (done by ``arignote.compile``)."""
    global _evaluator
    _evaluator = evaluator


class Variable(Node):
    """A datum in a graph: a graph input, a constant, or an output of an :class:`Apply`.

    Fields: ``type`` (what values it may hold), ``owner`` (the Apply computing it, or None),
    ``index`` (its position in ``owner.outputs``) and ``name`` (for printing).
    """

    def __init__(
        self,
        type: Any,
        owner: Apply | None = None,
        index: int | None = None,
        name: str | None = None,
    ) -> None:
        self.tag = Scratchpad()
        self.type = type
        self.owner = owner
        self.index = index
        if name is not None and not isinstance(name, str):
            raise TypeError(f"A variable's name must be a string, got {name.__class__.__name__}")
        self.name = name
        # The creation index orders variables stably while rewriting (canonical term order).
        self.creation_index = next(_auto_name_counter)
        self.auto_name = f"auto_{self.creation_index}"

    def get_parents(self) -> list:
        return [self.owner] if self.owner is not None else []

    def clone(self, **kwargs: Any) -> Variable:
        """A new ownerless variable of the same type, name and tag."""
        name = kwargs.pop("name", self.name)
        cp = type(self)(self.type, None, None, name, **kwargs)
        cp.tag = copy.copy(self.tag)
        return cp

    def eval(self, inputs_to_values: dict | None = None, **kwargs: Any) -> Any:
        """Compile (once, cached per set of inputs) and evaluate this variable.

        ``inputs_to_values`` maps the graph's input variables (or their names) to values.
        """
        if _evaluator is None:
            raise RuntimeError("Variable.eval needs the compile layer: import arignote first")
        return _evaluator(self, inputs_to_values, **kwargs)

    def __str__(self) -> str:
        if self.name is not None:
            return self.name
        if self.owner is not None:
            op = self.owner.op
            if self.index == getattr(op, "default_output", None) or len(self.owner.outputs) == 1:
                return f"{op}.{self.index}" if self.index is not None else f"{op}.out"
            return f"{op}.{self.index}"
        return f"<{self.type}>"

    def __repr__(self) -> str:
        return str(self)

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        # Cached compiled functions (from ``eval``) are not part of a variable's identity.
        state.pop("_fn_cache", None)
        return state


class AtomicVariable(Variable):
    """A variable that is never computed by a node: graph inputs and constants."""

    @property
    def owner(self) -> None:
        return None

    @owner.setter
    def owner(self, value: Any) -> None:
        if value is not None:
            raise ValueError(f"{type(self).__name__} {self} cannot have an owner")


class Constant(AtomicVariable):
    """A variable whose value, ``data``, is fixed when the graph is built and never changes.

    Ops may rely on a constant never being modified, and rewrites may fold it into other
    computations. A constant is never listed among a function's inputs.
    """

    def __init__(self, type: Any, data: Any, name: str | None = None) -> None:
        super().__init__(type, None, None, name)
        data = type.filter(data)
        if isinstance(data, np.ndarray) and data.flags.writeable:
            # Copy rather than freeze the caller's array: its flags are the caller's business.
            data = data.copy()
            data.setflags(write=False)
        self.__dict__["data"] = data
        add_tag_trace(self)

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "data":
            raise AttributeError(f"{self}: Constant.data is immutable")
        super().__setattr__(name, value)

    def signature(self) -> tuple:
        """A hashable key equal for constants of equal type and value (used to merge them)."""
        return (self.type, self.type.data_signature(self.data))

    def equals(self, other: Any) -> bool:
        """Whether ``other`` is a constant of the same type holding an equal value."""
        return isinstance(other, Constant) and self.signature() == other.signature()

    def clone(self, **kwargs: Any) -> Constant:
        name = kwargs.pop("name", self.name)
        cp = type(self)(self.type, self.data, name)
        cp.tag = copy.copy(self.tag)
        return cp

    def __str__(self) -> str:
        if self.name is not None:
            return self.name
        return f"{type(self).__name__}{{{self.type.data_str(self.data)}}}"


# The class of shared variables, set by ``arignote.graph.shared`` (which imports this module).
_shared_variable_class: type | None = None


def explicit_graph_inputs(graphs: Variable | Iterable[Variable]) -> list[Variable]:
    """The variables a function computing ``graphs`` needs as explicit inputs, left-first.

    As in PyTensor: the ownerless variables ``graphs`` depend on, less constants and shared
    variables (a function reads those itself). ``graphs`` is a variable or an iterable of them.
    """
    if isinstance(graphs, Variable):
        graphs = [graphs]
    implicit = (Constant,) if _shared_variable_class is None else (Constant, _shared_variable_class)
    return [v for v in graph_inputs(graphs) if v.owner is None and not isinstance(v, implicit)]


# PyTensor keeps this in graph.traversal, which knows nothing of Constant: bind it there too.
_traversal.explicit_graph_inputs = explicit_graph_inputs


def clone_get_equiv(
    inputs: Iterable[Variable],
    outputs: Iterable[Variable],
    copy_inputs: bool = True,
    copy_orphans: bool = True,
    memo: dict | None = None,
    clone_inner_graphs: bool = False,
) -> dict:
    """Clone the graph between ``inputs`` and ``outputs``; return the map old -> new.

    The map covers variables and Apply nodes. ``copy_inputs``/``copy_orphans`` choose whether
    graph inputs and orphans (ownerless variables not in ``inputs``, such as constants) are
    cloned or shared with the original graph.
    """
    inputs, outputs = list(inputs), list(outputs)
    equiv: dict = {} if memo is None else memo
    for inp in inputs:
        if inp not in equiv:
            equiv[inp] = inp.clone() if copy_inputs else inp
    for node in io_toposort(inputs, outputs):
        for inp in node.inputs:
            if inp not in equiv:
                equiv[inp] = inp.clone() if copy_orphans else inp
        new_node = node.clone_with_new_inputs([equiv[i] for i in node.inputs], strict=False)
        if clone_inner_graphs and hasattr(new_node.op, "clone"):
            new_node.op = new_node.op.clone()
        equiv[node] = new_node
        for old, new in zip(node.outputs, new_node.outputs):
            equiv.setdefault(old, new)
    for out in outputs:
        if out not in equiv:
            equiv[out] = out.clone() if copy_orphans else out
    return equiv


def clone(
    inputs: Sequence[Variable],
    outputs: Sequence[Variable],
    copy_inputs: bool = True,
    copy_orphans: bool | None = None,
    clone_inner_graphs: bool = False,
) -> tuple[list[Variable], list[Variable]]:
    """Copy the graph between ``inputs`` and ``outputs``; return the new inputs and outputs.

    ``copy_orphans`` defaults to ``copy_inputs``.
    """
    if copy_orphans is None:
        copy_orphans = copy_inputs
    equiv = clone_get_equiv(
        inputs, outputs, copy_inputs, copy_orphans, clone_inner_graphs=clone_inner_graphs
    )
    return [equiv[i] for i in inputs], [equiv[o] for o in outputs]


def equal_computations(
    xs: Sequence[Variable],
    ys: Sequence[Variable],
    in_xs: Sequence[Variable] | None = None,
    in_ys: Sequence[Variable] | None = None,
    strict_dtype: bool = True,
) -> bool:
    """Whether ``xs`` and ``ys`` compute the same thing from corresponding inputs.

    Two graphs are equal when their ops compare equal, their structure matches, constants hold
    equal values, and ownerless variables are the same object or paired through
    ``in_xs``/``in_ys``.
    """
    if len(xs) != len(ys):
        raise ValueError("equal_computations needs two output lists of the same length")
    in_xs, in_ys = list(in_xs or ()), list(in_ys or ())
    if len(in_xs) != len(in_ys):
        raise ValueError("in_xs and in_ys must have the same length")
    paired: dict = dict(zip(in_xs, in_ys))
    if any(x.type != y.type for x, y in paired.items()):
        return False
    stack = list(zip(xs, ys))
    while stack:
        x, y = stack.pop()
        if paired.get(x, _MISSING) is y:
            continue
        if x in paired or not _same_variable_shape(x, y, strict_dtype):
            return False
        if x.owner is None or y.owner is None:
            if not _equal_atoms(x, y, in_xs, in_ys):
                return False
            paired[x] = y
            continue
        nx, ny = x.owner, y.owner
        if x.index != y.index or nx.op != ny.op or len(nx.inputs) != len(ny.inputs):
            return False
        paired[x] = y
        stack.extend(zip(nx.inputs, ny.inputs))
    return True


_MISSING = object()


def _same_variable_shape(x: Variable, y: Variable, strict_dtype: bool) -> bool:
    if strict_dtype:
        return x.type == y.type
    return getattr(x.type, "ndim", None) == getattr(y.type, "ndim", None)


def _equal_atoms(x: Variable, y: Variable, in_xs: list, in_ys: list) -> bool:
    if (x.owner is None) != (y.owner is None):
        return False
    if isinstance(x, Constant) or isinstance(y, Constant):
        return isinstance(x, Constant) and x.equals(y)
    # Two graph inputs are equal only if they are the same object and not remapped.
    return x is y and x not in in_xs and y not in in_ys
