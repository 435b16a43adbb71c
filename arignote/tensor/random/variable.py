"""Generator variables as PyTensor 3 uses them: ``rng()``, ``shared_rng()`` and draw methods.

``rng = ptr.rng("rng")`` is a function input holding a ``numpy.random.Generator``;
``next_rng, x = rng.normal(0, 1, size=3)`` draws from it and returns the generator's next
state with the draw. Compiled with ``arignote.In(rng, mutable=True)`` or fed back by hand,
the draws are exactly NumPy's ``Generator.normal`` ones from the same state.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np

from arignote.tensor.random import basic, multivariate
from arignote.tensor.random.type import (
    RandomGeneratorConstant,
    RandomGeneratorSharedVariable,
    RandomGeneratorVariable,
    random_generator_type,
)

_UNSET: Any = object()  # "no seed given" (None is a valid seed: fresh OS entropy)


def rng(name: str | None = None) -> RandomGeneratorVariable:
    """A symbolic generator with no value: a function input for a ``numpy.random.Generator``.

    Compile with ``arignote.In(rng, mutable=True)`` to let draws advance the given generator
    in place; otherwise return the next state (``rng.normal()`` gives it) and pass it back.
    """
    return random_generator_type(name=name)


def shared_rng(
    value: np.random.Generator | None = None,
    *,
    seed: Any = _UNSET,
    name: str | None = None,
    borrow: bool = False,
) -> RandomGeneratorSharedVariable:
    """A shared generator: ``value`` (copied unless ``borrow``) or ``default_rng(seed)``.

    Exactly one of ``value`` and ``seed`` is given (a ``ValueError`` otherwise, a
    ``TypeError`` when ``value`` is not a ``numpy.random.Generator``).
    """
    if value is None:
        if seed is _UNSET:
            raise ValueError("shared_rng needs a value (a numpy.random.Generator) or a seed")
        value = np.random.default_rng(seed)
    elif seed is not _UNSET:
        raise ValueError("shared_rng takes a value or a seed, not both")
    elif not isinstance(value, np.random.Generator):
        raise TypeError(f"shared_rng expects a numpy.random.Generator, got {type(value).__name__}")
    elif not borrow:
        value = copy.deepcopy(value)
    return RandomGeneratorSharedVariable(random_generator_type, value, strict=False, name=name)


def _draw_method(draw: Callable) -> Callable:
    """The method ``rng.<draw>(...)``: ``draw(..., rng=rng, return_next_rng=True)``."""

    def method(self: Any, *args: Any, **kwargs: Any) -> tuple:
        return draw(*args, rng=self, return_next_rng=True, **kwargs)

    method.__name__ = draw.__name__
    method.__doc__ = (
        f"``(next_rng, draw)`` of ``{draw.__name__}(...)`` from this generator "
        f"(see :func:`arignote.tensor.random.{draw.__name__}`)."
    )
    return method


def _draw_functions() -> dict[str, Callable]:
    """The draw functions by name: the lower-case callables of the two draw modules."""
    functions = {}
    for module in (basic, multivariate):
        for name in module.__all__:
            value = getattr(module, name)
            if name.islower() and not name.endswith("_rv") and callable(value):
                functions[name] = value
    return functions


DRAW_METHODS = {name: _draw_method(f) for name, f in _draw_functions().items()}

# The generator variable classes sit below the draw functions in the layers, so the methods
# are attached from here, to plain, constant and shared generators alike.
for _cls in (RandomGeneratorVariable, RandomGeneratorConstant, RandomGeneratorSharedVariable):
    for _name, _method in DRAW_METHODS.items():
        setattr(_cls, _name, _method)

__all__ = ["DRAW_METHODS", "RandomGeneratorVariable", "rng", "shared_rng"]
