"""``Print``: an op that prints its input's value when the graph runs and returns it unchanged.

``y = Print("x is")(x)`` and then using ``y`` instead of ``x`` prints ``x is __str__ = [...]``
each time the compiled function computes ``y``. The print happens where the node runs in the
execution order; a ``Print`` whose output nothing uses is removed like any dead code.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from arignote.graph.basic import Apply, Variable
from arignote.graph.op import Op
from arignote.tensor.basic import as_tensor_variable


def print_attributes(op: Print, value: Any) -> None:
    """The default action of :class:`Print`: ``message attr = value.attr`` for each attribute
    (a method such as ``__str__`` is called)."""
    for attr in op.attrs:
        shown = getattr(value, attr)
        if callable(shown):
            shown = shown()
        print(op.message, attr, "=", shown)


class Print(Op):
    """Identity op with a side effect: calls ``global_fn(op, value)`` when it runs.

    Parameters
    ----------
    message
        Printed before each attribute.
    attrs
        Attributes of the value to print (``"__str__"``, ``"shape"``, ``"dtype"``...);
        callables are called.
    global_fn
        What to do with the value instead of printing: ``global_fn(op, value)``.
    """

    __props__ = ("message", "attrs", "global_fn")
    view_map = {0: [0]}  # the output is the input itself

    def __init__(
        self,
        message: str = "",
        attrs: Sequence[str] = ("__str__",),
        global_fn: Callable[[Print, Any], None] = print_attributes,
    ) -> None:
        self.message = message
        self.attrs = tuple(attrs)
        self.global_fn = global_fn

    def make_node(self, x: Any) -> Apply:
        if not isinstance(x, Variable):
            x = as_tensor_variable(x)
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        (x,) = inputs
        output_storage[0][0] = x
        self.global_fn(self, x)

    def infer_shape(self, fgraph, node, input_shapes):
        return input_shapes

    def grad(self, inputs, output_grads):
        return list(output_grads)  # the identity: gradients pass through unprinted

    def R_op(self, inputs, eval_points):
        return list(eval_points)  # linear (the identity)

    def do_constant_folding(self, fgraph, node):
        return False  # printing is the point: it must happen when the function runs

    def __str__(self) -> str:
        return f"Print{{message={self.message!r}}}" if self.message else "Print"
