"""PyTensor's older module path for the ``numpy.linalg`` functions and their ops.

``pytensor.tensor.nlinalg`` (deprecated in PyTensor 3 in favour of ``pytensor.tensor.linalg``)
still serves code written against its reference, ``from pytensor.tensor.nlinalg import det``:
this module serves the same names, taken from :mod:`arignote.tensor.linalg`. It has no
``__all__``: the names stay out of the ``arignote.tensor`` namespace, as in PyTensor.
"""

from typing import Any

from arignote.tensor import linalg
from arignote.tensor.linalg import decompositions

_NAMES = (
    "SVD Det Eig Eigh Lstsq MatrixInverse MatrixPinv SLogDet det eig eigh inv kron lstsq "
    "matrix_dot matrix_inverse matrix_power norm pinv qr slogdet svd tensorinv tensorsolve "
    "trace"
)
NAMES = frozenset(_NAMES.split())


def __getattr__(name: str) -> Any:
    if name == "qr":  # numpy.linalg.qr's (mode="reduced" by default), as PyTensor 2's nlinalg
        return decompositions.qr
    if name in NAMES:
        return getattr(linalg, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(NAMES)
