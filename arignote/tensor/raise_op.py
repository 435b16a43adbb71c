"""Run-time checks in a graph: ``CheckAndRaise``, ``Assert`` and ``assert_op``.

A check passes its value through unchanged (the output is a view of it) when all its scalar
conditions hold, and raises its exception otherwise. Graphs use them to state assumptions that
only the data can confirm (lengths that must agree, indices in range); the rewrite
``local_remove_useless_assert`` drops the conditions proven true at compile time.
"""

from __future__ import annotations

from typing import Any

from arignote.graph.basic import Apply, Constant, Variable
from arignote.graph.grad_types import disconnected
from arignote.graph.op import Op
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.math import cast


def _short(msg: str) -> str:
    return msg if len(msg) <= 30 else msg[:27] + "..."


class CheckAndRaise(Op):
    """Return the value (input 0) if every condition (inputs 1...) is true, else raise.

    Parameters
    ----------
    exc_type
        The exception class raised when a condition is false.
    msg
        The message of that exception.
    """

    __props__ = ("msg", "exc_type")
    view_map = {0: [0]}

    def __init__(self, exc_type: type, msg: str = "") -> None:
        if not (isinstance(exc_type, type) and issubclass(exc_type, Exception)):
            raise ValueError("`exc_type` must be an Exception subclass")
        self.exc_type = exc_type
        self.msg = msg

    def __str__(self) -> str:
        return f"{type(self).__name__}{{raises={self.exc_type.__name__}, msg='{_short(self.msg)}'}}"

    def make_node(self, value: Any, *conditions: Any) -> Apply:
        value = value if isinstance(value, Variable) else as_tensor_variable(value)
        checked = [self._condition(c) for c in conditions]
        return Apply(self, [value, *checked], [value.type()])

    def _condition(self, condition: Any) -> Variable:
        condition = as_tensor_variable(condition)
        if condition.type.ndim != 0:
            raise TypeError(f"{self}: conditions must be scalars, got {condition.type}")
        return condition if condition.type.dtype == "bool" else cast(condition, "bool")

    def perform(self, node, inputs, output_storage):
        value, *conditions = inputs
        output_storage[0][0] = value
        if not all(conditions):
            raise self.exc_type(self.msg)

    def infer_shape(self, fgraph, node, input_shapes):
        return [input_shapes[0]]

    def connection_pattern(self, node):
        return [[True]] + [[False]] * (len(node.inputs) - 1)

    def L_op(self, inputs, outputs, output_grads):
        # The identity on the value; the conditions only decide whether it raises.
        return [output_grads[0]] + [disconnected() for _ in inputs[1:]]

    def R_op(self, inputs, eval_points):
        # Linear (the identity) in the value; the tangent is checked like the value.
        ev = eval_points[0]
        return [None if ev is None else self(ev, *inputs[1:])]

    def do_constant_folding(self, fgraph, node):
        # Fold only a check that cannot fail: folding would otherwise raise at compile time.
        return all(isinstance(c, Constant) and bool(c.data) for c in node.inputs[1:])


class Assert(CheckAndRaise):
    """A check raising ``AssertionError(msg)``: ``Assert("x is empty")(x, x.size > 0)``.

    Examples
    --------
    >>> import arignote
    >>> import arignote.tensor as pt
    >>> from arignote.raise_op import Assert
    >>> x = pt.dvector("x")
    >>> f = arignote.function([x], Assert("too long")(x, x.shape[0] < 3))
    >>> f([1.0, 2.0])
    array([1., 2.])
    """

    def __init__(self, msg: str = "Assert failed!") -> None:
        super().__init__(AssertionError, msg)

    def __str__(self) -> str:
        return f"Assert{{msg='{_short(self.msg)}'}}"


#: ``assert_op(value, *conditions)``: an Assert with the default message.
assert_op = Assert()

# No ``__all__``: the public home of these names is ``arignote.raise_op`` (as in PyTensor),
# not the ``arignote.tensor`` namespace.
