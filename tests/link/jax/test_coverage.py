"""Every op class converts to JAX or is in the one unsupported list, with a reason."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

pytest.importorskip("jax", reason="the JAX backend needs jax (pip install arignote[jax])")

import arignote
import arignote.scalar
from arignote.graph.op import Op
from arignote.link.jax import UNSUPPORTED, jax_funcify
from arignote.link.jax.dispatch.basic import _by_name, qualified_name
from arignote.scalar.basic import ScalarOp

# Base classes that are never instantiated themselves (their subclasses are checked).
ABSTRACT = {
    "arignote.tensor.blas._BlasOp",
    "arignote.tensor.extra_ops._DiagOp",
    "arignote.tensor.sort._AlongAxisOp",
    "arignote.tensor.linalg.basic.SquareMatrixFunction",
    "arignote.tensor.linalg.solve.SolveBase",
    "arignote.tensor.linalg.misc.BaseBlockDiagonal",
    "arignote.tensor.math.AxisOp",
    "arignote.tensor.reduction.Accumulation",
    "arignote.tensor.reduction.MaxOrMin",
    "arignote.tensor.reduction._BoolReduce",
    "arignote.tensor.conv.abstract_conv.BaseAbstractConv",
    "arignote.tensor.conv.abstract_conv._ConvAdjoint",
    "arignote.tensor.signal.pool.PoolBase",
}


def _import_all() -> None:
    for module in pkgutil.walk_packages(arignote.__path__, "arignote."):
        if ".link.numba" in module.name:
            continue
        importlib.import_module(module.name)


def _subclasses(cls: type) -> set[type]:
    found: set[type] = set()
    stack = [cls]
    while stack:
        for sub in stack.pop().__subclasses__():
            if sub not in found and sub.__module__.startswith("arignote."):
                found.add(sub)
                stack.append(sub)
    return found


def _listed(cls: type) -> bool:
    return any(qualified_name(c) in UNSUPPORTED for c in cls.__mro__)


def _converted(cls: type) -> bool:
    return jax_funcify.dispatch(cls) is not jax_funcify.dispatch(object) or (
        _by_name(cls) is not None
    )


def test_every_tensor_level_op_converts_or_is_listed_unsupported():
    _import_all()
    classes = {c for c in _subclasses(Op) if not issubclass(c, ScalarOp)}
    missing = sorted(
        qualified_name(c)
        for c in classes
        if qualified_name(c) not in ABSTRACT and not (_converted(c) or _listed(c))
    )
    assert missing == []


def test_every_scalar_op_instance_converts_or_is_listed_unsupported():
    instances = {}
    for name in dir(arignote.scalar):
        value = getattr(arignote.scalar, name)
        if isinstance(value, ScalarOp):
            instances[type(value)] = value
    assert len(instances) > 80
    failures = []
    for cls, op in instances.items():
        if _listed(cls):
            continue
        try:
            assert callable(jax_funcify(op))
        except Exception as err:
            failures.append(f"{qualified_name(cls)}: {err}")
    assert failures == []


def test_every_unsupported_entry_has_a_reason():
    assert UNSUPPORTED
    for name, reason in UNSUPPORTED.items():
        assert name.startswith("arignote.") and len(reason) > 20, (name, reason)
