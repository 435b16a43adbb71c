"""A toy type and toy ops for graph-layer tests: no tensor import, so the IR is tested alone."""

from __future__ import annotations

from typing import Any

from arignote.graph.basic import Apply, Constant, Variable
from arignote.graph.op import Op
from arignote.graph.type import Type


class ToyType(Type):
    """Python floats (or ints when ``kind == "int"``)."""

    __props__ = ("kind",)

    def __init__(self, kind: str = "float") -> None:
        self.kind = kind

    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None):
        wanted = float if self.kind == "float" else int
        if isinstance(data, bool) or not isinstance(data, (int, float)):
            raise TypeError(f"{self} expects a number, got {data!r}")
        if strict and type(data) is not wanted:
            raise TypeError(f"{self} expects a {wanted.__name__}, got {data!r}")
        if wanted is int and data != int(data) and not allow_downcast:
            raise TypeError(f"{self} cannot hold {data!r} without rounding")
        return wanted(data)

    def __str__(self) -> str:
        return f"Toy({self.kind})"


toy = ToyType()


def var(name: str | None = None) -> Variable:
    return toy(name)


def const(value: float) -> Constant:
    return Constant(toy, value)


class ToyOp(Op):
    """``ToyOp(name, nin, nout)``: sums its inputs and returns ``nout`` copies, times k."""

    __props__ = ("name", "nin", "nout")

    def __init__(self, name: str, nin: int = 2, nout: int = 1) -> None:
        self.name = name
        self.nin = nin
        self.nout = nout

    def make_node(self, *inputs: Any) -> Apply:
        if len(inputs) != self.nin:
            raise TypeError(f"{self} takes {self.nin} inputs, got {len(inputs)}")
        inputs = [i if isinstance(i, Variable) else const(i) for i in inputs]
        return Apply(self, inputs, [toy() for _ in range(self.nout)])

    def perform(self, node, inputs, output_storage):
        total = float(sum(inputs))
        for k, cell in enumerate(output_storage):
            cell[0] = total * (k + 1)

    def __str__(self) -> str:
        return self.name


add = ToyOp("add")
mul = ToyOp("mul")
neg = ToyOp("neg", nin=1)
split = ToyOp("split", nin=1, nout=2)
