"""The table of output-dtype rules (``arignote.scalar.dtype_rules``) against NumPy and SciPy.

Every rule is checked over every dtype the op database uses (all NumPy numeric dtypes) for
unary ops and every pair for binary ones: the dtype must equal what NumPy's (or SciPy's) own
dispatch gives the op's computation, and a rule must refuse exactly the inputs NumPy refuses.
Every built-in scalar op computed by a ufunc must have a rule (ops writing their own
``output_types`` method carry theirs in the class).
"""

from __future__ import annotations

import importlib
import itertools

import numpy as np
import pytest

from arignote.scalar.arithmetic import Cast
from arignote.scalar.basic import ScalarOp, get_scalar_type, probed_output_types
from arignote.scalar.dtype_rules import DTYPE_RULES, apply_rule, rule_for
from arignote.scalar.logical import IsClose
from arignote.scalar.rounding import RoundHalfToEven
from arignote.scalar.special import Factorial

DTYPES = [
    *("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"),
    *("float16", "float32", "float64", "complex64", "complex128"),
]
MODULES = ["basic", "arithmetic", "math", "logical", "rounding", "complex", "special"]
MODULES.append("special_more")
MODULES.append("without_zeros")


def _instances() -> dict[type, ScalarOp]:
    found: dict[type, ScalarOp] = {}
    for name in MODULES:
        for value in vars(importlib.import_module(f"arignote.scalar.{name}")).values():
            if isinstance(value, ScalarOp):
                found.setdefault(type(value), value)
    return found


INSTANCES = _instances()
TABLED = {cls: op for cls, op in INSTANCES.items() if rule_for(cls) is not None}
#: Inputs (dtype prefix) an op refuses where its NumPy function would compute something, and why.
REFUSED_ON_PURPOSE = {
    "Complex": ("complex", "assigning a complex part would drop its imaginary part"),
    "Softplus": ("complex", "the formula compares with 0"),
    "Log1mexp": ("complex", "the formula compares with 0"),
}
#: Inputs an op accepts where its ufunc refuses them, and why.
ACCEPTED_ON_PURPOSE = {"Identity": ("bool", "a copy (np.positive refuses booleans)")}
#: Ops whose parameters set the output dtype, one instance per case of the rule.
PARAMETRIZED = [
    Cast(get_scalar_type("float32")),
    Cast(get_scalar_type("int16")),
    RoundHalfToEven(decimals=-1),
    Factorial(exact=True),
    IsClose(),
]


def _numpy_dtype(op: ScalarOp, dtypes: tuple) -> str | None:
    """What NumPy/SciPy computes the op in: the ufunc's dispatch, or a run on arrays."""
    refused = REFUSED_ON_PURPOSE.get(type(op).__name__)
    if refused is not None and any(d.startswith(refused[0]) for d in dtypes):
        return None
    arrays = [np.ones(1, dtype=d) for d in dtypes]
    nfunc = op.nfunc if hasattr(op.nfunc, "resolve_dtypes") else None
    try:
        if nfunc is not None and len(dtypes) == nfunc.nin:
            return nfunc.resolve_dtypes((*map(np.dtype, dtypes), *[None] * nfunc.nout))[-1].name
        return probed_output_types(op, [get_scalar_type(d) for d in dtypes])[0].dtype
    except (TypeError, np._core._exceptions._UFuncNoLoopError):
        return None
    finally:
        del arrays


def _combinations(op: ScalarOp) -> list[tuple]:
    nin = op.nin if op.nin > 0 else 2
    if nin <= 2:
        return list(itertools.product(DTYPES, repeat=nin))
    return [(d,) * nin for d in DTYPES] + list(
        itertools.product(("bool", "int16", "float32", "float64"), repeat=nin)
    )


def _rule_dtype(rule, dtypes, op) -> str | None:
    try:
        return apply_rule(rule, dtypes, op)
    except TypeError:
        return None


def _check_rule_matches_numpy(op):
    rule = rule_for(type(op))
    accepted = ACCEPTED_ON_PURPOSE.get(type(op).__name__, ("-",))[0]
    wrong = [
        (dtypes, want, got)
        for dtypes in _combinations(op)
        if (want := _numpy_dtype(op, dtypes)) != (got := _rule_dtype(rule, dtypes, op))
        and not (want is None and accepted in dtypes)
    ]
    assert not wrong, f"{op}: (inputs, NumPy, rule) {wrong[:5]} ({len(wrong)} in all)"


@pytest.mark.parametrize("cls", sorted(TABLED, key=lambda c: c.__name__), ids=lambda c: c.__name__)
def test_rule_matches_numpy_on_every_dtype_combination(cls):
    _check_rule_matches_numpy(TABLED[cls])


@pytest.mark.parametrize("op", PARAMETRIZED, ids=str)
def test_rules_of_parametrized_ops_match_numpy(op):
    _check_rule_matches_numpy(op)


@pytest.mark.parametrize("cls", sorted(TABLED, key=lambda c: c.__name__), ids=lambda c: c.__name__)
def test_built_nodes_follow_the_rule(cls):
    op, rule = TABLED[cls], rule_for(cls)
    for dtypes in _combinations(op)[::7]:
        expected = _rule_dtype(rule, dtypes, op)
        if expected is None:
            continue
        node = op.make_node(*[get_scalar_type(d)() for d in dtypes])
        assert node.outputs[0].type.dtype == expected, dtypes


def _own_output_types(cls: type) -> bool:
    """Whether the class writes its own ``output_types`` (an explicit rule of its own, such
    as Identity accepting booleans that ``np.positive`` refuses)."""
    return any("output_types" in vars(k) for k in cls.__mro__ if k is not ScalarOp)


def test_every_ufunc_scalar_op_has_a_rule_and_every_rule_an_op():
    ufunc_ops = [
        cls
        for cls, op in INSTANCES.items()
        if op.output_types_preference is None
        and hasattr(op.nfunc, "resolve_dtypes")
        and not _own_output_types(cls)
    ]
    assert sorted(c.__name__ for c in ufunc_ops if rule_for(c) is None) == []
    classes = [*INSTANCES, *map(type, PARAMETRIZED)]
    known = {f"{c.__module__}.{c.__qualname__}" for c in classes}
    assert sorted(set(DTYPE_RULES) - known) == []


def test_a_subclass_does_not_inherit_its_parents_rule():
    Exp = next(c for c in INSTANCES if c.__name__ == "Exp")
    Child = type("Child", (Exp,), {})
    assert rule_for(Exp) is not None and rule_for(Child) is None
