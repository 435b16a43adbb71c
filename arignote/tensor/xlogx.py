"""``xlogx`` and ``xlogy0``: ``x log x`` and ``x log y`` taken as 0 where ``x`` is 0.

PyTensor's ``pytensor.tensor.xlogx`` module; here they are graphs of elementwise ops. The log
reads 1 wherever ``x`` is 0, so neither the value nor the gradient sees ``0 * log 0``.
"""

from __future__ import annotations

from typing import Any

from arignote.graph.basic import Variable
from arignote.scalar.basic import upcast
from arignote.tensor.basic import as_tensor_variable
from arignote.tensor.indexing_ops import where
from arignote.tensor.math import cast, eq, log
from arignote.tensor.special import xlogy


def xlogx(x: Any) -> Variable:
    """``x * log(x)``, with 0 at ``x = 0`` (its limit)."""
    x = as_tensor_variable(x)
    # booleans and integers first become the float type NumPy's log gives them (float16 for
    # bool and int8), so the result has that dtype, as every other function of the log family
    x = cast(x, upcast(x.type.dtype, "float16"))
    zero = eq(x, 0)
    return where(zero, 0, x * log(where(zero, 1, x)))


def xlogy0(x: Any, y: Any) -> Variable:
    """``x * log(y)``, with 0 wherever ``x`` is 0 (``scipy.special.xlogy``)."""
    return xlogy(x, y)


# reached as a module (pt.xlogx.xlogx), as in PyTensor, not star-exported into pt
__all__: list[str] = []
