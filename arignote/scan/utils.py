"""Helpers of the scan front end: ``until`` (the stopping condition of a ``while`` loop)."""

from __future__ import annotations

from typing import Any

from arignote.tensor.basic import as_tensor_variable


class until:
    """The stopping condition of a ``scan`` step: return ``until(cond)`` with the outputs.

    The loop stops after the first step whose ``cond`` is true (that step's outputs are
    kept); ``n_steps`` (or the sequences) still bound the number of steps.

    Parameters
    ----------
    condition
        A boolean (or integer) scalar.
    """

    def __init__(self, condition: Any) -> None:
        self.condition = as_tensor_variable(condition)
        if self.condition.type.ndim != 0:
            raise TypeError(f"until needs a scalar condition, got {self.condition.type}")


__all__ = ["until"]
