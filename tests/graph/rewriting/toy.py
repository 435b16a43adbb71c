"""A toy type and toy ops for graph-layer tests: no tensor import, values are Python floats."""

from __future__ import annotations

from arignote.graph.basic import Apply, Constant, Variable
from arignote.graph.op import Op
from arignote.graph.type import Type


class ToyType(Type):
    """Values are Python numbers; ``kind`` distinguishes incompatible toy types."""

    __props__ = ("kind",)

    def __init__(self, kind: str = "num") -> None:
        self.kind = kind

    def filter(self, data, strict=False, allow_downcast=None):
        if not isinstance(data, (int, float)):
            raise TypeError(f"{self} holds numbers, got {data!r}")
        return float(data)

    def __str__(self) -> str:
        return f"Toy({self.kind})"


num = ToyType("num")
other = ToyType("other")


class ToyOp(Op):
    """An op named ``name`` computing ``fn`` of its inputs (numbers)."""

    __props__ = ("name", "nin", "commutative", "out_kind")

    def __init__(self, name, nin=1, fn=None, commutative=False, out_kind="num", folding=True):
        self.name = name
        self.nin = nin
        self.fn = fn
        self.commutative = commutative
        self.out_kind = out_kind
        self.folding = folding
        self.calls = 0

    def make_node(self, *inputs):
        if len(inputs) != self.nin:
            raise TypeError(f"{self.name} takes {self.nin} inputs")
        inputs = [i if isinstance(i, Variable) else num.make_constant(i) for i in inputs]
        return Apply(self, inputs, [ToyType(self.out_kind)()])

    def perform(self, node, inputs, output_storage):
        self.calls += 1
        output_storage[0][0] = float(self.fn(*inputs))

    def do_constant_folding(self, fgraph, node):
        return self.folding

    def __str__(self) -> str:
        return self.name


neg = ToyOp("neg", 1, lambda a: -a)
exp = ToyOp("exp", 1, lambda a: 2.718281828459045**a)
log = ToyOp("log", 1, lambda a: 0.0)
add = ToyOp("add", 2, lambda a, b: a + b, commutative=True)
mul = ToyOp("mul", 2, lambda a, b: a * b, commutative=True)
sub = ToyOp("sub", 2, lambda a, b: a - b)
to_other = ToyOp("to_other", 1, lambda a: a, out_kind="other")


class ToyInplace(Op):
    """``a + 1`` computed by overwriting its input (declares ``destroy_map``)."""

    __props__ = ()
    destroy_map = {0: [0]}

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0] + 1


class ToyView(Op):
    """Returns its input as a view (declares ``view_map``)."""

    __props__ = ()
    view_map = {0: [0]}

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, output_storage):
        output_storage[0][0] = inputs[0]


inplace_incr = ToyInplace()
view = ToyView()


def variables(names: str) -> list[Variable]:
    return [num(n) for n in names.split()]


def const(value: float) -> Constant:
    return num.make_constant(value)
