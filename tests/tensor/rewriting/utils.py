"""Helpers for rewrite tests: rewrite a copy of a graph, remember it for the numeric check.

Every graph rewritten through :func:`rewrite` is recorded; the autouse fixture in this
directory's ``conftest.py`` then evaluates the original and the rewritten graph on the same
random inputs (without further rewrites) and fails the test if they disagree. That makes the
numeric before/after comparison automatic for every rewrite test.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import arignote
from arignote.compile.mode import Mode
from arignote.graph.basic import (
    Variable,
    clone_get_equiv,
    equal_computations,
    explicit_graph_inputs,
)
from arignote.graph.fg import FunctionGraph
from arignote.graph.rewriting.basic import in2out
from arignote.graph.rewriting.folding import constant_folding
from arignote.graph.rewriting.trace import RewriteTrace
from arignote.graph.rewriting.utils import rewrite_graph

NO_REWRITES = Mode(linker="vm", optimizer=None)
SIZES = (4, 3, 2, 5)  # length of a dimension of unknown length, by position from the right


@dataclass
class Record:
    before: list[Variable]
    after: list[Variable]
    values: dict = field(default_factory=dict)
    domain: tuple[float, float] = (-2.0, 2.0)


RECORDS: list[Record] = []


def rewrite(
    outputs: Variable | Sequence[Variable],
    include: Sequence[str] = ("canonicalize",),
    exclude: Sequence[str] = (),
    values: dict | None = None,
    domain: tuple[float, float] = (-2.0, 2.0),
) -> Any:
    """The rewritten copy of ``outputs`` (same input variables); the original is untouched.

    ``values`` fixes some inputs for the automatic numeric check; the others are drawn
    uniformly from ``domain`` (integers: small integers).
    """
    return rewrite_traced(outputs, include, exclude, values, domain)[0]


def rewrite_traced(outputs, include=("canonicalize",), exclude=(), values=None, domain=(-2, 2)):
    """Like :func:`rewrite`, also returning the names of the rewrites that fired."""
    single = isinstance(outputs, Variable)
    before = [outputs] if single else list(outputs)
    equiv = clone_get_equiv([], before, copy_inputs=False, copy_orphans=False)
    fgraph = FunctionGraph(outputs=[equiv[o] for o in before], clone=False)
    trace = RewriteTrace()
    fgraph.attach_feature(trace)
    rewrite_graph(fgraph, include=include, exclude=exclude)
    after = list(fgraph.outputs)
    RECORDS.append(Record(before, after, dict(values or {}), domain))
    return (after[0] if single else after), trace.fired


def normalized(expected: Variable) -> Variable:
    """``expected`` with its constant subgraphs folded (``DimShuffle(1.0)`` -> a constant)."""
    return rewrite_graph(expected, include=(), custom_rewrite=in2out(constant_folding), clone=True)


def assert_rewrites_to(out, expected, include=("canonicalize",), **kwargs) -> None:
    """The rewritten ``out`` is structurally ``expected`` (once its constants are folded)."""
    new = rewrite(out, include=include, **kwargs)
    expected = normalized(expected)
    if not equal_computations([new], [expected]):
        arignote.dprint(new)
        arignote.dprint(expected)
        raise AssertionError("the rewritten graph differs from the expected one (printed above)")


def assert_not_fired(out, name, include=("canonicalize",), **kwargs) -> Any:
    """Rewriting ``out`` does not fire the rewrite ``name``; returns the rewritten graph."""
    new, fired = rewrite_traced(out, include=include, **kwargs)
    assert name not in fired, f"{name} fired: {fired}"
    return new


def random_value(var: Variable, rng: np.random.Generator, domain=(-2.0, 2.0)) -> np.ndarray:
    """A random value of ``var``'s type (unknown lengths from ``SIZES``)."""
    ndim = var.type.ndim
    shape = tuple(SIZES[ndim - 1 - d] if s is None else s for d, s in enumerate(var.type.shape))
    dtype = np.dtype(var.type.dtype)
    if dtype.kind == "b":
        return rng.random(shape) > 0.5
    if dtype.kind in "iu":
        low = 0 if dtype.kind == "u" else -3
        return rng.integers(low, 4, size=shape).astype(dtype)
    value = rng.uniform(*domain, size=shape)
    if dtype.kind == "c":
        value = value + 1j * rng.uniform(*domain, size=shape)
    return value.astype(dtype)


def check_record(record: Record, rng: np.random.Generator) -> None:
    """Evaluate a recorded rewrite before and after on the same inputs; they must agree."""
    inputs = explicit_graph_inputs(record.before)
    values = [
        record.values[i] if i in record.values else random_value(i, rng, record.domain)
        for i in inputs
    ]
    before = arignote.function(inputs, record.before, mode=NO_REWRITES, on_unused_input="ignore")
    after = arignote.function(
        inputs, record.after, mode=NO_REWRITES, on_unused_input="ignore", accept_inplace=True
    )
    with np.errstate(all="ignore"):  # the domain may include points outside a function's
        expected, actual = before(*values), after(*values)
    for out, e, a in zip(record.before, expected, actual):
        e, a = np.asarray(e), np.asarray(a)
        assert e.shape == a.shape, f"{out}: shape {e.shape} became {a.shape}"
        assert e.dtype == a.dtype, f"{out}: dtype {e.dtype} became {a.dtype}"
        rtol, atol = (1e-4, 1e-5) if e.dtype.itemsize < 8 and e.dtype.kind == "f" else (1e-7, 1e-9)
        np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, equal_nan=True)
