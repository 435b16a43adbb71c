"""Public test helpers for people who write ops: value, shape and gradient checks."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from arignote.compile import function, get_mode
from arignote.graph.op import Op
from arignote.tensor.type import float_tolerances
from arignote.testing.gradcheck import numeric_grad, verify_grad
from arignote.testing.rop import (
    BreakRop,
    RopLopChecker,
    break_op,
    check_nondiff_rop,
    check_rop_lop,
)
from arignote.testing.seeds import fetch_seed


def assert_allclose(
    expected: Any, value: Any, rtol: float | None = None, atol: float | None = None
) -> None:
    """Assert ``value`` equals ``expected`` within tolerances fit for their dtype.

    The error shows the largest absolute and relative differences and where they are.
    """
    expected, value = np.asarray(expected), np.asarray(value)
    if expected.shape != value.shape:
        raise AssertionError(f"shapes differ: expected {expected.shape}, got {value.shape}")
    dtype = np.result_type(expected, value).name
    default_rtol, default_atol = float_tolerances(dtype) if dtype[0] in "fc" else (0.0, 0.0)
    rtol = max(default_rtol, 1e-7) if rtol is None else rtol
    atol = default_atol if atol is None else atol
    np.testing.assert_allclose(value, expected, rtol=rtol, atol=atol, equal_nan=True)


def _has_repeated_lengths(values: list) -> bool:
    for v in values:
        shape = np.shape(v)
        sizes = [s for s in shape if s > 1]
        if len(sizes) != len(set(sizes)):
            return True
    return False


def _is_instance_of(op: Any, cls: Any) -> bool:
    if isinstance(cls, Op):
        return op == cls
    return isinstance(op, cls)


class InferShapeTester:
    """Base class for tests of ``infer_shape`` (``self._compile_and_check``)."""

    def setup_method(self) -> None:
        self.mode = get_mode("FAST_RUN")

    def _compile_and_check(
        self,
        inputs: list,
        outputs: list,
        numeric_inputs: list,
        cls: Any,
        excluding: list | None = None,
        warn: bool = True,
        check_topo: bool = True,
    ) -> None:
        """Check that ``outputs``' shapes are computed without ``cls`` ops and are right.

        Shapes are compiled alone: no op of class ``cls`` (or equal to ``cls`` when it is an op)
        may remain in that graph, and the shapes must equal those of the computed outputs. With
        ``warn``, inputs with repeated lengths (e.g. square matrices) raise a warning, since they
        cannot reveal mixed-up dimensions.
        """
        mode = getattr(self, "mode", None) or get_mode("FAST_RUN")
        if excluding:
            mode = mode.excluding(*excluding)
        if warn and _has_repeated_lengths(numeric_inputs):
            warnings.warn(
                "An input has the same length along several dimensions: the shape check cannot "
                "tell those dimensions apart. Use inputs of distinct lengths.",
                stacklevel=2,
            )
        outputs_fn = function(inputs, outputs, mode=mode, on_unused_input="ignore")
        shapes_fn = function(
            inputs, [o.shape for o in outputs], mode=mode, on_unused_input="ignore"
        )
        if check_topo:
            leftovers = [n for n in shapes_fn.maker.fgraph.toposort() if _is_instance_of(n.op, cls)]
            if leftovers:
                raise AssertionError(
                    f"The shape graph still computes {leftovers}: infer_shape of {cls} is not "
                    "used (or not defined)"
                )
        values = outputs_fn(*numeric_inputs)
        shapes = shapes_fn(*numeric_inputs)
        for i, (value, shape) in enumerate(zip(values, shapes)):
            if tuple(np.shape(value)) != tuple(shape):
                raise AssertionError(
                    f"Output {i}: infer_shape says {tuple(shape)}, the value has shape "
                    f"{np.shape(value)}"
                )


__all__ = [
    "BreakRop",
    "InferShapeTester",
    "RopLopChecker",
    "assert_allclose",
    "break_op",
    "check_nondiff_rop",
    "check_rop_lop",
    "fetch_seed",
    "numeric_grad",
    "verify_grad",
]
