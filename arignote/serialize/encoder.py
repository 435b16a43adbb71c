"""Objects to the data of a saved file: a JSON document and a table of arrays.

The document's ``items`` list defines, in dependency order, every object that others refer to
by number: graph inputs, constants and shared variables (``var``, ``const``, ``shared``; a
second variable of an already saved shared value is a ``clone`` of it, so values shared before
saving stay shared after loading), nodes (``node``: an op and input numbers, outputs with
their types), objects (``object``: ops, types, modes, by registered class name and their
``__getstate__()``), graphs (``fgraph``) and compiled functions (``function``). Values inside
states are JSON with tagged objects for what JSON lacks (``{"$tuple": [...]}``,
``{"$dtype": "<f8"}``, ``{"$array": "a3"}``, ``{"$var": 12}``...). A graph is walked without
recursion along its length (deep graphs stay within Python's recursion limit); an inner
graph (Scan, OpFromGraph, IfElse, a Composite's scalar graph) is saved where its op's state
refers to it.
"""

from __future__ import annotations

import dataclasses
import math
import types
from typing import Any

import numpy as np

from arignote.compile.compiled import Function
from arignote.compile.mode import Mode
from arignote.graph.basic import Apply, Constant, Variable
from arignote.graph.fg import FunctionGraph
from arignote.graph.op import Op
from arignote.graph.shared import SharedVariable
from arignote.graph.type import Type
from arignote.graph.utils import FrozenDict, HasProps
from arignote.serialize.errors import SaveError
from arignote.serialize.modes import mode_record
from arignote.serialize.registry import DATA_CLASSES, FUNCTIONS, class_name, known_classes
from arignote.tensor.type import ArraySignature

#: Numpy's bit generators a file may name (the state of a ``Generator``).
BIT_GENERATORS = ("PCG64", "PCG64DXSM", "Philox", "SFC64", "MT19937")
_OBJECT_BASES = (Op, Type, HasProps, Mode)


class Encoder:
    """Collects the items and arrays of one file (see the module docstring)."""

    def __init__(self) -> None:
        self.items: list[dict] = []
        self.arrays: dict[str, np.ndarray] = {}
        self._ids: dict[int, int] = {}
        self._refs: dict[int, Any] = {}  # variable id -> its number, or [node number, index]
        self._alive: list[Any] = []  # keeps encoded objects alive, so ``id`` stays unique
        self._containers: dict[int, int] = {}  # container id -> the shared variable's number
        self._functions = {id(f): name for name, f in FUNCTIONS.items()}
        self._classes = {cls: name for name, cls in known_classes().items()}
        self._defaults: list[SharedVariable] = []
        self._types: dict[Type, int] = {}

    # -- numbering ------------------------------------------------------------------------

    def _add(self, obj: Any, record: dict) -> int:
        number = len(self.items)
        record["id"] = number
        self.items.append(record)
        self._ids[id(obj)] = number
        self._refs[id(obj)] = number
        self._alive.append(obj)
        return number

    def _class(self, cls: type) -> str:
        return self._classes.get(cls) or class_name(cls)

    # -- values ---------------------------------------------------------------------------

    def value(self, v: Any) -> Any:
        """The JSON form of ``v`` (see the module docstring for the tags)."""
        if v is None or isinstance(v, bool | str):
            return v
        if isinstance(v, np.generic):  # before float: np.float64 is a float
            return self.scalar(v)
        if isinstance(v, int):
            return v
        if isinstance(v, float):
            return v if math.isfinite(v) else {"$float": repr(v)}
        if isinstance(v, complex):
            return {"$complex": [self.value(v.real), self.value(v.imag)]}
        if isinstance(v, list):
            return [self.value(x) for x in v]
        if isinstance(v, tuple) and type(v) is not tuple:
            return self._named_tuple(v)
        for kind, handler in _HANDLERS:
            if isinstance(v, kind):
                return handler(self, v)
        return self._other(v)

    def _other(self, v: Any) -> Any:
        if v is Ellipsis:
            return {"$ellipsis": 0}
        if isinstance(v, type):
            return {"$class": self._class_value(v)}
        if isinstance(v, types.FunctionType | types.BuiltinFunctionType | np.ufunc):
            return {"$function": self._function(v)}
        if isinstance(v, (*DATA_CLASSES, *_OBJECT_BASES)):
            return {"$obj": self.object(v)}
        raise SaveError(
            f"Cannot save a {type(v).__module__}.{type(v).__qualname__} ({v!r:.80}): a saved "
            "file holds only data (numbers, strings, arrays, graphs of registered classes)"
        )

    def _named_tuple(self, v: tuple) -> dict:
        cls = type(v)
        if not hasattr(cls, "_fields") or cls not in self._classes:
            raise SaveError(f"Cannot save a {cls.__qualname__}: not a registered named tuple")
        return {"$named": [self._classes[cls], [self.value(x) for x in v]]}

    def _class_value(self, cls: type) -> str:
        if cls.__module__ == "builtins" and issubclass(cls, BaseException):
            return f"builtins.{cls.__name__}"
        if cls in self._classes:
            return self._classes[cls]
        raise SaveError(f"Cannot save a reference to the class {cls!r}: it is not registered")

    def _function(self, fn: Any) -> str:
        name = self._functions.get(id(fn))
        if name is None:
            raise SaveError(
                f"Cannot save the Python function {fn!r}: a saved file holds only data, never "
                "code (an op holding a user's function, e.g. as_op or gradient overrides of "
                "OpFromGraph, cannot be saved this way; use pickle for files you trust)"
            )
        return name

    def array(self, a: np.ndarray) -> dict:
        if a.dtype.hasobject:
            raise SaveError(f"Cannot save an object array (dtype {a.dtype}): only plain data")
        key = f"a{len(self.arrays)}"
        self.arrays[key] = a
        return {"$array": key}

    def scalar(self, s: np.generic) -> dict:
        return {"$scalar": self.array(np.asarray(s))["$array"]}

    # -- objects --------------------------------------------------------------------------

    def object(self, obj: Any) -> int:
        """The number of ``obj`` (an op, a type, a mode, a data class instance)."""
        number = self._ids.get(id(obj))
        if number is not None:
            return number
        if isinstance(obj, Type):  # equal types (every variable has one) are saved once
            number = self._types.get(obj)
            if number is not None:
                return number
            self._types[obj] = number = self._new_object(obj)
            return number
        return self._new_object(obj)

    def _new_object(self, obj: Any) -> int:
        if dataclasses.is_dataclass(obj):
            state = {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
        else:
            state = obj.__getstate__()
        if not isinstance(state, dict):
            raise SaveError(f"Cannot save {obj!r}: its state is not a dict")
        fields = [[str(k), self.value(v)] for k, v in state.items()]
        return self._add(obj, {"kind": "object", "class": self._class(type(obj)), "state": fields})

    def variable(self, var: Variable) -> Any:
        """The reference of ``var`` (its number, or its node's number and its position), saving
        first what it depends on (without recursion)."""
        stack = [var]
        while stack:
            v = stack[-1]
            if id(v) in self._refs:
                stack.pop()
                continue
            node = v.owner
            if node is None:
                self._atomic(v)
                stack.pop()
                continue
            missing = [i for i in node.inputs if id(i) not in self._refs]
            if missing:
                stack.extend(missing)
                continue
            self._node(node)
        return self._refs[id(var)]

    def _atomic(self, v: Variable) -> None:
        record = {"class": self._class(type(v)), "type": self.value(v.type), "name": v.name}
        if isinstance(v, SharedVariable):
            self._shared(v, record)
        elif isinstance(v, Constant):
            self._add(v, {"kind": "const", **record, "data": self.value(v.data)})
        else:
            self._add(v, {"kind": "var", **record})

    def _shared(self, v: SharedVariable, record: dict) -> None:
        original = self._containers.get(id(v.container))
        if original is not None:
            self._add(v, {"kind": "clone", "of": original, "name": v.name})
            return
        value = self.value(v.container.storage[0])
        number = self._add(v, {"kind": "shared", **record, "value": value})
        self._containers[id(v.container)] = number
        self._alive.append(v.container)
        if v.default_update is not None:
            self._defaults.append(v)

    def _node(self, node: Apply) -> None:
        op = self.object(node.op)
        outputs = [
            {"class": self._class(type(o)), "type": self.value(o.type), "name": o.name}
            for o in node.outputs
        ]
        inputs = [self._refs[id(i)] for i in node.inputs]
        number = self._add(node, {"kind": "node", "op": op, "inputs": inputs, "outputs": outputs})
        for index, out in enumerate(node.outputs):
            self._refs[id(out)] = [number, index]
            self._alive.append(out)

    def fgraph(self, fg: FunctionGraph) -> int:
        number = self._ids.get(id(fg))
        if number is not None:
            return number
        inputs = [self.variable(i) for i in fg.inputs]
        outputs = [self.variable(o) for o in fg.outputs]
        mapping = [[int(k), int(j)] for k, j in (fg.update_mapping or {}).items()]
        record = {"kind": "fgraph", "inputs": inputs, "outputs": outputs, "updates": mapping}
        return self._add(fg, record)

    def var_ref(self, var: Variable) -> dict:
        return {"$var": self.variable(var)}

    # -- compiled functions ---------------------------------------------------------------

    def function(self, fn: Function) -> int:
        number = self._ids.get(id(fn))
        if number is not None:
            return number
        maker = fn.maker
        shared = {j: self.variable(s.variable) for j, s in enumerate(maker.inputs) if s.implicit}
        graph = self.fgraph(maker.fgraph)
        updates = {j: k for k, j in (maker.fgraph.update_mapping or {}).items()}
        inputs = [
            self._input(spec, container, shared.get(j), updates.get(j))
            for j, (spec, container) in enumerate(zip(maker.inputs, fn.input_storage))
        ]
        record = {
            "kind": "function",
            "fgraph": graph,
            "inputs": inputs,
            "outputs": [{"borrow": bool(o.borrow)} for o in maker.outputs],
            "mode": mode_record(maker.mode),
            "name": maker.name,
            "output_keys": self.value(maker.output_keys),
            "return_kind": maker.return_kind,
            "trust_input": bool(fn.trust_input),
        }
        return self._add(fn, record)

    def _input(self, spec: Any, container: Any, shared: int | None, update: int | None) -> dict:
        record = {
            "name": spec.name,
            "mutable": bool(spec.mutable),
            "borrow": bool(spec.borrow),
            "strict": bool(spec.strict),
            "allow_downcast": spec.allow_downcast,
            "implicit": bool(spec.implicit),
            "shared": bool(spec.shared),
            "update": update,
            "shared_variable": shared,
            "has_value": spec.value is not None,
        }
        if shared is None and spec.value is not None:
            record["value"] = self.value(container.storage[0])
        return record

    def finish(self) -> None:
        """Save the default updates of the shared variables met (they may add items)."""
        done = set()
        while len(done) < len(self._defaults):
            for v in list(self._defaults):
                if id(v) in done:
                    continue
                done.add(id(v))
                update = self.variable(v.default_update)
                record = {"kind": "default_update", "of": self._ids[id(v)], "update": update}
                self.items.append({**record, "id": len(self.items)})


def _generator(enc: Encoder, g: np.random.Generator) -> dict:
    name = type(g.bit_generator).__name__
    if name not in BIT_GENERATORS:
        raise SaveError(f"Cannot save a generator with the bit generator {name}")
    return {"$generator": {"bit_generator": name, "state": enc.value(g.bit_generator.state)}}


def _dict(enc: Encoder, d: dict) -> dict:
    return {"$dict": [[enc.value(k), enc.value(v)] for k, v in d.items()]}


_HANDLERS: tuple = (
    (tuple, lambda enc, v: {"$tuple": [enc.value(x) for x in v]}),
    (dict, _dict),
    (frozenset, lambda enc, v: {"$frozenset": [enc.value(x) for x in v]}),
    (set, lambda enc, v: {"$set": [enc.value(x) for x in v]}),
    (FrozenDict, lambda enc, v: {"$frozendict": _dict(enc, dict(v))["$dict"]}),
    (np.dtype, lambda enc, v: {"$dtype": v.str}),
    (np.ndarray, Encoder.array),
    (np.generic, Encoder.scalar),
    (slice, lambda enc, v: {"$slice": [enc.value(v.start), enc.value(v.stop), enc.value(v.step)]}),
    (np.random.Generator, _generator),
    (bytes, lambda enc, v: {"$bytes": v.hex()}),
    (ArraySignature, lambda enc, v: {"$signature": enc.array(v.data)["$array"]}),
    (Variable, lambda enc, v: enc.var_ref(v)),
    (Apply, lambda enc, v: {"$node": _node_number(enc, v)}),
    (FunctionGraph, lambda enc, v: {"$fgraph": enc.fgraph(v)}),
    (Function, lambda enc, v: {"$compiled": enc.function(v)}),
)


def _node_number(enc: Encoder, node: Apply) -> int:
    if not node.outputs:
        raise SaveError(f"Cannot save the node {node}: it has no outputs")
    return enc.variable(node.outputs[0])[0]
