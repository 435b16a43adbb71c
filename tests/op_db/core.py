"""The op database: one OpInfo per public function, driving the generic tests in test_op_db.py.

An entry says how to build the symbolic expression, what NumPy/SciPy computes for the same
inputs, which inputs to try, and which generic checks apply. Known failures are data
(``directives``), never conditions inside a test.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

FLOAT_DTYPES = ("float64", "float32")
TESTS = (
    "perform",
    "infer_shape",
    "grad",
    "grad_dtype",
    "rop",
    "adjoint",
    "second_order",
    "props",
    "constant_folding",
)


@dataclass
class Sample:
    """One set of arguments: ``args`` are NumPy values (symbolic inputs unless listed in
    ``static``); ``kwargs`` are passed unchanged to both ``build`` and ``ref``."""

    args: tuple
    kwargs: dict = field(default_factory=dict)
    name: str = ""
    static: tuple[int, ...] = ()  # positions of args passed as plain Python/NumPy values


@dataclass
class Directive:
    """Marks (test, dtype) combinations of an entry as expected to fail or to skip, with why."""

    test: str
    reason: str
    dtypes: Sequence[str] | None = None
    samples: Sequence[str] | None = None
    kind: str = "xfail"  # or "skip"

    def applies(self, test: str, dtype: str, sample: str) -> bool:
        return (
            self.test in (test, "*")
            and (self.dtypes is None or dtype in self.dtypes)
            and (self.samples is None or sample in self.samples)
        )


@dataclass
class OpInfo:
    """How to test one public function."""

    name: str
    build: Callable[..., Any]
    ref: Callable[..., Any]
    samples: Callable[[np.random.Generator], list[Sample]]
    dtypes: Sequence[str] = ("float64",)
    op_class: Any = None  # the op that must vanish from shape graphs (None: skip that check)
    grad: bool = True
    rop: bool = True
    second_order: bool = False  # also check grad(grad) (float64 samples), a representative few
    infer_shape: bool = True
    rtol: float | None = None
    atol: float | None = None
    grad_eps: float | None = None
    grad_tol: float | None = None
    directives: list[Directive] = field(default_factory=list)

    def directive_for(self, test: str, dtype: str, sample: str) -> Directive | None:
        return next((d for d in self.directives if d.applies(test, dtype, sample)), None)


REGISTRY: list[OpInfo] = []


def register(*infos: OpInfo) -> None:
    for info in infos:
        if any(existing.name == info.name for existing in REGISTRY):
            raise ValueError(f"op_db already has an entry named {info.name!r}")
        REGISTRY.append(info)


def cast_sample(sample: Sample, dtype: str) -> Sample:
    """The sample with its floating-point array arguments converted to ``dtype``."""

    def convert(value: Any) -> Any:
        if isinstance(value, np.ndarray) and value.dtype.kind == "f":
            return value.astype(dtype)
        return value

    return Sample(tuple(convert(a) for a in sample.args), sample.kwargs, sample.name, sample.static)
