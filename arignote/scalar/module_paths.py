"""PyTensor's module path ``pytensor.scalar.math`` for the special functions.

PyTensor keeps its special functions (``gammainc``, ``betainc_grad``, ``Erf``...) in
``pytensor.scalar.math``; arignote defines them in ``scalar/special.py`` and
``scalar/special_more.py``, which sit above ``scalar/math.py`` (they use its ``exp`` and
``log``), so ``math`` cannot import them. This module, loaded last by ``arignote.scalar``,
serves them at that path too through a module ``__getattr__``: ``from arignote.scalar.math
import gammainc`` works as in PyTensor, while ``math``'s own code is unchanged.
"""

from __future__ import annotations

from typing import Any

from arignote.scalar import math, special, special_more
from arignote.scalar.basic import ScalarOp


def _public_ops_and_functions(module) -> dict[str, Any]:
    """The module's op classes, op instances and functions defined there (not imported)."""
    found = {}
    for name, value in vars(module).items():
        defined_here = getattr(value, "__module__", None) == module.__name__
        op_class = isinstance(value, type) and issubclass(value, ScalarOp)
        if name.startswith("_"):
            continue
        if isinstance(value, ScalarOp) or (defined_here and (op_class or callable(value))):
            found[name] = value
    return found


#: Names ``arignote.scalar.math`` serves besides its own, PyTensor's spellings included.
SERVED: dict[str, Any] = {
    **_public_ops_and_functions(special),
    **_public_ops_and_functions(special_more),
    "Owens_t": special_more.OwensT,
    "PolyGamma": special.Polygamma,
}


def __getattr__(name: str) -> Any:
    if name in SERVED:
        return SERVED[name]
    raise AttributeError(f"module {math.__name__!r} has no attribute {name!r}")


math.__getattr__ = __getattr__
