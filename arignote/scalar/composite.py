"""``Composite``: a graph of scalar ops used as one scalar op (what elementwise fusion builds).

``Elemwise(Composite(...))`` computes a whole chain of elementwise operations in one node. On
NumPy arrays the inner graph is turned into a small generated Python function, one ufunc call
per inner node, that reuses the buffers of dead temporaries (``out=``) when every input has the
same shape, so a chain of k operations allocates a few arrays instead of k.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from arignote.graph.basic import Apply, Constant, Variable
from arignote.graph.codegen import CodeBuilder, GeneratedCode
from arignote.graph.grad_types import disconnected, is_disconnected, is_null
from arignote.graph.op import HasInnerGraph
from arignote.graph.traversal import io_toposort
from arignote.scalar.arithmetic import Add, Mul, Neg, Sub, TrueDiv, add, identity
from arignote.scalar.basic import ScalarOp, ScalarType, as_scalar, constant, grad_dtype

__all__ = ["Composite"]


class Composite(ScalarOp, HasInnerGraph):
    """The scalar function computed by the graph from ``inputs`` to ``outputs``.

    The graph is copied (nested composites are inlined). Two composites are equal when their
    graphs have the same structure: same ops, same wiring, same constants, same input types.
    """

    __props__ = ("signature",)

    def __init__(
        self, inputs: Sequence[Variable], outputs: Sequence[Variable], name: str | None = None
    ) -> None:
        super().__init__(name=name)
        self.inputs, self.outputs = _copy_graph(list(inputs), list(outputs))
        self.nin = len(self.inputs)
        self.nout = len(self.outputs)
        self.nodes = io_toposort(self.inputs, self.outputs)
        self.signature = _signature(self.inputs, self.outputs, self.nodes)
        self._impl: dict[str, Callable] = {}  # mode -> generated function

    # -- the HasInnerGraph interface ------------------------------------------------------------

    @property
    def inner_inputs(self) -> list[Variable]:
        return self.inputs

    @property
    def inner_outputs(self) -> list[Variable]:
        return self.outputs

    @property
    def fn(self) -> Callable:
        """The generated NumPy function (``fn(*arrays)`` returns the outputs)."""
        return self._function("plain")

    def clone(self) -> Composite:
        return Composite(self.inputs, self.outputs, self.name)

    # -- types ------------------------------------------------------------------------------

    def output_types(self, types: Sequence[ScalarType]) -> list[ScalarType]:
        expected = [i.type for i in self.inputs]
        if list(types) != expected:
            raise TypeError(
                f"{self} takes inputs of types {[str(t) for t in expected]}, got "
                f"{[str(t) for t in types]}"
            )
        return [o.type for o in self.outputs]

    def make_node(self, *inputs: Any) -> Apply:
        if len(inputs) != self.nin:
            raise TypeError(f"{self} takes {self.nin} inputs, got {len(inputs)}")
        inputs = [as_scalar(i) for i in inputs]
        out_types = self.output_types([i.type for i in inputs])
        return Apply(self, inputs, [t() for t in out_types])

    # -- computing ----------------------------------------------------------------------------

    def elementwise(self, *arrays: Any) -> Any:
        # NOTE: called on every call of a fused node; plain loops are cheaper than all(...)
        shape = getattr(arrays[0], "shape", None)
        mode = "scalar" if shape == () else "buffered" if shape else "plain"
        for a in arrays:
            if type(a) is not np.ndarray or a.shape != shape:
                mode = "plain"
                break
        if mode == "scalar":
            # NumPy scalars have fast arithmetic operators: much cheaper than ufunc calls on
            # 0-d arrays, with the same types and results
            return self._function("scalar")(*[a[()] for a in arrays])
        return self._function(mode)(*arrays)

    def impl(self, *inputs: Any) -> Any:
        return self._function("plain")(*inputs)

    def _function(self, mode: str) -> Callable:
        """The generated function for ``mode`` ("plain", "buffered" or "scalar"), made on
        first use (big composites take a while to compile)."""
        fn = self._impl.get(mode)
        if fn is None:
            fn = self._impl[mode] = _generate(self, mode)
        return fn

    # -- derivatives ------------------------------------------------------------------------

    def L_op(self, inputs, outputs, output_grads):
        # Reverse mode over a copy of the inner graph applied to ``inputs``.
        memo = dict(zip(self.inputs, inputs))
        for node in self.nodes:
            new = node.op.make_node(*[_lookup(memo, i) for i in node.inputs])
            memo.update(zip(node.outputs, new.outputs))
        cotangents: dict = {}
        for out, g in zip(self.outputs, output_grads):
            if not (is_disconnected(g) or is_null(g)):
                _accumulate(cotangents, _lookup(memo, out), g)
        for node in reversed(self.nodes):
            outs = [memo[o] for o in node.outputs]
            grads = [cotangents.get(o) for o in outs]
            if all(g is None for g in grads):
                continue
            grads = [_or_zero(g, o) for g, o in zip(grads, outs)]
            ins = [_lookup(memo, i) for i in node.inputs]
            for inp, term in zip(ins, node.op.L_op(ins, outs, grads)):
                if term is not None and not is_disconnected(term) and not isinstance(inp, Constant):
                    _accumulate(cotangents, inp, term)
        return [cotangents.get(i, disconnected()) for i in inputs]

    # -- printing and pickling ---------------------------------------------------------------

    def __str__(self) -> str:
        if self.name:
            return self.name
        if len(self.nodes) > 8:
            return f"Composite{{{len(self.nodes)} nodes, {self.nin} in, {self.nout} out}}"
        names = {v: f"i{k}" for k, v in enumerate(self.inputs)}
        return "Composite{" + ", ".join(_expression(o, names) for o in self.outputs) + "}"

    def __getstate__(self) -> dict:
        state = super().__getstate__()
        state["_impl"] = {}  # generated functions are rebuilt on demand
        return state


def _or_zero(grad: Variable | None, out: Variable) -> Variable:
    return grad if grad is not None else constant(0, grad_dtype(out))


def _lookup(memo: dict, var: Variable) -> Variable:
    return memo.get(var, var)  # constants are shared, not copied


def _accumulate(cotangents: dict, var: Variable, term: Variable) -> None:
    if is_null(term):
        cotangents[var] = term
        return
    current = cotangents.get(var)
    cotangents[var] = term if current is None or is_null(current) else add(current, term)


def _expression(var: Variable, names: dict) -> str:
    if var in names:
        return names[var]
    if isinstance(var, Constant):
        return str(var.data)
    node = var.owner
    return f"{node.op}({', '.join(_expression(i, names) for i in node.inputs)})"


# -- building the inner graph ----------------------------------------------------------------


def _copy_graph(inputs: list[Variable], outputs: list[Variable]) -> tuple[list, list]:
    """Fresh inner inputs, the graph rebuilt on them, nested composites inlined."""
    for i, inp in enumerate(inputs):
        if not isinstance(getattr(inp, "type", None), ScalarType):
            raise TypeError(f"Composite input {i} must be a scalar variable, got {inp!r}")
    new_inputs = [i.type.make_variable() for i in inputs]
    memo: dict = dict(zip(inputs, new_inputs))
    for node in io_toposort(inputs, outputs):
        args = [_checked_input(memo, i, node) for i in node.inputs]
        if isinstance(node.op, Composite):
            results = _inline(node.op, args)
        else:
            results = _reapply(node, args)
        memo.update(zip(node.outputs, results))
    new_outputs: list[Variable] = []
    for out in outputs:
        new = _checked_input(memo, out, None)
        # An output that is an input or a constant, or that repeats an earlier output, is
        # copied: outputs never alias an input or each other.
        fresh = new.owner is not None and all(new is not o for o in new_outputs)
        new_outputs.append(new if fresh else identity(new))
    return new_inputs, new_outputs


def _reapply(node: Apply, args: list[Variable]) -> list[Variable]:
    """The outputs of ``node``'s op applied to ``args`` of the same types (no type inference,
    no tags: inner graphs are built in bulk)."""
    return Apply(node.op, args, [o.type.make_variable() for o in node.outputs]).outputs


def _checked_input(memo: dict, var: Variable, node: Apply | None) -> Variable:
    if var in memo:
        return memo[var]
    if isinstance(var, Constant):
        return var
    where = f" (used by {node})" if node is not None else ""
    raise ValueError(f"Composite: {var}{where} is neither an input of the graph nor a constant")


def _inline(op: Composite, args: list[Variable]) -> list[Variable]:
    memo: dict = dict(zip(op.inputs, args))
    for node in op.nodes:
        results = _reapply(node, [_lookup(memo, i) for i in node.inputs])
        memo.update(zip(node.outputs, results))
    return [_lookup(memo, o) for o in op.outputs]


def _signature(inputs: list, outputs: list, nodes: list) -> tuple:
    """A hashable description of the graph's structure (equal for equal computations)."""
    refs: dict = {v: ("i", k) for k, v in enumerate(inputs)}
    entries = []
    for j, node in enumerate(nodes):
        args = tuple(refs.get(i) or _constant_ref(i) for i in node.inputs)
        entries.append((node.op, args))
        refs.update({o: ("n", j, k) for k, o in enumerate(node.outputs)})
    return (
        tuple(i.type.dtype for i in inputs),
        tuple(entries),
        tuple(refs.get(o) or _constant_ref(o) for o in outputs),
    )


def _constant_ref(var: Variable) -> tuple:
    data = np.asarray(var.data)
    return ("c", data.dtype.str, data.tobytes())


# -- code generation -------------------------------------------------------------------------


#: Scalar ops written as Python operators in the "scalar" variant (NumPy scalars implement them
#: with the ufuncs' types and results, minus the call overhead). Only for floating-point and
#: complex operands: NumPy's integer scalar operators warn (or raise, under
#: ``np.errstate(over="raise")``) where they wrap around, which the ufuncs on arrays never do.
_OPERATORS = {Add: "+", Sub: "-", Mul: "*", TrueDiv: "/", Neg: "-"}


def _operator_of(node: Apply) -> str | None:
    """The Python operator computing ``node`` in the "scalar" variant, if it may be used."""
    operator = _OPERATORS.get(type(node.op))
    if operator is None:
        return None
    if not all(np.dtype(i.type.dtype).kind in "fc" for i in node.inputs):
        return None
    return operator


def _is_plain_ufunc(op: ScalarOp) -> bool:
    """Whether ``op`` computes exactly ``op.nfunc`` (a ufunc, so ``out=`` may be passed)."""
    return isinstance(op.nfunc, np.ufunc) and type(op).elementwise is ScalarOp.elementwise


def _writes_own_dtype(node: Apply) -> bool:
    """Whether ``node`` is a plain ufunc whose every step yields the node's output dtype (so
    a buffer of that dtype can receive each step's result)."""
    if not _is_plain_ufunc(node.op):
        return False
    dtype = np.dtype(node.outputs[0].type.dtype)
    dtypes = [np.dtype(i.type.dtype) for i in node.inputs]
    ufunc = node.op.nfunc
    if len(dtypes) > ufunc.nin and any(d != dtype for d in dtypes):
        return False
    try:
        natural = ufunc.resolve_dtypes((*dtypes[: ufunc.nin], None))[-1]
    except TypeError:
        return False
    return natural == dtype


class _Emitter:
    """Writes the body of a generated function, one line per (binary step of an) inner node.

    In buffered mode every input has the same shape (checked by the caller), so each value
    computed from an input has that shape too, and a dead temporary of the right dtype can
    receive a later result (``out=``).
    """

    def __init__(self, composite: Composite, mode: str) -> None:
        self.composite = composite
        self.buffered = mode == "buffered"
        self.scalar = mode == "scalar"
        self.code = CodeBuilder(f"<composite {mode}>")
        self.names: dict = {v: f"i{k}" for k, v in enumerate(composite.inputs)}
        self.lines: list[str] = []
        self.full: set[str] = set(self.names.values())  # values of the inputs' full shape
        self.owned: set[str] = set()  # temporaries allocated here: reusable once dead
        self.free: dict[str, list[str]] = {}  # dtype -> dead temporaries usable as out=
        self.last_use = _last_uses(composite)
        self.kept = set(composite.outputs)

    def ref(self, var: Variable) -> str:
        name = self.names.get(var)
        if name is None:  # a constant: hoisted as a NumPy scalar of its dtype
            name = self.code.name("c", np.asarray(var.data, dtype=var.type.dtype)[()])
            self.names[var] = name
        return name

    def function(self, op: ScalarOp) -> str:
        return self.code.name("f", op.nfunc if _is_plain_ufunc(op) else op.elementwise)

    def emit(self, position: int, node: Apply) -> None:
        args = [self.ref(i) for i in node.inputs]
        fn = self.function(node.op)
        outs = [f"t{position}_{k}" for k in range(len(node.outputs))]
        self.names.update(zip(node.outputs, outs))
        full = any(a in self.full for a in args)
        if full:
            self.full.update(outs)
        reuse = self.buffered and full and len(outs) == 1 and _writes_own_dtype(node)
        operator = _operator_of(node) if self.scalar else None
        if operator is not None:
            expression = f"{operator}{args[0]}" if len(args) == 1 else f" {operator} ".join(args)
            self.lines.append(f"{outs[0]} = {expression}")
        elif reuse:
            self._emit_ufunc(node, fn, args, outs[0])
        elif len(outs) == 1 and _is_plain_ufunc(node.op) and len(args) > node.op.nfunc.nin:
            self._emit_fold(fn, args, outs[0])
        else:
            self.lines.append(f"{', '.join(outs)} = {fn}({', '.join(args)})")
        self._release(position, node)

    def _emit_ufunc(self, node: Apply, fn: str, args: list[str], out: str) -> None:
        pool = self.free.get(node.outputs[0].type.dtype)
        buffer = f", out={pool.pop()}" if pool else ""
        nin = node.op.nfunc.nin
        self.lines.append(f"{out} = {fn}({', '.join(args[:nin])}{buffer})")
        for arg in args[nin:]:  # a variadic op: the left fold NumPy gives it, in one buffer
            self.lines.append(f"{out} = {fn}({out}, {arg}, out={out})")
        self.owned.add(out)

    def _emit_fold(self, fn: str, args: list[str], out: str) -> None:
        self.lines.append(f"{out} = {fn}({args[0]}, {args[1]})")
        for arg in args[2:]:
            self.lines.append(f"{out} = {fn}({out}, {arg})")

    def _release(self, position: int, node: Apply) -> None:
        """Temporaries whose last use was this node become free buffers."""
        for inp in node.inputs:
            name = self.names.get(inp)
            if name in self.owned and self.last_use.get(inp) == position and inp not in self.kept:
                self.owned.discard(name)
                self.free.setdefault(inp.type.dtype, []).append(name)

    def build(self) -> GeneratedCode:
        code = self.code
        code.line(f"def composite({', '.join(f'i{k}' for k in range(self.composite.nin))}):", 0)
        for line in self.lines:
            code.line(line)
        returned = ", ".join(self.names[o] for o in self.composite.outputs)
        code.line(f"return ({returned})" if self.composite.nout > 1 else f"return {returned}")
        return code.build("composite")


def _last_uses(composite: Composite) -> dict:
    last: dict = {}
    for position, node in enumerate(composite.nodes):
        for inp in node.inputs:
            last[inp] = position
    return last


def _generate(composite: Composite, mode: str) -> Callable:
    """Compile the inner graph into a Python function over NumPy arrays or scalars."""
    emitter = _Emitter(composite, mode)
    for position, node in enumerate(composite.nodes):
        emitter.emit(position, node)
    return emitter.build().function
