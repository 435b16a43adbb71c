"""The table of scalar kernels (``arignote.scalar.kernels``): its coverage, its vocabulary, and
its formulas evaluated with NumPy and SciPy against each op's own ``elementwise``."""

from __future__ import annotations

import ast
import importlib
import warnings

import numpy as np
import pytest
import scipy.special

from arignote.scalar.arithmetic import Cast
from arignote.scalar.basic import ScalarOp, get_scalar_type
from arignote.scalar.composite import Composite
from arignote.scalar.dtype_rules import DTYPE_RULES
from arignote.scalar.kernels import KERNELS, VOCABULARY, NoKernel, formula_for, kernel_for
from arignote.scalar.logical import IsClose
from arignote.scalar.rounding import RoundHalfToEven
from arignote.scalar.special import Factorial

MODULES = ["basic", "arithmetic", "math", "logical", "rounding", "complex", "special"]
MODULES += ["special_more", "composite"]


def _classes() -> set[type]:
    """Every concrete scalar op class of the scalar layer (those with an instance there, and
    the parametrized ones users instantiate themselves)."""
    found = {Cast, IsClose, RoundHalfToEven, Factorial, Composite}
    for name in MODULES:
        for value in vars(importlib.import_module(f"arignote.scalar.{name}")).values():
            if isinstance(value, ScalarOp):
                found.add(type(value))
    return found


def _instances() -> list[ScalarOp]:
    found: dict[type, ScalarOp] = {}
    for name in MODULES:
        for value in vars(importlib.import_module(f"arignote.scalar.{name}")).values():
            if isinstance(value, ScalarOp) and kernel_for(type(value)) is not None:
                found.setdefault(type(value), value)
    extra = [Cast(get_scalar_type("float32")), IsClose(rtol=0.1, equal_nan=True)]
    extra += [RoundHalfToEven(decimals=2), Factorial()]
    return [*found.values(), *extra]


def _qualified(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def test_the_kernel_table_and_the_dtype_rules_cover_the_same_classes():
    assert set(KERNELS) == set(DTYPE_RULES)
    for name, kernel in KERNELS.items():
        assert kernel.rule is DTYPE_RULES[name]


def test_every_built_in_scalar_op_class_has_a_kernel_but_composite():
    missing = sorted(c.__name__ for c in _classes() if _qualified(c) not in KERNELS)
    assert missing == ["Composite"]  # its kernel is the kernels of its inner nodes
    assert kernel_for(Composite) is None


def test_a_subclass_does_not_inherit_its_parents_kernel():
    Exp = next(c for c in _classes() if c.__name__ == "Exp")
    Child = type("Child", (Exp,), {})
    assert kernel_for(Exp) is not None and kernel_for(Child) is None
    with pytest.raises(NoKernel, match="Child"):
        formula_for(Child(), ["float64"])


OPS = _instances()


@pytest.mark.parametrize("op", OPS, ids=str)
def test_formulas_use_only_the_vocabulary(op):
    nin = op.nin if op.nin > 0 else 2
    for dtype in ("float64", "int64", "complex128", "bool"):
        try:
            text = formula_for(op, [dtype] * nin)
        except NoKernel:
            continue
        tree = ast.parse(text, mode="eval")
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                assert node.id in VOCABULARY or node.id in {f"x{k}" for k in range(nin)}, text
            if isinstance(node, ast.Attribute):
                space = {"xp": np, "sp": scipy.special}[node.value.id]
                assert hasattr(space, node.attr), text


def test_factorial_exact_has_no_kernel_and_says_why():
    with pytest.raises(NoKernel, match="exact"):
        formula_for(Factorial(exact=True), ["int64"])


def test_variadic_formulas_fold_left_to_right():
    add = next(op for op in OPS if type(op).__name__ == "Add")
    text = formula_for(add, ["float64"] * 4)
    assert _evaluate(text, [np.float64(v) for v in (1.0, 2.0, 4.0, 8.0)]) == 15.0
    assert text.count("xp.add") == 3


def _flt(x):
    x = np.asarray(x)
    return x if x.dtype.kind in "fc" else x.astype(np.float64)


_NAMESPACE = {
    "xp": np,
    "sp": scipy.special,
    "where": np.where,
    "flt": _flt,
    "complex": lambda re, im: np.asarray(re) + 1j * np.asarray(im),
}


def _evaluate(text: str, values: list) -> np.ndarray:
    scope = {**_NAMESPACE, **{f"x{k}": v for k, v in enumerate(values)}}
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return np.asarray(eval(text, scope))  # the table's own formulas


def _values(dtype: str, rng, nin: int) -> list[np.ndarray]:
    kind = np.dtype(dtype).kind
    if kind == "b":
        return [rng.uniform(size=6) > 0.5 for _ in range(nin)]
    if kind in "iu":
        return [rng.integers(1, 9, size=6).astype(dtype) for _ in range(nin)]
    return [rng.uniform(-0.9, 0.9, size=6).astype(dtype) for _ in range(nin)]


@pytest.mark.parametrize("op", OPS, ids=str)
def test_formulas_evaluated_with_numpy_match_elementwise(op, rng):
    """The table computes what ``perform`` computes (values, up to the final dtype)."""
    nin = op.nin if op.nin > 0 else 2
    for dtype in ("float64", "int64", "bool"):
        try:
            text = formula_for(op, [dtype] * nin)
        except NoKernel:
            continue
        values = _values(dtype, rng, nin)
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                expected = np.asarray(op.elementwise(*values))
        except (TypeError, ValueError):
            continue  # inputs the op refuses
        actual = _evaluate(text, values)
        np.testing.assert_allclose(
            np.broadcast_to(actual, expected.shape).astype(expected.dtype),
            expected,
            rtol=1e-12,
            atol=1e-300,
            equal_nan=True,
            err_msg=f"{op} on {dtype}: {text}",
        )
