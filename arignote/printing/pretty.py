"""``pp``/``pprint``: a graph as one mathematical expression, in PyTensor's notation.

Arithmetic is infix and fully parenthesised (``((x * 2.0) + y)``), negation ``(-x)``, absolute
value ``|x|``, the matrix product ``(x \\dot w)``, a transpose ``x.T``, indexing ``x[1:, 0]`` and
``set_subtensor(x[0], y)``, a sum ``sum(x, axis=(0,))``, a cast ``float32(x)``; every other
elementwise function is a call of its name (``gt(a, b)``, ``exp(x)``, ``switch(c, a, b)``)
and any other op prints as ``Op(args)``. Leaves print their name (or their value, for
constants); intermediate names are not used, so the whole computation shows.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from arignote.graph.basic import Constant, Variable
from arignote.printing.debug import graph_of
from arignote.scalar.arithmetic import Cast
from arignote.tensor.advanced_subtensor import (
    AdvancedIncSubtensor,
    AdvancedIncSubtensor1,
    AdvancedSubtensor,
    AdvancedSubtensor1,
)
from arignote.tensor.elemwise import DimShuffle, Elemwise
from arignote.tensor.index_spec import SliceSpec, entry_groups
from arignote.tensor.join import Join
from arignote.tensor.products import Dot
from arignote.tensor.reduction import Sum
from arignote.tensor.subtensor import IncSubtensor, Subtensor

# scalar op name -> the name PyTensor's pprint writes (second(a, b) is its "fill")
RENAMED = {"second": "fill"}

# scalar op name -> infix symbol
INFIX = {
    "add": "+",
    "sub": "-",
    "mul": "*",
    "true_div": "/",
    "int_div": "//",
    "pow": "**",
}


def pprint(obj: Any) -> str:
    """The expression a graph computes, on one line per output (see the module docstring).

    ``obj`` is a variable, an apply node, a list of variables, a FunctionGraph or a compiled
    function (its rewritten outputs).
    """
    variables, _ = graph_of(obj)
    memo: dict = {}
    return "\n".join(_format(v, memo) for v in variables)


pp = pprint


def _format(var: Variable, memo: dict) -> str:
    if var not in memo:
        memo[var] = _leaf(var) if var.owner is None else _apply(var, memo)
    return memo[var]


def _leaf(var: Variable) -> str:
    if var.name is not None:
        return var.name
    if isinstance(var, Constant):
        data = var.data
        return str(data) if isinstance(data, (np.ndarray, np.generic)) else repr(data)
    return str(var)


def _apply(var: Variable, memo: dict) -> str:
    node = var.owner
    args = [_format(i, memo) for i in node.inputs]
    for op_class, formatter in FORMATTERS:
        if isinstance(node.op, op_class):
            text = formatter(node.op, args, node)
            if text is not None:
                return text
    suffix = f".{var.index}" if len(node.outputs) > 1 else ""
    return f"{node.op}{suffix}({', '.join(args)})"


def _elemwise(op: Elemwise, args: list[str], node: Any) -> str:
    scalar_op = op.scalar_op
    name = str(scalar_op)
    if name in INFIX and len(args) >= 2:
        return "(" + f" {INFIX[name]} ".join(args) + ")"
    if name == "neg":
        return f"(-{args[0]})"
    if name == "abs":
        return f"|{args[0]}|"
    if isinstance(scalar_op, Cast):
        return f"{node.outputs[0].type.dtype}({args[0]})"
    name = RENAMED.get(name, name)
    return f"{name.rstrip('_')}({', '.join(args)})"  # and_ -> and(...)


def _dimshuffle(op: DimShuffle, args: list[str], node: Any) -> str:
    order = list(op.new_order)
    kept = [d for d in order if d != "x"]
    if kept == list(range(op.input_ndim)):
        return args[0]  # only adds broadcastable dimensions: reads as the value itself
    if order == [1, 0]:
        return f"{args[0]}.T"
    return None


def _sum(op: Sum, args: list[str], node: Any) -> str:
    axis = None if op.axis is None else tuple(op.axis)
    return f"sum({args[0]}, axis={axis})"


def _dot(op: Dot, args: list[str], node: Any) -> str:
    return f"({args[0]} \\dot {args[1]})"


def _index(idx_list: Any, args: list[str]) -> str:
    parts = []
    for entry, group in entry_groups(idx_list, args):
        if isinstance(entry, SliceSpec):
            bounds = ["" if g is None else g for g in group]
            parts.append(":".join(bounds[:2] if bounds[2] == "" else bounds))
        elif entry is None:
            parts.append("None")
        elif entry is Ellipsis:
            parts.append("...")
        else:
            parts.append(group[0])
    return ", ".join(parts)


def _subtensor(op: Any, args: list[str], node: Any) -> str:
    idx_list = getattr(op, "idx_list", None)
    index = ", ".join(args[1:]) if idx_list is None else _index(idx_list, args[1:])
    return f"{args[0]}[{index}]"


def _inc_subtensor(op: Any, args: list[str], node: Any) -> str:
    name = "set_subtensor" if op.set_instead_of_inc else "inc_subtensor"
    idx_list = getattr(op, "idx_list", None)
    index = ", ".join(args[2:]) if idx_list is None else _index(idx_list, args[2:])
    return f"{name}({args[0]}[{index}], {args[1]})"


def _join(op: Join, args: list[str], node: Any) -> str:
    return f"join({op.axis}, {', '.join(args)})"


#: (op class, formatter) in the order they are tried; a formatter returning None passes
FORMATTERS: list[tuple[type, Callable]] = [
    (Elemwise, _elemwise),
    (DimShuffle, _dimshuffle),
    (Sum, _sum),
    (Dot, _dot),
    (Subtensor, _subtensor),
    (AdvancedSubtensor1, _subtensor),
    (AdvancedSubtensor, _subtensor),
    (IncSubtensor, _inc_subtensor),
    (AdvancedIncSubtensor1, _inc_subtensor),
    (AdvancedIncSubtensor, _inc_subtensor),
    (Join, _join),
]
