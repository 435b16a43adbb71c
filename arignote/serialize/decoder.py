"""The data of a saved file back to objects (the inverse of :mod:`arignote.serialize.encoder`).

Nothing in the file is evaluated: class names are looked up among registered classes, objects
are made with ``cls.__new__`` and given their state with ``__setstate__`` (the class's own
code), arrays come from an ``.npz`` read with ``allow_pickle=False``. Any malformed record
raises :class:`~arignote.serialize.errors.FormatError`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arignote.compile.function import FunctionMaker
from arignote.compile.io import In, Out
from arignote.graph.basic import Apply, Constant, Variable
from arignote.graph.fg import FunctionGraph
from arignote.graph.shared import SharedVariable
from arignote.graph.utils import FrozenDict
from arignote.serialize.encoder import BIT_GENERATORS
from arignote.serialize.errors import FormatError
from arignote.serialize.modes import mode_from_record
from arignote.serialize.registry import (
    DATA_CLASSES,
    exception_class,
    known_classes,
    lookup_class,
    lookup_function,
)
from arignote.tensor.type import ArraySignature


class Decoder:
    """Builds the items of one file in order, then decodes values referring to them."""

    def __init__(self, items: list, arrays: Any) -> None:
        self.arrays = arrays
        self.table = known_classes()
        self.objects: list[Any] = []
        for position, record in enumerate(items):
            if not isinstance(record, dict) or record.get("id") != position:
                raise FormatError(f"Item {position} of the file is malformed")
            self.objects.append(self._build(record))

    # -- items ----------------------------------------------------------------------------

    def _build(self, record: dict) -> Any:
        builder = _BUILDERS.get(record.get("kind"))
        if builder is None:
            raise FormatError(f"Unknown item kind {record.get('kind')!r}")
        return builder(self, record)

    def cls(self, name: Any, base: type = object) -> type:
        if not isinstance(name, str):
            raise FormatError(f"A class name must be a string, got {name!r}")
        cls = lookup_class(name, self.table)
        if not issubclass(cls, base):
            raise FormatError(f"{name!r} is not a {base.__name__}")
        return cls

    def _object(self, record: dict) -> Any:
        cls = self.cls(record["class"])
        state = {str(k): self.value(v) for k, v in record["state"]}
        if cls in DATA_CLASSES:
            return cls(**state)
        obj = cls.__new__(cls)
        obj.__setstate__(state)
        return obj

    def _variable(self, record: dict) -> Variable:
        cls = self.cls(record["class"], Variable)
        return cls(self.value(record["type"]), None, None, record["name"])

    def _constant(self, record: dict) -> Constant:
        cls = self.cls(record["class"], Constant)
        return cls(self.value(record["type"]), self.value(record["data"]), record["name"])

    def _shared(self, record: dict) -> SharedVariable:
        cls = self.cls(record["class"], SharedVariable)
        value = self.value(record["value"])
        return cls(self.value(record["type"]), value, name=record["name"])

    def _clone(self, record: dict) -> SharedVariable:
        original = self.ref(record["of"])
        if not isinstance(original, SharedVariable):
            raise FormatError("A shared clone refers to something else than a shared variable")
        return original.clone(name=record["name"])

    def _node(self, record: dict) -> Apply:
        op = self.objects[self._number(record["op"])]
        inputs = [self.ref(r) for r in record["inputs"]]
        outputs = [
            self.cls(o["class"], Variable)(self.value(o["type"]), None, None, o["name"])
            for o in record["outputs"]
        ]
        return Apply(op, inputs, outputs)

    def _fgraph(self, record: dict) -> FunctionGraph:
        inputs = [self.ref(r) for r in record["inputs"]]
        outputs = [self.ref(r) for r in record["outputs"]]
        mapping = {int(k): int(j) for k, j in record["updates"]} or None
        return FunctionGraph(inputs, outputs, clone=False, update_mapping=mapping)

    def _default_update(self, record: dict) -> None:
        self.ref(record["of"]).default_update = self.ref(record["update"])

    def _function(self, record: dict) -> Any:
        fgraph = self.objects[self._number(record["fgraph"])]
        inputs = [self._input(fgraph, j, r) for j, r in enumerate(record["inputs"])]
        outputs = [
            Out(fgraph.outputs[i], borrow=o["borrow"]) for i, o in enumerate(record["outputs"])
        ]
        maker = FunctionMaker(
            inputs,
            outputs,
            mode=mode_from_record(record["mode"]),
            name=record["name"],
            output_keys=self.value(record["output_keys"]),
            return_kind=record["return_kind"],
            fgraph=fgraph,
        )
        fn = maker.create()
        fn.trust_input = bool(record["trust_input"])
        return fn

    def _input(self, fgraph: FunctionGraph, j: int, r: dict) -> In:
        update = None if r["update"] is None else fgraph.outputs[int(r["update"])]
        if r["shared_variable"] is not None:
            value = self.ref(r["shared_variable"]).container
        else:
            value = self.value(r["value"]) if r["has_value"] else None
        return In(
            fgraph.inputs[j],
            name=r["name"],
            value=value,
            update=update,
            mutable=r["mutable"],
            strict=r["strict"],
            allow_downcast=r["allow_downcast"],
            implicit=r["implicit"],
            borrow=r["borrow"],
            shared=r["shared"],
        )

    # -- references and values ------------------------------------------------------------

    def _number(self, n: Any) -> int:
        if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n < len(self.objects):
            raise FormatError(f"Reference {n!r} is not to an earlier item of the file")
        return n

    def ref(self, r: Any) -> Any:
        """A variable (or object) by reference: a number, or ``[node number, output index]``."""
        if isinstance(r, list):
            if len(r) != 2:
                raise FormatError(f"Malformed reference {r!r}")
            node = self.objects[self._number(r[0])]
            if not isinstance(node, Apply) or not 0 <= r[1] < len(node.outputs):
                raise FormatError(f"Reference {r!r} is not to an output of a node")
            return node.outputs[r[1]]
        return self.objects[self._number(r)]

    def value(self, v: Any) -> Any:
        if v is None or isinstance(v, bool | int | float | str):
            return v
        if isinstance(v, list):
            return [self.value(x) for x in v]
        if not isinstance(v, dict) or len(v) != 1:
            raise FormatError(f"Malformed value {v!r:.100}")
        ((tag, body),) = v.items()
        handler = _TAGS.get(tag)
        if handler is None:
            raise FormatError(f"Unknown value tag {tag!r}")
        return handler(self, body)

    def array(self, key: Any) -> np.ndarray:
        if not isinstance(key, str) or key not in self.arrays:
            raise FormatError(f"The file's array table has no member {key!r}")
        return self.arrays[key]

    def generator(self, body: dict) -> np.random.Generator:
        name = body["bit_generator"]
        if name not in BIT_GENERATORS:
            raise FormatError(f"Unknown bit generator {name!r}")
        bit_generator = getattr(np.random, name)()
        bit_generator.state = self.value(body["state"])
        return np.random.Generator(bit_generator)


def _float(text: Any) -> float:
    if text not in ("nan", "inf", "-inf"):
        raise FormatError(f"Malformed float {text!r}")
    return float(text)


def _named(dec: Decoder, body: list) -> tuple:
    cls = dec.cls(body[0], tuple)
    if not hasattr(cls, "_fields"):
        raise FormatError(f"{body[0]!r} is not a named tuple")
    return cls(*(dec.value(x) for x in body[1]))


def _slice(dec: Decoder, body: list) -> slice:
    return slice(*(dec.value(x) for x in body))


_TAGS = {
    "$float": lambda dec, b: _float(b),
    "$complex": lambda dec, b: complex(dec.value(b[0]), dec.value(b[1])),
    "$tuple": lambda dec, b: tuple(dec.value(x) for x in b),
    "$dict": lambda dec, b: {dec.value(k): dec.value(x) for k, x in b},
    "$frozendict": lambda dec, b: FrozenDict({dec.value(k): dec.value(x) for k, x in b}),
    "$frozenset": lambda dec, b: frozenset(dec.value(x) for x in b),
    "$set": lambda dec, b: {dec.value(x) for x in b},
    "$dtype": lambda dec, b: np.dtype(str(b)),
    "$array": lambda dec, b: dec.array(b).copy(),
    "$scalar": lambda dec, b: dec.array(b)[()],
    "$slice": _slice,
    "$named": _named,
    "$bytes": lambda dec, b: bytes.fromhex(str(b)),
    "$signature": lambda dec, b: ArraySignature(dec.array(b).copy()),
    "$ellipsis": lambda dec, b: Ellipsis,
    "$class": lambda dec, b: exception_class(b, dec.table),
    "$function": lambda dec, b: lookup_function(b),
    "$generator": Decoder.generator,
    "$obj": lambda dec, b: dec.objects[dec._number(b)],
    "$var": lambda dec, b: dec.ref(b),
    "$node": lambda dec, b: dec.objects[dec._number(b)],
    "$fgraph": lambda dec, b: dec.objects[dec._number(b)],
    "$compiled": lambda dec, b: dec.objects[dec._number(b)],
}

_BUILDERS = {
    "object": Decoder._object,
    "var": Decoder._variable,
    "const": Decoder._constant,
    "shared": Decoder._shared,
    "clone": Decoder._clone,
    "node": Decoder._node,
    "fgraph": Decoder._fgraph,
    "default_update": Decoder._default_update,
    "function": Decoder._function,
}
