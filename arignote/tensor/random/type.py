"""The type of NumPy random generators, its variables (plain, constant, shared), and ``NoneConst``.

A random variable op takes a ``numpy.random.Generator`` as an input and returns the generator's
next state as an output; :class:`RandomGeneratorType` is the type of both. A generator held by a
shared variable (``arignote.shared(np.random.default_rng(seed))``) keeps its state between calls
of compiled functions through the variable's ``default_update``.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from arignote.graph.basic import Constant, Variable
from arignote.graph.shared import SharedVariable, shared_constructor
from arignote.graph.type import Type

# Bit generators whose state can be copied through ``.state`` (every NumPy bit generator).
_COPYABLE_BIT_GENERATORS = (
    np.random.PCG64,
    np.random.PCG64DXSM,
    np.random.MT19937,
    np.random.Philox,
    np.random.SFC64,
)


def copy_generator(rng: np.random.Generator) -> np.random.Generator:
    """An independent generator in the same state as ``rng`` (drawing from one leaves the other).

    For NumPy's own bit generators this builds a fresh bit generator from the same
    ``SeedSequence`` and then overwrites its state, which is four times faster than
    ``copy.deepcopy``; other bit generators are deep-copied.
    """
    bit_generator = rng.bit_generator
    if type(bit_generator) not in _COPYABLE_BIT_GENERATORS:
        return copy.deepcopy(rng)
    twin = type(bit_generator)(bit_generator.seed_seq)
    twin.state = bit_generator.state
    return np.random.Generator(twin)


def _states_equal(a: Any, b: Any) -> bool:
    """Equality of bit-generator state dicts, whose leaves are ints, strings or arrays."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_states_equal(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return bool(np.array_equal(a, b))
    return type(a) is type(b) and a == b


def _state_signature(state: Any) -> Any:
    """A hashable key equal for equal states (arrays become their bytes)."""
    if isinstance(state, dict):
        return tuple(sorted((k, _state_signature(v)) for k, v in state.items()))
    if isinstance(state, np.ndarray):
        return (state.dtype.str, state.shape, state.tobytes())
    return state


class RandomGeneratorType(Type):
    """Values are ``numpy.random.Generator`` objects (any bit generator).

    Two values are equal when their bit generators are of the same kind and in the same state:
    they will produce the same numbers.
    """

    __props__ = ()

    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        if isinstance(data, np.random.Generator):
            return data
        hint = ""
        if isinstance(data, np.random.RandomState):
            hint = " (legacy RandomState objects are not supported: use np.random.default_rng)"
        raise TypeError(f"{self} expects a numpy.random.Generator, got {type(data).__name__}{hint}")

    def values_eq(self, a: Any, b: Any) -> bool:
        if not isinstance(a, np.random.Generator) or not isinstance(b, np.random.Generator):
            return False
        return _states_equal(a.bit_generator.state, b.bit_generator.state)

    def may_share_memory(self, a: Any, b: Any) -> bool:
        if not isinstance(a, np.random.Generator) or not isinstance(b, np.random.Generator):
            return False
        return a is b or a.bit_generator is b.bit_generator

    def data_signature(self, data: np.random.Generator) -> Any:
        return ("Generator", _state_signature(data.bit_generator.state))

    def data_str(self, data: np.random.Generator) -> str:
        return f"Generator({type(data.bit_generator).__name__})"

    def __str__(self) -> str:
        return "RandomGeneratorType"

    __repr__ = __str__


class RandomGeneratorVariable(Variable):
    """A variable whose value is a NumPy ``Generator``."""


class RandomGeneratorConstant(Constant):
    """A generator fixed when the graph is built.

    The constant keeps its own copy of the generator, so drawing from the original afterwards
    does not change the graph (ops never modify a constant: they draw from a copy).
    """

    def __init__(self, type: Any, data: Any, name: str | None = None) -> None:
        super().__init__(type, copy.deepcopy(type.filter(data)), name)


class RandomGeneratorSharedVariable(SharedVariable):
    """A shared variable holding a generator: compiled functions advance it through updates.

    ``get_value()`` returns a deep copy of the generator (``borrow=True``: the generator itself)
    and ``set_value(rng)`` stores a deep copy (``borrow=True``: ``rng`` itself).
    """

    def __str__(self) -> str:
        return self.name if self.name is not None else "RandomGeneratorSharedVariable"


RandomGeneratorType.variable_type = RandomGeneratorVariable
RandomGeneratorType.constant_type = RandomGeneratorConstant

random_generator_type = RandomGeneratorType()


@shared_constructor
def random_generator_constructor(
    value: Any,
    name: str | None = None,
    strict: bool = False,
    allow_downcast: bool | None = None,
    borrow: bool = False,
):
    """Shared variable for a ``numpy.random.Generator`` (a deep copy of it unless ``borrow``)."""
    if not isinstance(value, np.random.Generator):
        raise TypeError(f"expected a numpy.random.Generator, got {type(value).__name__}")
    if not borrow:
        value = copy.deepcopy(value)
    return RandomGeneratorSharedVariable(
        random_generator_type, value, strict=strict, allow_downcast=allow_downcast, name=name
    )


# -- None as a graph value --------------------------------------------------------------------


class NoneTypeT(Type):
    """The type whose only value is ``None``: an optional op input that was left out.

    Random variables take ``size=None`` ("broadcast the parameters") and optional parameters
    (``choice(a, p=None)``) as the constant :data:`NoneConst`.
    """

    __props__ = ()

    def filter(self, data: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        if data is None:
            return None
        raise TypeError(f"NoneTypeT only holds None, got {type(data).__name__} ({data!r})")

    def may_share_memory(self, a: Any, b: Any) -> bool:
        return False

    def __str__(self) -> str:
        return "NoneTypeT"

    __repr__ = __str__


none_type_t = NoneTypeT()
NoneConst = Constant(none_type_t, None, name="NoneConst")


def is_none_const(var: Any) -> bool:
    """Whether ``var`` is a constant ``None`` (an omitted optional input)."""
    return isinstance(var, Constant) and isinstance(var.type, NoneTypeT)


__all__ = [
    "NoneConst",
    "NoneTypeT",
    "RandomGeneratorConstant",
    "RandomGeneratorSharedVariable",
    "RandomGeneratorType",
    "RandomGeneratorVariable",
    "copy_generator",
    "random_generator_type",
]
