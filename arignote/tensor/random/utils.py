"""``RandomStream``: draws whose shared generators are derived from one seed."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from arignote.graph.basic import Variable
from arignote.graph.shared import SharedVariable, shared
from arignote.tensor.random import basic, multivariate


class _ModuleName(str):
    """The name of a module namespace, in a pickled RandomStream."""


class RandomStream:
    """A source of symbolic draws, reproducible for a seed.

    ``srng.normal(0, 1, size=(2, 3))`` (and every other distribution function of
    :mod:`arignote.tensor.random`) draws from a new shared generator made for that call. The
    generators are built by ``rng_ctor`` from children of ``numpy.random.SeedSequence(seed)``,
    spawned in call order, and each one advances between calls of a compiled function through its
    ``default_update``. :meth:`seed` resets them all.

    Parameters
    ----------
    seed : int or sequence of ints, optional
        The seed; None takes fresh entropy from the operating system.
    namespace : module or object, optional
        Where ``srng.<name>`` looks up distribution functions first (before the built-in ones).
    rng_ctor : callable
        Makes a generator from a ``SeedSequence`` (default ``numpy.random.default_rng``).
    """

    def __init__(
        self,
        seed: Any = None,
        namespace: ModuleType | Any = None,
        rng_ctor: Callable[[np.random.SeedSequence], np.random.Generator] = np.random.default_rng,
    ) -> None:
        self.default_instance_seed = seed
        #: Where distribution functions are looked up besides the built-in modules.
        self.namespaces = [namespace] if namespace is not None else []
        self.rng_ctor = rng_ctor
        #: (shared generator, its update) for every draw made so far, in order.
        self.state_updates: list[tuple[SharedVariable, Variable]] = []
        self.gen_seedseq = np.random.SeedSequence(seed)

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("_"):
            raise AttributeError(name)
        # (self.__dict__: during unpickling the attributes are not set yet)
        for namespace in [*self.__dict__.get("namespaces", ()), basic, multivariate]:
            fn = getattr(namespace, name, None)
            if callable(fn) and name in getattr(namespace, "__all__", (name,)):

                def draw(*args: Any, _fn: Callable = fn, **kwargs: Any) -> Any:
                    return self.gen(_fn, *args, **kwargs)

                draw.__name__ = name
                draw.__doc__ = fn.__doc__
                return draw
        raise AttributeError(f"RandomStream has no distribution named {name!r}")

    def __getstate__(self) -> dict:
        # Modules do not pickle: a module namespace is stored by name and imported back.
        state = dict(self.__dict__)
        state["namespaces"] = [
            _ModuleName(n.__name__) if isinstance(n, ModuleType) else n for n in self.namespaces
        ]
        return state

    def __setstate__(self, state: dict) -> None:
        state["namespaces"] = [
            importlib.import_module(n) if isinstance(n, _ModuleName) else n
            for n in state["namespaces"]
        ]
        self.__dict__.update(state)

    def gen(self, op: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Draw ``op(*args, **kwargs)`` from a new shared generator of this stream.

        ``op`` is a random variable op (``normal_rv``) or a distribution function
        (``normal``); the generator is given to it as ``rng=``.
        """
        if "rng" in kwargs:
            raise TypeError("RandomStream.gen supplies the rng: do not pass one")
        child = self.gen_seedseq.spawn(1)[0]
        rng = shared(self.rng_ctor(child), borrow=True)
        result = op(*args, rng=rng, **kwargs)
        # The random variable drawing from ``rng`` gave it its next state as default update.
        update = getattr(rng, "default_update", None)
        if update is None:
            raise ValueError(f"RandomStream.gen: {op} did not draw from the generator it was given")
        self.state_updates.append((rng, update))
        return result

    def seed(self, seed: Any = None) -> None:
        """Reset every generator of the stream from ``seed`` (None: the stream's own seed).

        Afterwards the draws equal those of a new ``RandomStream(seed)`` making the same calls.
        """
        seed = self.default_instance_seed if seed is None else seed
        self.gen_seedseq = np.random.SeedSequence(seed)
        for rng, _ in self.state_updates:
            rng.set_value(self.rng_ctor(self.gen_seedseq.spawn(1)[0]), borrow=True)

    def updates(self) -> list[tuple[SharedVariable, Variable]]:
        """The ``(shared generator, next state)`` pairs of the draws made so far."""
        return list(self.state_updates)


__all__ = ["RandomStream"]
